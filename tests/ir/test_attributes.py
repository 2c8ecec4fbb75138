"""Declared attributes only: an op carries the attributes its class declares, and nothing else.

The verifier rejects an undeclared attribute (and the pass manager names the pass that left it); every
declaration is well formed; docs/architecture.md's table is the declarations'; and compiling the examples and
kernels that exercise every marker a pass leaves (verifying after each pass) meets no undeclared attribute."""
import contextlib
import dataclasses
import importlib.util
import io
import re

import pytest

import mtiacc.ir  # noqa: F401  (registers every op)
from mtiacc.diagnostics import CompileError, ExitCode, SourceLocation
from mtiacc.ir import ops
from mtiacc.ir.core import OP_REGISTRY, Operation, VerifyError, attribute
from mtiacc.ir.text.parser import parse_ir
from mtiacc.ir.text.printer import print_ir
from mtiacc.ir.types import FunctionType, Type, f32, i32
from mtiacc.ir.verifier import verify_module
from mtiacc.opt import PASSES, ModulePass, PassVerifyError, run_pipeline
from mtiacc.opt import pass_manager
from tests.conftest import EXAMPLES, ROOT

from .helpers import emit, make_func, ret

LOC = SourceLocation("k.py", 4, 9)


def _program_id_module(attrs, loc=LOC):
    m, f, b = make_func()
    b.loc = loc
    emit(b, ops.GetProgramIdOp([], [i32], attrs))
    ret(b)
    return m


# --------------------------------------------------------------------------- the verifier


def test_the_verifier_rejects_an_undeclared_attribute():
    with pytest.raises(VerifyError) as info:
        verify_module(_program_id_module({"axis": 0, "hoisted": True}))
    assert info.value.message == ("'tt.get_program_id' op has attribute 'hoisted', which 'tt.get_program_id' does "
                                  "not declare (it declares: 'axis')")
    assert info.value.loc == LOC
    verify_module(_program_id_module({"axis": 0}))   # the same op without it is fine


def test_an_op_that_declares_none_says_so():
    m, f, b = make_func()
    b.insert(ops.ReturnOp([], [], {"kept": "why"}, segments=[0]))
    with pytest.raises(VerifyError, match=r"^'tt.return' op has attribute 'kept', which 'tt.return' does not "
                                          r"declare \(it declares: none\)$"):
        verify_module(m)


def test_declared_kinds_are_checked_strictly():
    """``True`` is an ``int`` to Python, not to an attribute declared ``int``; a list's items have their kind."""
    with pytest.raises(VerifyError, match=r"attribute 'axis' must be int, got True$"):
        verify_module(_program_id_module({"axis": True}))
    m, f, b = make_func()
    f.attrs["arg_names"] = [1]
    ret(b)
    with pytest.raises(VerifyError, match=r"'tt.func' op attribute 'arg_names' must be list of str, got \[1\]$"):
        verify_module(m)


def test_a_combine_region_reduce_is_checked_too():
    """``tt.reduce`` with a combine region verifies by its own rules, the declared attributes included."""
    text = ('"builtin.module"() ({\n  "tt.func"() {sym_name = "k", function_type = (tensor<4xi32>) -> (), '
            'arg_names = ["x"]} ({\n  ^bb0(%x: tensor<4xi32>):\n'
            '    %r = "tt.reduce"(%x) {axis = 0, stamp = 1} ({\n    ^bb0(%a: i32, %b: i32):\n'
            '      %s = "arith.addi"(%a, %b) : (i32, i32) -> i32\n'
            '      "tt.reduce.return"(%s) {operandSegmentSizes = [1]} : (i32) -> ()\n'
            '    }) : (tensor<4xi32>) -> i32\n    "tt.return"() {operandSegmentSizes = [0]} : () -> ()\n'
            '  }) : () -> ()\n}) : () -> ()\n')
    module = parse_ir(text.replace(", stamp = 1", ""))
    verify_module(module)
    reduce = next(op for op in module.walk() if op.name == "tt.reduce")
    reduce.attrs["stamp"] = 1
    with pytest.raises(VerifyError, match="'tt.reduce' op has attribute 'stamp', which 'tt.reduce' does not declare"):
        verify_module(module)
    with pytest.raises(CompileError, match="'tt.reduce' op has attribute 'stamp', which 'tt.reduce' does not declare"):
        parse_ir(text)


@dataclasses.dataclass(frozen=True)
class _StampPass(ModulePass):
    """Leaves a marker no op declares on every ``tt.get_program_id`` (or, ``declared``, one it declares)."""

    name = "test-stamp-marker"
    declared: bool = False

    def run(self, module):
        for op in module.walk():
            if isinstance(op, ops.GetProgramIdOp):
                op.attrs["axis" if self.declared else "stamped"] = 0


def test_a_pass_that_leaves_an_undeclared_marker_is_named_as_an_internal_error(monkeypatch):
    monkeypatch.setitem(PASSES, _StampPass.name, _StampPass)
    with pytest.raises(PassVerifyError) as info:
        run_pipeline(_program_id_module({"axis": 0}), "canonicalize,test-stamp-marker,dce")
    assert info.value.message == (
        "internal compiler error: IR verification failed after pass 'test-stamp-marker': 'tt.get_program_id' op "
        "has attribute 'stamped', which 'tt.get_program_id' does not declare (it declares: 'axis')")
    assert info.value.loc == LOC and info.value.exit_code == ExitCode.INTERNAL
    assert "this is a bug in mtiacc" in info.value.render()
    run_pipeline(_program_id_module({"axis": 0}), "test-stamp-marker{declared=true}")


def _cli(*args):
    """``mtiacc ARGS`` in process: (exit code, standard error)."""
    from mtiacc.cli import main
    err, code = io.StringIO(), 0
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            main([str(a) for a in args])
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    return code, err.getvalue()


def test_mtiacc_opt_reads_an_undeclared_attribute_as_bad_input(tmp_path):
    """In a user's .mtir file the attribute is the input's fault: the parser's error at the attribute's own line
    and column (not at the op's loc(...), which names the kernel's source), exit 3."""
    text = print_ir(_program_id_module({"axis": 0})).replace("{axis = 0}", "{axis = 0, hoisted = true}")
    assert 'loc("k.py":4:9)' in text
    path = tmp_path / "k.mtir"
    path.write_text(text)
    code, err = _cli("opt", path, "--passes=cse")
    assert code == ExitCode.BAD_INPUT
    assert err.splitlines()[0] == (
        f"{path}:3:43: error: 'tt.get_program_id' op has attribute 'hoisted', which 'tt.get_program_id' does not "
        "declare (it declares: 'axis')")
    assert err.splitlines()[2] == " " * 42 + "^"


def _parse_error(text: str) -> CompileError:
    with pytest.raises(CompileError) as info:
        parse_ir(text, "t.mlir")
    return info.value


_GET_ID = ('"builtin.module"() ({\n  "tt.func"() {sym_name = "k", function_type = () -> (), arg_names = []} ({\n'
           '    %0 = "tt.get_program_id"() {ATTRS} : () -> i32\n'
           '    "tt.return"() {operandSegmentSizes = [0]} : () -> ()\n  }) : () -> ()\n}) : () -> ()\n')


@pytest.mark.parametrize("attrs, message, col", [
    ("axis = 0, hoisted = true", "'tt.get_program_id' op has attribute 'hoisted', which 'tt.get_program_id' does "
                                 "not declare (it declares: 'axis')", 43),
    ("axis = true", "'tt.get_program_id' op attribute 'axis' must be int, got True", 40),
    ('axis = "x"', "'tt.get_program_id' op attribute 'axis' must be int, got 'x'", 40),
    ("axis = 0, axis = 1", "'tt.get_program_id' op has attribute 'axis' twice", 43),
    ("axis = 0, operandSegmentSizes = [-1]", "'tt.get_program_id' op operandSegmentSizes must be a list of sizes, "
                                             "got [-1]", 65),
])
def test_the_parser_rejects_an_attribute_at_its_position(attrs, message, col):
    """An undeclared attribute is an error at its name, a value of another kind one at the value: file:line:col."""
    parse_ir(_GET_ID.replace("ATTRS", "axis = 0"))
    error = _parse_error(_GET_ID.replace("ATTRS", attrs))
    assert error.message == message
    assert (error.loc.file, error.loc.line, error.loc.col) == ("t.mlir", 3, col)


def test_the_parser_reads_every_declared_kind_back():
    """What the printer writes of each kind (a float by its bits, a type, a function type, a list of strings)
    the parser admits: a function with the local-memory plan and a constant inf."""
    m, f, b = make_func()
    f.attrs.update(lmem_capacity=1024, lmem_blocks=["x 0 64"], sym_visibility="private")
    emit(b, ops.ConstantOp.get(float("inf"), f32))
    ret(b)
    text = print_ir(m)
    assert "0x7F800000 : f32" in text and 'lmem_blocks = ["x 0 64"]' in text
    assert print_ir(parse_ir(text)) == text


# --------------------------------------------------------------------------- the declarations

_KINDS = (int, float, bool, str, list, FunctionType, Type)


def declaration_problems(cls) -> list:
    """What is wrong with ``cls``'s attribute declarations (empty when they are well formed)."""
    out = []
    names = [d.name for d in cls._operand_defs + cls._result_defs + cls._region_defs]
    for d in cls._attr_defs:
        where = f"{cls.name or cls.__name__}.{d.name}"
        kinds = d.kind if isinstance(d.kind, tuple) else (d.kind,)
        if not d.name.isidentifier() or d.name == "operandSegmentSizes":
            out.append(f"{where}: not an attribute name")
        if d.name in names:
            out.append(f"{where}: also an operand, result or region")
        if not kinds or any(k not in _KINDS for k in kinds):
            out.append(f"{where}: kind {d.kind!r} is not one the printer and parser carry")
        if d.of is not None and list not in kinds:
            out.append(f"{where}: item kind without a list kind")
        if not isinstance(d.doc, str) or len(d.doc.split()) < 2 or d.doc.endswith("."):
            out.append(f"{where}: needs a doc, a phrase saying what it says")
        if not d.optional and d.default is not None:
            out.append(f"{where}: a required attribute has no default")
        if d.optional and d.default is not None and not (d.admits(d.default) or d.default == () and list in kinds):
            out.append(f"{where}: default {d.default!r} is not {d.kind_name()}")
    return out


def test_every_op_declares_its_attributes_well():
    assert len(OP_REGISTRY) > 100
    problems = [p for cls in OP_REGISTRY.values() for p in declaration_problems(cls)]
    assert problems == []


def test_a_bad_declaration_is_caught():
    class Bad(Operation):          # no name: not registered
        x = attribute()                                       # no kind, no doc
        y = attribute(int, default=3, doc="a required one with a default")
        z = attribute(str, optional=True, default=2, doc="a default of another kind")
        w = attribute(str, of=int, doc="items of a string")
    assert declaration_problems(Bad) == [
        "Bad.x: kind <class 'object'> is not one the printer and parser carry",
        "Bad.x: needs a doc, a phrase saying what it says",
        "Bad.y: a required attribute has no default",
        "Bad.z: default 2 is not str",
        "Bad.w: item kind without a list kind"]


def test_the_docs_table_is_the_declarations():
    spec = importlib.util.spec_from_file_location("ir_main", ROOT / "mtiacc" / "ir" / "__main__.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    assert gen.current() == gen.render(), "docs/architecture.md is stale: run python -m mtiacc.ir --write"
    assert "| `scf.if` | `kept` | str | optional |" in gen.render()


_WRITE = re.compile(r"""\.attrs\[\s*["'](\w+)["']\s*\]\s*=|\.attrs\.setdefault\(\s*["'](\w+)["']""")


def test_every_attribute_the_sources_write_is_declared_by_an_op():
    """A static net under the compiles below: each ``op.attrs["NAME"] = ...`` in mtiacc/ names a declared attribute."""
    declared = {d.name for cls in OP_REGISTRY.values() for d in cls._attr_defs}
    written = {}
    for path in (ROOT / "mtiacc").rglob("*.py"):
        for m in _WRITE.finditer(path.read_text(encoding="utf-8")):
            written.setdefault(m.group(1) or m.group(2), path.relative_to(ROOT))
    assert {"keep_invariant", "kept", "prefetch_rows", "lmem_peak", "sym_visibility", "memory"} <= set(written)
    assert {k: str(v) for k, v in written.items() if k not in declared} == {}


# --------------------------------------------------------------------------- compiles

def _round_trips(module) -> None:
    text = print_ir(module)
    assert print_ir(parse_ir(text)) == text


@pytest.fixture
def seen(monkeypatch):
    """Every (op, attribute) the verifier saw: on the frontend's IR, and the pass manager's after each pass (each
    IR also printed, parsed and printed again: the same text)."""
    from mtiacc.frontend import entry
    pairs = set()
    verify = pass_manager.verify_module

    def recording(module):
        verify(module)
        _round_trips(module)
        pairs.update((op.name, k) for op in module.walk() for k in op.attrs)
    monkeypatch.setattr(pass_manager, "verify_module", recording)
    monkeypatch.setattr(entry, "verify_module", recording)
    return pairs


def _bench():
    spec = importlib.util.spec_from_file_location("bench_passes", ROOT / "benchmarks" / "bench_passes.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


def test_every_example_compiles_with_declared_attributes_only(seen):
    """Each examples/*.py kernel compiled to a binary at the default -O3 (the most passes), verified (and its IR
    round-tripped through the printer and the parser) after each pass (every other compile of the suite verifies
    after each pass too)."""
    from mtiacc.driver import Options, compile_kernel
    bench = _bench()
    assert {p.name for p in EXAMPLES.glob("*.py")} >= set(bench.EXAMPLES)
    for example in sorted(bench.EXAMPLES):
        spec = bench.EXAMPLES[example]
        for level in (3,):
            opts = Options(kernel=spec.get("kernel"), defines=dict(spec["defines"]), signature=spec["signature"],
                           grid=spec["grid"], opt_level=level)
            out = compile_kernel(str(EXAMPLES / example), opts)
            assert out.binary
            # the IR as codegen read it: the local-memory plan, written on the function after the passes
            pass_manager.verify_module(out.frontend.module)
    declared = {(n, d.name) for n, cls in OP_REGISTRY.items() for d in cls._attr_defs}
    assert seen <= declared
    assert {("scf.for", "persistent"), ("scf.for", "keep_invariant"), ("scf.for", "prefetch_rows"),
            ("scf.for", "pipeline"), ("tt.load", "prefetch"), ("tt.load", "access"), ("tt.store", "access"),
            ("tt.func", "lmem_peak"), ("tt.func", "lmem_blocks")} <= seen


FC = ROOT / "tests" / "filecheck"
# kernels whose compiles leave the markers the examples do not: (file, flags)
KERNELS = [
    ("keep_invariant_periodic.py", "--kernel add_bias -O3 -D N=256 -D BLOCK=64"),
    ("prefetch_rows.py", "-O3 -D BLOCK=256 --kernel center_rows"),
    ("dot_read_back.py", "-O2 --signature *bf16,*bf16,*bf16,i32"),
    ("dot_resident.py", "-O2 --signature *bf16,*bf16,*fp32,i32"),
    ("dot_pipeline_prefetch.py", "-O3 -D BLOCK_SIZE_M=64 -D BLOCK_SIZE_N=64 -D BLOCK_SIZE_K=64 -D GROUP_SIZE_M=8 "
                                 "--signature *bf16,*bf16,*bf16,i32,i32,i32,i32,i32,i32,i32,i32,i32"),
    ("mtia_extensions_ir.py", "-O2 -D BLOCK=64 --signature=*fp32,*fp32,*i32,i32"),
    ("inline_helpers.py", "--kernel=k -O3"),
    ("lmem_fp8_dot.py", "-s *fp8e5,*fp8e5,*fp32,i32 -D BM=128 -D BN=256 -D BK=128 -D STAGES=3"),
    ("pipeline_loads.py", "--kernel row_scale -O2 -D BLOCK=64 --signature *fp32,*fp32,i32"),
]


def test_kernels_that_leave_every_other_marker_compile_with_declared_attributes_only(seen, tmp_path):
    for name, flags in KERNELS:
        code, err = _cli(FC / name, "--emit=asm", "-o", tmp_path / "k.s", *flags.split())
        assert code == 0, (name, err)
    declared = {(n, d.name) for n, cls in OP_REGISTRY.items() for d in cls._attr_defs}
    assert seen <= declared
    assert {("scf.if", "kept"), ("scf.for", "keep_invariant"), ("scf.for", "prefetch_rows"),
            ("tt.dot", "accumulator"), ("tt.dot", "read_back"), ("tt.store", "row_bands"),
            ("scf.for", "pipeline_stages"), ("tt.atomic_rmw", "memory"), ("tt.atomic_rmw", "buffer"),
            ("tt.func", "sym_visibility"), ("arith.extf", "fp8"), ("tt.func", "lmem_capacity")} <= seen
