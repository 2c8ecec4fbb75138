"""Every example kernel: -O0 and -O3 give the same bits, each pass disabled still does, and the IR
round-trips (print -> parse -> print) at every pass boundary of -O3."""
import importlib.util

import numpy as np
import pytest

from mtiacc.frontend import compile_file
from mtiacc.ir.text.parser import parse_ir
from mtiacc.ir.text.printer import print_ir
from mtiacc.opt import parse_pipeline, pipeline_for_level, run_pipeline
from tests.conftest import EXAMPLES, ROOT

_spec = importlib.util.spec_from_file_location("bench_passes", ROOT / "benchmarks" / "bench_passes.py")
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

KERNELS = sorted(bench.EXAMPLES)


def test_every_example_is_in_the_table():
    """Every committed example kernel (work in progress in the tree aside; host scripts, such as the input
    writers and the torch models, have no kernel) has inputs in the table."""
    import subprocess
    listed = subprocess.run(["git", "ls-files", "examples"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    if not listed:
        pytest.skip("not a git checkout")
    files = {p.rsplit("/", 1)[-1] for p in listed if p.endswith(".py") and "@triton.jit" in (ROOT / p).read_text()}
    assert files <= set(bench.EXAMPLES), f"add these to benchmarks/bench_passes.py EXAMPLES: {files - set(bench.EXAMPLES)}"


@pytest.mark.parametrize("example", KERNELS)
def test_o0_and_o3_give_the_same_bits(example):
    spec = bench.EXAMPLES[example]
    data = spec["inputs"](spec["test_n"])
    ref = bench.simulate(bench.build(example, 0), data)
    opt = bench.simulate(bench.build(example, 3), data)
    # the optimizer does something; these grids run one program a PE, where persistent-programs (a loop over
    # each PE's programs, to fetch the next one's tiles early) has nothing to fetch and costs its set-up (a 2-D grid:
    # a divide and a remainder a program, 97 cycles of transpose.py's 1825)
    one = bench.simulate(bench.build(example, 3, ("persistent-programs",)), data)
    assert one.stats.cycles < ref.stats.cycles and opt.stats.cycles <= 1.06 * one.stats.cycles
    for name, out in ref.outputs.items():
        np.testing.assert_array_equal(opt.outputs[name].view(np.uint8), out.view(np.uint8))
    if example == "vector_add.py":
        np.testing.assert_array_equal(ref.outputs["C_ptr"], data["A_ptr"] + data["B_ptr"])


@pytest.mark.parametrize("example", KERNELS)
@pytest.mark.parametrize("disabled", ["machine-peephole", "machine-schedule"])
def test_each_machine_pass_off_gives_the_same_bits(example, disabled):
    spec = bench.EXAMPLES[example]
    data = spec["inputs"](spec["test_n"])
    ref = bench.simulate(bench.build(example, 0), data)
    got = bench.simulate(bench.build(example, 3, disabled=[disabled]), data)
    for name, out in ref.outputs.items():
        np.testing.assert_array_equal(got.outputs[name].view(np.uint8), out.view(np.uint8))


@pytest.mark.parametrize("example", KERNELS)
def test_ir_round_trips_at_every_pass_boundary(example):
    spec = bench.EXAMPLES[example]
    module = compile_file(str(EXAMPLES / example), kernel=spec.get("kernel"), defines=dict(spec["defines"]),
                          signature=spec["signature"]).module
    texts = [print_ir(module)]
    run_pipeline(module, parse_pipeline(pipeline_for_level(3)), after_pass=lambda p, m: texts.append(print_ir(m)))
    assert len(texts) > 5
    for text in texts:
        assert print_ir(parse_ir(text)) == text
