"""``stream-blocks``: Triton's fused softmax with a 512 KiB fp32 row in one program (BLOCK_SIZE 131072) is streamed
through local memory in chunks, with a remark, and computes what numpy does."""
import numpy as np
import pytest

from mtiacc.diagnostics import CompileError
from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run
from tests.conftest import EXAMPLES

SIG = "*fp32,*fp32,i32,i32,i32"


@pytest.mark.parametrize("level", [0, 3])
def test_softmax_of_a_512_kib_row(level):
    comp = compile_kernel(str(EXAMPLES / "softmax.py"), Options(signature=SIG, defines={"BLOCK_SIZE": "131072"},
                                                                opt_level=level))
    assert comp.remarks[0].kind == "stream-blocks"
    assert "2 reduction(s) and 1 store(s) computed in chunks of" in comp.remarks[0].message
    rows, n = 2, 100000
    x = np.random.default_rng(level).standard_normal((rows, n)).astype(np.float32)
    i32 = lambda v: np.array(v, np.int32)  # noqa: E731
    res = run(comp.binary, {"output_ptr": np.zeros(rows * n, np.float32), "input_ptr": x.ravel(),
                            "input_row_stride": i32(n), "output_row_stride": i32(n), "n_cols": i32(n)}, grid=(rows,))
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(res.outputs["output_ptr"].reshape(rows, n), e / e.sum(axis=1, keepdims=True),
                               rtol=1e-5, atol=1e-9)


def test_werror_spill_makes_the_step_an_error_at_the_reduction():
    with pytest.raises(CompileError) as info:
        compile_kernel(str(EXAMPLES / "softmax.py"), Options(signature=SIG, defines={"BLOCK_SIZE": "131072"},
                                                             werror_spill=True))
    text = info.value.render()
    line = next(i + 1 for i, l in enumerate((EXAMPLES / "softmax.py").read_text().splitlines())
                if "row_minus_max = row - tl.max(row, axis=0)" in l)
    assert text.startswith(f"{EXAMPLES / 'softmax.py'}:{line}:27: error: stream-blocks: blocks of 131072 elements")
    assert "[--Werror=spill]" in text and "Traceback" not in text


def test_only_a_block_larger_than_the_whole_sram_is_an_error():
    """Triton caps a block at 2^20 elements (8 MiB at most), under the 256 MiB of SRAM: a smaller SRAM shows it."""
    with pytest.raises(CompileError) as info:
        compile_kernel(str(EXAMPLES / "softmax.py"), Options(signature=SIG, defines={"BLOCK_SIZE": "131072"},
                                                             overrides=("memory.sram.bytes=262144",
                                                                        "memory.sram.llc_bytes=0")))
    text = info.value.render()
    line = next(i + 1 for i, l in enumerate((EXAMPLES / "softmax.py").read_text().splitlines())
                if l.strip().startswith("row = tl.load("))
    assert text.splitlines()[0] == (
        f"{EXAMPLES / 'softmax.py'}:{line}:11: error: `row` (tensor<131072xf32>) takes 524288 bytes: more than the "
        "whole SRAM (262144 bytes) and a PE's local memory (393216 bytes), so no chunk of it can be streamed or "
        "spilled; reduce the block sizes (BLOCK constexprs)")
    assert "Traceback" not in text


def test_a_kernel_storing_what_it_streams_is_not_streamed():
    """Recomputed chunks would read the stored result: the blocks stay whole, and codegen says they do not fit."""
    from tests.opt.test_split_dots import KERNELS
    with pytest.raises(CompileError) as info:
        compile_kernel(KERNELS, Options(kernel="softmax_shifted", signature="*fp32,i32", defines={"BLOCK": "131072"}))
    assert "blocks do not fit in the PE's local memory" in info.value.render()
