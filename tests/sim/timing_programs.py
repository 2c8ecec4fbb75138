"""Tiny programs for the timing-class tests: one instruction of a class, repeated independently or as a chain.

:func:`representative` picks the instruction of a timing class from the ISA table; :func:`operands` writes its
operands so that the copies are independent (every source a register nothing writes) or a chain (one source is
the destination of the copy before).  Registers nothing writes hold zero, so loads read address 0 (the argument
block) and indexed vector accesses stay at address 0.
"""
from __future__ import annotations

from typing import Optional

from mtiacc.asm.isa import INSTRUCTIONS, InstrSpec

DEST = {"x": "a0", "f": "f1", "v": "v8"}
SOURCES = {"x": ("a1", "a2", "a3"), "f": ("f2", "f3", "f4"), "v": ("v16", "v24", "v16")}
IMMEDIATES = {"simm12", "shamt5", "shamt6", "imm20", "simm5", "uimm5"}
SKIPPED = {"vm", "rm", "dpe_inflight"}   # optional: unmasked, the dynamic rounding mode, mtia.dpe.wait keeping none
VTYPE = {"vtypei11", "vtypei10"}


def _file(name: str) -> Optional[str]:
    """The register file of an operand kind name (``xs1`` -> ``x``; ``mem`` reads an x register), else None."""
    if name in ("mem", "smem"):
        return "x"
    if name[0] in "xfv" and name[1:2] in ("d", "s"):
        return name[0]
    return None


def chain_source(spec: InstrSpec) -> Optional[int]:
    """The index of the first operand that reads the file the instruction writes (a chain goes through it)."""
    dest = [_file(n) for n, a in zip(spec.operand_names, spec.access) if "w" in a]
    if len(dest) != 1:
        return None
    for i, (n, a) in enumerate(zip(spec.operand_names, spec.access)):
        if _file(n) == dest[0] and "r" in a and "w" not in a:
            return i
    return None


def accumulates(spec: InstrSpec) -> bool:
    """Whether ``spec`` reads its own destination (``vfmacc``): its copies always form a chain."""
    return "rw" in spec.access


def writable(spec: InstrSpec) -> bool:
    """Whether :func:`operands` can write every operand of ``spec``."""
    known = IMMEDIATES | SKIPPED | VTYPE | {"v0", "vmem", "mem", "smem", "btarget"}
    return all(_file(n) is not None or n in known for n in spec.operand_names)


def representative(cls: str, chained: bool = True, pick=None) -> Optional[InstrSpec]:
    """The first row of timing class ``cls`` (table order) whose operands :func:`operands` writes, and (if
    ``chained``) which can form a dependence chain with itself; ``pick`` narrows the rows further."""
    for spec in INSTRUCTIONS:
        if spec.timing == cls and writable(spec) and (pick is None or pick(spec)) \
                and (not chained or chain_source(spec) is not None):
            return spec
    return None


def operands(spec: InstrSpec, chained: bool, label: str, vtype: str = "e32, m1, ta, ma") -> str:
    """One line of assembly: ``spec`` with its destination ``DEST`` and sources from ``SOURCES`` (the chained
    source, if ``chained``, reading ``DEST``); a branch targets ``label`` (the next line)."""
    via = chain_source(spec) if chained else None
    used = {"x": 0, "f": 0, "v": 0}
    parts = []
    for i, (n, a) in enumerate(zip(spec.operand_names, spec.access)):
        f = _file(n)
        if n in SKIPPED:
            continue
        if n in IMMEDIATES:
            parts.append("1")
        elif n in VTYPE:
            parts.append(vtype)
        elif n == "v0":
            parts.append("v0")
        elif n == "vmem":
            parts.append("(zero)")
        elif n == "btarget":
            parts.append(label)
        elif n in ("mem", "smem"):
            parts.append("0(a0)" if i == via else "0(zero)")
        elif "w" in a:
            parts.append(DEST[f])
        elif i == via:
            parts.append(DEST[f])
        else:
            parts.append(SOURCES[f][used[f]])
            used[f] += 1
    return f"{spec.name} {', '.join(parts)}".rstrip()


def repeat(spec: InstrSpec, n: int, chained: bool, setup: str = "", vtype: str = "e32, m1, ta, ma") -> str:
    """A kernel: ``setup``, then ``n`` copies of ``spec`` (each followed by a label a branch may target), ``ret``."""
    lines = ["kernel:"] + [f"    {s.strip()}" for s in setup.strip().splitlines() if s.strip()]
    for k in range(n):
        lines.append(f"    {operands(spec, chained, f'next{k}', vtype)}")
        lines.append(f"next{k}:")
    lines.append("    ret")
    return "\n".join(lines) + "\n"
