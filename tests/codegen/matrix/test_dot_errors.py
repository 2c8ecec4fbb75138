"""Local memory too small for a dot's tiles: a compile error naming each live tile and its bytes."""
import pytest

from mtiacc.diagnostics import CompileError
from mtiacc.driver import Options, compile_kernel
from tests.codegen.matrix.numerics import KERNELS


def test_overflow_names_the_tiles_and_the_accumulator():
    """Codegen's report, with ``band-accumulators`` (which runs this loop once per band of 128 columns) left out."""
    opts = Options(kernel="matmul_plain", signature="*bf16,*bf16,*fp32,i32,i32,i32",
                   defines={"BLOCK_M": "256", "BLOCK_N": "256", "BLOCK_K": "128", "STAGES": "2"},
                   disabled_passes=("band-accumulators",))
    with pytest.raises(CompileError) as info:
        compile_kernel(str(KERNELS), opts, stop_after="asm")
    text = info.value.render()
    assert "blocks do not fit in the PE's local memory" in text
    assert "`b` (tensor<128x256xbf16>) needs 65536 bytes" in text
    assert "`a` (tensor<256x128xbf16>), 65536 bytes" in text
    assert "the loop's tt.dot accumulator `acc` (in local memory: it needs 2048 of the engine's 1024" in text
    assert "262144 bytes" in text
