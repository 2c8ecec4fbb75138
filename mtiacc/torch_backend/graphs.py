"""What a compiled graph calls, read from the wrapper code Inductor generated for it.

Inductor's wrapper defines each Triton kernel (``name = async_compile.triton('name', ...)``, after a
``# kernel path: FILE`` comment) and, in its ``call`` function, precedes each call with the source nodes it
computes: ``# Topologically Sorted Source Nodes: [linear, gelu], Original ATen: [aten.addmm, aten.gelu]``.
A call site is a kernel launch (``name.run(...)``) or an aten operation (``extern_kernels.mm(...)``,
``torch.ops.aten.x.default(...)``); the source nodes (dynamo's names for the model's operations: the layers) map
each to the part of the model it computes.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Dict, List, Tuple

_KERNEL_PATH = re.compile(r"^# kernel path: (\S+)")
_KERNEL_DEF = re.compile(r"^(\w+) = async_compile\.triton\('(\w+)'")
_SOURCE_NODES = re.compile(r"#\s*(?:Topologically Sorted )?Source Nodes: \[([^\]]*)\]")
_RUN = re.compile(r"\b(\w+)\.run\(")
_EXTERN = re.compile(r"\bextern_kernels\.(\w+)\(")
_ATEN = re.compile(r"\b(?:torch\.ops\.)?aten\.(\w+)\.\w+\(")
# wrapper-level operations that move no data for the model
_BOOKKEEPING = {"as_strided", "view", "reshape", "empty", "empty_strided", "_reinterpret_tensor", "detach",
                "alias", "set_", "resize_"}


@dataclasses.dataclass
class CallSite:
    kind: str                    # "kernel" or "aten"
    name: str                    # the kernel's name, or the aten operation's
    nodes: Tuple[str, ...]       # the source nodes it computes
    path: str = ""               # a kernel's source file


@dataclasses.dataclass
class WrapperCode:
    kernels: Dict[str, str]      # the kernel's variable in the wrapper -> its source file
    names: Dict[str, str]        # the kernel's variable -> its function name
    calls: List[CallSite]


def parse(code: str) -> WrapperCode:
    kernels: Dict[str, str] = {}
    names: Dict[str, str] = {}
    path = ""
    for line in code.splitlines():
        m = _KERNEL_PATH.match(line)
        if m:
            path = m.group(1)
            continue
        m = _KERNEL_DEF.match(line)
        if m:
            kernels[m.group(1)] = path
            names[m.group(1)] = m.group(2)
            path = ""
    calls: List[CallSite] = []
    nodes: Tuple[str, ...] = ()
    in_call = False
    for line in code.splitlines():
        stripped = line.strip()
        if re.match(r"\s*def (call|_call|partition_\d+)\(", line):
            in_call, nodes = True, ()
            continue
        if not in_call:
            continue
        m = _SOURCE_NODES.search(stripped)
        if m:
            nodes = tuple(n.strip() for n in m.group(1).split(",") if n.strip())
            continue
        if stripped.startswith("#"):
            continue
        for m in _RUN.finditer(stripped):
            var = m.group(1)
            if var in kernels:
                calls.append(CallSite("kernel", names[var], nodes, kernels[var]))
        for m in _EXTERN.finditer(stripped):
            calls.append(CallSite("aten", m.group(1), nodes))
        if "extern_kernels." not in stripped:
            for m in _ATEN.finditer(stripped):
                if m.group(1) not in _BOOKKEEPING:
                    calls.append(CallSite("aten", m.group(1), nodes))
    return WrapperCode(kernels, names, calls)
