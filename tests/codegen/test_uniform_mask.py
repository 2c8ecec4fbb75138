"""axis-info in codegen: a mask equal over the whole block makes the access one guarded DMA transfer."""
import textwrap

import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run

KERNEL = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def copy_rows(X, Y, M, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        offs = pid * BLOCK + tl.arange(0, BLOCK)
        live = (tl.zeros([BLOCK], tl.int32) + pid) < M      # the same for every element
        x = tl.load(X + offs, mask=live, other=-1.0)
        tl.store(Y + offs, x * 2.0, mask=live)
    """)


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    path = tmp_path_factory.mktemp("k") / "copy_rows.py"
    path.write_text(KERNEL)
    return path


def compile_(path, stop="bin", level=None):
    opts = Options(defines={"BLOCK": "64"}, signature="*fp32,*fp32,i32")
    if level is not None:
        opts.opt_level = level
    return compile_kernel(str(path), opts, stop_after=stop)


def test_uniform_mask_moves_the_block_with_one_transfer(kernel):
    # -O2: the program's body once (at -O3, the default, persistent-programs and pipeline-loads copy it three
    # times, each copy one transfer in and one out)
    asm = compile_(kernel, "asm", level=2).asm_text
    assert asm.count("mtia.dma.in") == 1 and asm.count("mtia.dma.out") == 1
    assert ".Lelem" not in asm  # no element-by-element fallback loop


@pytest.mark.parametrize("m", [0, 2, 4])
def test_uniform_mask_matches_numpy(kernel, tmp_path, m):
    binary = tmp_path / "k.bin"
    binary.write_bytes(compile_(kernel).binary)
    rng = np.random.default_rng(m)
    x = rng.standard_normal(256).astype(np.float32)
    y = np.full(256, 7.0, np.float32)
    out = run(str(binary), {"X": x, "Y": y, "M": np.array(m, np.int32)}, grid=(4,)).outputs["Y"]
    want = y.copy()
    want[:64 * m] = x[:64 * m] * 2
    np.testing.assert_array_equal(out, want)
