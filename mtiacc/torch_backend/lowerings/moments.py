"""``var_mean`` over no elements: the mean NaN, as aten's (a sum divided by a count of zero).

Inductor's lowering computes the mean and the variance in one Welford reduction, whose mean starts at 0 and stays
there when no element arrives, so ``torch.var_mean(torch.empty(0))`` gives a mean of 0 with ``backend="inductor"``
(its variance is NaN, as aten's).  Here, when the reduced dimensions hold no element, the mean is a NaN of the
result's shape; any other reduction is Inductor's.
"""
from __future__ import annotations

import torch

from mtiacc.torch_backend.lowerings import lowering

aten = torch.ops.aten


def _reduced_count(x, axis):
    size = list(x.get_size())
    if axis is None or (isinstance(axis, (list, tuple)) and len(axis) == 0):
        dims = range(len(size))
    else:
        dims = [d % max(len(size), 1) for d in ([axis] if isinstance(axis, int) else axis)]
    n = 1
    for d in dims:
        if size:
            n = n * size[d]
    return n


@lowering(aten.var_mean.correction)
def var_mean(x, axis=None, *, correction=None, keepdim=False):
    from torch._inductor import lowering as L
    from torch._inductor.virtualized import V
    var, mean = L.var_mean(x, axis, correction=correction, keepdim=keepdim)
    if not V.graph.sizevars.statically_known_equals(_reduced_count(x, axis), 0):
        return var, mean
    return var, L.full_like(mean, float("nan"))
