"""Differential grid: every binary operator over pairs of element types, against numpy, in the style of
Triton's test_core.py.

One kernel per dtype pair computes every operator defined for the pair on a batch of seeded inputs (edge
values first) and stores each result in its own output.  The reference promotes with Triton's documented
rules (``promote`` below, written from the "Triton Semantics" page, independently of mtiacc's code), computes
integers exactly in Python and wraps them, divides and takes remainders with C's signs, and computes bf16 in
f32 rounded back to bf16; ``/`` and ``%`` on fp16/bf16 compute in (and give) f32, as Triton does; ``%`` on floats is C's ``fmod`` (exact, the sign of the
dividend), ``>>`` is arithmetic when the left operand's own type is signed (also in an unsigned common type, as
Triton's ``tensor.__rshift__`` chooses) and ``tl.umulhi`` is the high half of the unsigned 64-bit product.  The default run takes every same-type pair and a deterministic sample of mixed
pairs; ``-m slow`` runs all of them.
"""
import numpy as np
import pytest

from tests.language.dtypes import (DTYPES, FLOATS, INTS, as_f32, bf16_to_f32, f32_to_bf16, from_real, inputs,
                                   is_float, width)
from tests.language.harness import grid_params, launch

TYPES = INTS + FLOATS
N, BLOCK = 200, 64
ARITH = ["+", "-", "*", "/", "//", "%", "&", "|", "^", "<<", ">>", "<", "<=", ">", ">=", "==", "!=",
         "minimum", "maximum"]
COMPARES = {"<", "<=", ">", ">=", "==", "!="}


def promote(a: str, b: str) -> str:
    """Triton's promotion of two tensors' dtypes (semantic.computation_type_impl): f64, then f32, then f16 win;
    bf16 stays bf16 only with bf16 (with an integer it computes in f32); integers by width, then unsigned."""
    if a == b:
        return a
    for f in ("float64", "float32", "float16"):
        if f in (a, b):
            return f
    if "bfloat16" in (a, b):
        return "float32"
    if width(a) != width(b):
        return a if width(a) > width(b) else b
    return a if a.startswith("u") else b


def ops_for(t: str):
    if is_float(t):
        return [o for o in ARITH if o not in ("//", "&", "|", "^", "<<", ">>")]
    return ARITH + (["umulhi"] if t in ("int32", "uint32") else [])


def result_type(op: str, t: str) -> str:
    if op in COMPARES:
        return "int1"
    if op == "/" and not is_float(t):
        return "float32"
    if op in ("/", "%") and t in ("float16", "bfloat16"):   # Triton computes these in f32 (no half division)
        return "float32"
    return t


def expr(op: str) -> str:
    if op in ("minimum", "maximum", "umulhi"):
        return f"tl.{op}(x, z)"
    if op in ("<<", ">>"):
        return f"x {op} s"
    return f"x {op} z"


def kernel(ops) -> str:
    outs = ", ".join(f"O{i}" for i in range(len(ops)))
    body = "\n".join(f"    tl.store(O{i} + offs, {expr(op)}, mask=m)" for i, op in enumerate(ops))
    return f'''
@triton.jit
def k(X, Z, S, {outs}, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    x = tl.load(X + offs, mask=m)
    z = tl.load(Z + offs, mask=m)
    s = tl.load(S + offs, mask=m)
{body}
'''


def _wrap(v: int, t: str) -> int:
    bits = width(t)
    v &= (1 << bits) - 1
    return v - (1 << bits) if not t.startswith("u") and v >> (bits - 1) else v


def _int_ref(op: str, xs, zs, ss, t: str):
    out = []
    for x, z, s in zip(xs, zs, ss):
        x, z, s = int(x), int(z), int(s)
        if op == "umulhi":  # the high half of the unsigned 64-bit product
            v = ((x & 0xFFFFFFFF) * (z & 0xFFFFFFFF)) >> 32
        elif op in ("//", "%"):
            q = abs(x) // abs(z) * (1 if (x < 0) == (z < 0) else -1)
            v = q if op == "//" else x - q * z
        else:
            v = {"+": x + z, "-": x - z, "*": x * z, "&": x & z, "|": x | z, "^": x ^ z, "<<": x << s,
                 ">>": x >> s, "<": x < z, "<=": x <= z, ">": x > z, ">=": x >= z, "==": x == z, "!=": x != z,
                 "minimum": min(x, z), "maximum": max(x, z)}[op]
        out.append(v)
    if op in COMPARES:
        return np.array(out, np.bool_)
    return np.array([_wrap(v, t) for v in out], dtype=object).astype(DTYPES[t][1])


def _float_ref(op: str, x: np.ndarray, z: np.ndarray, t: str):
    ct = np.float32 if t == "bfloat16" else DTYPES[t][1]
    a, b = x.astype(ct), z.astype(ct)
    if op in COMPARES:
        return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b, "!=": a != b}[op]
    with np.errstate(all="ignore"):
        r = {"+": a + b, "-": a - b, "*": a * b, "/": a / b, "%": np.fmod(a, b), "minimum": np.minimum(a, b),
             "maximum": np.maximum(a, b)}[op]
    return f32_to_bf16(r) if t == "bfloat16" else r.astype(ct)


def reference(op: str, x, z, s, a: str, b: str):
    t = promote(a, b)
    xv, zv = as_f32(x, a), as_f32(z, b)
    if is_float(t) or op == "/":
        halves = op in ("/", "%") and t in ("float16", "bfloat16")   # Triton computes these in f32
        ft = t if is_float(t) and not halves else "float32"
        xr, zr = from_real(xv, ft), from_real(zv, ft)   # the conversions to the common type round
        if ft == "bfloat16":
            xr, zr = bf16_to_f32(xr), bf16_to_f32(zr)
        return _float_ref(op, np.asarray(xr), np.asarray(zr), ft)
    # `>>` is arithmetic when x's own type is signed, also in an unsigned common type (int8 >> uint8)
    xt = t[1:] if op == ">>" and t.startswith("u") and not a.startswith("u") else t
    xs = [_wrap(int(v), xt) for v in x.tolist()]
    zs = [_wrap(int(v), t) for v in z.tolist()]
    return _int_ref(op, xs, zs, s.tolist(), t)


def operands(a: str, b: str, rng):
    t = promote(a, b)
    x = inputs(a, N, rng, -60, 60) if is_float(a) else inputs(a, N, rng)
    z = inputs(b, N, rng, -60, 60, nonzero=True) if is_float(b) else inputs(b, N, rng, nonzero=True)
    if not is_float(t):  # no INT_MIN // -1 (undefined), no zero divisors after the conversion
        tx = np.array([_wrap(int(v), t) for v in x.tolist()], dtype=object)
        tz = np.array([_wrap(int(v), t) for v in z.tolist()], dtype=object)
        lo = -(1 << (width(t) - 1))
        bad = ((tx == lo) & (tz == -1)) | (tz == 0)
        z = np.where(bad, np.array(3).astype(z.dtype), z)
    s = inputs(b, N, rng, 0, width(t) - 1) if not is_float(b) else np.zeros(N, DTYPES[b][1])
    return x, z, s


def check(got, want, t: str, op: str):
    if t == "bfloat16":
        np.testing.assert_array_equal(got.view(np.uint16), want.view(np.uint16), err_msg=op)
    elif is_float(t):
        np.testing.assert_array_equal(got, want, err_msg=op)
    else:
        np.testing.assert_array_equal(got, want, err_msg=op)


ALL_PAIRS = [(a, b) for a in TYPES for b in TYPES]
DEFAULT = [(a, a) for a in TYPES] + ALL_PAIRS[5::9]


def run_pair(a: str, b: str):
    t = promote(a, b)
    ops = ops_for(t)
    rng = np.random.default_rng(width(a) * 1000 + width(b) * 10 + len(a) + len(b))
    x, z, s = operands(a, b, rng)
    rts = [result_type(op, t) for op in ops]
    sig = ",".join([f"*{DTYPES[a][0]}", f"*{DTYPES[b][0]}", f"*{DTYPES[b][0]}"] +
                   [f"*{DTYPES[r][0]}" for r in rts] + ["i32"])
    data = {"X": x, "Z": z, "S": s, "N": np.array(N, np.int32)}
    data.update({f"O{i}": np.zeros(N, DTYPES[r][1]) for i, r in enumerate(rts)})
    out = launch(kernel(ops), sig, data, grid=(-(-N // BLOCK),), defines=(("BLOCK", str(BLOCK)),))
    for i, (op, r) in enumerate(zip(ops, rts)):
        check(out.outputs[f"O{i}"], reference(op, x, z, s, a, b), r, f"{a} {op} {b}")
    return len(ops)


@pytest.mark.parametrize("a,b", grid_params(ALL_PAIRS, DEFAULT))
def test_binary(a, b):
    run_pair(a, b)
