"""The work a compiled graph leaves on the host: the aten operations Inductor's wrapper calls (matmuls,
convolutions and attention left to aten, and any other operation it could not generate a kernel for).

While a compiled graph runs, a dispatch mode sees each aten operation it calls.  Views and allocations are not
work; operations done to pass a kernel its arguments (inside a launch) are not the model's.  Each operation is
counted with its FLOPs (torch's own formulas, for the matmul, convolution and attention family: the GEMMs) and
the bytes of its tensors, which :mod:`.coverage` prices at the chip's roofline.
"""
from __future__ import annotations

import dataclasses
from typing import Callable

_ALLOCATIONS = {"empty", "empty_strided", "empty_like", "new_empty", "new_empty_strided", "lift_fresh",
                "detach", "alias", "_local_scalar_dense", "set_", "resize_", "record_stream"}


@dataclasses.dataclass
class OpStat:
    """An aten operation's calls in one graph."""

    name: str
    gemm: bool
    calls: int = 0
    flops: float = 0.0
    bytes: float = 0.0


def _tensor_bytes(values) -> int:
    import torch
    from torch.utils._pytree import tree_leaves
    return sum(t.numel() * t.element_size() for t in tree_leaves(values) if isinstance(t, torch.Tensor))


def _make_mode():
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils.flop_counter import flop_registry
    from mtiacc.triton_backend import records

    class Counter(TorchDispatchMode):
        def __init__(self, graph):
            super().__init__()
            self.graph = graph

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            out = func(*args, **kwargs)
            packet = func.overloadpacket
            name = packet.__name__
            if records.inside_kernel() or func.is_view or name in _ALLOCATIONS:
                return out
            formula = flop_registry.get(packet)
            flops = 0.0
            if formula is not None:
                try:
                    flops = float(formula(*args, **kwargs, out_val=out))
                except Exception:
                    flops = 0.0
            self.graph.add_op(name, gemm=formula is not None, flops=flops,
                              nbytes=_tensor_bytes((args, kwargs, out)))
            return out

    return Counter


_Counter = None


def counted(run: Callable, graph) -> Callable:
    """``run`` (a compiled graph's callable, taking its list of inputs) counting the aten operations it calls
    into ``graph``, its kernels free to fall back to the host."""
    from mtiacc.triton_backend.records import fallback_scope

    def call(inputs):
        global _Counter
        if _Counter is None:
            _Counter = _make_mode()
        graph.runs += 1
        with _Counter(graph), fallback_scope():
            return run(inputs)
    return call
