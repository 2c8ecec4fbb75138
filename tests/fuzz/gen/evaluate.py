"""The numpy reference of a :class:`~.model.Kernel`, computed from the model (never from the Triton source).

Each value carries, beside its elements, a bound on their absolute error (floats: what any correct
implementation may differ by, through rounding order, fused multiply-adds, the math library's ULPs, the matrix
engine's precision) and a mask of *unknown* elements (a comparison or a conversion to integer whose answer the
error could flip, a math function outside its domain, an overflow).  An operation whose operands are exact and
whose result needs no rounding is exact (error 0): small dyadic inputs keep most values exact, so comparisons on
them are decided.  An unknown branch condition makes the whole kernel indeterminate (:class:`Indeterminate`); the
generator then draws another one.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional

import numpy as np

from . import model as m


class Indeterminate(Exception):
    """The reference cannot decide the kernel's result (a branch on an unknown value)."""


@dataclass
class V:
    dtype: str
    val: np.ndarray
    err: Optional[np.ndarray]       # floats only (float64, same shape)
    unk: np.ndarray


def bf16_round(x) -> np.ndarray:
    """float32 values rounded to bf16 (nearest even), as float32."""
    x = np.asarray(x, np.float32)
    b = x.view(np.uint32).astype(np.uint64)
    r = (((b + 0x7FFF + ((b >> 16) & 1)) >> 16) << 16).astype(np.uint32)
    return np.where(np.isnan(x), np.float32(np.nan), r.view(np.float32))


def to_storage(val: np.ndarray, dtype: str) -> np.ndarray:
    if dtype == "bfloat16":
        return (np.asarray(val, np.float32).view(np.uint32) >> 16).astype(np.uint16)
    return np.asarray(val).astype(m.DTYPES[dtype][1])


def from_storage(arr: np.ndarray, dtype: str) -> np.ndarray:
    if dtype == "bfloat16":
        return (arr.astype(np.uint32) << 16).view(np.float32)
    return arr.astype(m.DTYPES[dtype][2])


def rnd(x64, dtype: str) -> np.ndarray:
    """float64 values rounded once to ``dtype`` (bf16 through f32, as the target converts)."""
    x64 = np.asarray(x64, np.float64)
    if dtype == "bfloat16":
        return bf16_round(x64.astype(np.float32))
    return x64.astype(m.DTYPES[dtype][2])


def sigbits(x) -> np.ndarray:
    """Significant bits of each float64 value (0 for 0)."""
    x = np.asarray(x, np.float64)
    mant, _ = np.frexp(np.abs(x))
    mi = (mant * 2.0 ** 53).astype(np.int64)
    low = mi & -mi
    tz = np.where(mi == 0, 53, np.log2(np.maximum(low, 1)).astype(np.int64))
    return np.where(x == 0, 0, 53 - tz)


def quantum(x) -> np.ndarray:
    """The largest power of two dividing each float64 value (inf for 0)."""
    x = np.asarray(x, np.float64)
    mant, e = np.frexp(np.abs(x))
    return np.where(x == 0, np.inf, np.ldexp(1.0, (e - sigbits(x)).astype(np.int64)))


def product_exact(x, y) -> np.ndarray:
    """Whether each float64 product ``x * y`` is exact in float64: at most 53 significant bits together, and no
    bit below the smallest subnormal (2**-1074; a product of subnormal-sized quanta underflows and rounds)."""
    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    with np.errstate(invalid="ignore"):            # inf and NaN (unknown elements) have no bits to count
        bx, by = sigbits(x), sigbits(y)
    qx, qy = np.frexp(np.abs(x))[1] - bx, np.frexp(np.abs(y))[1] - by     # log2 of quantum()
    return (x == 0) | (y == 0) | ((bx + by <= 53) & (qx + qy >= -1074))


def sum_exact(terms, axis, prec: int) -> np.ndarray:
    """Whether every partial sum of ``terms`` along ``axis``, in any order, is exact with ``prec`` bits."""
    q = np.min(quantum(terms), axis=axis)
    total = np.sum(np.abs(terms), axis=axis)
    return (total == 0) | (total < np.ldexp(q, prec))


def tiny(dtype: str) -> float:
    """Two of ``dtype``'s smallest subnormals (2**-1073 for float64, where ``MIN_NORMAL * UNIT`` alone, 2**-1075,
    would round to 0): the absolute slack of a result that may have rounded below the normal range."""
    return m.MIN_NORMAL[dtype] * (m.UNIT[dtype] * 4)


class Evaluator:
    SLACK_ULPS = 4      # the math library's bound (ULPs) assumed per function call

    def __init__(self, k: m.Kernel, inputs: Dict[str, np.ndarray]):
        self.k = k
        self.inputs = inputs
        self.out: Dict[str, np.ndarray] = {}
        self.out_err: Dict[str, np.ndarray] = {}
        self.out_unk: Dict[str, np.ndarray] = {}
        for b in k.buffers:
            if b.role in ("out", "atomic"):
                arr = inputs[b.name]
                self.out[b.name] = from_storage(arr, b.dtype).astype(np.float64) if m.is_float(b.dtype) \
                    else arr.copy()
                self.out_err[b.name] = np.zeros(arr.shape)
                self.out_unk[b.name] = np.zeros(arr.shape, bool)
        self.args = {n: v for n, _, v in k.args}

    # ------------------------------------------------------------ running

    def run(self):
        with np.errstate(all="ignore"):
            for pid in range(self.k.grid):
                self.pid = pid
                self.env: Dict[str, V] = {}
                self.block(self.k.body)
        res = {}
        for b in self.k.buffers:
            if b.role in ("out", "atomic"):
                val = self.out[b.name]
                store = to_storage(rnd(val, b.dtype), b.dtype) if m.is_float(b.dtype) else val
                res[b.name] = (store, self.out_err[b.name], self.out_unk[b.name])
        return res

    def block(self, body):
        for s in body:
            self.stmt(s)

    def stmt(self, s):
        if isinstance(s, m.Assign):
            self.env[s.name] = self.ev(s.expr)
        elif isinstance(s, m.Store):
            self.store(s)
        elif isinstance(s, m.AtomicAdd):
            v = self.ev(s.value)
            flat = np.arange(v.val.size) % s.slots if v.val.ndim else np.zeros(1, np.int64)
            acc = self.out[s.buf].astype(np.int64)
            np.add.at(acc, flat, v.val.reshape(-1).astype(np.int64))
            self.out[s.buf] = acc.astype(np.int32)
            np.logical_or.at(self.out_unk[s.buf], flat, v.unk.reshape(-1))
        elif isinstance(s, m.If):
            c = self.ev(s.cond)
            if bool(c.unk.any()):
                raise Indeterminate("branch condition")
            self.block(s.then if bool(c.val) else s.orelse)
        elif isinstance(s, (m.For, m.While)):
            lo = s.lo if isinstance(s, m.For) else 0
            hi = s.hi if isinstance(s.hi, int) else self.args[s.hi]
            for i in range(lo, hi):
                self.env[s.var] = V("int32", np.array(i, np.int32), None, np.array(False))
                self.block(s.body)
        else:
            raise TypeError(type(s).__name__)

    # ------------------------------------------------------------ memory

    def offsets(self, acc: m.Access):
        """(flat offsets into the buffer, mask or None) of an access by the current program."""
        k = self.k
        base = self.pid * m.span(k, acc)
        if acc.kind == "scalar":
            return np.array(base + acc.offset), None
        dims = k.shape(acc.shape)
        if acc.kind in ("block", "desc"):
            rows, cols, o0, o1 = m.box(k, acc)[:4]
            r = (o0 + np.arange(dims[0]))[:, None]
            c = (o1 + np.arange(dims[1]))[None, :]
            inside = (r >= 0) & (r < rows) & (c >= 0) & (c < cols)
            return base + np.where(inside, r * cols + c, 0), inside
        n = int(np.prod(dims, dtype=np.int64))
        flat = np.arange(n).reshape(dims)
        mask = None
        if acc.mask == "arg":
            mask = flat < self.args[acc.mask_arg]
        elif acc.mask == "half":
            mask = flat < max(n // 2, 1)
        elif acc.mask == "global":
            mask = self.pid * n + flat < self.args[acc.mask_arg]
        if acc.far:
            raise AssertionError("a far access is only in loops that never run")
        if acc.kind in ("gather", "scatter"):
            idx = self.inputs[acc.index_buf][self.pid * n + flat]
            return base + idx.astype(np.int64), mask
        off = np.zeros(dims, np.int64)
        for ax, st in enumerate(m.strides(k, acc)):
            sh = [1] * len(dims)
            sh[ax] = dims[ax]
            i = np.arange(dims[ax])
            off = off + (dims[ax] - 1 - i if acc.reverse else i).reshape(sh) * st
        return base + off, mask

    def load(self, e: m.Load) -> V:
        off, mask = self.offsets(e.access)
        data = from_storage(self.inputs[e.buf], e.ty.dtype)
        val = data[np.where(mask, off, 0) if mask is not None else off]
        if mask is not None:
            val = np.where(mask, val, np.array(e.access.other).astype(val.dtype))
        val = np.asarray(val, m.DTYPES[e.ty.dtype][2])
        return V(e.ty.dtype, val, np.zeros(val.shape) if m.is_float(e.ty.dtype) else None, np.zeros(val.shape, bool))

    def store(self, s: m.Store):
        v = self.ev(s.value)
        off, mask = self.offsets(s.access)
        shape = np.shape(off)
        val, unk = np.broadcast_to(v.val, shape), np.broadcast_to(v.unk, shape)
        err = np.broadcast_to(v.err if v.err is not None else np.zeros(()), shape)
        sel = np.ones(shape, bool) if mask is None else mask
        o = off[sel]
        self.out[s.buf][o] = val[sel].astype(self.out[s.buf].dtype)
        self.out_err[s.buf][o] = err[sel]
        self.out_unk[s.buf][o] = unk[sel]

    # ------------------------------------------------------------ expressions

    def ev(self, e: m.Expr) -> V:
        return getattr(self, "ev_" + type(e).__name__)(e)

    def ev_Var(self, e):
        return self.env[e.name]

    def ev_Arg(self, e):
        return V(e.ty.dtype, np.array(self.args[e.name], m.DTYPES[e.ty.dtype][2]), None, np.array(False))

    def ev_ProgramId(self, e):
        return V("int32", np.array(self.pid, np.int32), None, np.array(False))

    def ev_Full(self, e):
        t = e.ty.dtype
        val = np.full(self.k.shape(e.ty.shape), e.value, m.DTYPES[t][2])
        if t == "bfloat16":
            val = bf16_round(val)
        return V(t, val, np.zeros(val.shape) if m.is_float(t) else None, np.zeros(val.shape, bool))

    def ev_Arange(self, e):
        n = self.k.size(e.ty.shape[0])
        return V("int32", np.arange(n, dtype=np.int32), None, np.zeros(n, bool))

    def ev_Load(self, e):
        return self.load(e)

    def ev_BinLit(self, e):
        a = self.ev(e.a)
        litv = np.array(e.lit, m.DTYPES[a.dtype][2])
        return self.binary(e.op, a, V(a.dtype, litv, np.zeros(()) if a.err is not None else None, np.array(False)),
                           e.ty.dtype)

    def ev_Bin(self, e):
        return self.binary(e.op, self.ev(e.a), self.ev(e.b), e.ty.dtype)

    def binary(self, op: str, a: V, b: V, rt: str) -> V:  # noqa: C901
        if op == "/" and a.dtype in ("float16", "bfloat16"):     # Triton divides halves in f32
            a = V("float32", a.val.astype(np.float32), a.err, a.unk)
            b = V("float32", b.val.astype(np.float32), b.err, b.unk)
        t = a.dtype
        unk = a.unk | b.unk
        if op in ("<", "<=", ">", ">=", "==", "!="):
            f = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal, "==": np.equal,
                 "!=": np.not_equal}[op]
            r = f(a.val, b.val)
            if a.err is not None:
                e = a.err + b.err
                unk = unk | ((e > 0) & (np.abs(a.val.astype(np.float64) - b.val.astype(np.float64)) <= e))
            return V("int1", np.asarray(r), None, np.asarray(unk))
        if not m.is_float(t):
            x, y = a.val, b.val
            if op in ("//", "%"):
                rem = np.fmod(x, y)
                r = rem if op == "%" else (x - rem) // y
            elif op in ("minimum", "maximum"):
                r = np.minimum(x, y) if op == "minimum" else np.maximum(x, y)
            elif op in ("<<", ">>"):
                r = np.left_shift(x, y) if op == "<<" else np.right_shift(x, y)
            else:
                r = {"+": np.add, "-": np.subtract, "*": np.multiply, "&": np.bitwise_and, "|": np.bitwise_or,
                     "^": np.bitwise_xor}[op](x, y)
            return V(t, np.asarray(r).astype(m.DTYPES[t][2]), None, np.asarray(unk))
        x, y = a.val.astype(np.float64), b.val.astype(np.float64)
        ea, eb = a.err, b.err
        if op in ("minimum", "maximum"):
            r = np.minimum(x, y) if op == "minimum" else np.maximum(x, y)
            return V(t, rnd(r, t), np.maximum(ea, eb), np.asarray(unk))
        ct = np.float32 if t == "bfloat16" else m.DTYPES[t][2]
        xc, yc = a.val.astype(ct), b.val.astype(ct)
        if op == "/":
            r = xc / yc
            exact64 = x / y
            denom = np.abs(y) - eb
            unk = unk | (denom <= 0)
            prop = (ea + np.abs(exact64) * eb) / np.where(denom > 0, denom, 1)
        elif op == "*":
            r = xc * yc
            exact64 = x * y
            prop = np.abs(x) * eb + np.abs(y) * ea + ea * eb
        else:
            r = xc + yc if op == "+" else xc - yc
            exact64 = x + y if op == "+" else x - y
            prop = ea + eb
        r = rnd(r.astype(np.float64), t) if t == "bfloat16" else np.asarray(r)
        r64 = r.astype(np.float64)
        if t == "float64":
            if op in ("+", "-"):       # TwoSum: the addition's exact rounding error
                yy = y if op == "+" else -y
                bb = r64 - x
                rounded = ((x - (r64 - bb)) + (yy - bb)) != 0
            elif op == "*":
                rounded = ~product_exact(x, y)
            else:
                rounded = ~product_exact(r64, y) | (r64 * y != x)
        else:
            rounded = r64 != exact64
        err = prop + np.where(rounded, m.UNIT[t] * np.abs(r64) + tiny(t), 0.0)
        unk = unk | ~np.isfinite(r64) | (np.abs(r64) + err > m.MAXF[t] / 4)
        return V(t, np.asarray(r), np.asarray(err, np.float64), np.asarray(unk))

    def ev_Un(self, e):  # noqa: C901
        a = self.ev(e.a)
        t = a.dtype
        if e.op == "neg":
            return V(t, np.asarray(-a.val), a.err, a.unk)
        if e.op == "not":
            return V(t, np.asarray(~a.val), None, a.unk)
        if e.op == "abs":
            return V(t, np.asarray(np.abs(a.val)), a.err, a.unk)
        x = a.val.astype(np.float64)
        ea = a.err
        unk = a.unk.copy()
        if e.op in ("floor", "ceil"):
            f = np.floor if e.op == "floor" else np.ceil
            r = f(x)
            unk |= f(x - ea) != f(x + ea)
            return V(t, rnd(r, t), np.zeros(r.shape), unk)
        funcs = {
            "exp": np.exp, "exp2": np.exp2, "log": np.log, "log2": np.log2, "sqrt": np.sqrt,
            "rsqrt": lambda v: 1 / np.sqrt(v), "sin": np.sin, "cos": np.cos,
            "sigmoid": lambda v: 1 / (1 + np.exp(-v)), "erf": _erf,
        }
        f = funcs[e.op]
        if e.op in ("log", "log2", "rsqrt"):
            unk |= x - ea <= 0
        if e.op == "sqrt":
            unk |= x - ea < 0
        if e.op in ("sin", "cos"):
            unk |= np.abs(x) > 2.0 ** 20
        safe = np.where(unk, 1.0, x)
        r = f(safe)
        prop = np.maximum(np.abs(f(np.where(unk, 1.0, safe + ea)) - r), np.abs(f(np.where(unk, 1.0, safe - ea)) - r))
        rr = rnd(r, t)
        err = prop + self.SLACK_ULPS * m.UNIT[t] * np.abs(r) + (np.abs(rr.astype(np.float64) - r)) + tiny(t) * 16
        if e.op in ("sin", "cos", "erf", "sigmoid"):
            err = err + 4 * m.UNIT[t]        # functions near zero crossings: absolute slack
        unk |= ~np.isfinite(r) | (np.abs(r) > m.MAXF[t] / 4) | ~np.isfinite(err)
        return V(t, np.where(unk, 1, rr).astype(rr.dtype), np.where(unk, 0.0, err), unk)

    def ev_Cast(self, e):
        return self.cast(self.ev(e.a), e.ty.dtype, e.bitcast)

    def cast(self, a: V, t: str, bitcast: bool = False) -> V:  # noqa: C901
        s = a.dtype
        if s == t:
            return a
        if bitcast:
            bits = to_storage(a.val, s).view(m.DTYPES[t][1])
            val = from_storage(bits, t)
            unk = a.unk | (a.err > 0 if a.err is not None else False)
            if m.is_float(t):
                unk = unk | ~np.isfinite(val.astype(np.float64))
                return V(t, val, np.zeros(val.shape), unk)
            return V(t, val, None, unk)
        if t == "int1":
            r = a.val != 0
            unk = a.unk | ((np.abs(a.val.astype(np.float64)) <= a.err) & (a.err > 0) if a.err is not None else False)
            return V(t, np.asarray(r), None, np.asarray(unk))
        if m.is_float(s) and m.is_float(t):
            x = a.val.astype(np.float64)
            r = rnd(x, t)
            r64 = r.astype(np.float64)
            err = np.where(a.err > 0, a.err + m.UNIT[t] * np.abs(r64) + tiny(t), 0.0)
            unk = a.unk | ~np.isfinite(r64) | (np.abs(r64) > m.MAXF[t] / 4)
            return V(t, r, err, unk)
        if m.is_float(s):        # float -> int: truncation; out of range is undefined
            x = a.val.astype(np.float64)
            ea = a.err
            info = np.iinfo(m.DTYPES[t][1])
            unk = a.unk | (np.trunc(x - ea) != np.trunc(x + ea)) | (x - ea <= float(info.min) - 1) | \
                (x + ea >= float(info.max) + 1) | (x + ea >= 2.0 ** 62)
            r = np.trunc(np.where(unk, 0, x)).astype(np.int64).astype(m.DTYPES[t][1])
            return V(t, r, None, unk)
        if m.is_float(t):        # int -> float
            x = a.val.astype(np.float64) if s != "uint64" and s != "int64" else a.val.astype(np.longdouble)
            r = rnd(np.asarray(x, np.float64), t)
            r64 = r.astype(np.float64)
            exact = np.abs(a.val.astype(np.float64)) < 2.0 ** m.PREC[t]
            err = np.where(exact, 0.0, 2 * m.UNIT[t] * np.abs(r64))
            unk = a.unk | ~np.isfinite(r64) | (np.abs(r64) > m.MAXF[t] / 4)
            return V(t, r, err, unk)
        return V(t, a.val.astype(m.DTYPES[t][2]), None, a.unk)     # int -> int wraps

    def ev_Where(self, e):
        c, a, b = self.ev(e.c), self.ev(e.a), self.ev(e.b)
        val = np.where(c.val, a.val, b.val)
        err = None if a.err is None else np.where(c.val, a.err, b.err)
        unk = c.unk | np.where(c.val, a.unk, b.unk)
        return V(a.dtype, np.asarray(val).astype(a.val.dtype), err, np.asarray(unk))

    def ev_Promote(self, e):
        ct = e.ctype or e.ty.dtype
        return self.binary(e.op, self.cast(self.ev(e.a), ct), self.cast(self.ev(e.b), ct), e.ty.dtype)

    def ev_Fp8(self, e):
        a = self.ev(e.a)
        x = a.val.astype(np.float64)
        ebits, mbits, bias, top = FP8[e.fmt]
        r = _round_fp8(x, mbits, bias, top)
        unk = a.unk | (np.abs(x) + a.err >= top) | (_round_fp8(x - a.err, mbits, bias, top) != r) | \
            (_round_fp8(x + a.err, mbits, bias, top) != r)
        return V(a.dtype, rnd(np.where(unk, 0.0, r), a.dtype), np.zeros(r.shape), np.asarray(unk))

    # ------------------------------------------------------------ reductions and scans

    def ev_Reduce(self, e):  # noqa: C901
        a = self.ev(e.a)
        rt = e.ty.dtype
        val, err, unk = a.val, a.err, a.unk
        axis = e.axis
        if axis is None:
            val, unk = val.reshape(-1), unk.reshape(-1)
            err = None if err is None else err.reshape(-1)
            axis = 0
        n = val.shape[axis]
        if e.kind in ("argmax", "argmin"):
            idx = (np.argmax if e.kind == "argmax" else np.argmin)(val, axis=axis)
            r = np.asarray(idx, np.int32)
            u = unk.any(axis=axis)
            if err is not None:
                x = val.astype(np.float64)
                ext = np.take_along_axis(x, np.expand_dims(idx, axis), axis)
                eext = np.take_along_axis(err, np.expand_dims(idx, axis), axis)
                others = np.arange(n).reshape([-1 if i == axis else 1 for i in range(x.ndim)]) != \
                    np.expand_dims(idx, axis)
                close = np.abs(x - ext) <= err + eext
                u = u | ((close & others & ((err + eext) > 0)).any(axis=axis))
            out = V(rt, r, None, np.asarray(u))
        elif e.kind in ("max", "min", "rmax"):
            f = np.max if e.kind in ("max", "rmax") else np.min
            r = f(val.astype(m.DTYPES[rt][2]) if not m.is_float(rt) else val.astype(np.float64), axis=axis)
            out = V(rt, rnd(r, rt) if m.is_float(rt) else np.asarray(r),
                    None if err is None else np.max(err, axis=axis), unk.any(axis=axis))
        elif e.kind in ("xor_sum", "rxor"):
            out = V(rt, np.bitwise_xor.reduce(val.astype(m.DTYPES[rt][2]), axis=axis), None, unk.any(axis=axis))
        else:                   # sum, radd
            if not m.is_float(rt):
                r = np.sum(val.astype(m.DTYPES[rt][2]), axis=axis, dtype=m.DTYPES[rt][2])
                out = V(rt, np.asarray(r), None, unk.any(axis=axis))
            else:
                x = val.astype(np.float64)
                r = np.sum(x, axis=axis)
                exact = (np.max(err, axis=axis) == 0) & sum_exact(x, axis, m.PREC[rt])
                bound = np.sum(err, axis=axis) + (n + 1) * m.UNIT[rt] * np.sum(np.abs(x), axis=axis) + tiny(rt) * n
                rr = rnd(r, rt)
                out = V(rt, rr, np.where(exact, 0.0, bound), unk.any(axis=axis) | ~np.isfinite(bound) |
                        (np.abs(r) + bound > m.MAXF[rt] / 4))
        if e.keep:
            ax = tuple(range(a.val.ndim)) if e.axis is None else e.axis
            out = V(out.dtype, np.expand_dims(out.val, ax), None if out.err is None else np.expand_dims(out.err, ax),
                    np.expand_dims(out.unk, ax))
        return V(out.dtype, np.asarray(out.val), None if out.err is None else np.asarray(out.err),
                 np.asarray(out.unk))

    def ev_Scan(self, e):
        a = self.ev(e.a)
        rt = e.ty.dtype
        ax = e.axis
        flip = (lambda v: np.flip(v, ax)) if e.reverse else (lambda v: v)  # noqa: E731
        val, unk = flip(a.val), flip(a.unk)
        unk = np.logical_or.accumulate(unk, axis=ax)
        if not m.is_float(rt):
            ct = m.DTYPES[rt][2]
            if e.kind in ("cumsum", "sadd"):
                r = np.cumsum(val.astype(ct), axis=ax, dtype=ct)
            elif e.kind == "cumprod":
                r = np.cumprod(val.astype(ct), axis=ax, dtype=ct)
            else:
                r = np.maximum.accumulate(val.astype(ct), axis=ax)
            return V(rt, flip(np.asarray(r)), None, flip(unk))
        x, err = val.astype(np.float64), flip(a.err)
        if e.kind == "smax":
            return V(rt, flip(rnd(np.maximum.accumulate(x, axis=ax), rt)), flip(np.maximum.accumulate(err, axis=ax)),
                     flip(unk))
        r = np.cumsum(x, axis=ax)
        n = x.shape[ax]
        exact = (np.max(err, axis=ax, keepdims=True) == 0) & np.expand_dims(sum_exact(x, ax, m.PREC[rt]), ax)
        bound = np.cumsum(err, axis=ax) + (n + 1) * m.UNIT[rt] * np.cumsum(np.abs(x), axis=ax) + tiny(rt) * n
        unk = unk | (np.abs(r) + bound > m.MAXF[rt] / 4)
        return V(rt, flip(rnd(r, rt)), flip(np.where(exact, 0.0, bound)), flip(unk))

    # ------------------------------------------------------------ shapes and dot

    def _reshape(self, a: V, f) -> V:
        return V(a.dtype, np.asarray(f(a.val)), None if a.err is None else np.asarray(f(a.err)), np.asarray(f(a.unk)))

    def ev_Reshape(self, e):
        shape = self.k.shape(e.ty.shape)
        return self._reshape(self.ev(e.a), lambda v: np.reshape(v, shape))

    def ev_Permute(self, e):
        return self._reshape(self.ev(e.a), lambda v: np.transpose(v, e.perm))

    def ev_ExpandDims(self, e):
        return self._reshape(self.ev(e.a), lambda v: np.expand_dims(v, e.axis))

    def ev_Broadcast(self, e):
        shape = self.k.shape(e.ty.shape)
        return self._reshape(self.ev(e.a), lambda v: np.broadcast_to(v, shape).copy())

    def ev_Join(self, e):
        a, b = self.ev(e.a), self.ev(e.b)
        j = lambda x, y: np.stack(np.broadcast_arrays(x, y), axis=-1)  # noqa: E731
        return V(a.dtype, j(a.val, b.val), None if a.err is None else j(a.err, b.err), j(a.unk, b.unk))

    def ev_SplitHalf(self, e):
        return self._reshape(self.ev(e.a), lambda v: v[..., e.which])

    def ev_Sort(self, e):
        a = self.ev(e.a)
        val = np.sort(a.val, axis=-1)
        if e.descending:
            val = np.flip(val, -1)
        unk = np.broadcast_to(a.unk.any(axis=-1, keepdims=True), a.unk.shape).copy()
        err = None if a.err is None else np.broadcast_to(a.err.max(axis=-1, keepdims=True), a.err.shape).copy()
        return V(a.dtype, np.asarray(val), err, unk)

    def ev_Gather(self, e):
        src, idx = self.ev(e.src), self.ev(e.index)
        d = src.val.shape[e.axis]
        i = np.asarray(idx.val).astype(np.int64) & (d - 1)
        take = lambda v: np.take_along_axis(v, i, e.axis)  # noqa: E731
        return V(src.dtype, take(src.val), None if src.err is None else take(src.err), take(src.unk) | idx.unk)

    def ev_Cat(self, e):
        a, b = self.ev(e.a), self.ev(e.b)
        c = lambda x, y: np.concatenate([x, y], axis=e.dim)  # noqa: E731
        return V(a.dtype, c(a.val, b.val), None if a.err is None else c(a.err, b.err), c(a.unk, b.unk))

    def ev_Dot(self, e):
        a, b = self.ev(e.a), self.ev(e.b)
        rt = e.ty.dtype
        unk = (a.unk[:, :, None] | b.unk[None, :, :]).any(axis=1)
        if rt == "int32":
            r = (a.val.astype(np.int64) @ b.val.astype(np.int64)).astype(np.int32)
            if e.acc is not None:
                c = self.ev(e.acc)
                r = (r.astype(np.int64) + c.val).astype(np.int32)
                unk = unk | c.unk
            return V(rt, r, None, unk)
        x, y = a.val.astype(np.float64), b.val.astype(np.float64)
        terms = x[:, :, None] * y[None, :, :]
        r = terms.sum(axis=1)
        ea, eb = a.err, b.err
        prop = (np.abs(x) @ eb + ea @ np.abs(y) + ea @ eb)
        absum = np.abs(terms).sum(axis=1)
        K = x.shape[1]
        exact = (prop == 0) & sum_exact(terms, 1, m.PREC[rt])
        split = 0.0
        if a.dtype == "float32":     # the engine splits f32 operands into two bf16 parts
            # a part is rounded to bf16's grid, whose subnormals are 2**-133 apart: an operand below that grid
            # (an f32 subnormal with low bits) loses up to half of it, whatever its significant bits
            on_grid = lambda v: bool((quantum(v) >= 2.0 ** -133).all())   # noqa: E731
            exact &= bool((sigbits(x) <= 8).all() and (sigbits(y) <= 8).all()) and on_grid(x) and on_grid(y)
            rel = 2.0 ** -15 + K * m.UNIT[rt]
            split = 2.0 ** -134 * (np.abs(x).sum(axis=1)[:, None] + np.abs(y).sum(axis=0)[None, :]
                                   + K * 2.0 ** -134)
        else:
            # the terms are float64 products: exact only where none rounded (more than 53 bits, or below 2**-1074)
            exact &= product_exact(x[:, :, None], y[None, :, :]).all(axis=1)
            exact &= bool((sigbits(terms) <= m.PREC[rt]).all())
            rel = (K + 2) * m.UNIT[rt]
        err = np.where(exact, 0.0, prop + rel * absum + tiny(rt) * K + split)
        if e.acc is not None:
            c = self.ev(e.acc)
            cv = c.val.astype(np.float64)
            r = r + cv
            # the accumulator is a term of the running sum (the engine's rows, the vector path's first value):
            # exact only if every partial sum with it is
            with_c = np.concatenate([terms, cv[:, None, :]], axis=1)
            exact_c = exact & (c.err == 0) & sum_exact(with_c, 1, m.PREC[rt])
            err = np.where(exact_c, 0.0, err + c.err + (K + 1) * m.UNIT[rt] * (np.abs(cv) + absum))
            unk = unk | c.unk
        unk = unk | (np.abs(r) + err > m.MAXF[rt] / 4)
        return V(rt, rnd(r, rt), err, unk)


# fp8 format -> (exponent bits, mantissa bits, bias, largest finite value)
FP8 = {"float8e5": (5, 2, 15, 57344.0), "float8e4nv": (4, 3, 7, 448.0), "float8e4b8": (4, 3, 8, 240.0),
       "float8e5b16": (5, 2, 16, 57344.0)}


def _round_fp8(x, mbits: int, bias: int, top: float) -> np.ndarray:
    """float64 values rounded to nearest even with ``mbits`` stored mantissa bits (subnormals below 2**(1 - bias)),
    saturated at ``top``."""
    x = np.asarray(x, np.float64)
    _, e = np.frexp(np.where(x == 0, 1.0, x))          # x = f * 2**e, 0.5 <= |f| < 1
    q = np.ldexp(1.0, np.maximum(e - 1, 1 - bias) - mbits)
    r = np.round(x / q) * q                            # numpy rounds half to even
    return np.clip(r, -top, top)


def _erf(x):
    from math import erf
    return np.vectorize(erf, otypes=[np.float64])(x)


def evaluate(k: m.Kernel, inputs: Dict[str, np.ndarray]):
    """{buffer: (expected storage array, error bound, unknown mask)} for every output and atomic buffer."""
    return Evaluator(k, inputs).run()
