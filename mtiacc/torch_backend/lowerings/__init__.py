"""Lowerings of the ``mtia`` backend: ATen operations Inductor leaves to aten (or to a host fallback), computed
by Triton kernels on the chip instead.

Inductor keeps its lowerings in one global table (``torch._inductor.lowering.lowerings``) and its Triton
code for each pointwise operation on one class (``TritonOverrides``).  :func:`installed` puts this backend's
entries there only while one of its graphs is lowered and generated (``backend._inner_compile``) and puts
Inductor's own back afterwards, so ``backend="inductor"`` and every other backend are left as they were.

- :mod:`.special`: special functions (digamma, polygamma, zeta) as Triton functions written into the kernel
  that uses them, fused with the operations around them; :mod:`.polynomials` (Chebyshev, Hermite, Laguerre,
  Legendre), :mod:`.bessel` (I0e, I1e, K0, K1, scaled K0/K1, spherical j0), :mod:`.cephes` (ndtri,
  airy_ai) and :mod:`.gamma` (igamma, igammac) give it their functions' Triton source;
- :mod:`.scatter`: ``scatter_reduce`` and ``index_reduce`` with every reduction, as reductions over the index;
- :mod:`.sorting`: sorts longer than one program's bitonic network as rank sorts, and ``nanmedian``;
- :mod:`.histogram`: ``histc``, ``histogram``, ``histogramdd``, ``bincount``;
- :mod:`.matmul`: ``addbmm`` as the batched GEMM, a sum over the batch and its epilogue; ``_trilinear``
  (``bilinear``'s) as one fused reduction;
- :mod:`.distance`: ``_cdist_forward`` (``cdist``'s) as one reduction per distance;
- :mod:`.nonzero`: ``nonzero_static`` as a cumulative count and a reduction per coordinate;
- :mod:`.reductions`: ``var_mean`` over no elements (its mean NaN, where Inductor's Welford reduction gives 0),
  and ``segment_reduce`` (every reduction, by lengths or offsets) as one masked reduction per segment;
- :mod:`.linalg`: dense linear algebra, one program per matrix: LU, Cholesky and triangular solves and what is
  made of them (``solve``, ``inv``, ``det``, ``slogdet``, ``lu_solve``, ``lu_unpack``, ``cholesky_solve``,
  ``cholesky_inverse``; :mod:`.linalg.lu`), Householder QR (``geqrf``, ``linalg_qr``, ``ormqr``,
  ``householder_product``; :mod:`.linalg.qr`), ``eigh`` by cyclic Jacobi, the SVD by two-sided Jacobi on a QR's
  ``R`` and ``pinv`` (:mod:`.linalg.spectral`);
- :mod:`.pooling`: ``_adaptive_avg_pool3d`` as one masked sum reduction over the largest window;
- :mod:`.resampling`: ``grid_sampler_3d`` (trilinear and nearest, every padding mode) as one pointwise kernel.

Each module lists its entries with :func:`lowering` (an ATen operation's lowering) and :func:`triton_op` (the
Triton code of an operation of Inductor's ``ops``).
"""
from __future__ import annotations

import contextlib
import functools
from typing import Callable, Dict, Iterator, List, Tuple

_MODULES = ("special", "polynomials", "bessel", "cephes", "gamma", "scatter", "sorting", "histogram", "matmul",
            "distance", "nonzero", "reductions", "linalg.lu", "linalg.qr", "linalg.spectral", "pooling", "resampling")

# (aten operation, lowering, type promotion kind or None, broadcast)
_LOWERINGS: List[Tuple[object, Callable, object, bool]] = []
_TRITON_OPS: Dict[str, Callable[..., str]] = {}
# functions of torch._inductor.lowering that Inductor's other lowerings call by name
_FUNCTIONS: Dict[str, Callable] = {}


def lowering(*ops, type_promotion_kind=None, broadcast: bool = False):
    """Register the decorated function as this backend's lowering of the ATen operations ``ops`` (each an
    ``OpOverload`` or ``OpOverloadPacket``), as ``torch._inductor.lowering.register_lowering`` would."""
    def deco(fn):
        for op in ops:
            _LOWERINGS.append((op, fn, type_promotion_kind, broadcast))
        return fn
    return deco


def triton_op(name: str):
    """Register the decorated function as the Triton code of Inductor's ``ops.<name>`` (it takes the operands'
    Triton expressions and returns the result's)."""
    def deco(fn):
        _TRITON_OPS[name] = fn
        return fn
    return deco


def replaces(name: str):
    """Register the decorated function in place of ``torch._inductor.lowering.<name>``, which Inductor's own
    lowerings call directly (not through the table)."""
    def deco(fn):
        _FUNCTIONS[name] = fn
        return fn
    return deco


@functools.lru_cache(maxsize=None)
def _table() -> Tuple[Dict[object, Callable], Dict[str, Callable]]:
    import importlib
    import torch
    from torch._inductor import lowering as L
    for m in _MODULES:
        importlib.import_module(f"{__name__}.{m}")
    table: Dict[object, Callable] = {}
    for op, fn, kind, broadcast in _LOWERINGS:
        # every overload of a packet (Inductor's own registration skips those it already has)
        overloads = [op] if isinstance(op, torch._ops.OpOverload) else [getattr(op, o) for o in op.overloads()]
        L._register_lowering(overloads, fn, broadcast=broadcast, type_promotion_kind=kind,
                             convert_input_to_bool=False, lowering_dict=table)
    return table, dict(_TRITON_OPS)


_MISSING = object()


@contextlib.contextmanager
def installed() -> Iterator[None]:
    """This backend's lowerings in Inductor's tables while the block runs; Inductor's own afterwards."""
    from torch._inductor import lowering as L
    from torch._inductor.codegen.triton import TritonOverrides
    table, triton_ops = _table()
    saved = {op: L.lowerings.get(op, _MISSING) for op in table}
    saved_ops = {name: TritonOverrides.__dict__.get(name, _MISSING) for name in triton_ops}
    saved_functions = {name: getattr(L, name) for name in _FUNCTIONS}
    L.lowerings.update(table)
    for name, fn in _FUNCTIONS.items():
        setattr(L, name, fn)
    for name, fn in triton_ops.items():
        setattr(TritonOverrides, name, staticmethod(fn))
    try:
        yield
    finally:
        for op, old in saved.items():
            if old is _MISSING:
                L.lowerings.pop(op, None)
            else:
                L.lowerings[op] = old
        for name, old in saved_functions.items():
            setattr(L, name, old)
        for name, old in saved_ops.items():
            if old is _MISSING:
                delattr(TritonOverrides, name)
            else:
                setattr(TritonOverrides, name, old)
