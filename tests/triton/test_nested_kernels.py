"""Kernels defined inside functions, using the enclosing function's values (constexprs, numbers, strings,
dtypes, @triton.jit helpers defined beside them), launched on the ``cpu`` backend."""
import pytest

pytest.importorskip("triton")
pytest.importorskip("torch")
import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

from mtiacc.diagnostics import UserError  # noqa: E402
from mtiacc.triton_backend.driver import MtiaDriver  # noqa: E402

pytestmark = pytest.mark.skipif(not MtiaDriver.is_active(), reason="another Triton backend is active here")

SCALE = tl.constexpr(100.0)          # the module-level name the nested kernels' captures shadow


def make_scaled_add(block, scale, op):
    BLOCK = tl.constexpr(block)
    SCALE = tl.constexpr(scale)      # noqa: F841 - shadows the module's SCALE inside the kernel
    OP = tl.constexpr(op)
    OUT_DTYPE = tl.float16

    @triton.jit
    def combine(a, b):
        if OP == "max":
            return tl.maximum(a, b)
        return a + b

    @triton.jit
    def scaled_add(x_ptr, y_ptr, out_ptr, n):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        r = combine(tl.load(x_ptr + offs, mask=mask), tl.load(y_ptr + offs, mask=mask)) * SCALE
        tl.store(out_ptr + offs, r.to(OUT_DTYPE), mask=mask)

    return scaled_add, block


@pytest.mark.parametrize("block,scale,op", [(64, 2.0, "add"), (128, -0.5, "max")])
def test_a_nested_kernel_sees_the_values_it_captures(block, scale, op):
    kernel, block = make_scaled_add(block, scale, op)
    torch.manual_seed(0)
    n = 300
    x, y = torch.randn(n), torch.randn(n)
    out = torch.empty(n, dtype=torch.float16)
    kernel[(triton.cdiv(n, block),)](x, y, out, n)
    ref = (torch.maximum(x, y) if op == "max" else x + y) * scale
    torch.testing.assert_close(out, ref.half())


def test_two_kernels_from_one_definition_keep_their_own_values():
    k1, b1 = make_scaled_add(32, 3.0, "add")
    k2, b2 = make_scaled_add(32, 5.0, "add")
    x, y = torch.ones(40), torch.ones(40)
    o1, o2 = torch.empty(40, dtype=torch.float16), torch.empty(40, dtype=torch.float16)
    k1[(2,)](x, y, o1, 40)
    k2[(2,)](x, y, o2, 40)
    assert (o1 == 6).all() and (o2 == 10).all()


def test_a_captured_value_mtiacc_cannot_write_in_is_an_error_naming_it():
    table = tl.constexpr(frozenset({1}))     # Triton takes any constexpr; mtiacc has no literal for a set

    @triton.jit
    def uses_a_set(x_ptr):
        if table is not None:
            tl.store(x_ptr, 1.0)

    with pytest.raises(UserError) as e:
        uses_a_set[(1,)](torch.zeros(1))
    text = str(e.value)
    here = __file__.rstrip("c")
    line = uses_a_set.fn.__code__.co_firstlineno + 2          # below the decorator and the def
    assert text.startswith(f"{here}:{line}:12: error: kernel 'uses_a_set' uses 'table' from its enclosing "
                           f"function, a frozenset"), text
    assert "if table is not None" in text and "^" in text


def _on_cpu_backend():
    return triton.runtime.driver.active.get_current_target().backend == "cpu"


if _on_cpu_backend():                # a module-level constant mtiacc cannot compute from the file alone
    ROW_BLOCK = tl.constexpr(16)
    ROW_DTYPE = tl.float16
else:                                # pragma: no cover
    ROW_BLOCK = tl.constexpr(128)
    ROW_DTYPE = tl.float32


@triton.jit
def copy_rows_kernel(x_ptr, out_ptr, n):
    offs = tl.program_id(0) * ROW_BLOCK + tl.arange(0, ROW_BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n).to(ROW_DTYPE), mask=offs < n)


def test_a_module_level_constant_assigned_under_an_if_has_its_value():
    x = torch.randn(40)
    out = torch.zeros(40, dtype=torch.float16)
    kernel = copy_rows_kernel[(triton.cdiv(40, 16),)](x, out, 40)
    torch.testing.assert_close(out, x.half())
    assert kernel is not None


def test_a_patched_kernel_assigns_a_name_its_template_captured():
    """Triton's tests patch a placeholder with ``z = ...`` (``_unsafe_update_src``) in a kernel whose template
    takes ``z`` from the enclosing function (a numpy array there): the patched kernel's own ``z`` is used."""
    import numpy as np

    @triton.jit
    def kernel(X, Z, BLOCK: tl.constexpr):
        x = tl.load(X + tl.arange(0, BLOCK))
        GENERATE_HERE  # noqa: F821
        tl.store(Z + tl.arange(0, BLOCK), z)

    patched = triton.JITFunction(kernel.fn)
    patched._unsafe_update_src(patched.src.replace("GENERATE_HERE", "z = tl.cumsum(x, axis=0)"))
    z = np.empty(16, np.float32)                 # noqa: F841 - what the template's `z` refers to
    x = torch.arange(16, dtype=torch.float32)
    out = torch.zeros(16)
    patched[(1,)](x, out, BLOCK=16)
    torch.testing.assert_close(out, torch.cumsum(x, 0))


def test_a_captured_constexpr_type_class_is_triton_languages():
    from triton.language.core import constexpr_type

    @triton.jit
    def typed(out_ptr, N: tl.constexpr):
        tl.static_assert(N.type == constexpr_type(5))
        n = N
        tl.static_assert(n.type == tl.int32)
        tl.store(out_ptr, n * 2)

    out = torch.zeros(1, dtype=torch.int32)
    typed[(1,)](out, 5)
    assert out.tolist() == [10]
