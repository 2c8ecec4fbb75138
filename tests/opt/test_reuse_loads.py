"""reuse-loads against numpy: layer norm forward at -O0 and -O3 (ragged last tile, the row kept or, when it
does not fit the buffer, loaded again), a store to the row between the loops (no reuse), and a store
through another argument that points into the row (the run-time check refuses the reuse)."""
import textwrap
from pathlib import Path

import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiacc.ir.printer import print_ir
from mtiasim.runner import run

ROOT = Path(__file__).resolve().parents[2]
LAYER_NORM = ROOT / "examples" / "layer_norm.py"
LN_SIG = "*fp32,*fp32,*fp32,*fp32,*fp32,*fp32,i32,i32,fp32"


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
    assert r0.stats.dram_bytes - r3.stats.dram_bytes == 2 * tile_rows


def test_layer_norm_row_longer_than_the_buffer_loads_again():
    """A 256-byte budget holds 1 tile of 64 x f32: a 300-long row does not fit; the run-time check takes
    the DMA path and the results stay right, with the DRAM traffic of no reuse."""
    passes = "canonicalize,cse,licm,fuse-elementwise,reuse-loads{budget=256},dce"
    c, r = _layer_norm(2, 300, passes)
    assert "mtia.slot_load" in c.ir_text
    _, plain = _layer_norm(2, 300, "canonicalize,cse,licm,fuse-elementwise,dce")
    assert r.stats.dram_bytes == plain.stats.dram_bytes


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
    assert apart.stats.dram_bytes < res.stats.dram_bytes


def test_a_kept_row_that_leaves_too_little_local_memory_is_dropped():
    """Tiles of 16384 x f32 (64 KiB): two slots and the rest of layer norm's blocks exceed local memory, so the
    compile falls back to loading the row again, rather than failing."""
    c = _compile(LAYER_NORM, LN_SIG, 3, kernel="layer_norm_fwd", BLOCK_SIZE=16384)
    assert "mtia.slot" not in c.ir_text and c.meta["lmem_bytes"] > 3 * 65536
