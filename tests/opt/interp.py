"""A tiny reference interpreter of the IR with numpy, written independently of the fold hooks.

Used only by tests: the same kernel at -O0 and after the optimizer must compute the same bits.
Pointers are int64 values ``buffer << 32 | element index``.
"""
import numpy as np

from mtiacc.ir import ops as O
from mtiacc.ir.fused import FusedElementwiseOp
from mtiacc.ir.types import FloatType, IntType
from tests.numerics import fma

NP = {"i1": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
      "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
      "f16": np.float16, "f32": np.float32, "f64": np.float64}


def dtype(t):
    e = t.element_type
    return np.int64 if e.is_ptr() else NP[str(e)]


def unsigned(a):
    a = np.asarray(a)
    return a.view(np.dtype(f"u{a.dtype.itemsize}")) if a.dtype.kind == "i" else a


def signed(a):
    a = np.asarray(a)
    return a.view(np.dtype(f"i{a.dtype.itemsize}")) if a.dtype.kind == "u" else a


def c_div(a, b):
    with np.errstate(all="ignore"):
        q = np.abs(a.astype(np.int64)) // np.where(b == 0, 1, np.abs(b.astype(np.int64)))
        return np.where(b == 0, 0, np.where((a < 0) != (b < 0), -q, q)).astype(a.dtype)


INT = {O.AddIOp: np.add, O.SubIOp: np.subtract, O.MulIOp: np.multiply, O.AndIOp: np.bitwise_and,
       O.OrIOp: np.bitwise_or, O.XOrIOp: np.bitwise_xor, O.MaxSIOp: np.maximum, O.MinSIOp: np.minimum,
       O.DivSIOp: c_div, O.RemSIOp: lambda a, b: (a - b * c_div(a, b)).astype(a.dtype),
       O.ShLIOp: np.left_shift, O.ShRSIOp: np.right_shift,
       O.ShRUIOp: lambda a, b: signed(np.right_shift(unsigned(a), unsigned(b))).astype(a.dtype)}
FLOAT = {O.AddFOp: np.add, O.SubFOp: np.subtract, O.MulFOp: np.multiply, O.DivFOp: np.divide,
         O.RemFOp: np.fmod, O.MaxNumFOp: np.fmax, O.MinNumFOp: np.fmin}
CMP = {"lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal,
       "eq": np.equal, "ne": np.not_equal}


def compare(op, a, b):
    p = op.predicate
    if isinstance(op, O.CmpFOp):
        unordered = np.isnan(a) | np.isnan(b)
        r = CMP[p[1:]](a, b) & ~unordered
        return r | unordered if p[0] == "u" else r
    if p in ("eq", "ne"):
        return CMP[p](a, b)
    return CMP[p[1:]](*(signed(x) if p[0] == "s" else unsigned(x) for x in (a, b)))


def cast(op, a):
    t = dtype(op.result.type)
    if isinstance(op, (O.ExtUIOp, O.UIToFPOp)):
        a = unsigned(a)
    if isinstance(op, O.BitcastOp):
        return np.asarray(a).view(t)
    return np.asarray(a).astype(t)


def run(func, args, buffers, pid=0, nprogs=1):
    env = dict(zip(func.args, args))
    with np.errstate(all="ignore"):
        for op in func.entry.ops:
            if isinstance(op, O.ReturnOp):
                return
            if isinstance(op, FusedElementwiseOp):  # the region's ops on whole arrays
                inner = {a: np.broadcast_to(env[v], op.shape) for a, v in zip(op.block.args, op.inputs)}
                for nested in op.inner_ops():
                    inner[nested.result] = step(nested, inner.__getitem__, buffers, pid, nprogs)
                for r, y in zip(op.results, op.block.terminator.values):
                    env[r] = np.broadcast_to(inner[y], op.shape).astype(dtype(r.type))
                continue
            out = step(op, env.__getitem__, buffers, pid, nprogs)
            if op.results:
                env[op.result] = out


def step(op, val, buffers, pid, nprogs):
    """The value of ``op`` (None for a store, which writes ``buffers``)."""
    r = op.results[0].type if op.results else None
    if isinstance(op, O.ConstantOp):
        out = np.full(r.shape, op.value, dtype(r))
    elif isinstance(op, O.GetProgramIdOp) and not isinstance(op, O.GetNumProgramsOp):
        out = np.int32(pid)
    elif isinstance(op, O.GetNumProgramsOp):
        out = np.int32(nprogs)
    elif isinstance(op, O.MakeRangeOp):
        out = np.arange(op.start, op.end, dtype=np.int32)
    elif isinstance(op, (O.SplatOp, O.BroadcastOp)):
        out = np.broadcast_to(val(op.src), r.shape).copy()
    elif type(op) in INT:
        out = INT[type(op)](val(op.lhs), val(op.rhs)).astype(dtype(r))
    elif type(op) in FLOAT:
        out = FLOAT[type(op)](val(op.lhs), val(op.rhs)).astype(dtype(r))
    elif isinstance(op, O.NegFOp):
        out = -val(op.operand_)
    elif isinstance(op, O.MathFmaOp):      # contract-fma's: rounded once
        out = fma(val(op.a), val(op.b), val(op.c), dtype(r))
    elif isinstance(op, O.CmpIOp):
        out = compare(op, val(op.lhs), val(op.rhs))
    elif isinstance(op, O.SelectOp):
        out = np.where(val(op.cond), val(op.true_value), val(op.false_value)).astype(dtype(r))
    elif isinstance(op, O.CastOp):
        out = cast(op, val(op.src))
    elif isinstance(op, O.AddPtrOp):
        out = val(op.ptr) + val(op.offset).astype(np.int64)
    elif isinstance(op, (O.LoadOp, O.StoreOp)):
        ptr = np.asarray(val(op.ptr))
        buf = buffers[int(ptr.flat[0]) >> 32]
        idx = ptr & 0xFFFFFFFF
        mask = np.ones(ptr.shape, bool) if op.mask is None else np.asarray(val(op.mask))
        if isinstance(op, O.StoreOp):
            buf[idx[mask]] = np.asarray(np.broadcast_to(val(op.value), ptr.shape))[mask]
            return None
        other = np.zeros(ptr.shape, buf.dtype) if op.other is None else val(op.other)
        out = np.where(mask, buf[np.where(mask, idx, 0)], other)
    else:
        raise NotImplementedError(op.name)
    return out
