"""scf ops and tt.call in the IR: round trips, verifier rules, and the passes around regions."""
import pytest

from mtiacc.ir import ops as O
from mtiacc.ir import scf
from mtiacc.ir.core import Builder, VerifyError
from mtiacc.ir.text.parser import parse_ir
from mtiacc.ir.text.printer import print_ir
from mtiacc.ir.types import f32, i1, i32, i64
from mtiacc.ir.verifier import verify_module
from mtiacc.opt import run_pipeline


def kernel(arg_types=(i32,), names=("N",), results=()):
    m = O.ModuleOp.get()
    f = O.FuncOp.get("k", list(arg_types), list(names), list(results))
    m.body.block.append(f)
    return m, f, Builder(f.entry)


def const(b, v, t):
    return b.insert(O.ConstantOp.get(v, t)).result


def sum_loop(use_result=True, extra_dead=False):
    """for i in range(0, N): acc += float(i); the sum is returned through an if (or dropped)."""
    m, f, b = kernel(results=[f32] if use_result else [])
    c0, c1, z = const(b, 0, i32), const(b, 1, i32), const(b, 0.0, f32)
    inits = [z, c0] if extra_dead else [z]
    loop = b.insert(scf.ForOp.get(c0, f.args[0], c1, inits, arg_names=["i", "acc", "dead"][:1 + len(inits)]))
    bb = Builder(loop.block)
    x = bb.insert(O.SIToFPOp.get(loop.induction_var, f32)).result
    s = bb.insert(O.AddFOp.get(loop.iter_args[0], x)).result
    ys = [s]
    if extra_dead:
        ys.append(bb.insert(O.AddIOp.get(loop.iter_args[1], c1)).result)
    bb.insert(scf.YieldOp.get(ys))
    if use_result:
        iff = b.insert(scf.IfOp.get(const(b, True, i1), [f32]))
        Builder(iff.then_block).insert(scf.YieldOp.get([loop.results[0]]))
        Builder(iff.else_block).insert(scf.YieldOp.get([z]))
        b.insert(O.ReturnOp.get([iff.results[0]]))
    else:
        b.insert(O.ReturnOp.get())
    return m, loop


def test_round_trip_with_block_arguments():
    m, _ = sum_loop(extra_dead=True)
    verify_module(m)
    text = print_ir(m)
    assert "^bb0(%i: i32, %acc: f32, %dead: i32):" in text
    again = parse_ir(text)
    verify_module(again)
    assert print_ir(again) == text


WHILE = '''"builtin.module"() ({
  "tt.func"() {sym_name = "k", function_type = (i32) -> (), arg_names = ["N"]} ({
  ^bb0(%N: i32):
    %c0 = "arith.constant"() {value = 0} : () -> i32
    %c1 = "arith.constant"() {value = 1} : () -> i32
    %r = "scf.while"(%c0) {operandSegmentSizes = [1]} ({
    ^bb0(%j: i32):
      %lt = "arith.cmpi"(%j, %N) {predicate = "slt"} : (i32, i32) -> i1
      "scf.condition"(%lt, %j) {operandSegmentSizes = [1, 1]} : (i1, i32) -> ()
    }, {
    ^bb0(%k: i32):
      %n = "arith.addi"(%k, %c1) : (i32, i32) -> i32
      "scf.yield"(%n) {operandSegmentSizes = [1]} : (i32) -> ()
    }) : (i32) -> i32
    "tt.return"() {operandSegmentSizes = [0]} : () -> ()
  }) : () -> ()
}) : () -> ()
'''


def test_while_parses_verifies_and_prints_back():
    m = parse_ir(WHILE)
    verify_module(m)
    assert print_ir(m) == WHILE


@pytest.mark.parametrize("old, new, message", [
    ('"scf.yield"(%n) {operandSegmentSizes = [1]} : (i32)', '"scf.yield"() {operandSegmentSizes = [0]} : ()',
     "'scf.yield' of the after region passes () but (i32) is expected"),
    ('"scf.condition"(%lt, %j) {operandSegmentSizes = [1, 1]} : (i1, i32)',
     '"scf.condition"(%j, %j) {operandSegmentSizes = [1, 1]} : (i32, i32)', "condition must be i1"),
    ('^bb0(%k: i32):', '^bb0(%k: i32, %extra: i32):', "after block arguments (i32, i32) must be (i32)"),
])
def test_while_verifier(old, new, message):
    text = WHILE.replace(old, new)
    assert text != WHILE
    with pytest.raises(VerifyError) as e:
        verify_module(parse_ir(text))
    assert message in e.value.message


def test_for_verifier_checks_yield_types_and_iv():
    m, loop = sum_loop(use_result=False)
    term = loop.block.terminator
    bad = scf.YieldOp.get([loop.induction_var])
    loop.block.insert_before(term, bad)
    term.erase()
    with pytest.raises(VerifyError, match=r"'scf.yield' of the body region passes \(i32\) but \(f32\)"):
        verify_module(m)


def test_for_bounds_must_share_a_type():
    m, f, b = kernel()
    c0 = const(b, 0, i32)
    c64 = const(b, 1, i64)
    loop = b.insert(scf.ForOp.get(c0, f.args[0], c64))
    Builder(loop.block).insert(scf.YieldOp.get())
    b.insert(O.ReturnOp.get())
    with pytest.raises(VerifyError, match="lower, upper and step must have one type"):
        verify_module(m)


def test_yield_outside_scf_is_rejected():
    m, f, b = kernel()
    b.insert(scf.YieldOp.get())
    with pytest.raises(VerifyError):
        verify_module(m)


def test_call_must_name_a_function_with_matching_types():
    m, f, b = kernel()
    b.insert(scf.CallOp.get("helper", [f.args[0]], [i32]))
    b.insert(O.ReturnOp.get())
    with pytest.raises(VerifyError, match="calls 'helper', which is not a function"):
        verify_module(m)
    h = O.FuncOp.get("helper", [f32], ["x"], [f32])
    Builder(h.entry).insert(O.ReturnOp.get([h.args[0]]))
    m.body.block.append(h)
    with pytest.raises(VerifyError, match="do not match the callee's type"):
        verify_module(m)


def test_dce_removes_pure_loop_and_unused_carried_values():
    m, loop = sum_loop(use_result=False)
    run_pipeline(m, "dce")
    assert "scf.for" not in print_ir(m)
    m, loop = sum_loop(use_result=True, extra_dead=True)
    run_pipeline(m, "dce")
    text = print_ir(m)
    assert "scf.for" in text and "%dead" not in text and "arith.addi" not in text


def test_canonicalize_folds_if_on_constant_condition():
    m, loop = sum_loop(use_result=True)
    run_pipeline(m, "canonicalize")
    text = print_ir(m)
    assert "scf.if" not in text and "scf.for" in text


def test_dce_keeps_while_loops():
    m = parse_ir(WHILE)
    run_pipeline(m, "dce")
    assert "scf.while" in print_ir(m)  # a while loop is never removed
