"""Pipeline strings, the pass registry, named pipelines and verification between passes."""
import dataclasses

import pytest

from mtiacc.diagnostics import ExitCode, UserError
from mtiacc.ir import ops
from mtiacc.ir.core import VerifyError
from mtiacc.ir.types import i32
from mtiacc.opt import (PASSES, PIPELINES, ModulePass, parse_pipeline, pipeline_for_level,
                        register_pass, run_pipeline)
from mtiacc.opt.canonicalize import Canonicalize

from ..ir.helpers import emit, make_func, ret


def module_with_dead_code():
    m, f, b = make_func([i32])
    c = emit(b, ops.ConstantOp.get(2, i32))
    emit(b, ops.MulIOp.get(f.args[0], c))
    ret(b)
    return m


def test_registry_has_the_passes():
    assert {"canonicalize", "cse", "dce"} <= set(PASSES)


def test_parse_pipeline_with_options():
    passes = parse_pipeline(" canonicalize{max-iterations=3}, cse ,dce,canonicalize{max_iterations=2 }")
    assert [p.name for p in passes] == ["canonicalize", "cse", "dce", "canonicalize"]
    assert passes[0] == Canonicalize(max_iterations=3) and passes[3].max_iterations == 2
    assert passes[0].spelling() == "canonicalize{max-iterations=3}"
    assert parse_pipeline("dce{}")[0].name == "dce"
    assert parse_pipeline("") == []
    with pytest.raises(dataclasses.FrozenInstanceError):
        passes[0].max_iterations = 4


@pytest.mark.parametrize("text, message", [
    ("canonicalize,frobnicate", "unknown pass 'frobnicate' (known passes: "),
    ("dce{level=2}", "pass 'dce' has no option 'level' (its options: none)"),
    ("canonicalize{max-iterations=lots}", "option 'max-iterations' expects int, got 'lots'"),
    ("canonicalize{max-iterations}", "option 'max-iterations' needs a value"),
    ("canonicalize{max-iterations=2", "unbalanced '{'"),
    ("canonicalize,,dce", "empty pass name"),
])
def test_pipeline_errors(text, message):
    with pytest.raises(UserError) as info:
        parse_pipeline(text)
    assert message in info.value.message


def test_named_pipelines():
    assert pipeline_for_level(0) == "contract-fma,split-dots,band-accumulators,stream-blocks"
    assert pipeline_for_level(1).startswith("contract-fma,canonicalize,dce")
    assert "cse" in pipeline_for_level(2) and "machine-schedule" in pipeline_for_level(2)
    assert "machine-peephole" in pipeline_for_level(3)
    for text in PIPELINES.values():
        assert text.startswith("contract-fma")   # the numerics of every level alike
        parse_pipeline(text)
    with pytest.raises(UserError, match="-O7"):
        pipeline_for_level(7)


def test_run_pipeline_runs_in_order_and_reports():
    m = module_with_dead_code()
    seen = []
    runs = run_pipeline(m, "canonicalize,dce", after_pass=lambda p, mod: seen.append((p.name, len(mod.funcs[0].entry.ops))))
    assert seen == [("canonicalize", 3), ("dce", 1)]
    assert [r.name for r in runs] == ["canonicalize", "dce"] and all(r.seconds >= 0 for r in runs)


@register_pass
@dataclasses.dataclass(frozen=True)
class BreakIR(ModulePass):
    """A pass with a bug (for this test): it moves the return to the front."""

    name = "test-break-ir"
    really: bool = True

    def run(self, module):
        block = module.funcs[0].entry
        if self.really:
            block.ops.insert(0, block.ops.pop())


def test_verifier_failure_names_the_pass():
    with pytest.raises(VerifyError) as info:
        run_pipeline(module_with_dead_code(), "canonicalize,test-break-ir{really=true},dce")
    assert info.value.message.startswith("internal compiler error: IR verification failed after pass "
                                         "'test-break-ir': 'tt.return' op must be the last op of its block")
    assert info.value.exit_code == ExitCode.INTERNAL   # a pass's output: the compiler's bug
    run_pipeline(module_with_dead_code(), "test-break-ir{really=false}")
    # Without verification the broken IR goes through.
    run_pipeline(module_with_dead_code(), "test-break-ir", verify_each=False)


def test_invalid_input_is_reported_before_any_pass():
    m, f, b = make_func([i32])
    with pytest.raises(VerifyError, match="before the pipeline"):
        run_pipeline(m, "dce")


def test_a_parsed_pass_knows_which_options_its_text_set():
    from mtiacc.opt import parse_pipeline
    dots, loads, persist = parse_pipeline("pipeline-dots{stages=4},pipeline-loads,persistent-programs{slots=8}")
    assert dots.user_set("stages") and not dots.user_set("lmem_bytes")   # set to its default value: still set
    assert not loads.user_set("stages")
    assert persist.user_set("slots") and not persist.user_set("stages")
    changed = persist.with_options(stages=3)
    assert changed.stages == 3 and changed.user_set("slots") and not changed.user_set("stages")


def test_the_driver_leaves_options_the_pipeline_text_set():
    """A config's num_stages and the target's PE count fill in only what --passes left unset."""
    from mtiacc.driver import Options, pipeline_passes
    text = "pipeline-dots{stages=4},pipeline-loads,persistent-programs{slots=8}"
    got = {p.name: p for p in pipeline_passes(Options(passes=text, num_stages=2, codegen=False))}
    assert got["pipeline-dots"].stages == 4 and got["pipeline-loads"].stages == 2
    assert got["persistent-programs"].slots == 8 and got["persistent-programs"].stages == 2
    got = {p.name: p for p in pipeline_passes(Options(passes="persistent-programs", codegen=False))}
    assert got["persistent-programs"].slots == 64    # mtia2i's 8 x 8 PEs
