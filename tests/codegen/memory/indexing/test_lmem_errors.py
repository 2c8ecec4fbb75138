"""Blocks that do not fit in a PE's local memory: which values, how many bytes, at their lines."""
from pathlib import Path

import pytest

from mtiacc.diagnostics import CompileError
from mtiacc.driver import Options, compile_kernel

KERNELS = str(Path(__file__).with_name("kernels.py"))
LINES = Path(KERNELS).read_text().splitlines()


def line_no(text: str) -> int:
    return next(i + 1 for i, l in enumerate(LINES) if l.strip() == text)


def compile_error(block: int, opt: int) -> CompileError:
    """Codegen's report, with the passes that would stream the blocks (``stream-blocks``) left out."""
    opts = Options(kernel="too_big", defines={"BLOCK": str(block)}, signature="*fp32,*fp32", opt_level=opt,
                   passes="contract-fma")
    with pytest.raises(CompileError) as info:
        compile_kernel(KERNELS, opts)
    return info.value


def test_second_big_load_lists_the_first_one():
    err = compile_error(65536, 0)
    la, lb = line_no("a = tl.load(X + offs)"), line_no("b = tl.load(Y + offs)")
    text = err.render().splitlines()
    assert text[0] == (f"{KERNELS}:{lb}:9: error: blocks do not fit in the PE's local memory: `b` "
                       "(tensor<65536xf32>) needs 262144 bytes while 1 live block(s) take 262144 bytes, "
                       "of 389056 bytes available for blocks")
    assert text[1] == LINES[lb - 1]
    assert text[2] == "        ^~~~~~~~~~~~~~~~~"
    assert text[3] == f"note: live: `a` (tensor<65536xf32>), 262144 bytes, line {la}, column 9"
    assert "Traceback" not in err.render()


def test_a_result_that_does_not_fit_is_written_over_an_operand_it_reads_last():
    """`c + b` (128 KiB) does not fit beside `a`, `b` and `c`: it is written over `c`, read last there."""
    import numpy as np
    from mtiasim.runner import run
    comp = compile_kernel(KERNELS, Options(kernel="too_big", defines={"BLOCK": "32768"}, signature="*fp32,*fp32",
                                           opt_level=2))
    rng = np.random.default_rng(32768)
    x, y = (rng.standard_normal(32768).astype(np.float32) for _ in range(2))
    out = run(comp.binary, {"X": x, "Y": y.copy()}, grid=(1,)).outputs["Y"]
    fma = (x.astype(np.float64) * y + x).astype(np.float32)   # a * b + a contracted: rounded once
    np.testing.assert_array_equal(out, fma + y)


def test_the_same_kernel_fits_with_smaller_blocks():
    comp = compile_kernel(KERNELS, Options(kernel="too_big", defines={"BLOCK": "16384"},
                                           signature="*fp32,*fp32"))
    assert comp.binary


def test_blocks_over_local_memory_are_streamed_with_a_remark():
    """The same kernel through -O2's pipeline: ``stream-blocks`` computes it in chunks, and says so (it stores over
    Y what it loaded from Y: each chunk through the one pointer block ``cse`` leaves, the chunk's load first)."""
    import numpy as np
    from mtiasim.runner import run
    comp = compile_kernel(KERNELS, Options(kernel="too_big", defines={"BLOCK": "65536"}, signature="*fp32,*fp32",
                                           opt_level=2))
    assert [r.kind for r in comp.remarks] == ["stream-blocks"]
    rng = np.random.default_rng(65536)
    x, y = (rng.standard_normal(65536).astype(np.float32) for _ in range(2))
    out = run(comp.binary, {"X": x, "Y": y.copy()}, grid=(1,)).outputs["Y"]
    fma = (x.astype(np.float64) * y + x).astype(np.float32)   # a * b + a contracted: rounded once
    np.testing.assert_array_equal(out, fma + y)
