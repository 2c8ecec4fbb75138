"""A codegen error raised while lowering one op of a fused elementwise region points at that op's own
expression, not at the region's (the last op fused into it)."""
import pytest

from mtiacc.codegen.tensor import fused
from mtiacc.diagnostics import CompileError
from mtiacc.driver import Options, compile_kernel
from mtiacc.ir import ops as O

KERNEL = """import triton
import triton.language as tl


@triton.jit
def k(X, Y):
    offs = tl.arange(0, 64)
    x = tl.load(X + offs)
    t = x * 3.0
    u = t - x
    tl.store(Y + offs, u + x)
"""


def test_error_inside_a_region_points_at_the_inner_op(tmp_path, monkeypatch):
    compute = fused.Segment.compute

    def failing(self, op, g, *rest):
        if isinstance(op, O.SubFOp):
            raise CompileError("cannot lower this subtraction")
        return compute(self, op, g, *rest)

    monkeypatch.setattr(fused.Segment, "compute", failing)
    path = tmp_path / "k.py"
    path.write_text(KERNEL)
    with pytest.raises(CompileError) as info:
        compile_kernel(str(path), Options(signature="*fp32,*fp32"))
    first = info.value.render().splitlines()[0]
    assert first == f"{path}:10:9: error: cannot lower this subtraction", first
