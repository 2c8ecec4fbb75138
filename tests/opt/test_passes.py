"""canonicalize, cse and dce on hand-built and frontend-built IR."""
import math

from mtiacc.ir import ops
from mtiacc.ir.text.printer import print_ir
from mtiacc.ir.types import BlockType, PointerType, f32, i1, i32
from mtiacc.ir.verifier import verify_module
from mtiacc.opt import run_pipeline

from ..ir.helpers import emit, make_func, ret


def body(m):
    return [op.name for op in m.funcs[0].entry.ops]


def test_folding_chains_reach_a_fixed_point():
    m, f, b = make_func([PointerType(f32)])
    c = emit(b, ops.ConstantOp.get(3, i32))
    x = emit(b, ops.AddIOp.get(c, c))
    y = emit(b, ops.MulIOp.get(x, x))
    z = emit(b, ops.SIToFPOp.get(emit(b, ops.SplatOp.get(y, (4,))), f32))
    b.insert(ops.StoreOp.get(emit(b, ops.SplatOp.get(f.args[0], (4,))), z))
    ret(b)
    run_pipeline(m, "canonicalize,dce")
    assert body(m) == ["arith.constant", "tt.splat", "tt.store", "tt.return"]
    const = m.funcs[0].entry.ops[0]
    assert const.value == 36.0 and const.result.type == BlockType((4,), f32)


def test_commutative_identities_match_either_side():
    m, f, b = make_func([i32])
    zero = emit(b, ops.ConstantOp.get(0, i32))
    one = emit(b, ops.ConstantOp.get(1, i32))
    r = emit(b, ops.AddIOp.get(zero, f.args[0]))
    r = emit(b, ops.MulIOp.get(one, r))
    r = emit(b, ops.SubIOp.get(zero, r))   # 0 - x is not x
    b.insert(ops.ReturnOp.get())
    run_pipeline(m, "canonicalize,dce")
    assert body(m) == ["tt.return"]  # the unused 0 - x is removed by dce, the rest folded away


def test_float_add_of_positive_zero_is_kept():
    m, f, b = make_func([PointerType(f32), f32])
    pz = emit(b, ops.ConstantOp.get(0.0, f32))
    nz = emit(b, ops.ConstantOp.get(-0.0, f32))
    a = emit(b, ops.AddFOp.get(f.args[1], pz))
    c = emit(b, ops.AddFOp.get(a, nz))
    b.insert(ops.StoreOp.get(f.args[0], c))
    ret(b)
    run_pipeline(m, "canonicalize,cse,dce")
    store = m.funcs[0].entry.ops[-2]
    assert store.value is a
    assert isinstance(a.op, ops.AddFOp)


def test_cse_keeps_negative_zero_apart_and_loads_separate():
    m, f, b = make_func([PointerType(f32)])
    consts = [emit(b, ops.ConstantOp.get(v, f32)) for v in (0.0, -0.0, 0.0)]
    loads = [emit(b, ops.LoadOp.get(f.args[0])) for _ in range(2)]
    for v in consts + loads:
        b.insert(ops.StoreOp.get(f.args[0], v))
    ret(b)
    run_pipeline(m, "cse")
    names = body(m)
    assert names.count("arith.constant") == 2 and names.count("tt.load") == 2
    values = [op.value for op in m.funcs[0].entry.ops if isinstance(op, ops.ConstantOp)]
    assert [math.copysign(1, v) for v in values] == [1, -1]


def test_mask_simplification():
    m, f, b = make_func([PointerType(f32)])
    ptr = emit(b, ops.SplatOp.get(f.args[0], (8,)))
    true = emit(b, ops.ConstantOp.get(True, BlockType((8,), i1)))
    false = emit(b, ops.ConstantOp.get(False, BlockType((8,), i1)))
    other = emit(b, ops.ConstantOp.get(1.0, BlockType((8,), f32)))
    x = emit(b, ops.LoadOp.get(ptr, true, other))
    y = emit(b, ops.LoadOp.get(ptr, false, other))
    z = emit(b, ops.LoadOp.get(ptr, false))  # undefined contents: left alone
    b.insert(ops.StoreOp.get(ptr, x, true))
    b.insert(ops.StoreOp.get(ptr, y, false))
    b.insert(ops.StoreOp.get(ptr, z, true))
    ret(b)
    run_pipeline(m, "canonicalize,dce")
    text = print_ir(m)
    assert text.count('"tt.load"') == 2 and text.count('"tt.store"') == 2
    loads = [op for op in m.funcs[0].entry.ops if isinstance(op, ops.LoadOp)]
    assert loads[0].mask is None and loads[0].other is None and loads[1].mask is not None
    stores = [op for op in m.funcs[0].entry.ops if isinstance(op, ops.StoreOp)]
    assert all(s.mask is None for s in stores)


def test_dce_removes_dead_chains_but_not_side_effects():
    m, f, b = make_func([PointerType(f32), i32])
    pid = emit(b, ops.GetProgramIdOp.get(0))
    x = emit(b, ops.AddIOp.get(pid, f.args[1]))
    emit(b, ops.MulIOp.get(x, x))
    emit(b, ops.LoadOp.get(f.args[0]))  # not Pure: kept
    b.insert(ops.StoreOp.get(f.args[0], emit(b, ops.ConstantOp.get(1.0, f32))))
    ret(b)
    run_pipeline(m, "dce")
    assert body(m) == ["tt.load", "arith.constant", "tt.store", "tt.return"]
    verify_module(m)
