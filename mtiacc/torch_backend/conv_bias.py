"""A graph pass for max-autotune: a convolution's bias becomes an add after it, so Inductor's convolution
templates can run on the chip.

Inductor's Triton convolution templates take the input and the weight only.  On a GPU, Inductor's lowering
peels the bias off first (a convolution without bias, then an add it fuses as the template's epilogue); on a
CPU device, which is what the chip's tensors are to Inductor, it keeps the bias in the operation, and then
benchmarks each template candidate with the bias as an extra argument, which the template kernel does not
take.  This pass does the GPU's peeling on the post-grad graph, before lowering: ``convolution(x, w, b, ...)``
becomes ``convolution(x, w, None, ...) + b.view(C, 1, ...)`` (the output's channels are its dimension 1, for
every layout and for transposed convolutions too).
"""
from __future__ import annotations

from typing import Any, Optional

import torch
from torch._inductor.custom_graph_pass import CustomGraphPass, get_hash_for_files

aten = torch.ops.aten


class PeelConvolutionBias(CustomGraphPass):
    """``post_grad_custom_pre_pass``: see the module's docstring."""

    def __call__(self, graph: torch.fx.Graph) -> None:
        for node in list(graph.nodes):
            if node.op != "call_function" or node.target is not aten.convolution.default:
                continue
            x, w, bias, *rest = node.args
            if bias is None:
                continue
            out = node.meta.get("val")
            if out is None or out.dim() < 3:
                continue
            with graph.inserting_after(node):
                conv = graph.call_function(aten.convolution.default, (x, w, None, *rest))
                conv.meta.update(node.meta)
            with graph.inserting_after(conv):
                shape = [out.shape[1]] + [1] * (out.dim() - 2)
                view = graph.call_function(aten.view.default, (bias, shape))
                view.meta.update({k: v for k, v in bias.meta.items() if k != "val"})
                if "val" in bias.meta:
                    view.meta["val"] = bias.meta["val"].view(shape)
            with graph.inserting_after(view):
                add = graph.call_function(aten.add.Tensor, (conv, view))
                add.meta.update(node.meta)
            node.replace_all_uses_with(add)
            graph.erase_node(node)

    def uuid(self) -> Optional[Any]:
        return get_hash_for_files((__file__,))
