"""The generic text form: exact printer output, and print -> parse -> print round trips."""
import math

import pytest
from hypothesis import given, settings, strategies as st

from mtiacc.diagnostics import CompileError, SourceLocation
from mtiacc.ir import ops
from mtiacc.ir.text.parser import parse_ir
from mtiacc.ir.text.printer import print_ir
from mtiacc.ir.types import BlockType, PointerType, f32, i1, i32, u8

from .helpers import emit, make_func, ret


def small_module():
    m, f, b = make_func([PointerType(f32), i32], ["X", "N"])
    b.loc = SourceLocation("k.py", 4, 5)
    pid = emit(b, ops.GetProgramIdOp.get(0))
    pid.name_hint = "pid"
    c = emit(b, ops.ConstantOp.get(float("inf"), BlockType((4,), f32)))
    emit(b, ops.AddIOp.get(pid, f.args[1]))
    emit(b, ops.ConstantOp.get(True, i1))
    ptr = emit(b, ops.SplatOp.get(f.args[0], (4,)))
    b.insert(ops.StoreOp.get(ptr, c))
    ret(b)
    return m


EXPECTED = '''\
"builtin.module"() ({
  "tt.func"() {sym_name = "k", function_type = (!tt.ptr<f32>, i32) -> (), arg_names = ["X", "N"]} ({
  ^bb0(%X: !tt.ptr<f32>, %N: i32):
    %pid = "tt.get_program_id"() {axis = 0} : () -> i32 loc("k.py":4:5)
    %0 = "arith.constant"() {value = 0x7F800000 : f32} : () -> tensor<4xf32> loc("k.py":4:5)
    %1 = "arith.addi"(%pid, %N) : (i32, i32) -> i32 loc("k.py":4:5)
    %2 = "arith.constant"() {value = true} : () -> i1 loc("k.py":4:5)
    %3 = "tt.splat"(%X) : (!tt.ptr<f32>) -> tensor<4x!tt.ptr<f32>> loc("k.py":4:5)
    "tt.store"(%3, %0) {operandSegmentSizes = [1, 1, 0]} : (tensor<4x!tt.ptr<f32>>, tensor<4xf32>) -> () loc("k.py":4:5)
    "tt.return"() {operandSegmentSizes = [0]} : () -> () loc("k.py":4:5)
  }) : () -> ()
}) : () -> ()
'''


def test_printer_output():
    assert print_ir(small_module()) == EXPECTED


def test_round_trip():
    text = print_ir(small_module())
    assert print_ir(parse_ir(text)) == text


def test_round_trip_keeps_the_access_plan():
    """The ``access`` attribute of loads and stores prints, parses back and prints the same."""
    from mtiacc.opt.access_plan import AccessPlan
    m, f, b = make_func([PointerType(f32), i32], ["X", "N"])
    r = emit(b, ops.MakeRangeOp.get(0, 4))
    ptrs = emit(b, ops.AddPtrOp.get(emit(b, ops.SplatOp.get(f.args[0], (4,))), r))
    x = emit(b, ops.LoadOp.get(ptrs, emit(b, ops.CmpIOp.get("slt", r, emit(b, ops.SplatOp.get(f.args[1], (4,)))))))
    y = emit(b, ops.LoadOp.get(f.args[0]))
    b.insert(ops.StoreOp.get(ptrs, emit(b, ops.MulFOp.get(x, emit(b, ops.SplatOp.get(y, (4,)))))))
    ret(b)
    AccessPlan().run(m)
    text = print_ir(m)
    assert text.count('access = "contiguous"') == 2 and text.count('access = "scalar"') == 1
    again = parse_ir(text)
    assert [op.access for op in again.funcs[0].walk() if op.name in ("tt.load", "tt.store")] == \
        ["contiguous", "scalar", "contiguous"]
    assert print_ir(again) == text


def test_parsed_ir_keeps_types_uses_and_locations():
    m = parse_ir(EXPECTED)
    (f,) = m.funcs
    ops_ = f.entry.ops
    assert ops_[0].loc == SourceLocation("k.py", 4, 5)
    assert math.isinf(ops_[1].value)
    assert ops_[2].lhs is ops_[0].result and ops_[2].rhs is f.args[1]
    assert [u.op for u in f.args[1].uses] == [ops_[2]]
    assert ops_[5].mask is None and ops_[5].value is ops_[1].result


@pytest.mark.parametrize("text, message, line, col", [
    ('"builtin.module"() ({\n  %0 = "arith.nope"() : () -> i32\n}) : () -> ()', "unknown op 'arith.nope'", 2, 8),
    ('"builtin.module"() ({\n  %0 = "arith.addi"(%1, %1) : (i32, i32) -> i32\n}) : () -> ()',
     "use of undefined value %1", 2, 21),
    ('"builtin.module"() ({\n  %0 = "arith.constant"() {value = 1} : () -> i33\n}) : () -> ()',
     "expected a type", 2, 47),
    ('"builtin.module"() ({}) : () -> () trailing', "unexpected text after the top-level op", 1, 36),
])
def test_parse_errors_have_locations(text, message, line, col):
    with pytest.raises(CompileError) as info:
        parse_ir(text, "t.mlir")
    assert info.value.message == message
    assert (info.value.loc.line, info.value.loc.col) == (line, col)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["addi", "muli", "xori", "cmpi", "const_f", "const_u8"]),
                          st.integers(-2**31, 2**31 - 1), st.floats(allow_nan=True, width=32)),
                max_size=12))
def test_round_trip_of_generated_functions(steps):
    m, f, b = make_func([i32], ["x"])
    values = [f.args[0]]
    for kind, n, x in steps:
        if kind == "const_f":
            emit(b, ops.ConstantOp.get(x, f32))
        elif kind == "const_u8":
            emit(b, ops.ConstantOp.get(n & 0xFF, u8))
        elif kind == "cmpi":
            emit(b, ops.CmpIOp.get("sle", values[n % len(values)], values[-1]))
        else:
            c = emit(b, ops.ConstantOp.get(n, i32))
            cls = {"addi": ops.AddIOp, "muli": ops.MulIOp, "xori": ops.XOrIOp}[kind]
            values.append(emit(b, cls.get(values[n % len(values)], c)))
    ret(b)
    text = print_ir(m)
    assert print_ir(parse_ir(text)) == text
