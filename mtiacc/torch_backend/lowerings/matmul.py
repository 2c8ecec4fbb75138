"""Products Inductor leaves to aten.

``addbmm``: ``beta * input + alpha * sum_b(batch1[b] @ batch2[b])`` as the
batched GEMM (Inductor's ``bmm`` lowering: the chip's GEMM template), a sum over the batch and a pointwise
epilogue, all on the chip.  With ``beta == 0`` the input is ignored (a NaN in it does not reach the result), as
aten does.  Other dtypes than float32 and float64 stay with aten: integers (aten casts the scalars to the
integer type, and sums them without widening), and half precision, whose GEMM-then-sum rounds differently
from aten's batch-by-batch accumulation beyond OpInfo's tolerances.

``_trilinear`` (``nn.functional.bilinear``'s): each operand unsqueezed at its ``expand`` dimensions, the three
multiplied and summed over ``sumdim`` (dropped from the result), one fused reduction on the chip.
"""
from __future__ import annotations

import torch

from mtiacc.torch_backend.lowerings import lowering

aten = torch.ops.aten


@lowering(aten.addbmm.default)
def addbmm(inp, batch1, batch2, *, beta=1, alpha=1):
    from torch._inductor import lowering as L
    if batch1.get_dtype() not in (torch.float32, torch.float64):   # see the module's docstring
        return L.fallback_handler(aten.addbmm.default, add_to_fallback_set=False)(
            inp, batch1, batch2, beta=beta, alpha=alpha)
    prod = L.lowerings[aten.bmm.default](batch1, batch2)
    out = L.lowerings[aten.sum.dim_IntList](prod, [0])
    if alpha != 1:
        out = L.lowerings[aten.mul.Tensor](out, alpha)
    if beta == 0:
        return out
    if beta != 1:
        inp = L.lowerings[aten.mul.Tensor](inp, beta)
    return L.lowerings[aten.add.Tensor](inp, out)


@lowering(aten._trilinear.default)
def trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim=1):
    from torch._inductor import lowering as L
    total = len(i1.get_size()) + len(expand1)
    operands = []
    for x, expand in ((i1, expand1), (i2, expand2), (i3, expand3)):
        for d in range(total):
            if d in expand:
                x = L.lowerings[aten.unsqueeze.default](x, d)
        operands.append(x)
    mul = L.lowerings[aten.mul.Tensor]
    out = mul(mul(operands[0], operands[1]), operands[2])
    if not sumdim:
        return out
    return L.lowerings[aten.sum.dim_IntList](out, sorted(d % total for d in sumdim))
