"""Pseudo-instructions: a small declarative table expanded by the assembler.

A row names its operands (operand kinds, as in the ISA table: the kind's attribute says which field of the base
instruction the operand fills) and the base instruction with the remaining fields: a constant, or ``"=attr"``
to copy another operand (``fmv.s fd, fs1`` is ``fsgnj.s fd, fs1, fs1``).  The disassembler reads the same rows
backwards to print aliases (``mv``, ``li``, ``ret`` ...) for rows with ``alias=True`` (the default when the row
has a constraint).  ``li`` has its own expander (any 64-bit constant, exactly as GNU as builds it).
"""
from __future__ import annotations

import dataclasses
import functools
from typing import Callable, Dict, FrozenSet, List, Optional, Tuple, Union

from .isa import BY_NAME, InstrSpec, register_operands
from .operands import KINDS, Kind

Expansion = List[Tuple[InstrSpec, Dict[str, int]]]


@dataclasses.dataclass(frozen=True, eq=False)
class Pseudo:
    name: str
    operand_names: Tuple[str, ...]
    base: InstrSpec
    sets: Tuple[Tuple[str, Union[int, str]], ...]
    alias: bool
    expander: Optional[Callable[[Dict[str, int]], Expansion]] = None

    @functools.cached_property
    def operands(self) -> Tuple[Kind, ...]:
        return tuple(KINDS[n] for n in self.operand_names)

    @functools.cached_property
    def access(self) -> Tuple[str, ...]:
        """Per operand, the access of the base instruction's operand that it fills (the kind's, if none)."""
        base = {a: acc for k, acc in zip(self.base.operands, self.base.access) for a in k.attrs}
        return tuple(base.get(k.attrs[0], k.access) if k.access else "" for k in self.operands)

    @property
    def effects(self) -> FrozenSet[str]:
        return self.base.effects

    @property
    def timing(self) -> str:
        return self.base.timing

    @property
    def sem_family(self) -> str:
        return self.base.sem_family

    @functools.cached_property
    def register_operands(self):
        return register_operands(self.operands, self.access)

    @property
    def links(self) -> bool:
        """Whether it writes a register: an operand, or a destination the row fixes (``jal label`` links ra)."""
        fixed = dict(self.sets)
        written = {a for k, acc in zip(self.base.operands, self.base.access) if "w" in acc for a in k.attrs}
        return any("w" in a for a in self.access) or any(fixed.get(a) not in (None, 0) for a in written)

    @property
    def syntax(self) -> str:
        parts = [f"[{k.syntax}]" if k.optional else k.syntax for k in self.operands]
        return f"{self.name} {', '.join(parts)}".rstrip()

    def expand(self, vals: Dict[str, int]) -> Expansion:
        if self.expander is not None:
            return self.expander(vals)
        out = dict(vals)
        for attr, v in self.sets:
            out[attr] = vals[v[1:]] if isinstance(v, str) else v
        return [(self.base, out)]

    def matches(self, values: Dict[str, int]) -> bool:
        """Whether a decoded ``base`` instruction with these values is this pseudo (for printing aliases)."""
        for attr, v in self.sets:
            want = values[v[1:]] if isinstance(v, str) else v
            if values.get(attr) != want:
                return False
        return True

    def expansion_text(self) -> str:
        if self.expander is not None:
            return "lui/addiw/slli/addi sequence (as GNU as)"
        parts = []
        for k in self.base.operands:
            for a in k.attrs:
                fixed = dict(self.sets).get(a)
                if fixed is not None:
                    parts.append(f"{a}={fixed[1:] if isinstance(fixed, str) else fixed}")
        return f"{self.base.name} " + ", ".join(parts) if parts else self.base.name


def _sext(value: int, width: int) -> int:
    value &= (1 << width) - 1
    return value - (1 << width) if value >> (width - 1) else value


def li_sequence(rd: int, value: int) -> List[Tuple[str, Dict[str, int]]]:
    """The instructions GNU as emits for ``li rd, value`` on RV64 without compression.

    A 12-bit value is one ``addi rd, zero, v``; otherwise the constant is built recursively: a 32-bit value
    as ``lui`` and/or ``addiw``; a wider one as the constant shifted right to its lowest set bit above bit 11,
    then ``slli`` and an ``addi`` of the low 12 bits.
    """
    value = _sext(value, 64)
    if -2048 <= value < 2048:
        return [("addi", {"rd": rd, "rs1": 0, "imm": value})]
    return _load_const(rd, value)


def _load_const(rd: int, value: int) -> List[Tuple[str, Dict[str, int]]]:
    lower = _sext(value, 12)
    upper = _sext(value - lower, 64)
    if not -(1 << 31) <= value < (1 << 31):
        shift = 12
        while not (upper >> shift) & 1:
            shift += 1
        seq = _load_const(rd, upper >> shift)
        seq.append(("slli", {"rd": rd, "rs1": rd, "shamt": shift}))
        if lower:
            seq.append(("addi", {"rd": rd, "rs1": rd, "imm": lower}))
        return seq
    seq = []
    hi_reg = 0
    if upper:
        seq.append(("lui", {"rd": rd, "imm": _sext(upper & 0xFFFFF000, 32)}))
        hi_reg = rd
    if lower or not hi_reg:
        seq.append(("addiw", {"rd": rd, "rs1": hi_reg, "imm": lower}))
    return seq


def _expand_li(vals: Dict[str, int]) -> Expansion:
    return [(BY_NAME[n], v) for n, v in li_sequence(vals["rd"], vals["imm"])]


def _p(name: str, operands: str, base: str, alias: Optional[bool] = None, expander=None, **sets) -> Pseudo:
    names = tuple(n.strip() for n in operands.split(",") if n.strip())
    return Pseudo(name, names, BY_NAME[base], tuple(sets.items()), bool(sets) if alias is None else alias, expander)


# Order matters for printing aliases only: the first matching row wins (nop before li before mv).
PSEUDOS: List[Pseudo] = [
    _p("nop", "", "addi", rd=0, rs1=0, imm=0),
    _p("li", "xd, imm64", "addi", expander=_expand_li, rs1=0),
    _p("mv", "xd, xs1", "addi", imm=0),
    _p("not", "xd, xs1", "xori", imm=-1),
    _p("neg", "xd, xs2", "sub", rs1=0),
    _p("negw", "xd, xs2", "subw", rs1=0),
    _p("sext.w", "xd, xs1", "addiw", imm=0),
    _p("seqz", "xd, xs1", "sltiu", imm=1),
    _p("snez", "xd, xs2", "sltu", rs1=0),
    _p("sltz", "xd, xs1", "slt", rs2=0),
    _p("sgtz", "xd, xs2", "slt", rs1=0),
    _p("j", "jtarget", "jal", rd=0),
    _p("jal", "jtarget", "jal", rd=1),
    _p("ret", "", "jalr", rd=0, rs1=1, imm=0),
    _p("jr", "xs1", "jalr", rd=0, imm=0),
    _p("jalr", "xs1", "jalr", rd=1, imm=0),
    _p("jalr", "xd, xs1, simm12", "jalr", alias=False),
    _p("beqz", "xs1, btarget", "beq", rs2=0),
    _p("bnez", "xs1, btarget", "bne", rs2=0),
    _p("blez", "xs2, btarget", "bge", rs1=0),
    _p("bgez", "xs1, btarget", "bge", rs2=0),
    _p("bltz", "xs1, btarget", "blt", rs2=0),
    _p("bgtz", "xs2, btarget", "blt", rs1=0),
    _p("bgt", "xs2, xs1, btarget", "blt"),
    _p("ble", "xs2, xs1, btarget", "bge"),
    _p("bgtu", "xs2, xs1, btarget", "bltu"),
    _p("bleu", "xs2, xs1, btarget", "bgeu"),
    _p("fmv.s", "fd, fs1", "fsgnj.s", rs2="=rs1"),
    _p("fneg.s", "fd, fs1", "fsgnjn.s", rs2="=rs1"),
    _p("fabs.s", "fd, fs1", "fsgnjx.s", rs2="=rs1"),
    _p("fmv.x.s", "xd, fs1", "fmv.x.w"),
    _p("fmv.s.x", "fd, xs1", "fmv.w.x"),
    _p("fmv.d", "fd, fs1", "fsgnj.d", rs2="=rs1"),
    _p("fneg.d", "fd, fs1", "fsgnjn.d", rs2="=rs1"),
    _p("fabs.d", "fd, fs1", "fsgnjx.d", rs2="=rs1"),
    _p("vneg.v", "vd, vs2, vm", "vrsub.vx", rs1=0),
    _p("vnot.v", "vd, vs2, vm", "vxor.vi", imm=-1),
    _p("vfneg.v", "vd, vs2, vm", "vfsgnjn.vv", vs1="=vs2"),
    _p("vfabs.v", "vd, vs2, vm", "vfsgnjx.vv", vs1="=vs2"),
    _p("vmmv.m", "vd, vs2", "vmand.mm", vs1="=vs2"),
    _p("vmnot.m", "vd, vs2", "vmnand.mm", vs1="=vs2"),
    _p("vmclr.m", "vd", "vmxor.mm", vs2="=vd", vs1="=vd"),
    _p("vmset.m", "vd", "vmxnor.mm", vs2="=vd", vs1="=vd"),
    # greater-than / greater-or-equal on vectors: the less-than forms with the sources swapped
    _p("vmsgt.vv", "vd, vs1, vs2, vm", "vmslt.vv"),
    _p("vmsgtu.vv", "vd, vs1, vs2, vm", "vmsltu.vv"),
    _p("vmsge.vv", "vd, vs1, vs2, vm", "vmsle.vv"),
    _p("vmsgeu.vv", "vd, vs1, vs2, vm", "vmsleu.vv"),
    _p("vmfgt.vv", "vd, vs1, vs2, vm", "vmflt.vv"),
    _p("vmfge.vv", "vd, vs1, vs2, vm", "vmfle.vv"),
]

BY_PSEUDO_NAME: Dict[str, List[Pseudo]] = {}
ALIASES_OF: Dict[str, List[Pseudo]] = {}
for _ps in PSEUDOS:
    BY_PSEUDO_NAME.setdefault(_ps.name, []).append(_ps)
    if _ps.alias:
        ALIASES_OF.setdefault(_ps.base.name, []).append(_ps)


@functools.lru_cache(maxsize=None)
def lookup(mnemonic: str, nargs: int) -> Union[InstrSpec, Pseudo, None]:
    """The row that ``mnemonic`` with ``nargs`` operands assembles from: a pseudo-instruction of that many
    operands (``li`` whatever the count), else the instruction, else None. Either has ``operand_names``,
    ``access``, ``register_operands``, ``effects``, ``links``, ``timing`` and ``sem_family``."""
    for ps in BY_PSEUDO_NAME.get(mnemonic, ()):
        if len(ps.operand_names) == nargs or mnemonic == "li":
            return ps
    return BY_NAME.get(mnemonic)


def find_alias(spec: InstrSpec, values: Dict[str, int]) -> Optional[Pseudo]:
    """The first alias row that prints this decoded instruction, if any."""
    for ps in ALIASES_OF.get(spec.name, ()):
        if ps.matches(values):
            return ps
    return None
