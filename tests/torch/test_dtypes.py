"""Every element type through ``torch.compile(backend="mtia")``: models doing bit tricks through views of
another element type (``x.view(torch.int16)``, ``.view(torch.bfloat16)``, fp8 views, uint16/32/64 views),
bool masks and uint8 tensors.  Outputs are compared bit for bit with eager PyTorch, or with numpy where eager
PyTorch has no kernel for the type (shifts and sums of uint16/32/64)."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import mtiacc.torch_backend  # noqa: E402,F401


def _gen():
    return torch.Generator().manual_seed(1234)


def _floats(n, dtype=torch.float32):
    g = _gen()
    x = torch.randn(n, generator=g) * 10.0 ** torch.randint(-3, 4, (n,), generator=g)
    x[::17] = -0.0
    return x.to(dtype)


def _bytes(n, dtype=torch.uint8):
    return torch.randint(0, 256, (n,), generator=_gen(), dtype=torch.uint8).view(dtype)


def sign_flip(x):              # -x on float16 data, by its bits through an int16 view
    return (x.view(torch.int16) ^ -32768).view(torch.float16) * 2


def abs_bits(x):               # |x| of bfloat16 data through an int16 view
    return (x.view(torch.int16) & 0x7FFF).view(torch.bfloat16)


def bf16_pairs(x):             # float32 data as pairs of bfloat16
    v = x.view(torch.bfloat16)
    return (v + v * 3).view(torch.float32), v > 0


def exponent(x):               # the exponent field of float32 data through an int32 view
    return (x.view(torch.int32) >> 23) & 0xFF


def masks(x, y):
    m = (x > 0) & (y < 0.5)
    return torch.where(m, x, y), m, (~m).sum(), m.to(torch.uint8)


def bool_input(m, x):
    return x * m, m & (x > 0), m ^ (x < 0), m.to(torch.float32).sum()


def uint8_ops(a, b):
    return a + b, a > b, (a.to(torch.int32) * 3).to(torch.uint8), a ^ b, torch.maximum(a, b), a // 3


def fp8_views(b):
    return b.view(torch.float8_e4m3fn).float() * 2, b.view(torch.float8_e5m2).to(torch.float16)


def fp8_out(x):
    return (x * 0.25).to(torch.float8_e4m3fn).view(torch.uint8), x.to(torch.float8_e5m2).view(torch.int8)


def int8_as_bool(b):
    return b.view(torch.int8) < 0, (b.view(torch.int8) >> 7).to(torch.int16)


# (name, model, inputs, numpy reference or None for eager PyTorch)
CASES = [
    ("float16.view(int16) sign flip", sign_flip, lambda: (_floats(1000, torch.float16),), None),
    ("bfloat16.view(int16) abs", abs_bits, lambda: (_floats(1000, torch.bfloat16),), None),
    # the low halves' bit 14 cleared: no NaN among the bfloat16 halves, whose payloads would differ in the float32
    ("float32.view(bfloat16) arithmetic", bf16_pairs, lambda: ((_floats(512).view(torch.int32) & ~0x4000).view(
        torch.float32),), None),
    ("float32.view(int32) exponent", exponent, lambda: (_floats(1000),), None),
    ("bool masks", masks, lambda: (_floats(1000), torch.rand(1000, generator=_gen())), None),
    ("bool input", bool_input, lambda: (torch.rand(1000, generator=_gen()) > 0.5, _floats(1000)), None),
    ("uint8 arithmetic and compares", uint8_ops, lambda: (_bytes(1000), _bytes(1000).flip(0)), None),
    ("uint8.view(float8) in", fp8_views, lambda: (_bytes(1000) & 0x77,), None),
    ("float8 out .view(uint8)", fp8_out, lambda: (_floats(1000).clamp(-400, 400),), None),
    ("uint8.view(int8) sign", int8_as_bool, lambda: (_bytes(1000),), None),
    ("float16.view(uint16) shift", lambda x: x.view(torch.uint16) >> 3, lambda: (_floats(1000, torch.float16),),
     lambda x: x.view(np.uint16) >> 3),
    ("float32.view(uint32) add", lambda x, y: x.view(torch.uint32) + y.view(torch.uint32),
     lambda: (_floats(1000), _floats(1000).flip(0)), lambda x, y: x.view(np.uint32) + y.view(np.uint32)),
    ("float64.view(uint64) mask", lambda x: x.view(torch.uint64) & 0x000FFFFFFFFFFFFF,
     lambda: (_floats(1000, torch.float64),), lambda x: x.view(np.uint64) & np.uint64(0x000FFFFFFFFFFFFF)),
]


def _same_bits(g, w):
    """``g`` and ``w`` bit for bit, except that any NaN matches a NaN (which NaN an operation returns is the
    hardware's: x86 keeps an operand's payload, RISC-V gives its canonical NaN)."""
    g, w = g.detach().reshape(-1), w.detach().reshape(-1)
    keep = ~(torch.isnan(g) & torch.isnan(w)) if g.dtype.is_floating_point else torch.ones_like(g, dtype=torch.bool)
    width = g.element_size()
    as_int = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[width]
    gi = g.view(as_int) if g.dtype != torch.bool else g
    wi = w.view(as_int) if w.dtype != torch.bool else w
    np.testing.assert_array_equal(gi[keep].numpy(), wi[keep].numpy())


@pytest.mark.parametrize("name, model, make, reference", CASES, ids=[c[0] for c in CASES])
def test_models_on_every_element_type(name, model, make, reference):
    args = make()
    got = torch.compile(model, backend="mtia")(*args)
    got = got if isinstance(got, tuple) else (got,)
    if reference is None:
        want = model(*args)
        want = want if isinstance(want, tuple) else (want,)
    else:
        with np.errstate(all="ignore"):
            want = (torch.from_numpy(np.ascontiguousarray(reference(*(a.numpy() for a in args)))),)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, w.dtype, g.shape, w.shape)
        _same_bits(g, w)
    report = mtiacc.torch_backend.report()
    assert report["kernels_total"] >= 1 and report["kernels_on_chip"] == report["kernels_total"], report["fallbacks"]
