"""Inductor lowerings the chip replaces while one of its graphs compiles.

Inductor's lowerings are a global table (``torch._inductor.lowering.lowerings``, by aten operation).  For the
operations below, a graph compiled with ``backend="mtia"`` gets the chip's lowering instead of Inductor's, and
only while :func:`chip_lowerings` is active (around ``compile_fx_inner``, in :mod:`.backend`): other backends,
and graphs compiled after it, see Inductor's table as it was.

- ``aten.convolution``, ``aten._convolution``: the chip's convolution template (:mod:`.ops.conv`);
- ``aten.convolution_backward``: the chip's templates for the input's and the weight's gradients
  (:mod:`.ops.conv_grad`);
- ``aten._embedding_bag``, ``aten._embedding_bag_forward_only``: the chip's embedding-bag kernel
  (:mod:`.ops.embedding`), with a training step's other outputs (:mod:`.ops.embedding_grad`);
- ``aten._embedding_bag_backward``, ``_embedding_bag_dense_backward``,
  ``_embedding_bag_per_sample_weights_backward``: the gradients on the chip (:mod:`.ops.embedding_grad`).

Each lowering is given Inductor's own, which it calls for what it does not take.
"""
from __future__ import annotations

import contextlib
from typing import Callable, Dict, Iterator


def _replacements(autotune: bool) -> Dict[object, Callable]:
    import torch
    from torch._inductor.lowering import lowerings
    from mtiacc.torch_backend.ops import conv, conv_grad, embedding, embedding_grad
    aten = torch.ops.aten
    out: Dict[object, Callable] = {}
    convolution = conv.lowering(lowerings[aten.convolution.default], autotune)

    def _convolution(x, weight, bias, stride, padding, dilation, transposed, output_padding, groups, *_flags):
        return convolution(x, weight, bias, stride, padding, dilation, transposed, output_padding, groups)

    out[aten.convolution.default] = convolution
    out[aten._convolution.default] = _convolution
    backward = aten.convolution_backward.default
    out[backward] = conv_grad.lowering(lowerings[backward], convolution, autotune)
    for op in (aten._embedding_bag.default, aten._embedding_bag_forward_only.default):
        out[op] = embedding.lowering(lowerings[op], training=embedding_grad.forward)
    for op, make in ((aten._embedding_bag_backward.default, embedding_grad.backward),
                     (aten._embedding_bag_dense_backward.default, embedding_grad.dense_backward),
                     (aten._embedding_bag_per_sample_weights_backward.default,
                      embedding_grad.per_sample_weights_backward)):
        if op in lowerings:
            out[op] = make(lowerings[op])
    return out


@contextlib.contextmanager
def chip_lowerings(autotune: bool = False) -> Iterator[None]:
    """The chip's lowerings in Inductor's table while the block runs (see the module's docstring)."""
    from torch._inductor.lowering import lowerings
    table = _replacements(autotune)
    saved = {op: lowerings.get(op) for op in table}
    lowerings.update(table)
    try:
        yield
    finally:
        for op, old in saved.items():
            if old is None:
                lowerings.pop(op, None)
            else:
                lowerings[op] = old
