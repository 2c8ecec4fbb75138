"""Special functions as Triton code: what Inductor leaves to aten for Triton devices (its ``pointwise_overrides``
with no Triton code: digamma, polygamma, zeta, ...).

Each function is a ``@triton.jit`` helper written into the kernel that calls it (Inductor's
``HelperFunctions``, as it does for scans' combine functions), so it fuses with the pointwise work around it,
and a kernel that falls back to the host (Triton's interpreter) runs the same code.  The algorithms are the
ones PyTorch's CPU kernels use (Cephes' and ATen's, computed in fp32), so results agree to fp32 rounding:
digamma pushes ``x`` to 10 or more with ``psi(x) = psi(x + 1) - 1/x`` and uses the asymptotic series,
reflecting negative ``x`` with ``pi / tan(pi x)``; trigamma likewise with six steps; the Hurwitz zeta function
sums terms until the term's base passes 9, then adds the Euler-Maclaurin tail; polygamma(n >= 2, x) is
``(-1)^(n+1) n! zeta(n+1, x)``.  Loops whose trip count depends on the operands run to the largest count in
the block, each element stopping where PyTorch's loop would (a mask).
"""
from __future__ import annotations

from typing import Dict, Tuple

from mtiacc.torch_backend.lowerings import bessel, cephes, gamma, lowering, polynomials, triton_op

# name -> (Triton source with {name} for its own name and __dep__ for a helper it calls, helpers it calls)
SOURCES: Dict[str, Tuple[str, Tuple[str, ...]]] = {}


def _source(name: str, deps: Tuple[str, ...] = ()):
    def deco(text: str) -> str:
        SOURCES[name] = (text.strip("\n") + "\n", deps)
        return text
    return deco


_source("digamma")("""
@triton.jit
def {name}(x):
    x = x.to(tl.float32)
    neg = x < 0.0
    # reflection: psi(x) = psi(1 - x) - pi / tan(pi r), r the fractional part of x
    r = x - libdevice.trunc(x)
    refl = 3.141592653589793 / libdevice.tan(3.141592653589793 * r)
    y = tl.where(neg, 1.0 - x, x)
    acc = tl.zeros_like(y)
    for _ in range(10):
        small = y < 10.0
        acc = tl.where(small, acc - 1.0 / y, acc)
        y = tl.where(small, y + 1.0, y)
    z = 1.0 / (y * y)
    poly = 8.33333333333333333333E-2
    poly = poly * z + -2.10927960927960927961E-2
    poly = poly * z + 7.57575757575757575758E-3
    poly = poly * z + -4.16666666666666666667E-3
    poly = poly * z + 3.96825396825396825397E-3
    poly = poly * z + -8.33333333333333333333E-3
    poly = poly * z + 8.33333333333333333333E-2
    asym = tl.where(y < 1.0e17, z * poly, 0.0)
    res = tl.where(y == 10.0, acc + 2.25175258906672110764, acc + tl.log(y) - 0.5 / y - asym)
    res = tl.where(neg, res - refl, res)
    res = tl.where(neg & (x == libdevice.trunc(x)), float("nan"), res)
    return tl.where(x == 0.0, -1.0 / x, res)
""")

_source("trigamma")("""
@triton.jit
def {name}(x):
    x = x.to(tl.float32)
    refl = x < 0.5
    s = tl.sin(3.141592653589793 * x)
    acc = tl.where(refl, -9.869604401089358 / (s * s), 0.0)
    y = tl.where(refl, 1.0 - x, x)
    for _ in range(6):
        acc += 1.0 / (y * y)
        y += 1.0
    ixx = 1.0 / (y * y)
    acc += (1.0 + 1.0 / (2.0 * y) + ixx * (1.0 / 6.0 - ixx * (1.0 / 30.0 - ixx * (1.0 / 42.0)))) / y
    return tl.where(refl, -acc, acc)
""")

# Hurwitz zeta(x, q) (Cephes' zeta); A[i] are (2i+2)! / B_{2i+2}
_ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9, 7.47242496e10,
           -2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15,
           1.8152105401943546773e17, -7.1661652561756670113e18)
_source("zeta")("""
@triton.jit
def {name}(x, q):
    # one block shape for both (a 0-d operand comes as a scalar), so the loop's values keep their type
    x, q = tl.broadcast(x.to(tl.float32) + tl.zeros([1], tl.float32), q.to(tl.float32) + tl.zeros([1], tl.float32))
    MACHEP: tl.constexpr = 1.11022302462515654042E-16
    s = libdevice.pow(q, -x)
    a = q
    b = tl.zeros_like(s)
    done = tl.zeros_like(s) != 0.0
    # terms until both 9 of them and a > 9 (the trip count: the block's largest)
    trips = tl.maximum(tl.max(tl.where(q < 9.0, 9.0 - libdevice.floor(q), 0.0) + tl.zeros([1], tl.float32)),
                        9.0).to(tl.int32) + 1
    for i in range(trips):
        more = ~done & ((i < 9) | (a <= 9.0))
        a = tl.where(more, a + 1.0, a)
        b = tl.where(more, libdevice.pow(a, -x), b)
        s = tl.where(more, s + b, s)
        done = done | (more & (-MACHEP * s < b) & (b < MACHEP * s))
    w = a
    tail = ~done
    s = tl.where(tail, s + b * w / (x - 1.0) - 0.5 * b, s)
    a = tl.full(s.shape, 1.0, tl.float32)
    k = tl.zeros_like(s)
""" + "".join(f"""    a = a * (x + k)
    b = b / w
    t = a * b / {c!r}
    s = tl.where(tail, s + t, s)
    tail = tail & ~(tl.abs(t / s) < MACHEP)
    k = k + 1.0
    a = a * (x + k)
    b = b / w
    k = k + 1.0
""" for c in _ZETA_A) + """    s = tl.where((q <= 0.0) & (x != libdevice.floor(x)), float("nan"), s)
    s = tl.where((q <= 0.0) & (q == libdevice.floor(q)), float("inf"), s)
    s = tl.where(x < 1.0, float("nan"), s)
    return tl.where(x == 1.0, float("inf"), s)
""")

_source("polygamma", ("digamma", "trigamma", "zeta"))("""
@triton.jit
def {name}(n, x):
    x = x.to(tl.float32)
    nf = n.to(tl.float32)
    high = tl.where(libdevice.fmod(nf, 2.0) == 1.0, 1.0, -1.0) * tl.exp(libdevice.lgamma(nf + 1.0)) \\
        * __zeta__(nf + 1.0, x)
    return tl.where(nf == 0.0, __digamma__(x), tl.where(nf == 1.0, __trigamma__(x), high))
""")


def helper(name: str) -> str:
    """The kernel-local name of helper ``name``, written into the kernel being generated (with the helpers
    it calls) the first time."""
    from torch._inductor.virtualized import V
    text, deps = SOURCES[name]
    for dep in deps:
        text = text.replace(f"__{dep}__", helper(dep))
    return V.kernel.helper_functions.add(text, base_name=f"_mtia_{name}")


def _triton(name: str, arity: int):
    """``ops.<name>``'s Triton code: a call of helper ``name``."""
    def code(*args):
        assert len(args) == arity, (name, args)
        return f"{helper(name)}({', '.join(str(a) for a in args)})"
    code.__name__ = name
    triton_op(name)(code)


def _pointwise(name: str):
    """Inductor's lowering of its pointwise ``ops.<name>``, without the aten fallback it takes for Triton."""
    from torch._inductor.lowering import make_pointwise, ops_wrapper
    return make_pointwise(ops_wrapper(name))


def _register_pointwise(name: str, *ops):
    from torch._inductor.lowering import ELEMENTWISE_TYPE_PROMOTION_KIND
    fn = None

    def lower(*args):
        nonlocal fn
        fn = fn or _pointwise(name)
        return fn(*args)
    lower.__name__ = name
    lowering(*ops, type_promotion_kind=ELEMENTWISE_TYPE_PROMOTION_KIND.INT_TO_FLOAT, broadcast=True)(lower)


def _register_all():
    import torch
    aten = torch.ops.aten
    SOURCES.update(polynomials.sources())
    SOURCES.update(bessel.sources())
    SOURCES.update(cephes.sources())
    SOURCES.update(gamma.sources())
    # Inductor's ops name -> the ATen operation lowered to it
    lowered = {"digamma": aten.digamma, "zeta": aten.special_zeta, "igamma": aten.igamma, "igammac": aten.igammac}
    for name in polynomials.sources():
        lowered[name] = getattr(aten, f"special_{name}")
    for name in ("i0e", "i1e", "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0",
                 "scaled_modified_bessel_k1", "spherical_bessel_j0", "ndtri", "airy_ai"):
        lowered[name] = getattr(aten, f"special_{name}")
    for name, op in lowered.items():
        _register_pointwise(name, op)
    _register_polygamma(aten.polygamma)
    for name in (*lowered, "polygamma"):
        text = SOURCES[name][0]
        _triton(name, text.split("(", 1)[1].split(")", 1)[0].count(",") + 1)


def _register_polygamma(*ops):
    """polygamma(n, x) with an int ``n``: ``ops.polygamma`` of ``n`` as a constant."""
    from torch._inductor.lowering import ELEMENTWISE_TYPE_PROMOTION_KIND

    def polygamma(n, x):
        from torch._inductor import ops_handler  # noqa: F401  (Inductor's ops are in place)
        from torch._inductor.lowering import make_pointwise
        from torch._inductor.virtualized import ops
        import torch
        from torch._inductor.lowering import to_dtype
        if not x.get_dtype().is_floating_point:       # integer input: a float result, as eager's
            x = to_dtype(x, torch.get_default_dtype())
        return make_pointwise(lambda v: ops.polygamma(ops.constant(n, torch.int32), v))(x)
    lowering(*ops, type_promotion_kind=None)(polygamma)


_register_all()
