"""verify_module: the generic checks from op declarations, op rules, structure and dominance."""
import pytest

from mtiacc.diagnostics import SourceLocation
from mtiacc.ir import ops
from mtiacc.ir.core import VerifyError
from mtiacc.ir.types import BlockType, PointerType, f32, i1, i32, i64
from mtiacc.ir.verifier import verify_module

from .helpers import emit, make_func, ret

LOC = SourceLocation("k.py", 3, 7)


def fails(module, message):
    with pytest.raises(VerifyError) as info:
        verify_module(module)
    assert message in info.value.message, info.value.message
    return info.value


def test_valid_function_verifies():
    m, f, b = make_func([PointerType(f32), i32])
    p, n = f.args
    r = emit(b, ops.MakeRangeOp.get(0, 16))
    mask = emit(b, ops.CmpIOp.get("slt", r, emit(b, ops.SplatOp.get(n, (16,)))))
    ptrs = emit(b, ops.AddPtrOp.get(emit(b, ops.SplatOp.get(p, (16,))), r))
    x = emit(b, ops.LoadOp.get(ptrs, mask))
    b.insert(ops.StoreOp.get(ptrs, emit(b, ops.AddFOp.get(x, x)), mask))
    ret(b)
    verify_module(m)


def test_operand_type_constraint():
    m, f, b = make_func([f32])
    b.insert(ops.AddIOp.get(f.args[0], f.args[0], loc=LOC))
    ret(b)
    err = fails(m, "'arith.addi' op operand 'lhs' must be integer or block of integers, got f32")
    assert err.loc == LOC


def test_same_operand_and_result_type():
    m, f, b = make_func([i32, i64])
    b.insert(ops.AddIOp.get(*f.args))
    ret(b)
    fails(m, "operands and result must have the same type, got i32, i64")


def test_wrong_arity():
    m, f, b = make_func([i32])
    b.insert(ops.MulIOp([f.args[0]], [i32]))
    ret(b)
    fails(m, "'arith.muli' op expected 2 operands, got 1")


def test_missing_attribute():
    m, f, b = make_func()
    b.insert(ops.GetProgramIdOp([], [i32], {}))
    ret(b)
    fails(m, "'tt.get_program_id' op missing attribute 'axis'")


def test_attribute_of_the_wrong_kind_and_op_rules():
    m, f, b = make_func()
    b.insert(ops.GetProgramIdOp([], [i32], {"axis": "x"}))
    ret(b)
    fails(m, "attribute 'axis' must be int, got 'x'")
    m, f, b = make_func()
    b.insert(ops.MakeRangeOp.get(0, 12))
    ret(b)
    fails(m, "range length must be a power of two, got 12")


def test_cmpi_predicate_and_result():
    m, f, b = make_func([i32])
    b.insert(ops.CmpIOp.get("lt", f.args[0], f.args[0]))
    ret(b)
    fails(m, "unknown predicate 'lt'")


def test_use_before_definition():
    m, f, b = make_func([i32])
    c = ops.ConstantOp.get(1, i32)
    add = ops.AddIOp.get(f.args[0], c.result, loc=LOC)
    b.insert(add)
    b.insert(c)  # defined after its use
    ret(b)
    err = fails(m, "'arith.addi' op operand #1 is used before it is defined")
    assert err.loc == LOC


def test_value_from_another_function_is_not_visible():
    m, f, b = make_func([i32], name="a")
    ret(b)
    g = ops.FuncOp.get("b", [], [])
    m.body.block.append(g)
    g.entry.append(ops.AddIOp.get(f.args[0], f.args[0]))
    g.entry.append(ops.ReturnOp.get())
    fails(m, "operand #0 is used before it is defined (or is not defined in this scope)")


def test_terminator_must_be_last_and_present():
    m, f, b = make_func([i32])
    ret(b)
    b.insert(ops.AddIOp.get(f.args[0], f.args[0]))
    fails(m, "'tt.return' op must be the last op of its block")
    m, f, b = make_func([i32])
    fails(m, "'tt.func' op 'k' must end with 'tt.return'")


def test_function_type_must_match_entry_block():
    m, f, b = make_func([i32])
    ret(b)
    f.entry.add_arg(f32)
    fails(m, "entry block arguments (i32, f32) do not match the function type (i32) -> ()")


def test_only_functions_at_module_level():
    m, f, b = make_func()
    ret(b)
    m.body.block.append(ops.ConstantOp.get(1, i32))
    fails(m, "'arith.constant' op cannot appear at module level")


def test_shapes_of_memory_ops():
    m, f, b = make_func([PointerType(f32), BlockType((8,), i1)])
    b.insert(ops.LoadOp.get(f.args[0], f.args[1]))
    ret(b)
    fails(m, "mask must have the pointer's shape")


def _access_module(ptr_type, kind, store=False):
    m, f, b = make_func([ptr_type])
    ptr = f.args[0]
    if store:
        x = emit(b, ops.LoadOp.get(ptr))
        b.insert(ops.StoreOp.get(ptr, x, attrs={"access": kind}))
    else:
        emit(b, ops.LoadOp.get(ptr, attrs={"access": kind}))
    ret(b)
    return m


@pytest.mark.parametrize("ptr_type, kind, store", [
    (PointerType(f32), "scalar", False), (PointerType(f32), "scalar", True),
    (BlockType((8,), PointerType(f32)), "contiguous", False), (BlockType((8,), PointerType(f32)), "elements", True),
    (BlockType((8, 1), PointerType(f32)), "runs", False), (BlockType((4, 8), PointerType(f32)), "split-tiles", True),
    (BlockType((2, 4, 8), PointerType(f32)), "tiles", False), (BlockType((4, 8), PointerType(f32)), "gather", False),
    (BlockType((8,), PointerType(f32)), "scatter", True),
    (BlockType((64, 32), PointerType(f32)), "wrapped-tiles", False), (BlockType((2, 4, 8), PointerType(f32)),
                                                                      "wrapped-tiles", True),
    (BlockType((8,), PointerType(f32)), "wrapped-tiles", False)])
def test_access_kinds_that_fit_verify(ptr_type, kind, store):
    verify_module(_access_module(ptr_type, kind, store))


@pytest.mark.parametrize("ptr_type, kind, store, message", [
    (BlockType((8,), PointerType(f32)), "dma", False, 'access = "dma" is not a known kind (known: contiguous,'),
    (BlockType((8,), PointerType(f32)), "scalar", False, 'access = "scalar" needs a scalar pointer, got tensor<8x'),
    (PointerType(f32), "contiguous", True, 'access = "contiguous" needs a 1-D pointer block, got !tt.ptr<f32>'),
    (BlockType((4, 8), PointerType(f32)), "runs", False, 'access = "runs" needs a block of one axis'),
    (BlockType((1,), PointerType(f32)), "runs", False, 'access = "runs" needs a block of one axis'),
    (BlockType((4, 1), PointerType(f32)), "split-tiles", True, 'access = "split-tiles" needs a 2-D pointer block'),
    (BlockType((8,), PointerType(f32)), "gather", True, 'access = "gather" is for tt.load and mtia.async_copy only'),
    (BlockType((8,), PointerType(f32)), "scatter", False, 'access = "scatter" is for tt.store only'),
    (PointerType(f32), "wrapped-tiles", False, 'access = "wrapped-tiles" needs a pointer block with an axis longer'),
    (BlockType((1, 1), PointerType(f32)), "wrapped-tiles", True, 'access = "wrapped-tiles" needs a pointer block')])
def test_access_kind_must_be_known_and_fit_the_op(ptr_type, kind, store, message):
    fails(_access_module(ptr_type, kind, store), message)


def test_select_types():
    m, f, b = make_func([i1, i32, f32])
    b.insert(ops.SelectOp([f.args[0], f.args[1], f.args[2]], [i32]))
    ret(b)
    fails(m, "both values and the result must have one type")


@pytest.mark.parametrize("value, type_, message", [
    (300, i32, None), (2**31, i32, "value 2147483648 is out of range for i32"),
    (1.0, i32, "value 1.0 does not match type i32"), (1, i1, "an i1 constant must be true or false"),
    (-1, BlockType((4,), i32), None),
])
def test_constant_values(value, type_, message):
    m, f, b = make_func()
    b.insert(ops.ConstantOp([], [type_], {"value": value}))
    ret(b)
    if message is None:
        verify_module(m)
    else:
        fails(m, message)


def test_slot_wait_counts_the_transfers_behind_it():
    from mtiacc.ir.mtia.kept import SlotWaitOp
    for bad in (-1, 1.5):
        m, f, b = make_func()
        b.insert(SlotWaitOp([], [], {"behind": bad}))
        ret(b)
        fails(m, "mtia.slot_wait")
    m, f, b = make_func()
    b.insert(SlotWaitOp.get(behind=1))
    b.insert(SlotWaitOp.get())
    ret(b)
    verify_module(m)
