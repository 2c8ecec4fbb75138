"""Tutorial 03's GEMM in every layout, A or A^T times B or B^T (as a transposed array arrives: by strides), bf16,
fp16 and int8, against numpy (seeded inputs) and bit for bit against the row-major layout's result.

A unit stride is compiled as the constant 1, as Triton specializes an integer argument equal to 1; then a
column-major operand tile is loaded as its row-major transpose (``transposed-loads``) and transposed by the
engine's weight path (``b``) or the MLU in K panels (``a``).  Strides known only at run time take the general
path (one 2-D DMA per column): the same numbers."""
import numpy as np
import pytest

from mtiasim.runner import run
from tests.codegen.matrix.numerics import bound, build, from_bf16, operand

NAMES = ["M", "N", "K", "stride_am", "stride_ak", "stride_bk", "stride_bn", "stride_cm", "stride_cn"]
PTR = {"bf16": "*bf16", "f16": "*fp16", "i8": "*i8"}
OUT = {"bf16": "*bf16", "f16": "*fp16", "i8": "*i32"}


def gemm(layout: str, kind: str, shape, blocks, specialize: bool = True, disabled=()):
    """C = A @ B with A stored [K, M] when layout[0] is 'T' and B stored [N, K] when layout[1] is 'T'; returns
    (C, A and B as float64 / int64 values).  ``disabled``: passes left out."""
    M, N, K = shape
    rng = np.random.default_rng(M * 7919 + N * 131 + K)
    a, av = operand(rng, (M, K), kind)
    b, bv = operand(rng, (K, N), kind)
    at, bt = layout[0] == "T", layout[1] == "T"
    a_stored = np.ascontiguousarray(a.T) if at else a
    b_stored = np.ascontiguousarray(b.T) if bt else b
    values = [M, N, K, *((1, M) if at else (K, 1)), *((1, K) if bt else (N, 1)), N, 1]
    consts = {n for n, v in zip(NAMES, values) if specialize and n.startswith("stride") and v == 1}
    sig = ",".join([PTR[kind], PTR[kind], OUT[kind]] + ["i32"] * (len(NAMES) - len(consts)))
    bm, bn, bk = blocks
    binary = build("matmul_strided", sig, disabled, BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk, GROUP_SIZE_M=2,
                   INTEGER=int(kind == "i8"), **{n: 1 for n in sorted(consts)})
    out_t = {"bf16": np.uint16, "f16": np.float16, "i8": np.int32}[kind]
    inputs = {"a_ptr": a_stored, "b_ptr": b_stored, "c_ptr": np.zeros((M, N), out_t),
              **{n: np.array(v, np.int32) for n, v in zip(NAMES, values) if n not in consts}}
    grid = (-(-M // bm) * -(-N // bn),)
    c = run(binary, inputs, grid=grid).outputs["c_ptr"].reshape(M, N)
    return c, av, bv


def _check(c, av, bv, kind):
    if kind == "i8":
        assert np.array_equal(c, (av @ bv).astype(np.int32))
        return
    got = from_bf16(c).astype(np.float64) if kind == "bf16" else c.astype(np.float64)
    want = av @ bv
    out_ulp = 2.0 ** -8 if kind == "bf16" else 2.0 ** -11    # the final rounding to the output type
    tol = bound(av, bv, kind) + out_ulp * np.abs(want) + 1e-30
    err = np.abs(got - want)
    assert np.all(err <= tol), f"max error {err.max()}"


@pytest.mark.parametrize("kind", ["bf16", "f16", "i8"])
@pytest.mark.parametrize("layout", ["NT", "TN", "TT"])
def test_every_layout_and_type(layout, kind):
    shape, blocks = (72, 80, 100), (64, 32, 64)
    c, av, bv = gemm(layout, kind, shape, blocks)
    _check(c, av, bv, kind)
    ref, _, _ = gemm("NN", kind, shape, blocks)
    assert np.array_equal(c, ref)          # the same products in the same order: the same bits


@pytest.mark.parametrize("layout", ["TN", "TT"])
def test_ragged_k_panel(layout):
    """BLOCK_SIZE_K 16: a's one K panel is 16 rows, narrower than the engine's 32 (x_stride 16 elements)."""
    shape, blocks = (40, 64, 150), (32, 64, 16)
    c, av, bv = gemm(layout, "bf16", shape, blocks)
    _check(c, av, bv, "bf16")
    assert np.array_equal(c, gemm("NN", "bf16", shape, blocks)[0])


@pytest.mark.parametrize("layout", ["NT", "TN"])
def test_strides_known_at_run_time_only(layout):
    shape, blocks = (48, 40, 70), (32, 32, 32)
    c, av, bv = gemm(layout, "f16", shape, blocks, specialize=False)
    _check(c, av, bv, "f16")
    assert np.array_equal(c, gemm(layout, "f16", shape, blocks)[0])


# each layout once and each type at least once in the suite (about 9 s of CPU), the other 8 pairs with -m slow
_SEVERAL = ("NN-f16", "NT-i8", "TN-bf16", "TT-f16")


@pytest.mark.parametrize("layout,kind", [pytest.param(lay, k, id=f"{lay}-{k}", marks=() if f"{lay}-{k}" in _SEVERAL
                                                      else pytest.mark.slow)
                                         for lay in ("NN", "NT", "TN", "TT") for k in ("bf16", "f16", "i8")])
def test_several_programs_per_pe(layout, kind):
    """170 programs on 64 PEs: each PE runs its slot's programs in one loop (persistent-programs), the next
    program's first tiles fetched during this one's last dot; ragged edges and a K loop of one pipelined trip and
    two more iterations.  The same bits as one program per launch slot, and as the row-major layout."""
    shape, blocks = (544, 320, 328), (32, 32, 64)
    c, av, bv = gemm(layout, kind, shape, blocks)
    _check(c, av, bv, kind)
    one, _, _ = gemm(layout, kind, shape, blocks, disabled=("persistent-programs",))
    assert np.array_equal(c, one)
    if layout != "NN":
        assert np.array_equal(c, gemm("NN", kind, shape, blocks)[0])
