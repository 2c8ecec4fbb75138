"""Triton's fp8 element types against a bit-exact numpy reference written from the formats' definitions.

The reference builds each format's 256-entry decode table from (exponent bits, mantissa bits, bias,
specials) and encodes a float64 value by searching that table: the nearer neighbour, ties to the even
code (fp8e4b15: ties up, after truncating to f16), saturating beyond the largest finite value
(infinities too; fnuz formats turn infinities into NaN), NaN to the format's NaN code, no negative
zero in the fnuz formats.  Kernels convert blocks (1-D and 2-D with ragged masks, several programs)
and scalars, and run Inductor-style quantize/dequantize kernels.
"""
from __future__ import annotations

import numpy as np
import pytest

from mtiacc.diagnostics import CompileError
from mtiacc.driver import Options, compile_kernel
from tests.language.dtypes import bf16_to_f32, f32_to_bf16
from tests.language.harness import HEADER, launch

# Triton dtype -> (signature name, exponent bits, mantissa bits, bias, specials)
FP8 = {
    "float8e4nv": ("fp8e4nv", 4, 3, 7, "fn"),        # S.1111.111 is NaN, no infinities
    "float8e5": ("fp8e5", 5, 2, 15, "ieee"),         # IEEE-style infinities and NaNs
    "float8e4b15": ("fp8e4b15", 4, 3, 15, "none"),   # every code finite
    "float8e4b8": ("fp8e4b8", 4, 3, 8, "fnuz"),      # 0x80 is the only NaN, no -0, no infinities
    "float8e5b16": ("fp8e5b16", 5, 2, 16, "fnuz"),
}
NAMES = list(FP8)
WIDE = {"float32": ("fp32", np.float32), "float16": ("fp16", np.float16), "bfloat16": ("bf16", np.uint16),
        "float64": ("fp64", np.float64)}


def decode_table(name: str) -> np.ndarray:
    _, E, M, bias, specials = FP8[name]
    c = np.arange(256)
    e, m = (c >> M) & ((1 << E) - 1), c & ((1 << M) - 1)
    mag = np.where(e == 0, m * 2.0 ** (1 - bias - M), (1 + m / 2.0 ** M) * 2.0 ** (e - bias))
    v = np.where(c >= 128, -mag, mag)
    if specials == "fn":
        v[(c & 0x7F) == 0x7F] = np.nan
    elif specials == "ieee":
        top = e == (1 << E) - 1
        v[top & (m == 0)] = np.where(c[top & (m == 0)] >= 128, -np.inf, np.inf)
        v[top & (m != 0)] = np.nan
    elif specials == "fnuz":
        v[0x80] = np.nan
    return v


def f16_rtz(a: np.ndarray) -> np.ndarray:
    """Non-negative float64 values truncated to f16 (toward zero), at most 65504."""
    with np.errstate(over="ignore"):
        h = a.astype(np.float16).astype(np.float64)
    h = np.where(h > a, np.nextafter(h.astype(np.float16), np.float16(0)).astype(np.float64), h)
    return np.minimum(h, 65504.0)


def encode_ref(x: np.ndarray, name: str) -> np.ndarray:
    _, E, M, bias, specials = FP8[name]
    x = np.asarray(x, np.float64)
    table = decode_table(name)[:128]
    top = 0x7E if specials in ("fn", "none") else 0x7B if specials == "ieee" else 0x7F
    vals = table[:top + 1]                      # the finite codes encoding produces, increasing
    neg = np.signbit(x)
    a = np.abs(x)
    if specials == "none":                      # Triton's NVIDIA software path: via f16, truncating
        a = np.where(np.isnan(a), np.inf, f16_rtz(np.where(np.isnan(a), 0, a)))
    lo = np.clip(np.searchsorted(vals, a, side="right") - 1, 0, top)
    hi = np.minimum(lo + 1, top)
    mid = (vals[lo] + vals[hi]) / 2
    tie_up = (hi % 2 == 0) if specials != "none" else np.ones_like(lo, bool)
    code = np.where(a < mid, lo, np.where(a > mid, hi, np.where(tie_up, hi, lo)))
    code = np.where(a >= vals[top], top, code).astype(np.int64)
    code = code | np.where(neg, 0x80, 0)
    if specials == "fnuz":
        code = np.where((code & 0x7F) == 0, 0, code)
        code = np.where(np.isinf(x), 0x80, code)
    if specials != "none":
        code = np.where(np.isnan(x), 0x80 if specials == "fnuz" else 0x7F, code)
    return code.astype(np.uint8)


def edge_values(name: str, rng, n_random=200) -> np.ndarray:
    """Every finite value, every midpoint and its neighbours, beyond the range, specials, random."""
    t = decode_table(name)[:128]
    fin = t[np.isfinite(t)]
    mids = (fin[:-1] + fin[1:]) / 2
    big = fin.max()
    step = big - fin[fin < big].max()
    extra = [0.0, big + step / 2, big + step / 4, big + step, 1.5 * big, 1e30, 1e300, np.inf, np.nan, 1.75, 1.8,
             fin[1] / 2, fin[1] / 4, fin[1] * 0.75, 1e-30, 2.0 ** -126, 2.0 ** -140]
    vals = np.concatenate([fin, mids, np.nextafter(mids, 0), np.nextafter(mids, np.inf), extra,
                           2.0 ** rng.uniform(np.log2(fin[1]) - 2, np.log2(big) + 1, n_random)])
    return np.concatenate([vals, -vals])


def as_source(v: np.ndarray, src: str) -> tuple:
    """(storage array of type ``src``, the exact float64 values it holds)."""
    if src == "bfloat16":
        with np.errstate(over="ignore"):
            bits = f32_to_bf16(v.astype(np.float32))
        return bits, bf16_to_f32(bits).astype(np.float64)
    with np.errstate(over="ignore"):
        a = v.astype(WIDE[src][1])
    return a, a.astype(np.float64)


CONVERT = '''
@triton.jit
def k(X, Y, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    x = tl.load(X + offs, mask=m)
    tl.store(Y + offs, x.to(tl.DST), mask=m)
'''


def sig(t: str) -> str:
    return FP8[t][0] if t in FP8 else WIDE[t][0]


def convert(x: np.ndarray, src: str, dst: str, out_dtype) -> np.ndarray:
    n = len(x)
    block = 128
    grid = (n + block - 1) // block
    res = launch(CONVERT.replace("DST", dst), f"*{sig(src)},*{sig(dst)},i32",
                 {"X": x, "Y": np.zeros(n, out_dtype), "N": np.array(n, np.int32)},
                 grid=(grid,), defines=(("BLOCK", str(block)),))
    return res.outputs["Y"]


ENCODE = [(f, s) for f in NAMES for s in WIDE if not (f == "float8e4b15" and s in ("bfloat16", "float64"))]
ENCODE_DEFAULT = {(f, "float32") for f in NAMES} | {("float8e4nv", "float16"), ("float8e5", "bfloat16"),
                                                     ("float8e4b8", "float64"), ("float8e4b15", "float16")}


@pytest.mark.parametrize("fmt,src", [pytest.param(f, s, id=f"{s}->{f}", marks=() if (f, s) in ENCODE_DEFAULT
                                                  else pytest.mark.slow) for f, s in ENCODE])
def test_encode(fmt, src):
    rng = np.random.default_rng(sum(map(ord, fmt + src)))
    x, exact = as_source(edge_values(fmt, rng), src)
    got = convert(x, src, fmt, np.uint8)
    want = encode_ref(exact, fmt)
    bad = np.nonzero(got != want)[0]
    assert bad.size == 0, [(exact[i], hex(got[i]), hex(want[i])) for i in bad[:8]]


DECODE = [(f, d) for f in NAMES for d in WIDE if not (f == "float8e4b15" and d in ("bfloat16", "float64"))]


def _same_float(got: np.ndarray, want: np.ndarray, dst: str) -> None:
    gv = bf16_to_f32(got) if dst == "bfloat16" else got.astype(np.float64)
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(gv), nan)
    w = want[~nan].astype(np.float32 if dst == "bfloat16" else WIDE[dst][1])
    g = gv[~nan].astype(w.dtype)
    assert np.array_equal(g.view(f"u{w.itemsize}"), w.view(f"u{w.itemsize}"))   # signs of zero too


@pytest.mark.parametrize("fmt,dst", [pytest.param(f, d, id=f"{f}->{d}", marks=() if d in ("float32", "float16")
                                                  or (f, d) == ("float8e5", "bfloat16") else pytest.mark.slow)
                                     for f, d in DECODE])
def test_decode_all_codes(fmt, dst):
    codes = np.concatenate([np.arange(256), np.arange(255, -1, -1), np.arange(40)]).astype(np.uint8)
    got = convert(codes, fmt, dst, WIDE[dst][1])
    _same_float(got, decode_table(fmt)[codes], dst)


PAIRS = [(a, b) for a in NAMES for b in NAMES if a != b and "float8e4b15" not in (a, b)]


@pytest.mark.parametrize("a,b", [pytest.param(a, b, id=f"{a}->{b}", marks=() if (a, b) in
                                              (("float8e5", "float8e4nv"), ("float8e4nv", "float8e4b8"))
                                              else pytest.mark.slow) for a, b in PAIRS])
def test_fp8_to_fp8(a, b):
    codes = np.arange(256).astype(np.uint8)
    got = convert(codes, a, b, np.uint8)
    np.testing.assert_array_equal(got, encode_ref(decode_table(a), b))


TILE = '''
@triton.jit
def k(X, Y, Z, M, N, stride, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)[:, None]
    cols = tl.arange(0, BN)[None, :]
    m = (rows < M) & (cols < N)
    x = tl.load(X + rows * stride + cols, mask=m, other=0.0)
    h = x.to(tl.float16)
    tl.store(Y + rows * N + cols, h, mask=m)
    tl.store(Z + rows * N + cols, (h.to(tl.float32) * 3.0).to(tl.float8e4b8), mask=m)
'''


def test_2d_ragged_tile():
    M, N, stride = 13, 21, 24
    rng = np.random.default_rng(7)
    codes = rng.integers(0, 256, (M, stride)).astype(np.uint8)
    res = launch(TILE, "*fp8e5,*fp16,*fp8e4b8,i32,i32,i32",
                 {"X": codes.ravel(), "Y": np.full(M * N, 7, np.float16), "Z": np.full(M * N, 0x55, np.uint8),
                  "M": np.array(M, np.int32), "N": np.array(N, np.int32), "stride": np.array(stride, np.int32)},
                 grid=(2,), defines=(("BM", "8"), ("BN", "32")))
    vals = decode_table("float8e5")[codes[:, :N]]
    _same_float(res.outputs["Y"], vals.ravel(), "float16")
    want = encode_ref((vals.astype(np.float16).astype(np.float32) * np.float32(3)).astype(np.float64), "float8e4b8")
    np.testing.assert_array_equal(res.outputs["Z"], want.ravel())


SCALAR = '''
@triton.jit
def k(X, B, Y, C, H, D, G, E, P, Q):
    pid = tl.program_id(0)
    x = tl.load(X + pid)
    tl.store(Y + pid, x.to(tl.float8e5))
    b = tl.load(B + pid)
    tl.store(C + pid, b.to(tl.float16))
    tl.store(D + pid, tl.load(H + pid).to(tl.float8e4b15))
    g = tl.load(G + pid)
    if pid % 2 == 0:
        g = tl.where(pid < 8, g, g.to(tl.float32).to(tl.float8e4b8))
    tl.store(E + pid, g.to(tl.bfloat16))
    tl.store(Q + pid, tl.load(P + pid).to(tl.float8e4b8).to(tl.float64))
'''


def test_scalars():
    rng = np.random.default_rng(3)
    x = np.array([0.0, -0.0, 57344.0, 61440.0, 61439.0, 1e9, np.inf, -np.inf, np.nan, 2.0 ** -17, 3 * 2.0 ** -17,
                  -1.25, 0.3, 1e-30, 96.0, 112.0], np.float32)
    codes = rng.integers(0, 256, len(x)).astype(np.uint8)
    codes[:4] = [0x7C, 0xFC, 0x7E, 0x80]
    with np.errstate(over="ignore"):
        h = (x * 0.001).astype(np.float16)
    g = rng.integers(0, 256, len(x)).astype(np.uint8)
    n = len(x)
    p = np.array([1e300, -1e300, 240.0, 248.0, 248.00000000001, -0.0, np.nan, np.inf, 2.0 ** -11,
                  2.0 ** -11 + 2.0 ** -60, 3 * 2.0 ** -11, 1.0 + 2.0 ** -4, 1.0 + 2.0 ** -4 + 2.0 ** -50, 7.0, -7.5, 1e-300])
    res = launch(SCALAR, "*fp32,*fp8e4nv,*fp8e5,*fp16,*fp16,*fp8e4b15,*fp8e4b8,*bf16,*fp64,*fp64",
                 {"X": x, "B": codes, "Y": np.zeros(n, np.uint8), "C": np.zeros(n, np.float16), "H": h,
                  "D": np.zeros(n, np.uint8), "G": g, "E": np.zeros(n, np.uint16), "P": p, "Q": np.zeros(n)},
                 grid=(n,))
    np.testing.assert_array_equal(res.outputs["Y"], encode_ref(x.astype(np.float64), "float8e5"))
    _same_float(res.outputs["C"], decode_table("float8e4nv")[codes], "float16")
    np.testing.assert_array_equal(res.outputs["D"], encode_ref(h.astype(np.float64), "float8e4b15"))
    _same_float(res.outputs["E"], decode_table("float8e4b8")[g], "bfloat16")   # the where/if keep g
    # f64 rounds once (to odd in f32 first): ties and just-above-ties that f32 cannot hold
    _same_float(res.outputs["Q"], decode_table("float8e4b8")[encode_ref(p, "float8e4b8")], "float64")


INDUCTOR = '''
from torch._inductor.runtime import triton_helpers

@triton.jit
def triton_poi_fused_quantize_0(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (x0), xmask).to(tl.float32)
    tmp1 = tl.load(in_ptr1 + (0))
    tmp2 = tl.broadcast_to(tmp1, [XBLOCK])
    tmp3 = tmp0 * tmp2
    tmp4 = -448.0
    tmp5 = triton_helpers.maximum(tmp3, tmp4)
    tmp6 = 448.0
    tmp7 = triton_helpers.minimum(tmp5, tmp6)
    tmp8 = tmp7.to(tl.float8e4nv)
    tl.store(out_ptr0 + (x0), tmp8, xmask)

@triton.jit
def triton_poi_fused_dequantize_1(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (x0), xmask).to(tl.float32)
    tmp1 = tl.load(in_ptr1 + (0))
    tmp2 = tl.broadcast_to(tmp1, [XBLOCK])
    tmp3 = tmp0 / tmp2
    tmp4 = tmp3.to(tl.bfloat16)
    tl.store(out_ptr0 + (x0), tmp4, xmask)
'''


def test_inductor_quantize_dequantize():
    n = 1000
    rng = np.random.default_rng(11)
    x = f32_to_bf16((rng.standard_normal(n) * 40).astype(np.float32))
    x[:4] = f32_to_bf16(np.array([np.inf, -np.inf, 1e6, -0.0], np.float32))
    scale = np.array([1.75], np.float32)
    q = launch(INDUCTOR, "*bf16,*fp32,*fp8e4nv,i32", {"in_ptr0": x, "in_ptr1": scale, "out_ptr0": np.zeros(n, np.uint8),
                                                      "xnumel": np.array(n, np.int32)},
               grid=(4,), defines=(("XBLOCK", "256"),), kernel="triton_poi_fused_quantize_0").outputs["out_ptr0"]
    scaled = bf16_to_f32(x) * scale[0]
    want = encode_ref(np.clip(scaled, -448, 448).astype(np.float64), "float8e4nv")
    np.testing.assert_array_equal(q, want)
    d = launch(INDUCTOR, "*fp8e4nv,*fp32,*bf16,i32", {"in_ptr0": q, "in_ptr1": scale, "out_ptr0": np.zeros(n, np.uint16),
                                                      "xnumel": np.array(n, np.int32)},
               grid=(4,), defines=(("XBLOCK", "256"),), kernel="triton_poi_fused_dequantize_1").outputs["out_ptr0"]
    np.testing.assert_array_equal(d, f32_to_bf16(decode_table("float8e4nv")[q].astype(np.float32) / scale[0]))


SELECT = '''
@triton.jit
def k(X, A, B, Y, Z, W, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    x = tl.load(X + offs, mask=m, other=1.5)
    bits = x.to(tl.uint8, bitcast=True)
    y = tl.where((bits & 1) == 0, x, tl.full((BLOCK,), 0.3, tl.float8e4nv))
    tl.store(Y + offs, tl.maximum(y, -1.0))
    tl.store(Z + offs, (bits ^ 0x80).to(tl.float8e4nv, bitcast=True), mask=m)
    a = tl.load(A + offs, mask=m)
    b = tl.load(B + offs, mask=m)
    tl.store(W + offs, x + a + b, mask=m)
'''


def test_select_bitcast_maximum_promotion():
    n, block = 200, 128
    rng = np.random.default_rng(5)
    codes = rng.integers(0, 256, n).astype(np.uint8)
    a = rng.integers(0, 256, n).astype(np.uint8)
    b = f32_to_bf16(rng.standard_normal(n).astype(np.float32))
    res = launch(SELECT, "*fp8e4nv,*fp8e5,*bf16,*fp8e4nv,*fp8e4nv,*fp32,i32",
                 {"X": codes, "A": a, "B": b, "Y": np.zeros(2 * block, np.uint8), "Z": np.zeros(n, np.uint8),
                  "W": np.zeros(n, np.float32), "N": np.array(n, np.int32)},
                 grid=(2,), defines=(("BLOCK", str(block)),)).outputs
    t = decode_table("float8e4nv")
    full = np.concatenate([codes, np.full(2 * block - n, encode_ref(np.array([1.5]), "float8e4nv")[0])])
    y = np.where(full % 2 == 0, t[full], 0.3125)          # 0.3 rounds to 0.3125
    y = np.where(np.isnan(y), -1.0, np.maximum(y, -1.0))  # maximum returns the non-NaN operand
    np.testing.assert_array_equal(res["Y"], encode_ref(y, "float8e4nv"))
    np.testing.assert_array_equal(res["Z"], codes ^ 0x80)
    # e4nv + e5 meet in f16; f16 + bf16 is f16 as well (Triton's rules): computed in f16, stored as f32
    h = (t[codes].astype(np.float16) + decode_table("float8e5")[a].astype(np.float16)).astype(np.float16)
    want = (h + bf16_to_f32(b).astype(np.float16)).astype(np.float32)
    np.testing.assert_array_equal(np.isnan(res["W"]), np.isnan(want))
    np.testing.assert_array_equal(res["W"][~np.isnan(want)], want[~np.isnan(want)])


RTZ = '''
@triton.jit
def k(X, Y, Z, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    x = tl.load(X + offs, mask=m)
    tl.store(Y + offs, x.to(tl.float8e5, fp_downcast_rounding="rtz"), mask=m)
    tl.store(Z + offs, x.to(tl.float8e4nv, fp_downcast_rounding="rtne"), mask=m)
'''


def test_rtz_float32_to_e5():
    """Triton's NVIDIA path: f32 -> f16 toward zero (65504 at most), then the top byte: a truncation."""
    rng = np.random.default_rng(9)
    with np.errstate(over="ignore"):
        x = edge_values("float8e5", rng).astype(np.float32)
    x = np.concatenate([x, np.array([65504.0, 65520.0, 1e38, 2.0 ** -24, 2.0 ** -25, 1e-45], np.float32)])
    n = len(x)
    res = launch(RTZ, "*fp32,*fp8e5,*fp8e4nv,i32", {"X": x, "Y": np.zeros(n, np.uint8), "Z": np.zeros(n, np.uint8),
                                                    "N": np.array(n, np.int32)}, grid=((n + 127) // 128,), defines=(("BLOCK", "128"),))
    vals = decode_table("float8e5")[:0x7C]                 # finite non-negative codes 0 .. 0x7B
    a = np.abs(x.astype(np.float64))
    want = np.clip(np.searchsorted(vals, np.where(np.isnan(a), 0, a), side="right") - 1, 0, 0x7B)
    want = np.where(np.isinf(a), 0x7C, want) | np.where(np.signbit(x), 0x80, 0)
    want = np.where(np.isnan(x), 0x7F, want).astype(np.uint8)
    bad = np.nonzero(res.outputs["Y"] != want)[0]
    assert bad.size == 0, [(x[i], hex(res.outputs["Y"][i]), hex(want[i])) for i in bad[:8]]
    np.testing.assert_array_equal(res.outputs["Z"], encode_ref(x.astype(np.float64), "float8e4nv"))   # rtne: default


@pytest.mark.parametrize("level", [0, 3])
def test_opt_levels(tmp_path, level):
    """The select/bitcast/promotion kernel (fusable ops on fp8 bytes) gives -O2's bytes at -O0 and -O3."""
    from mtiasim.runner import run
    src = tmp_path / "k.py"
    src.write_text(HEADER + SELECT)
    sig_ = "*fp8e4nv,*fp8e5,*bf16,*fp8e4nv,*fp8e4nv,*fp32,i32"
    n, block = 200, 128
    rng = np.random.default_rng(13)
    inputs = {"X": rng.integers(0, 256, n).astype(np.uint8), "A": rng.integers(0, 256, n).astype(np.uint8),
              "B": f32_to_bf16(rng.standard_normal(n).astype(np.float32)), "Y": np.zeros(2 * block, np.uint8),
              "Z": np.zeros(n, np.uint8), "W": np.zeros(n, np.float32), "N": np.array(n, np.int32)}
    outs = []
    for lv in (2, level):
        binary = tmp_path / f"k{lv}.bin"
        binary.write_bytes(compile_kernel(str(src), Options(signature=sig_, defines={"BLOCK": str(block)},
                                                            opt_level=lv)).binary)
        outs.append(run(str(binary), dict(inputs), grid=(2,)).outputs)
    for name in ("Y", "Z", "W"):
        np.testing.assert_array_equal(outs[0][name].view(np.uint8), outs[1][name].view(np.uint8))


def test_ir_round_trip_and_signature(tmp_path):
    """fp8 types print and parse back (pointers, blocks, constants), and the binary's signature names them."""
    from mtiacc.ir.text.parser import parse_ir
    from mtiacc.ir.text.printer import print_ir
    src = tmp_path / "k.py"
    src.write_text(HEADER + SELECT)
    opts = Options(signature="*fp8e4nv,*fp8e5,*bf16,*fp8e4nv,*fp8e4nv,*fp32,i32", defines={"BLOCK": "64"})
    text = compile_kernel(str(src), opts, stop_after="ir").ir_text
    for t in ("!tt.ptr<f8E4M3FN>", "!tt.ptr<f8E5M2>", "tensor<64xf8E4M3FN>", "value = 0.3125"):
        assert t in text
    assert print_ir(parse_ir(text)) == text
    meta = compile_kernel(str(src), opts).meta
    assert [p["type"] for p in meta["params"]][:2] == ["*fp8e4nv", "*fp8e5"]


# --------------------------------------------------------------------------- what Triton rejects

ERR_KERNEL = ("@triton.jit\ndef k(X, Y):\n    x = tl.load(X + tl.arange(0, 8))\n    y = x\n    {stmt}\n"
              "    tl.store(Y + tl.arange(0, 8) * 0, y.to(tl.float32))\n")


@pytest.mark.parametrize("stmt,message,underlined", [
    ("y = x + x", "`+` on f8E4M3FN is not supported: Triton's backends cannot compute in fp8; convert with "
                  ".to(tl.float16) or .to(tl.float32) first", "x + x"),
    ("y = x * 2.0", "`*` on f8E4M3FN is not supported", "x * 2.0"),
    ("y = x < x", "`<` on f8E4M3FN is not supported", "x < x"),
    ("y = -x", "`-` on f8E4M3FN is not supported", "-x"),
    ("y = x + tl.arange(0, 8)", "cannot combine f8E4M3FN and i32: Triton rejects fp8 with integers", "x + tl.arange(0, 8)"),
    ("y = tl.where(x.to(tl.float32) > 0, x, x.to(tl.float32) > 1)", "cannot combine f8E4M3FN and i1",
     "tl.where(x.to(tl.float32) > 0, x, x.to(tl.float32) > 1)"),
    ("y = x.to(tl.int32)", "cannot convert f8E4M3FN to i32: Triton converts fp8 only to and from floating-point "
                           "types (go through tl.float32)", "x.to(tl.int32)"),
    ("y = tl.arange(0, 8).to(tl.float8e5)", "cannot convert i32 to f8E5M2", "tl.arange(0, 8).to(tl.float8e5)"),
    ("y = x.to(tl.float8e4b15)", "cannot convert f8E4M3FN to f8E4M3B15: float8e4b15 converts only to and from "
                                 "float16 and float32", "x.to(tl.float8e4b15)"),
    ("y = tl.sum(x, 0)", "`tt.reduce` on f8E4M3FN is not supported yet: convert to tl.float32 first",
     "tl.sum(x, 0)"),
    ("tl.device_print('x', x)", "`tt.print` on f8E4M3FN is not supported yet", "tl.device_print('x', x)"),
    ("y = x.to(tl.float32).to(tl.float8e4nv, fp_downcast_rounding='rtz')", "fp_downcast_rounding='rtz' from f32 "
     "to f8E4M3FN is not supported: Triton's backends accept it for fp8 only from float32 to float8e5",
     "x.to(tl.float32).to(tl.float8e4nv, fp_downcast_rounding='rtz')"),
    ("y = x.to(tl.float32, fp_downcast_rounding='rtne')", "fp_downcast_rounding applies only to narrowing float "
     "conversions, not f8E4M3FN to f32", "x.to(tl.float32, fp_downcast_rounding='rtne')"),
])
def test_errors(tmp_path, stmt, message, underlined):
    path = tmp_path / "k.py"
    path.write_text(HEADER + ERR_KERNEL.format(stmt=stmt))
    with pytest.raises(CompileError) as info:
        compile_kernel(str(path), Options(signature="*fp8e4nv,*fp32"))
    rendered = info.value.render().splitlines()
    line = HEADER.count("\n") + 5
    col = 4 + stmt.index(underlined) + 1
    assert rendered[0].startswith(f"{path}:{line}:{col}: error: {message}"), rendered[0]
    assert rendered[1] == f"    {stmt}"
    assert rendered[2] == " " * (col - 1) + "^" + "~" * (len(underlined) - 1)
    assert "Traceback" not in info.value.render()
