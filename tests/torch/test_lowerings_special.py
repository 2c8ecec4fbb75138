"""The backend's lowerings of special functions (mtiacc/torch_backend/lowerings/special.py, polynomials.py):
differential against eager on seeded inputs that reach every branch, every kernel on the chip, nothing left to
aten; and Inductor's own tables untouched outside the backend's compiles."""
import pytest
import torch

from mtiacc.torch_backend import report


def _on_chip_matches(fn, *args):
    torch.manual_seed(0)
    got = torch.compile(fn, backend="mtia", fullgraph=True)(*args)
    want = fn(*args)
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w, equal_nan=True)
    rep = report()
    assert rep["aten_ops"] == [], rep["aten_ops"]
    assert rep["kernels_total"] > 0 and rep["kernels_on_chip"] == rep["kernels_total"], rep["fallbacks"]


def _points():
    g = torch.Generator().manual_seed(1)
    # zero, negative integers (poles), 10 (digamma's exact shortcut), halves, and random values both sides
    edges = torch.tensor([0.0, -0.0, -3.0, 10.0, 1.0, 0.5, -2.5, 7.25])
    return torch.cat([edges, torch.randn(40, generator=g) * 5])


def test_digamma_polygamma_zeta():
    x = _points()
    _on_chip_matches(lambda a: (torch.digamma(a), torch.polygamma(1, a), torch.polygamma(2, a),
                                torch.polygamma(3, a), torch.special.zeta(a.abs() + 1.5, a)), x)


@pytest.mark.parametrize("group", [
    ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w"),
    ("shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
     "shifted_chebyshev_polynomial_w"),
    ("hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p"),
])
def test_polynomials(group):
    g = torch.Generator().manual_seed(2)
    # the ends of [-1, 1] and [0, 1], degrees below 0, 0, 1, the recurrence's and the trigonometric form's
    x = torch.cat([torch.tensor([1.0, -1.0, 0.0, 0.5, 2.0, -3.0]), torch.randn(40, generator=g) * 1.5])
    n = torch.cat([torch.tensor([3.0, 4.0, 5.0, 9.0, 10.0, 7.0]),
                   torch.randint(-2, 12, (40,), generator=g).float() + 0.5 * (torch.arange(40) % 2)])
    fns = [getattr(torch.special, name) for name in group]
    _on_chip_matches(lambda a, b: tuple(f(a, b) for f in fns), x, n)


def test_inductor_tables_restored():
    from torch._inductor import lowering as L
    from torch._inductor.codegen.triton import TritonOverrides
    from mtiacc.torch_backend import lowerings
    op = torch.ops.aten.digamma.default
    before, before_op, before_fn = L.lowerings[op], TritonOverrides.__dict__["digamma"], L.sort_stable
    with lowerings.installed():
        assert L.lowerings[op] is not before
        assert TritonOverrides.__dict__["digamma"] is not before_op
        assert L.sort_stable is not before_fn
    assert L.lowerings[op] is before and TritonOverrides.__dict__["digamma"] is before_op
    assert L.sort_stable is before_fn


def test_bessel_family():
    g = torch.Generator().manual_seed(3)
    # 0 and -0 (K's poles), the series' boundaries 2 and 8 on both sides, tiny and large arguments, infinity
    x = torch.cat([torch.tensor([0.0, -0.0, 2.0, 8.0, -8.0, 0.3, 1e-3, 30.0, float("inf")]),
                   torch.randn(40, generator=g) * 6])
    s = torch.special
    _on_chip_matches(lambda a: (s.i0e(a), s.i1e(a), s.modified_bessel_k0(a), s.modified_bessel_k1(a),
                                s.scaled_modified_bessel_k0(a), s.scaled_modified_bessel_k1(a),
                                s.spherical_bessel_j0(a)), x)


def test_ndtri_airy_ai():
    g = torch.Generator().manual_seed(4)
    # ndtri: 0, 1, the middle and both tails (below and above exp(-32)), outside [0, 1]
    p = torch.cat([torch.tensor([0.0, 1.0, 0.5, 1e-20, 1 - 1e-7, 0.1, 0.9, -0.1, 1.1]), torch.rand(40, generator=g)])
    # airy_ai: each form's boundaries (-2.09, 2.09, 8.32), past 103.892, infinity
    x = torch.cat([torch.tensor([-2.09, 2.09, 8.32, 8.33, -2.1, 0.0, 110.0, -30.0, 1.0, float("inf")]),
                   torch.randn(40, generator=g) * 5])
    _on_chip_matches(lambda a, b: (torch.special.ndtri(a), torch.special.airy_ai(b)), p, x)


def test_zero_dim_operands():
    # Inductor loads a 0-d operand as a scalar: the helpers' block-wide trip counts must take it
    a, b = torch.tensor(-8.4784), torch.tensor(-1.7658)
    s = torch.special
    _on_chip_matches(lambda x, n: (s.zeta(x, n), s.zeta(n.abs() + 2, x), s.chebyshev_polynomial_t(x, n.abs() * 3),
                                   s.hermite_polynomial_h(n, x.abs()), s.airy_ai(n)), a, b)


def test_polygamma_of_integers_is_float():
    x = torch.tensor([1, 2, 5, 9], dtype=torch.int32)
    _on_chip_matches(lambda a: (torch.polygamma(0, a), torch.polygamma(2, a)), x)


def test_igamma_igammac():
    """P and Q (lowerings/gamma.py) in each of Cephes' regions: P's series, Q's continued fraction and series,
    the Lanczos prefactor near a == x (below and above 200), large a near x (where eager uses Temme's expansion),
    and the edges (zeros, negatives, infinities)."""
    g = torch.Generator().manual_seed(5)
    a = torch.cat([torch.tensor([0.0, 0.0, 1.0, -1.0, 2.0, float("inf"), 3.0, 0.5, 30.0, 30.0, 250.0, 1.0, 5.0,
                                 1e-3, 0.2, 2.0]),
                   torch.rand(40, generator=g) * 10, torch.rand(20, generator=g) * 100 + 20])
    x = torch.cat([torch.tensor([1.0, 0.0, 0.0, 1.0, -1.0, 3.0, float("inf"), 0.3, 31.0, 20.0, 255.0, 1.05, 1e-4,
                                 2.0, 0.01, 0.7]),
                   torch.rand(40, generator=g) * 12, torch.rand(20, generator=g) * 100 + 20])
    _on_chip_matches(lambda a, x: (torch.special.gammainc(a, x), torch.special.gammaincc(a, x),
                                   torch.igamma(x, a)), a, x)
