"""legalize-fp8 on ``tt.dot``: the engine type of each fp8 format holds all of its values exactly."""
import math

import numpy as np
import pytest

from mtiacc.ir import fp8 as F8
from mtiacc.ir.types import FP8_KINDS, f16
from mtiacc.opt.legalize_fp8 import engine_type


@pytest.mark.parametrize("kind", FP8_KINDS)
def test_f16_holds_every_fp8_value(kind):
    assert engine_type(kind) == f16
    for code in range(256):
        v = F8.decode(code, kind)
        if math.isnan(v):
            assert np.isnan(np.float16(v))
        else:
            assert float(np.float16(v)) == v, (kind, hex(code), v)


KERNEL = """import triton
import triton.language as tl


@triton.jit
def k(A, B, C):
    r = tl.arange(0, 16)
    a = tl.load(A + r[:, None] * 16 + r[None, :])
    b = tl.load(B + r[:, None] * 16 + r[None, :])
    tl.store(C + r[:, None] * 16 + r[None, :], tl.dot(a, b, out_dtype=tl.float16))
"""


def test_a_kernel_dot_on_fp8_verifies_after_the_required_passes(tmp_path):
    from mtiacc.frontend import compile_file
    from mtiacc.ir.dot_ops import DotOp
    from mtiacc.ir.verifier import verify_module
    from mtiacc.opt import pipeline_for_level, run_pipeline
    path = tmp_path / "k.py"
    path.write_text(KERNEL)
    m = compile_file(str(path), signature="*fp8e4nv,*fp8e5,*fp16").module
    run_pipeline(m, pipeline_for_level(2, codegen=True))
    verify_module(m)
    (d,) = [op for op in m.funcs[0].walk() if isinstance(op, DotOp)]
    assert [str(v.type) for v in d.operands] == ["tensor<16x16xf16>"] * 3
    assert [op.attrs["fp8"] for op in (d.a.owner, d.b.owner)] == ["f8E4M3FN", "f8E5M2"]
