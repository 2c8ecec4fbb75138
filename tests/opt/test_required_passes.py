"""The passes every compile runs (inline, carry-pointer-offsets, dot-accumulators, access-plan, legalize-fp8) and how a pipeline
holds them."""
import dataclasses

import pytest

from mtiacc.diagnostics import CompileError, UserError
from mtiacc.ir import ops
from mtiacc.ir.core import VerifyError
from mtiacc.ir.text.parser import parse_ir
from mtiacc.ir.text.printer import print_ir
from mtiacc.ir.types import PointerType, f32, f8e5, f8e4nv, i32, u8
from mtiacc.ir.verifier import verify_module
from mtiacc.opt import (CODEGEN_ONLY, PASSES, REQUIRED_PREFIX, REQUIRED_TAIL, ModulePass, for_codegen, parse_pipeline,
                        pipeline_for_level, register_pass, run_pipeline, spell_pipeline, split_tail)

from ..ir.helpers import emit, make_func, ret


def names(passes):
    return [p.name for p in passes]


def test_required_passes_are_registered_passes():
    for name in REQUIRED_PREFIX + REQUIRED_TAIL:
        assert name in PASSES and PASSES[name].name == name


@pytest.mark.parametrize("level", range(4))
def test_every_level_runs_them_around_its_pipeline(level):
    full = parse_pipeline(pipeline_for_level(level, codegen=True))
    optimize, codegen_only, machine = split_tail(full)   # --emit=ir shows the IR after `optimize`
    n = len(REQUIRED_TAIL) - len(CODEGEN_ONLY)
    assert names(optimize[:2]) == REQUIRED_PREFIX and names(optimize[-n:]) + names(codegen_only) == REQUIRED_TAIL
    assert names(codegen_only) == list(CODEGEN_ONLY)
    assert names(optimize[2:-n]) + names(machine) == names(parse_pipeline(pipeline_for_level(level)))
    assert all(p.name.startswith("machine-") for p in machine)


def test_a_pipeline_names_them_all_at_their_places_or_none():
    given = parse_pipeline("machine-schedule,cse,loop-unroll{factor=2}")
    full = for_codegen(given)
    assert spell_pipeline(full) == ("inline,carry-pointer-offsets,cse,loop-unroll{factor=2},dot-accumulators,access-plan,legalize-fp8,"
                                    "machine-schedule")
    assert for_codegen(full) == full   # what --dump-pipeline prints is accepted back as it is
    for bad in ("inline,cse", "cse,inline,carry-pointer-offsets,access-plan,legalize-fp8",
                "inline,carry-pointer-offsets,access-plan,legalize-fp8,cse",
                "inline,carry-pointer-offsets,inline,access-plan,legalize-fp8",
                "inline,carry-pointer-offsets,legalize-fp8,access-plan"):
        with pytest.raises(UserError, match="runs in every compile at a fixed place"):
            for_codegen(parse_pipeline(bad))


def test_a_required_pass_cannot_be_disabled():
    for name in REQUIRED_PREFIX + REQUIRED_TAIL:
        with pytest.raises(UserError, match=f"'{name}' cannot be disabled: code generation needs it"):
            for_codegen(parse_pipeline("cse"), disabled=[name])
    assert names(for_codegen(parse_pipeline("cse"), disabled=["dce"]))[2] == "cse"


@register_pass
@dataclasses.dataclass(frozen=True)
class BreakIRQuietly(ModulePass):
    """A pass with a bug (for this test) that says it changed nothing."""

    name = "test-break-ir-quietly"
    claim_unchanged: bool = True

    def run(self, module):
        block = module.funcs[0].entry
        block.ops.insert(0, block.ops.pop())
        return False if self.claim_unchanged else None


def test_no_verification_after_a_pass_that_changed_nothing():
    def module():
        m, f, b = make_func([i32])
        emit(b, ops.ConstantOp.get(2, i32))
        ret(b)
        return m
    run_pipeline(module(), "test-break-ir-quietly")   # believed: the IR it was given was verified
    with pytest.raises(VerifyError, match="after pass 'test-break-ir-quietly"):
        run_pipeline(module(), "test-break-ir-quietly{claim-unchanged=false}")
    m, f, b = make_func([i32])   # an unterminated function
    run_pipeline(m, "inline", verify_input=False)   # the caller verified it (say): inline changes nothing
    with pytest.raises(VerifyError, match="before the pipeline"):
        run_pipeline(m, "inline")


def _fp8_module():
    """k(X: ptr<f8E5M2>, Y: ptr<f8E4M3FN>): y = x converted (fp8 -> fp8), and x converted to f32 and back."""
    m, f, b = make_func([PointerType(f8e5), PointerType(f8e4nv)])
    x = emit(b, ops.LoadOp.get(f.args[0]))
    wide = emit(b, ops.ExtFOp.get(x, f32))
    emit(b, ops.StoreOp.get(f.args[1], emit(b, ops.TruncFOp.get(wide, f8e4nv))))
    emit(b, ops.StoreOp.get(f.args[1], emit(b, ops.TruncFOp.get(x, f8e4nv))))
    c = emit(b, ops.ConstantOp.get(1.5, f8e4nv))
    emit(b, ops.StoreOp.get(f.args[1], c))
    ret(b)
    return m


def test_legalize_fp8_retypes_marks_and_round_trips():
    m = _fp8_module()
    assert run_pipeline(m, "legalize-fp8")[0].name == "legalize-fp8"
    func = m.funcs[0]
    assert func.function_type.inputs == (PointerType(u8), PointerType(u8))
    casts = [op for op in func.walk() if isinstance(op, ops.FloatCastOp)]
    # the fp8 -> fp8 conversion is split through f32: every conversion has one fp8 end
    assert [(op.name, op.fp8) for op in casts] == [("arith.extf", "f8E5M2"), ("arith.truncf", "f8E4M3FN"),
                                                   ("arith.extf", "f8E5M2"), ("arith.truncf", "f8E4M3FN")]
    assert casts[0].fp8_ends() == (f8e5, f32) and casts[1].fp8_ends() == (f32, f8e4nv)
    const = next(op for op in func.walk() if isinstance(op, ops.ConstantOp))
    assert const.value == 0x3C and const.result.type == u8   # 1.5 in f8E4M3FN
    text = print_ir(m)
    assert '"arith.extf"(%0) {fp8 = "f8E5M2"} : (u8) -> f32' in text
    again = parse_ir(text)
    verify_module(again)
    assert print_ir(again) == text
    assert PASSES["legalize-fp8"]().run(again) is False   # nothing left to legalize


def test_legalize_fp8_rejects_computing_on_fp8():
    m, f, b = make_func([PointerType(f8e5)])
    x = emit(b, ops.LoadOp.get(f.args[0]))
    emit(b, ops.NegFOp.get(x))
    ret(b)
    with pytest.raises(CompileError, match="`arith.negf` on f8E5M2 is not supported yet"):
        run_pipeline(m, "legalize-fp8")
