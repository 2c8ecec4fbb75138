"""``addbmm``, which Inductor leaves to aten: ``beta * input + alpha * sum_b(batch1[b] @ batch2[b])`` as the
batched GEMM (Inductor's ``bmm`` lowering: the chip's GEMM template), a sum over the batch and a pointwise
epilogue, all on the chip.  With ``beta == 0`` the input is ignored (a NaN in it does not reach the result), as
aten does.
"""
from __future__ import annotations

import torch

from mtiacc.torch_backend.lowerings import lowering

aten = torch.ops.aten


@lowering(aten.addbmm.default)
def addbmm(inp, batch1, batch2, *, beta=1, alpha=1):
    from torch._inductor import lowering as L
    prod = L.lowerings[aten.bmm.default](batch1, batch2)
    out = L.lowerings[aten.sum.dim_IntList](prod, [0])
    if alpha != 1:
        out = L.lowerings[aten.mul.Tensor](out, alpha)
    if beta == 0:
        return out
    if beta != 1:
        inp = L.lowerings[aten.mul.Tensor](inp, beta)
    return L.lowerings[aten.add.Tensor](inp, out)
