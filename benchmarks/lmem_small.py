"""Triton's tutorial kernels at small local memories: tutorial 03's matmul (fp16, its configs 5-7: 128x128, 256x128
and 256x256 tiles by 64), 02's fused softmax (BLOCK_SIZE 16384) and 05's layer norm (BLOCK_SIZE 16384 and 8192),
and the fp32 GEMM template of ``torch_backend/gemm_fit.py`` (128x128x64 and 64x128x64 tiles, exact products on
the vector unit), compiled for mtia2i with 96, 128, 192 and 384 KiB of local memory (``--set
pe.local_memory_bytes``), run on the simulator with the same seeded inputs and checked against numpy in float64;
one row per kernel and memory: the simulated cycles and the ladder's steps (remark kinds), or the compile error.
The tutorial kernels are read from DIR (never copied here).

    python benchmarks/lmem_small.py ../shared/triton-tests/tutorials [NAME_PART]
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run

MEMORIES = (98304, 131072, 196608, 393216)
i32 = lambda v: np.array(v, np.int32)  # noqa: E731


def t03(folder: Path, config: int, s: int = 512):
    bm, bn = {5: (128, 128), 6: (256, 128), 7: (256, 256)}[config]
    rng = np.random.default_rng(3)
    a, b = ((rng.random((s, s), dtype=np.float32) - 0.5).astype(np.float16) for _ in range(2))
    inputs = {"a_ptr": a.ravel(), "b_ptr": b.ravel(), "c_ptr": np.zeros(s * s, np.float16), "M": i32(s), "N": i32(s),
              "K": i32(s), "stride_am": i32(s), "stride_ak": i32(1), "stride_bk": i32(s), "stride_bn": i32(1),
              "stride_cm": i32(s), "stride_cn": i32(1)}

    def check(out):
        ref = a.astype(np.float64) @ b.astype(np.float64)
        np.testing.assert_allclose(out["c_ptr"].reshape(s, s).astype(np.float64), ref, rtol=1e-2,
                                   atol=2e-2 * np.sqrt(s))
    return (f"03 matmul fp16 {s}^3, config {config} ({bm}x{bn}x64)", folder / "03-matrix-multiplication.py",
            Options(kernel="matmul_kernel", signature="*fp16,*fp16,*fp16," + ",".join(["i32"] * 9), config=config,
                    defines={"ACTIVATION": '""'}), inputs, (-(-s // bm) * -(-s // bn),), check)


def t02(folder: Path, m: int = 4, n: int = 16000):
    x = np.random.default_rng(2).standard_normal((m, n)).astype(np.float32)

    def check(out):
        e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
        np.testing.assert_allclose(out["output_ptr"].reshape(m, n), e / e.sum(axis=1, keepdims=True), rtol=1e-4,
                                   atol=1e-7)
    return (f"02 fused softmax {m}x{n}, BLOCK_SIZE 16384", folder / "02-fused-softmax.py",
            Options(kernel="softmax_kernel", signature="*fp32,*fp32,i32,i32,i32,i32",
                    defines={"BLOCK_SIZE": "16384", "num_stages": "2"}),
            {"output_ptr": np.zeros(m * n, np.float32), "input_ptr": x.ravel(), "input_row_stride": i32(n),
             "output_row_stride": i32(n), "n_rows": i32(m), "n_cols": i32(n)}, (2,), check)


def gemm_fp32(bm: int, bn: int, bk: int = 64, m: int = 128, n: int = 256, k: int = 160):
    """The GEMM template in fp32 (its tile's K loop ends inside the third tile: the masks run)."""
    from mtiacc.torch_backend.gemm_fit import _source_file, template_source
    from mtiacc.torch_backend.gemm_search import Tile
    rng = np.random.default_rng(11)
    a, b = (rng.standard_normal(s).astype(np.float32) for s in ((m, k), (k, n)))

    def check(out):
        ref = a.astype(np.float64) @ b.astype(np.float64)
        np.testing.assert_allclose(out["C"].reshape(m, n), ref, rtol=1e-5, atol=1e-5 * np.abs(ref).max())
    path = Path(_source_file(template_source(Tile(bm, bn, bk, 2), m, n, k, dtype="float32", epilogue=0)))
    return (f"GEMM template fp32 {m}x{n}x{k}, tile {bm}x{bn}x{bk}", path,
            Options(kernel="gemm_fit", signature="*fp32,*fp32,*fp32"),
            {"A": a.ravel(), "B": b.ravel(), "C": np.zeros(m * n, np.float32)}, (-(-m // bm) * -(-n // bn),), check)


def t05(folder: Path, m: int = 3, n: int = 20000, block: int = 16384):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((m, n)).astype(np.float32)
    w, b = rng.uniform(0.5, 1.5, n).astype(np.float32), rng.standard_normal(n).astype(np.float32)

    def check(out):
        x64 = x.astype(np.float64)
        mean = x64.mean(axis=1, keepdims=True)
        rstd = 1 / np.sqrt(((x64 - mean) ** 2).mean(axis=1, keepdims=True) + 1e-5)
        np.testing.assert_allclose(out["Y"].reshape(m, n), (x64 - mean) * rstd * w + b, rtol=1e-4, atol=1e-4)
    return (f"05 layer norm fwd {m}x{n}, BLOCK_SIZE {block}", folder / "05-layer-norm.py",
            Options(kernel="_layer_norm_fwd_fused", signature="*fp32,*fp32,*fp32,*fp32,*fp32,*fp32,i32,i32,fp32",
                    defines={"BLOCK_SIZE": str(block)}),
            {"X": x.ravel(), "Y": np.zeros(m * n, np.float32), "W": w, "B": b, "Mean": np.zeros(m, np.float32),
             "Rstd": np.zeros(m, np.float32), "stride": i32(n), "N": i32(n), "eps": np.float32(1e-5)}, (m,), check)


def main(argv) -> int:
    folder = Path(argv[0] if argv else "../shared/triton-tests/tutorials")
    only = argv[1] if len(argv) > 1 else ""
    cases = [t03(folder, c) for c in (5, 6, 7)] + [t02(folder), t05(folder), t05(folder, block=8192)] + [
        gemm_fp32(128, 128), gemm_fp32(64, 128)]
    print(f"{'kernel':55s} {'KiB':>4s} {'cycles':>9s}  steps")
    for name, path, opts, inputs, grid, check in cases:
        if only not in name:
            continue
        for mem in MEMORIES:
            over = (f"pe.local_memory_bytes={mem}",)
            try:
                comp = compile_kernel(str(path), Options(**{**opts.__dict__, "overrides": over}))
            except Exception as e:     # a kernel that does not compile: its first line, in the row
                print(f"{name:55s} {mem // 1024:4d} {'-':>9s}  {type(e).__name__}: {str(e).splitlines()[0][:90]}")
                continue
            res = run(comp.binary, dict(inputs), grid=grid, overrides=over)
            check(res.outputs)
            steps = ",".join(sorted({r.kind for r in comp.remarks})) or "-"
            print(f"{name:55s} {mem // 1024:4d} {res.stats.cycles:9d}  {steps}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
