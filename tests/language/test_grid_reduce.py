"""Differential grid: every built-in reduction and scan over element types, axes and shapes, against numpy,
in the style of Triton's test_core.py.

One kernel per (element type, shape case) loads a ragged block with masked loads (``other=`` the identity
Triton users pick: 0 for sums, ``-inf``/the type's minimum for max and argmax, ``+inf``/the maximum for min
and argmin, 1 for products) and computes every reduction (``tl.sum``, ``max``, ``min``, ``argmax``,
``argmin``, ``xor_sum``) over each axis, ``axis=None`` and with ``keep_dims=True``, and every scan
(``tl.cumsum``, ``tl.cumprod``, ``tl.associative_scan`` with an add combine), forward and reversed, each into
its own output.  ``tl.static_assert`` checks Triton's result types.

Triton's semantics, established with Triton 3.9's interpreter and its ``standard.py``:

* Result types: ``sum``/``cumsum``/``cumprod`` accumulate integers narrower than 32 bits in int32, unsigned
  ones (and int1) in uint32, everything else in its own type (fp16 sums are fp16); ``dtype=`` replaces that
  choice (``tl.sum(x_i8, dtype=tl.int8)`` is int8).  ``max``/``min`` compute on at least 32 bits (fp16 and
  bf16 in fp32, int1/int8/int16/uint8/uint16 in int32) unless ``return_indices=True``, which keeps the input
  type.  ``argmax``/``argmin`` are int32, ``xor_sum`` and ``associative_scan`` keep the input type.
* ``argmax``/``argmin`` give the first index of the extreme value; float ``max``/``min``/``argmax``/``argmin``
  ignore NaN (the interpreter's ``nanmax``/``nanargmax``); they need an axis (``axis=None`` fails in
  Triton).  ``associative_scan`` of int1 with ``a + b`` wraps in int1 (a running xor).
* Integer sums and products wrap.  Float sums may reassociate, so the sum inputs are integers small enough
  that every partial sum is exact in any order (fp32 |x| <= 1000, fp16 |x| <= 8, bf16 |x| <= 1: blocks of at
  most 256 elements): the comparison is exact.  Float products use +-1, +-2, +-0.5, and the reference is the
  sequential product in the element type (exact, or the same infinity).

The default run takes every element type on the 2-D case and a sample of the 1-D and 3-D cases; ``-m slow``
runs the rest.
"""
import numpy as np
import pytest

from tests.language.dtypes import ALL, DTYPES, INTS, bf16_to_f32, f32_to_bf16, from_real, inputs, is_float
from tests.language.harness import grid_params, launch

# ----------------------------------------------------------------------------- Triton's types


def acc_type(t: str) -> str:
    """The type tl.sum / tl.cumsum / tl.cumprod accumulate in."""
    if t == "int1" or t in ("uint8", "uint16"):
        return "uint32"
    if t in ("int8", "int16"):
        return "int32"
    return t


def minmax_type(t: str) -> str:
    if t in ("float16", "bfloat16"):
        return "float32"
    if t in ("int1", "int8", "int16", "uint8", "uint16"):
        return "int32"
    return t


def result_type(kind: str, t: str) -> str:
    if kind in ("sum", "cumsum", "cumprod"):
        return acc_type(t)
    if kind in ("max", "min"):
        return minmax_type(t)
    if kind in ("argmax", "argmin", "imax", "imin"):
        return "int32"
    return t   # xor_sum, scan, vmax, vmin (return_indices keeps the type)


# ----------------------------------------------------------------------------- shape cases
# name -> (block shape, data shape): the data is ragged inside the block on every axis it can be.
CASES = {
    "2d": ((8, 16), (6, 13)),
    "1d": ((512,), (300,)),
    "3d": ((2, 4, 8), (2, 3, 6)),
}
LETTERS = "ijk"


def specs(case: str, t: str):
    """(kind, axis, keep_dims, reverse) of every operation the case's kernel computes for type ``t``."""
    rank = len(CASES[case][0])
    reds = ["sum", "max", "min", "argmax", "argmin"] + (["xor_sum"] if t in INTS or t == "int1" else [])
    out = [(k, a, False, False) for k in reds for a in list(range(rank)) + [None]
           if a is not None or not k.startswith("arg")]   # Triton's argmax/argmin need an axis
    out += [("sum", rank - 1, True, False), ("max", 0, True, False), ("argmin", rank - 1, True, False),
            ("min", None, True, False), ("imax", rank - 1, False, False), ("imin", 0, False, False)]
    for k in ("cumsum", "cumprod", "scan"):
        for a in range(rank):
            out += [(k, a, False, False), (k, a, False, True)] if a in (0, rank - 1) else [(k, a, False, False)]
    return out


# ----------------------------------------------------------------------------- kernel source

LIMITS = {"float16": ("float('-inf')", "float('inf')"), "bfloat16": ("float('-inf')", "float('inf')"),
          "float32": ("float('-inf')", "float('inf')"), "int1": ("0", "1")}


def limits(t: str):
    if t in LIMITS:
        return LIMITS[t]
    info = np.iinfo(DTYPES[t][1])
    return str(int(info.min)), str(int(info.max))


def _index(name: str, axes, rank: int) -> str:
    """``name`` (a 1-D range along axis ``axes[0]``) expanded to the rank of the block, as in ``r[:, None]``."""
    a = axes[0]
    return name + ("[" + ", ".join(":" if d == a else "None" for d in range(rank)) + "]" if rank > 1 else "")


def _reduced(rank: int, axis, keep: bool):
    """The axes of a reduction's result (the block's axes numbering), and the offsets/mask expressions."""
    if axis is None:
        return ([] if not keep else list(range(rank)))
    return [d for d in range(rank) if d != axis or keep]


def _store_exprs(rank: int, axis, keep: bool, data_shape):
    """Offsets and mask (into a result laid out with the data's extents) for a reduction result."""
    kept = _reduced(rank, axis, keep)
    dims = [d for d in kept if not (keep and d == axis) and not (keep and axis is None)]
    if not dims:
        return "0", None
    out_rank = len(kept)
    offs, mask = [], []
    stride = 1
    for d in reversed(dims):
        pos = kept.index(d)
        idx = f"r{LETTERS[d]}" + ("[" + ", ".join(":" if p == pos else "None" for p in range(out_rank)) + "]"
                                  if out_rank > 1 else "")
        offs.append(f"{idx} * {stride}" if stride != 1 else idx)
        mask.append(f"({idx} < {data_shape[d]})")
        stride *= data_shape[d]
    return " + ".join(reversed(offs)), " & ".join(reversed(mask))


def _call(kind: str, axis, keep: bool, reverse: bool) -> str:
    ax = "None" if axis is None else str(axis)
    kd = ", keep_dims=True" if keep else ""
    if kind in ("sum", "xor_sum"):
        return f"tl.{kind}(x0, axis={ax}{kd})"
    if kind in ("max", "argmax"):
        return f"tl.{kind}(xlo, {ax}{kd})"
    if kind in ("min", "argmin"):
        return f"tl.{kind}(xhi, {ax}{kd})"
    if kind in ("imax", "imin"):
        src = "xlo" if kind == "imax" else "xhi"
        return f"tl.{kind[1:]}({src}, axis={ax}, return_indices=True{kd})"
    if kind == "cumsum":
        return f"tl.cumsum(x0, {ax}, reverse={reverse})"
    if kind == "cumprod":
        return f"tl.cumprod(x1, {ax}, reverse={reverse})"
    return f"tl.associative_scan(x0, {ax}, _add, reverse={reverse})"


def kernel(case: str, t: str) -> str:
    shape, data = CASES[case]
    rank = len(shape)
    outs = []
    body = []
    ranges = [f"    r{LETTERS[d]} = tl.arange(0, {shape[d]})" for d in range(rank)]
    strides = [int(np.prod(data[d + 1:])) for d in range(rank)]
    offs = " + ".join(f"{_index('r' + LETTERS[d], [d], rank)} * {strides[d]}" for d in range(rank))
    mask = " & ".join(f"({_index('r' + LETTERS[d], [d], rank)} < {data[d]})" for d in range(rank))
    lo, hi = limits(t)
    body += [f"    offs = {offs}", f"    m = {mask}",
             "    xlo = tl.load(X + offs, mask=m, other=" + lo + ")",
             "    xhi = tl.load(X + offs, mask=m, other=" + hi + ")",
             "    x0 = tl.load(S + offs, mask=m, other=0)",
             "    x1 = tl.load(P + offs, mask=m, other=1)"]
    for n, (kind, axis, keep, reverse) in enumerate(specs(case, t)):
        call = _call(kind, axis, keep, reverse)
        if kind in ("imax", "imin"):
            body.append(f"    v{n}, r{n} = {call}")
            body.append(f"    tl.static_assert(v{n}.dtype == tl.{t})")
        else:
            body.append(f"    r{n} = {call}")
        body.append(f"    tl.static_assert(r{n}.dtype == tl.{result_type(kind, t)})")
        if kind in ("cumsum", "cumprod", "scan"):
            body.append(f"    tl.store(O{n} + offs, r{n}, mask=m)")
            outs.append(f"O{n}")
            continue
        o, msk = _store_exprs(rank, axis, keep, data)
        if keep and o == "0":   # a (1, ..., 1) result needs a pointer block of that shape
            o = f"tl.zeros({[1] * rank}, tl.int32)"
        store = f"O{n} + {o}" if o != "0" else f"O{n}"
        body.append(f"    tl.store({store}, r{n}" + (f", mask={msk})" if msk else ")"))
        outs.append(f"O{n}")
        if kind in ("imax", "imin"):
            body.append(f"    tl.store(V{n} + {o}, v{n}" + (f", mask={msk})" if msk else ")"))
            outs.append(f"V{n}")
    head = f"def k(X, S, P, {', '.join(outs)}):"
    return ("\n@triton.jit\ndef _add(a, b):\n    return a + b\n\n\n@triton.jit\n" + head + "\n"
            + "\n".join(ranges + body) + "\n")


# ----------------------------------------------------------------------------- inputs


def _ties(x: np.ndarray, rng) -> np.ndarray:
    """Half of the elements drawn from a pool of five of the values (ties, and ties at the extremes)."""
    pool = np.concatenate([x[:2], rng.choice(x, 3)])
    pick = rng.random(x.size) < 0.5
    return np.where(pick, rng.choice(pool, x.size), x)


def make_inputs(t: str, n: int, rng):
    st = DTYPES[t][1]
    x = _ties(inputs(t, n, rng), rng)
    if is_float(t):
        v = np.asarray(bf16_to_f32(x) if t == "bfloat16" else x, np.float64)
        v[rng.choice(n, 3, replace=False)] = np.nan
        v[rng.choice(n, 1)] = np.inf if rng.random() < 0.5 else -np.inf
        x = from_real(v, t)
        bound = {"float32": 1000, "float16": 8, "bfloat16": 1}[t]
        s = from_real(rng.integers(-bound, bound, n, endpoint=True).astype(np.float64), t)
        p = rng.choice([1.0, -1.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5], n)
        p = from_real(p, t)
    else:
        s = inputs(t, n, rng)
        p = inputs(t, n, rng) if t == "int1" else \
            np.where(rng.random(n) < 0.7, rng.integers(-3, 4, n).astype(st), inputs(t, n, rng))
    return x.astype(st), s.astype(st), p.astype(st)


# ----------------------------------------------------------------------------- numpy reference


def _real(a: np.ndarray, t: str) -> np.ndarray:
    return bf16_to_f32(a) if t == "bfloat16" else a


def _flip(f, a, axis, reverse):
    if not reverse:
        return f(a, axis)
    return np.flip(f(np.flip(a, axis), axis), axis)


def _seq_prod(a: np.ndarray, axis: int, t: str) -> np.ndarray:
    """The running product along ``axis``, each step rounded to ``t``."""
    a = np.moveaxis(a, axis, -1).copy()
    for j in range(1, a.shape[-1]):
        v = a[..., j - 1].astype(np.float32) * a[..., j].astype(np.float32)
        a[..., j] = v.astype(a.dtype)
    return np.moveaxis(a, -1, axis)


def reference(kind: str, axis, keep: bool, reverse: bool, x, s, p, t: str):
    rt = result_type(kind, t)
    rst = DTYPES[rt][1]
    flat = axis is None
    if flat:
        xs, ss = x.reshape(-1), s.reshape(-1)
        ax = 0
    else:
        xs, ss, ax = x, s, axis
    if kind in ("sum", "cumsum", "scan"):
        if is_float(t):
            v = _real(ss, t).astype(np.float64)
            r = v.sum(ax) if kind == "sum" else _flip(np.cumsum, v, ax, reverse)
            return from_real(r, rt)
        if kind == "scan" and t == "int1":   # int1 + int1 wraps: a running xor
            return _flip(np.bitwise_xor.accumulate, ss, ax, reverse)
        ct = DTYPES[acc_type(t) if kind != "scan" else t][1]
        v = ss.astype(ct)
        r = v.sum(ax, dtype=ct) if kind == "sum" else _flip(lambda a, d: np.cumsum(a, d, dtype=ct), v, ax,
                                                               reverse)
        return np.asarray(r).astype(rst)
    if kind == "cumprod":
        if is_float(t):
            v = _real(p, t).astype(np.float16 if t == "float16" else np.float32)
            r = _flip(lambda a, d: _seq_prod(a, d, t), v, ax, reverse)
            return f32_to_bf16(r) if t == "bfloat16" else r
        ct = DTYPES[acc_type(t)][1]
        return _flip(lambda a, d: np.cumprod(a, d, dtype=ct), p.astype(ct), ax, reverse)
    if kind == "xor_sum":
        return np.bitwise_xor.reduce(ss, ax)
    v = _real(xs, t)
    if not is_float(t):
        v = v.astype(np.int64) if t != "uint64" else v
    which = "max" if kind.endswith("max") else "min"
    if kind in ("max", "min"):
        r = (np.nanmax if which == "max" else np.nanmin)(v, ax) if is_float(t) else \
            (np.max if which == "max" else np.min)(v, ax)
        return np.asarray(r).astype(rst if rt != "bfloat16" else np.float32)
    # argmax / argmin / return_indices: the first index of the extreme (NaN ignored)
    if is_float(t):
        idx = (np.nanargmax if which == "max" else np.nanargmin)(v, ax)
    else:
        idx = (np.argmax if which == "max" else np.argmin)(v, ax)
    return np.asarray(idx).astype(np.int32)


def _expected_values(kind, axis, x, t):
    """The values ``tl.max(..., return_indices=True)`` returns (in the input type)."""
    v = _real(x.reshape(-1) if axis is None else x, t)
    ax = 0 if axis is None else axis
    if is_float(t):
        r = (np.nanmax if kind == "imax" else np.nanmin)(v, ax)
    else:
        r = (np.max if kind == "imax" else np.min)(v, ax)
    return np.asarray(r)


def check(got, want, rt: str, what: str):
    if rt == "bfloat16":
        got, want = bf16_to_f32(got), bf16_to_f32(np.asarray(want))
    np.testing.assert_array_equal(np.asarray(got).reshape(np.shape(want)), want, err_msg=what)


# ----------------------------------------------------------------------------- the grid


def out_shape(kind, axis, keep, data):
    if kind in ("cumsum", "cumprod", "scan"):
        return data
    if axis is None:
        return ()
    return tuple(d for i, d in enumerate(data) if i != axis)


def run_case(case: str, t: str):
    block, data = CASES[case]
    n = int(np.prod(data))
    rng = np.random.default_rng(sum(map(ord, case + t)))
    x, s, p = (a.reshape(data) for a in make_inputs(t, n, rng))
    sig = [f"*{DTYPES[t][0]}"] * 3
    buffers = {"X": x.reshape(-1), "S": s.reshape(-1), "P": p.reshape(-1)}
    ops = specs(case, t)
    for i, (kind, axis, keep, rev) in enumerate(ops):
        rt = result_type(kind, t)
        size = int(np.prod(out_shape(kind, axis, keep, data)))
        sig.append(f"*{DTYPES[rt][0]}")
        buffers[f"O{i}"] = np.zeros(size, DTYPES[rt][1])
        if kind in ("imax", "imin"):
            sig.append(f"*{DTYPES[t][0]}")
            buffers[f"V{i}"] = np.zeros(size, DTYPES[t][1])
    out = launch(kernel(case, t), ",".join(sig), buffers, kernel="k")
    for i, (kind, axis, keep, rev) in enumerate(ops):
        what = f"{case} {t}: {kind}(axis={axis}, keep_dims={keep}, reverse={rev})"
        want = reference(kind, axis, keep, rev, x, s, p, t)
        check(out.outputs[f"O{i}"], want, result_type(kind, t), what)
        if kind in ("imax", "imin"):
            vals = _expected_values(kind, axis, x, t)
            got = out.outputs[f"V{i}"]
            if t == "bfloat16":
                got = bf16_to_f32(got)
            np.testing.assert_array_equal(got.reshape(vals.shape), vals.astype(got.dtype), err_msg=what + " values")
    return len(ops)


ALL_CASES = [(c, t) for c in CASES for t in ALL]
DEFAULT = [("2d", t) for t in ALL] + [("1d", "int8"), ("1d", "float32"), ("1d", "uint64"),
                                      ("3d", "int16"), ("3d", "bfloat16"), ("3d", "uint32")]


@pytest.mark.parametrize("case,t", grid_params(ALL_CASES, DEFAULT))
def test_reduce(case, t):
    run_case(case, t)


DTYPE_KERNEL = '''
@triton.jit
def k(X, O0, O1, O2, O3, N, B: tl.constexpr):
    r = tl.arange(0, B)
    m = r < N
    x = tl.load(X + r, mask=m, other=0)
    x1 = tl.load(X + r, mask=m, other=1)
    s8 = tl.sum(x, 0, dtype=tl.int8)
    tl.static_assert(s8.dtype == tl.int8)
    tl.store(O0, s8)
    sf = tl.sum(x, 0, dtype=tl.float32)
    tl.static_assert(sf.dtype == tl.float32)
    tl.store(O1, sf)
    c16 = tl.cumsum(x, 0, dtype=tl.int16)
    tl.static_assert(c16.dtype == tl.int16)
    tl.store(O2 + r, c16, mask=m)
    p64 = x1.cumprod(0, dtype=tl.int64)
    tl.static_assert(p64.dtype == tl.int64)
    tl.store(O3 + r, p64, mask=m)
'''


def test_dtype_argument():
    """``dtype=`` converts the input and is the accumulation type: no widening to int32 after it."""
    n = 50
    x = inputs("int8", n, np.random.default_rng(3))
    out = launch(DTYPE_KERNEL, "*i8,*i8,*fp32,*i16,*i64,i32",
                 {"X": x, "O0": np.zeros(1, np.int8), "O1": np.zeros(1, np.float32), "O2": np.zeros(n, np.int16),
                  "O3": np.zeros(n, np.int64), "N": np.array(n, np.int32)}, defines=(("B", "64"),))
    o = out.outputs
    assert o["O0"][0] == x.astype(np.int8).sum(dtype=np.int8)
    assert o["O1"][0] == x.astype(np.float64).sum()
    np.testing.assert_array_equal(o["O2"], np.cumsum(x, dtype=np.int16))
    np.testing.assert_array_equal(o["O3"], np.cumprod(x.astype(np.int64), dtype=np.int64))
