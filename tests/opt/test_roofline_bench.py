"""The roofline benchmark at small sizes: every kernel's result is checked against numpy inside the benchmark,
and no run is faster than the roofline of the bytes it cannot avoid moving (the Inductor-form RMSNorm, GELU and
bias + residual + dropout kernels included)."""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_no_run_beats_its_roofline():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import bench_roofline
    rows = bench_roofline.bench(64, 1024, 1 << 16, compare=("vector add", "softmax"))
    # vector add, softmax x2, layer norm, rmsnorm x2, gelu x2, bias + residual + dropout (tl.rand, rand4x), the
    # hand-written softmax and layer norm; the first three also without persistent-programs and pipeline-loads
    assert len(rows) == 12 + 3 * 2
    assert sum(r["build"].startswith("hand-written") for r in rows) == 2
    for r in rows:
        assert 0 < r["ratio"] <= 1.0, r
    by = {(r["name"], r["build"]): r["cycles"] for r in rows}
    # one program per PE here: the loop over a PE's programs has nothing to fetch ahead, and costs at most 1%
    # (its scalar set-up; tests/opt/test_persistent_programs.py measures the gain with 16 programs per PE)
    for name in ("vector add 2^16", "softmax 64x1024"):
        assert by[(name, "-O3")] <= 1.01 * by[(name, "-O3 --disable-pass=persistent-programs")]
