"""Instruction semantics: one function per semantics family of the ISA table, dispatched on ``sem_family``.

``FAMILIES[family](d, m, pc)`` builds the executor of one decoded instruction bound to machine ``m``;
``OPS[family]`` is the set of ``sem_op`` values the family implements (``None``: the family has one op).
"""
from __future__ import annotations

from ..faults import SimFault
from . import atomic, convert_debug, custom, dpe, fp, scalar, se, varith, vector

FAMILIES = {}
OPS = {}
for _mod in (scalar, fp, vector, varith, custom, convert_debug, dpe, atomic, se):
    FAMILIES.update(_mod.FAMILIES)
    for _fam in _mod.FAMILIES:
        OPS[_fam] = _mod.OPS.get(_fam)


def _faulting(message):
    def ex(g):
        raise SimFault(message)
    return ex


def build_executor(m, d, pc):
    """The functional executor of decoded instruction ``d`` at ``pc`` (faults when run if unsupported)."""
    fam = d.spec.sem_family
    build = FAMILIES.get(fam)
    if build is None:
        return _faulting(f"instruction '{d.spec.name}' (semantics family '{fam}') is not implemented by mtiasim")
    try:
        return build(d, m, pc)
    except KeyError:
        return _faulting(f"instruction '{d.spec.name}' (operation '{d.spec.sem_op}' of family '{fam}') is not "
                         f"implemented by mtiasim")


def bind_executor(m, d, pc, k):
    """The executor of the k-th instruction: timing accounting (if any) then the functional executor."""
    if d is None:
        err = m.program.errors[k] or "unknown instruction"
        word = int.from_bytes(m.program.text[4 * k:4 * k + 4], "little")
        return _faulting(f"illegal instruction 0x{word:08x}: {err}")
    ex = build_executor(m, d, pc)
    tm = m.timing.bind(d, m) if m.timing is not None else None
    if tm is None:
        return ex

    def both(g):
        tm(g)
        return ex(g)
    return both
