"""reuse-loads against numpy: layer norm forward at -O0 and -O3 (ragged last tile, the row kept or, when it
does not fit the buffer, loaded again), a store to the row between the loops (no reuse), and a store
through another argument that points into the row (the run-time check refuses the reuse)."""
import textwrap
from pathlib import Path

import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiacc.ir.text.printer import print_ir
from mtiasim.runner import run

ROOT = Path(__file__).resolve().parents[2]
LAYER_NORM = ROOT / "examples" / "layer_norm.py"
LN_SIG = "*fp32,*fp32,*fp32,*fp32,*fp32,*fp32,i32,i32,fp32"


def moved(stats) -> int:
    """The bytes the run's DMA moved into and out of local memory: these tests count the reads reuse-loads removes,
    wherever they are served (DRAM, or the LLC for a row read again; not DRAM + SRAM bytes, as a miss on part of a
    line fills the whole line)."""
    return stats.dma_bytes_in + stats.dma_bytes_out


def _compile(path, signature, level=3, passes=None, kernel=None, **defines):
    opts = Options(kernel=kernel, defines={k: str(v) for k, v in defines.items()}, signature=signature,
                   opt_level=level, passes=passes)
    c = compile_kernel(str(path), opts, stop_after="bin")
    c.ir_text = print_ir(c.frontend.module)   # the IR the binary was made from
    return c


def _layer_norm(level, n, passes=None, rows=3):
    c = _compile(LAYER_NORM, LN_SIG, level, passes, kernel="layer_norm_fwd", BLOCK_SIZE=64)
    rng = np.random.default_rng(n)
    x = (rng.standard_normal((rows, n)) * 3 + 1).astype(np.float32)
    w = rng.uniform(0.5, 1.5, n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    inputs = {"X": x, "Y": np.zeros_like(x), "W": w, "B": b, "Mean": np.zeros(rows, np.float32),
              "Rstd": np.zeros(rows, np.float32), "stride": np.int32(n), "N": np.int32(n), "eps": np.float32(1e-5)}
    res = run(c.binary, inputs, grid=(rows,))
    x64 = x.astype(np.float64)
    mean, var = x64.mean(axis=1), x64.var(axis=1)
    want = (x64 - mean[:, None]) / np.sqrt(var[:, None] + 1e-5) * w + b
    np.testing.assert_allclose(res.outputs["Y"], want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(res.outputs["Mean"], mean, rtol=1e-5, atol=1e-5)
    return c, res


@pytest.mark.parametrize("n", [300, 64])
def test_layer_norm_keeps_the_row_and_matches_numpy(n):
    c0, r0 = _layer_norm(0, n)
    c3, r3 = _layer_norm(3, n)
    # two later loops read the kept row (pipeline-loads may run each loop body twice a trip: more copies)
    assert "mtia.slot_load" not in c0.ir_text and c3.ir_text.count("mtia.slot_load") >= 2
    np.testing.assert_array_equal(r0.outputs["Y"], r3.outputs["Y"])
    tile_rows = 3 * 4 * n   # bytes of X per run: read once at -O3, three times at -O0
    assert moved(r0.stats) - moved(r3.stats) == 2 * tile_rows


def test_layer_norm_row_longer_than_the_buffer_loads_again():
    """A 256-byte budget holds 1 tile of 64 x f32: a 300-long row does not fit; the run-time check takes
    the DMA path and the results stay right, with the memory traffic of no reuse."""
    passes = "canonicalize,cse,licm,fuse-elementwise,reuse-loads{budget=256},dce"
    c, r = _layer_norm(2, 300, passes)
    assert "mtia.slot_load" in c.ir_text
    _, plain = _layer_norm(2, 300, "canonicalize,cse,licm,fuse-elementwise,dce")
    assert moved(r.stats) == moved(plain.stats)


STORE_BETWEEN = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def k(X, Y, Z, N, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        X += row * N
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        for off in range(0, N, BLOCK):
            cols = off + tl.arange(0, BLOCK)
            acc += tl.load(X + cols, mask=cols < N, other=0.)
        s = tl.sum(acc, axis=0)
        {between}
        for off in range(0, N, BLOCK):
            cols = off + tl.arange(0, BLOCK)
            x = tl.load(X + cols, mask=cols < N, other=0.)
            tl.store(Y + row * N + cols, x * s, mask=cols < N)
    """)


def _store_between(tmp_path, between, level, pointer_at=None, n=200, rows=2):
    path = tmp_path / "k.py"
    path.write_text(STORE_BETWEEN.format(between=between))
    c = _compile(path, "*fp32,*fp32,*fp32,i32", level, BLOCK=64)
    rng = np.random.default_rng(7)
    x = rng.standard_normal((rows, n)).astype(np.float32)
    inputs = {"X": x, "Y": np.zeros_like(x), "N": np.int32(n)}
    if pointer_at is None:
        inputs["Z"] = np.zeros(rows * n, np.float32)
    res = run(c.binary, inputs, grid=(rows,), pointer_at=pointer_at)
    return c, res, x


def test_a_store_to_the_row_between_the_loops_forbids_the_reuse(tmp_path):
    between = "tl.store(X + tl.arange(0, BLOCK), tl.zeros([BLOCK], dtype=tl.float32) + s)"
    for level in (0, 3):
        c, res, x = _store_between(tmp_path, between, level)
        assert "mtia.slot" not in c.ir_text
        x64 = x.astype(np.float64)
        s = x64.sum(axis=1)
        after = x64.copy()
        after[:, :64] = s[:, None]
        np.testing.assert_allclose(res.outputs["Y"], after * s[:, None], rtol=1e-4, atol=1e-3)


def test_a_store_through_another_argument_into_the_row_is_caught_at_run_time(tmp_path):
    """Z points at X: the scalar store through Z lands in the row; the run-time check sees the overlap."""
    between = "tl.store(Z + row * N + 5, s)"
    c, res, x = _store_between(tmp_path, between, 3, pointer_at={"Z": ("X", 0)})
    assert "mtia.slot_load" in c.ir_text   # the reuse is compiled, guarded
    x64 = x.astype(np.float64)
    s = x64.sum(axis=1)
    after = x64.copy()
    after[:, 5] = s.astype(np.float32)
    np.testing.assert_allclose(res.outputs["Y"], after * s[:, None], rtol=1e-4, atol=1e-3)
    _, apart, _ = _store_between(tmp_path, between, 3)   # Z its own buffer: the row is kept
    assert moved(apart.stats) < moved(res.stats)


def test_a_kept_row_that_leaves_too_little_local_memory_is_dropped():
    """Tiles of 16384 x f32 (64 KiB): two slots and the rest of layer norm's blocks exceed local memory, so the
    compile falls back to loading the row again, rather than failing."""
    c = _compile(LAYER_NORM, LN_SIG, 3, kernel="layer_norm_fwd", BLOCK_SIZE=16384)
    assert "mtia.slot" not in c.ir_text and c.meta["lmem_bytes"] > 3 * 65536


# RMSNorm as TorchInductor writes it (benchmarks/kernels/inductor_rms_norm.py, its sizes constexprs here):
# a looped reduction over one row, XBLOCK = 1, the row read twice as in_ptr0 + (r0_1 + r0_numel*x0).
INDUCTOR_RMS = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def rms(in_ptr0, in_ptr1, out_ptr1, xnumel, r0_numel: tl.constexpr, R0_BLOCK: tl.constexpr):
        XBLOCK: tl.constexpr = 1
        xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:, None]
        xmask = xindex < xnumel
        r0_base = tl.arange(0, R0_BLOCK)[None, :]
        x0 = xindex
        _tmp3 = tl.full([XBLOCK, R0_BLOCK], 0, tl.float32)
        for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
            r0_1 = r0_offset + r0_base
            r0_mask = r0_1 < r0_numel
            tmp0 = tl.load(in_ptr0 + (r0_1 + r0_numel*x0), r0_mask & xmask, other=0.0)
            _tmp3 = tl.where(r0_mask & xmask, _tmp3 + tmp0 * tmp0, _tmp3)
        tmp3 = tl.sum(_tmp3, 1)[:, None]
        for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
            r0_1 = r0_offset + r0_base
            r0_mask = r0_1 < r0_numel
            tmp5 = tl.load(in_ptr0 + (r0_1 + r0_numel*x0), r0_mask & xmask, other=0.0)
            tmp13 = tl.load(in_ptr1 + (r0_1), r0_mask, other=0.0)
            tmp10 = 1.0 / tl.sqrt(tmp3 / r0_numel + 1e-06)
            tl.store(out_ptr1 + (r0_1 + r0_numel*x0), tmp5 * tmp10 * tmp13, r0_mask & xmask)
    """)


@pytest.fixture(scope="module")
def rms_builds(tmp_path_factory):
    """The kernel compiled once per level (rows of 256, tiles of 64)."""
    path = tmp_path_factory.mktemp("rms") / "rms.py"
    path.write_text(INDUCTOR_RMS)
    return {level: _compile(path, "*fp32,*fp32,*fp32,i32", level, r0_numel=256, R0_BLOCK=64) for level in (0, 2, 3)}


def _inductor_rms(c, rows, n=256, pointer_at=None, extra=0):
    rng = np.random.default_rng(11)
    x = rng.standard_normal(rows * n + extra).astype(np.float32)
    w = rng.uniform(0.5, 1.5, n).astype(np.float32)
    inputs = {"in_ptr0": x, "in_ptr1": w, "xnumel": np.int32(rows)}
    if pointer_at is None:
        inputs["out_ptr1"] = np.zeros(rows * n, np.float32)
    res = run(c.binary, inputs, grid=(rows,), pointer_at=pointer_at)
    return res, x, w


@pytest.mark.parametrize("level", [2, 3])
def test_inductor_rms_norm_reads_the_row_once_and_matches_numpy(rms_builds, level):
    """-O2 keeps the loops (slots of a local buffer), -O3 unrolls them (the first loads' values); both read X
    once, the weight once per row, and match numpy and -O0."""
    rows, n = 3, 256
    r0, x, w = _inductor_rms(rms_builds[0], rows)
    c = rms_builds[level]
    r, _, _ = _inductor_rms(c, rows)
    x64 = x.reshape(rows, n).astype(np.float64)
    want = x64 / np.sqrt((x64 * x64).mean(axis=1, keepdims=True) + 1e-6) * w
    np.testing.assert_allclose(r.outputs["out_ptr1"].reshape(rows, n), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(r.outputs["out_ptr1"], r0.outputs["out_ptr1"], rtol=1e-6, atol=1e-6)
    assert ("mtia.slot_load" in c.ir_text) == (level == 2)
    assert r.stats.dma_bytes_in <= 4 * rows * 2 * n + 4 * 2 * n   # X and W once a row (a prefetch may repeat one)
    assert r0.stats.dma_bytes_in == 4 * rows * 3 * n


def _rms_in_place_reference(x, w, n, shift):
    """One row, the output written ``shift`` elements after the input, in program order: loop 2 reads tile k
    after it stored tiles 0 .. k-1."""
    mem = x.astype(np.float64).copy()
    r = 1 / np.sqrt((mem[:n] ** 2).mean() + 1e-6)
    for k in range(0, n, 64):
        mem[shift + k:shift + k + 64] = mem[k:k + 64] * r * w[k:k + 64]
    return mem


@pytest.mark.parametrize("shift", [0, 64])
def test_inductor_rms_norm_writing_over_its_row_is_checked_at_run_time(rms_builds, shift):
    """out_ptr1 in in_ptr0's buffer: in place (shift 0), every tile is read before it is stored over, so the
    unrolled code keeps the first loads' values; one tile on (shift 64), the store of tile k writes tile
    k + 1, which the check sees: that tile is loaded again and reads what was stored."""
    n = 256
    c = rms_builds[3]
    r, x, w = _inductor_rms(c, 1, n, pointer_at={"out_ptr1": ("in_ptr0", 4 * shift)}, extra=64)
    assert "scf.if" in c.ir_text
    np.testing.assert_allclose(r.outputs["in_ptr0"], _rms_in_place_reference(x, w, n, shift), rtol=1e-5, atol=1e-6)
    reloads = 0 if shift == 0 else 3 * 4 * 64
    assert r.stats.dma_bytes_in == 4 * 2 * n + reloads
