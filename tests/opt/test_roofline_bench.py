"""The roofline benchmark at small sizes: every kernel's result is checked against numpy inside the benchmark,
and no run is faster than the roofline of the bytes it cannot avoid moving (the Inductor-form RMSNorm, GELU and
bias + residual + dropout kernels included), nor than the larger of that and the time of the vector operations
its semantics require where it has an operations count (dropout's Philox rounds)."""
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_no_run_beats_its_roofline():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import bench_roofline
    rows = bench_roofline.bench(64, 1024, 1 << 16, compare=("vector add", "softmax"))
    # vector add, softmax (tl.exp, libdevice.exp), layer norm, rmsnorm x2, gelu x2, bias + residual + dropout
    # (tl.rand, rand4x), the hand-written softmax and layer norm; vector add and tl.exp's softmax also without
    # persistent-programs and pipeline-loads
    assert len(rows) == 12 + 2 * 2
    assert sum(r["build"].startswith("hand-written") for r in rows) == 2
    for r in rows:
        assert 0 < r["ratio"] <= r["ratio_ops"] <= 1.0, r
    assert sum(r["ops_us"] is not None for r in rows) == 2       # the two dropout rows
    by = {(r["name"], r["build"]): r["cycles"] for r in rows}
    # one program per PE here: the loop over a PE's programs has nothing to fetch ahead, and costs at most 1%
    # (its scalar set-up; tests/opt/test_persistent_programs.py measures the gain with 16 programs per PE)
    for name in ("vector add 2^16", "softmax 64x1024"):
        assert by[(name, "-O3")] <= 1.01 * by[(name, "-O3 --disable-pass=persistent-programs")]


def test_philox_operation_counts():
    # tl.rand's word 0 and all four words of a call with a 32-bit offset (counter words 1..3 zero): high
    # multiplies, multiplies and xors that feed them, scalar words folded into the key
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import bench_roofline
    assert bench_roofline.philox_ops((0,)) == {"high multiply": 16, "multiply": 14, "xor": 30}
    assert bench_roofline.philox_ops((0, 1, 2, 3)) == {"high multiply": 18, "multiply": 18, "xor": 34}


def test_a_tutorials_definitions_leave_out_its_demonstration(tmp_path):
    # benchmarks/tutorial_host.py: imports, functions, classes and the module-level names they read are run; the
    # unit test and the benchmark the module runs (calls of its own functions, prints, loops, what reads their
    # results, the __main__ block) are not; the target's questions (is_cuda()) may be asked
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from tutorial_host import load_definitions
    src = tmp_path / "99-demo.py"
    src.write_text("import math\n"
                   "DEVICE = 'cpu'\n"
                   "def is_cuda():\n    return False\n"
                   "def add(x, y):\n    return x + y\n"
                   "CONFIGS = [1, 2] if is_cuda() else [3]\n"
                   "class Op:\n    apply = staticmethod(add)\n"
                   "op = Op.apply\n"
                   "out = add(1, 2)\n"
                   "print(out)\n"
                   "if out != 3:\n    raise SystemExit('ran the demo')\n"
                   "for i in range(3):\n    raise SystemExit('ran the loop')\n"
                   "assert False, 'ran the assertion'\n"
                   "if __name__ == '__main__':\n    raise SystemExit('ran main')\n")
    mod = load_definitions(src)
    assert mod.add(2, 3) == 5 and mod.op(1, 1) == 2 and mod.CONFIGS == [3] and mod.DEVICE == "cpu"
    assert not hasattr(mod, "out") and mod.math.pi > 3


ADD = """import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    tl.store(output_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask), mask=mask)


def add(x, y):
    output = torch.empty_like(x)
    n_elements = output.numel()
    add_kernel[lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)](x, y, output, n_elements, BLOCK_SIZE=1024)
    return output
"""


def test_set_changes_the_machine_of_every_tutorial_path(tmp_path):
    # benchmarks/roofline_tutorials.py --set: the CLI, mtiacc.load and the Triton backend's launch all run on the
    # changed machine (here half the DRAM bandwidth: a memory-bound vector add takes longer on each), and the
    # Triton backend is left as it was
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import triton
    import roofline_tutorials
    from mtiacc.triton_backend import launcher
    (tmp_path / "01-vector-add.py").write_text(ADD)
    kernel_for = launcher.kernel_for
    base, slow = (roofline_tutorials.tutorial_rows(tmp_path, quick=True, only=["01"], overrides=ov)[0]["paths"]
                  for ov in ((), ("memory.dram.bw_bytes_per_s=102.4e9",)))
    for label in ("CLI", "load", "Triton"):
        assert base[label][0] is not None and slow[label][0] is not None, (base[label], slow[label])
        assert slow[label][0] > 1.5 * base[label][0], label
    assert slow["Triton"][0] == pytest.approx(slow["load"][0], rel=1e-6)
    assert launcher.kernel_for is kernel_for
    assert triton.runtime.driver.active.utils.get_device_properties(0)["multiprocessor_count"] == 64


def test_the_operations_bound_shares_only_float_work_with_the_se():
    # integer work (Philox, conversions, compares) is the vector unit's alone; float adds and multiplies may go
    # to the SE's ALUs beside it, so the bound of those is their count over both units' rates together
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import bench_roofline
    from mtiacc.machine.simulator import load_config
    cfg = load_config()
    v, s = bench_roofline.vector_ops_per_s(cfg), bench_roofline.se_ops_per_s(cfg)
    assert s == cfg.se.elements_per_cycle * cfg.n_pes * cfg.clock_hz
    assert bench_roofline.ops_seconds((1e9, 0), cfg) == pytest.approx(1e9 / v)
    assert bench_roofline.ops_seconds((0, 1e9), cfg) == pytest.approx(1e9 / (v + s))
    # when the integer work alone takes longer than everything shared, the vector unit is the bound
    assert bench_roofline.ops_seconds((18.5e9, 2e9), cfg) == pytest.approx(18.5e9 / v)
