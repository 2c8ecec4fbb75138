"""The access plan's decision order on small hand-built functions (tests/filecheck/access_*.py show each
kind on kernels)."""
import pytest

from mtiacc.ir import ops
from mtiacc.ir.analysis.access_plan import plan_function
from mtiacc.ir.types import BlockType, PointerType, f32, i1, i32

from ..helpers import emit, make_func, ret


def _plans(n, stride, mask):
    """The plan of one load of ``X + stride * arange(n)`` under ``mask``: None, "prefix" (``i < N``),
    "uniform" (a splat of ``N > 0``) or "data" (a mask block passed in)."""
    m, f, b = make_func([PointerType(f32), i32, BlockType((n,), i1)], ["X", "N", "M"])
    r = emit(b, ops.MakeRangeOp.get(0, n))
    if stride != 1:
        r = emit(b, ops.MulIOp.get(r, emit(b, ops.SplatOp.get(emit(b, ops.ConstantOp.get(stride, i32)), (n,)))))
    ptrs = emit(b, ops.AddPtrOp.get(emit(b, ops.SplatOp.get(f.args[0], (n,))), r))
    masks = {None: None, "data": f.args[2],
             "prefix": lambda: emit(b, ops.CmpIOp.get("slt", emit(b, ops.MakeRangeOp.get(0, n)),
                                                      emit(b, ops.SplatOp.get(f.args[1], (n,))))),
             "uniform": lambda: emit(b, ops.SplatOp.get(
                 emit(b, ops.CmpIOp.get("sgt", f.args[1], emit(b, ops.ConstantOp.get(0, i32)))), (n,)))}
    mk = masks[mask]
    emit(b, ops.LoadOp.get(ptrs, mk() if callable(mk) else mk))
    ret(b)
    return list(plan_function(f).values())


@pytest.mark.parametrize("n, stride, mask, kind", [
    (64, 1, None, "contiguous"), (64, 1, "prefix", "contiguous"), (64, 1, "uniform", "contiguous"),
    (64, 1, "data", "elements"),       # a mask from data: element by element
    (64, 3, None, "runs"), (64, 3, "prefix", "runs"), (64, 3, "uniform", "runs"),  # constant strides
    (64, 3, "data", "elements"),       # ... unless the mask is one the runs cannot read
    (1, 3, None, "elements"),          # runs need two elements
])
def test_one_dimensional_blocks(n, stride, mask, kind):
    assert _plans(n, stride, mask) == [kind]


def test_scalar_pointers_and_unstructured_blocks():
    m, f, b = make_func([PointerType(f32), BlockType((8,), PointerType(f32))], ["X", "P"])
    x = emit(b, ops.LoadOp.get(f.args[0]))
    b.insert(ops.StoreOp.get(f.args[1], emit(b, ops.SplatOp.get(x, (8,)))))
    emit(b, ops.LoadOp.get(f.args[1]))
    ret(b)
    assert list(plan_function(f).values()) == ["scalar", "scatter", "gather"]
