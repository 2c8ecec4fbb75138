"""Kernels run through Triton are compiled from their own source as the running program holds it, located in
the user's file: an error names the user's file, line and column (nested kernels and their helpers too), the
values they capture are used as Triton uses them, and nothing is written next to the compiled binaries."""
import pytest

pytest.importorskip("triton")
pytest.importorskip("torch")
import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

from mtiacc.diagnostics import UserError  # noqa: E402
from mtiacc.runtime.cache import cache_dir  # noqa: E402
from mtiacc.triton_backend.driver import MtiaDriver  # noqa: E402

pytestmark = pytest.mark.skipif(not MtiaDriver.is_active(), reason="another Triton backend is active here")

HERE = __file__.rstrip("c")


def _line_of(fn, text: str) -> int:
    """The file line of the first line of ``fn``'s source containing ``text``."""
    import inspect
    lines, start = inspect.getsourcelines(fn.fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


def _col_of(fn, text: str) -> int:
    import inspect
    lines, _ = inspect.getsourcelines(fn.fn)
    return next(line for line in lines if text in line).index(text) + 1


def make_broken(block):
    BLOCK = tl.constexpr(block)

    @triton.jit
    def broken(x_ptr, out_ptr):
        offs = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs)
        tl.store(out_ptr + offs + BLOCK, x)          # past the end of out: a fault of the kernel on the chip

    return broken


def test_a_fault_in_a_nested_kernel_names_the_users_file_line_and_column():
    kernel = make_broken(16)
    with pytest.raises(UserError) as e:
        kernel[(1,)](torch.zeros(16), torch.zeros(16))
    text = str(e.value)
    line, col = _line_of(kernel, "tl.store(out_ptr"), _col_of(kernel, "tl.store(out_ptr")
    assert text.startswith(f"{HERE}:{line}:{col}: error: out-of-bounds"), text
    # the source line is the user's, as written (indented as in the file), with the caret under the store
    assert text.splitlines()[1] == "        tl.store(out_ptr + offs + BLOCK, x)          " \
        "# past the end of out: a fault of the kernel on the chip"
    assert text.splitlines()[2].index("^") == col - 1
    assert "sources" not in text and ".cache" not in text


def make_with_helper():
    @triton.jit
    def helper(ptr, offs):
        return tl.load(ptr + offs * 2)               # reads past the end for the upper half of offs

    @triton.jit
    def outer(x_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, helper(x_ptr, offs))

    return outer, helper


def test_a_fault_in_a_captured_helper_names_the_helpers_line():
    outer, helper = make_with_helper()
    with pytest.raises(UserError) as e:
        outer[(1,)](torch.zeros(8), BLOCK=8)
    text = str(e.value)
    line, col = _line_of(helper, "tl.load(ptr"), _col_of(helper, "tl.load(ptr")
    assert text.startswith(f"{HERE}:{line}:{col}: error: out-of-bounds"), text
    assert text.splitlines()[1].strip().startswith("return tl.load(ptr + offs * 2)")


def make_scaled_copy(scale, block):
    SCALE = tl.constexpr(scale)
    BLOCK = tl.constexpr(block)
    DTYPE = tl.float16

    @triton.jit
    def scaled_copy(x_ptr, out_ptr, n):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, (tl.load(x_ptr + offs, mask=mask) * SCALE).to(DTYPE), mask=mask)

    return scaled_copy


@pytest.mark.parametrize("scale,block", [(3.0, 32), (-0.25, 64)])
def test_a_closure_captured_constexpr_is_used_and_nothing_is_written_under_the_cache(scale, block):
    before = set(cache_dir().rglob("*.py")) if cache_dir().exists() else set()
    kernel = make_scaled_copy(scale, block)
    torch.manual_seed(0)
    x = torch.randn(100)
    out = torch.zeros(100, dtype=torch.float16)
    kernel[(triton.cdiv(100, block),)](x, out, 100)
    torch.testing.assert_close(out, (x * scale).half())
    assert not (cache_dir() / "sources").exists()
    assert set(cache_dir().rglob("*.py")) == before      # no copy of the user's file anywhere in the cache


def test_a_patched_kernel_reports_its_own_source_line():
    @triton.jit
    def template(X, BLOCK: tl.constexpr):
        x = tl.load(X + tl.arange(0, BLOCK))
        PLACEHOLDER  # noqa: F821
        tl.store(X + tl.arange(0, BLOCK), x)

    patched = triton.JITFunction(template.fn)
    patched._unsafe_update_src(patched.src.replace("PLACEHOLDER", "x = tl.load(X + tl.arange(0, BLOCK) + 4)"))
    with pytest.raises(UserError) as e:
        patched[(1,)](torch.zeros(4), BLOCK=4)
    text = str(e.value)
    line = _line_of(template, "PLACEHOLDER")
    assert text.startswith(f"{HERE}:{line}:13: error: out-of-bounds"), text
