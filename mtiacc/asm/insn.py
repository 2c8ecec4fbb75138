"""``.insn``: an instruction written as its encoding fields, the way GNU as spells what it has no mnemonic for.

Both directions derive from the ISA table's formats and operand kinds:

* :func:`insn_text` spells a word of a table row by the row's format: ``.insn r CUSTOM_0, 0, 2, a0, a1, a2``
  (GNU as's types ``r``, ``i``, ``s``, ``b``, ``u``, ``j``), or ``.insn 0x...`` for the formats GNU has no type
  for (the vector ones).  Every bit of the word lies in one of the spelled fields, so any assembler that reads
  ``.insn`` makes the same word again.
* :func:`encode_insn` is the assembler's side: a ``.insn`` directive's operands -> the word.
"""
from __future__ import annotations

from typing import Dict, List, Sequence

from .isa import FIXED_FIELDS, GNU_OPCODE_NAMES, InstrSpec
from .operands import KINDS, REG_FIELDS, EvalContext, Node, OperandError, register_name, register_number

# GNU as's `.insn` types: the fields after the opcode (register fields of operands.REG_FIELDS, fixed fields of
# isa.FIXED_FIELDS, or an operand kind of operands.KINDS for the immediate).  `i` is also written
# `rd, imm(rs1)` (the kind "mem").
TYPES: Dict[str, Sequence[str]] = {
    "r": ("funct3", "funct7", "rd", "rs1", "rs2"),
    "i": ("funct3", "rd", "rs1", "simm12"),
    "s": ("funct3", "rs2", "smem"),
    "b": ("funct3", "rs1", "rs2", "btarget"),
    "u": ("rd", "imm20"),
    "j": ("rd", "jtarget"),
}
_TYPE_OF_FORMAT = {"R": "r", "I": "i", "S": "s", "B": "b", "U": "u", "J": "j"}
_OPCODES_BY_NAME = {name: code for code, name in GNU_OPCODE_NAMES.items()}


def _field(word: int, name: str) -> int:
    hi, lo = FIXED_FIELDS[name]
    return (word >> lo) & ((1 << (hi - lo + 1)) - 1)


def insn_text(spec: InstrSpec, word: int) -> str:
    """``word`` (an encoding of ``spec``) as a ``.insn`` directive that GNU as assembles to the same word."""
    typ = _TYPE_OF_FORMAT.get(spec.format)
    if typ is None:
        return f".insn 0x{word:08x}"
    opcode = word & 0x7F
    parts = [GNU_OPCODE_NAMES.get(opcode, f"0x{opcode:02x}")]
    classes = spec.reg_classes
    for name in TYPES[typ]:
        if name in REG_FIELDS:
            hi, lo = REG_FIELDS[name]
            parts.append(register_name(classes.get(name, "x"), (word >> lo) & 0x1F))
        elif name in FIXED_FIELDS:
            parts.append(str(_field(word, name)))
        elif name == "smem":
            vals = KINDS[name].decode(word)
            parts.append(f"{vals['imm']}({register_name('x', vals['rs1'])})")
        elif name == "imm20":
            parts.append(f"0x{word >> 12:x}")
        else:   # simm12 and the targets: the kind decodes the value (a target: bytes from this instruction)
            imm = KINDS[name].decode(word)["imm"]
            parts.append(f".{imm:+d}" if name.endswith("target") else str(imm))
    return f".insn {typ} {', '.join(parts)}"


def insn_template(spec: InstrSpec) -> str:
    """The ``.insn`` form of a row with its operand fields by name: ``.insn r CUSTOM_0, 0, 2, rd, rs1, rs2``."""
    typ = _TYPE_OF_FORMAT.get(spec.format)
    if typ is None:
        return ".insn WORD"
    parts = [GNU_OPCODE_NAMES.get(spec.opcode, f"0x{spec.opcode:02x}")]
    for name in TYPES[typ]:
        hi, lo = REG_FIELDS[name] if name in REG_FIELDS else FIXED_FIELDS.get(name, (0, 0))
        bits = ((1 << (hi - lo + 1)) - 1) << lo
        if name in KINDS:          # an immediate: fixed only when every bit of it is
            bits = KINDS[name].mask
            fixed = spec.mask & bits == bits
            parts.append(str(KINDS[name].decode(spec.match)["imm"]) if fixed else KINDS[name].syntax)
        elif spec.mask & bits == bits:
            value = (spec.match >> lo) & ((1 << (hi - lo + 1)) - 1)
            parts.append(register_name("x", value) if name in REG_FIELDS else str(value))
        else:
            parts.append(name)
    return f".insn {typ} {', '.join(parts)}"


def _register(node: Node) -> int:
    name = node.name()
    for cls in ("x", "f", "v"):
        num = register_number(cls, name) if name else None
        if num is not None:
            return num
    raise OperandError(f"expected a register, got '{node.text}'", node)


def _opcode(node: Node, ctx: EvalContext) -> int:
    name = node.name()
    if name is not None and name.upper() in _OPCODES_BY_NAME:
        return _OPCODES_BY_NAME[name.upper()]
    if name is not None and name not in ctx.consts:
        known = ", ".join(sorted(_OPCODES_BY_NAME))
        raise OperandError(f"unknown opcode '{name}' (a number or one of {known})", node)
    value = ctx.constant(node, "an opcode")
    if not 0 <= value < 128 or value & 3 != 3:
        raise OperandError(f"opcode {value:#x} is not a 32-bit major opcode (7 bits, low bits 11)", node)
    return value


def _raw(nodes: List[Node], ctx: EvalContext) -> int:
    """``.insn VALUE`` or ``.insn 4, VALUE``."""
    if len(nodes) == 2:
        length = ctx.constant(nodes[0], "an instruction length")
        if length != 4:
            raise OperandError(f"only 4-byte instructions are supported, not {length}", nodes[0])
    elif len(nodes) != 1:
        raise OperandError("expected '.insn TYPE, ...', '.insn VALUE' or '.insn 4, VALUE'", nodes[-1])
    value = ctx.constant(nodes[-1], "an instruction word")
    if not -(1 << 31) <= value < (1 << 32):
        raise OperandError("the instruction word does not fit in 32 bits", nodes[-1])
    value &= 0xFFFFFFFF
    if value & 3 != 3:
        raise OperandError(f"{value:#010x} is not a 32-bit instruction (its low bits are not 11)", nodes[-1])
    return value


def encode_insn(nodes: Sequence[Node], ctx: EvalContext) -> int:
    """The word a ``.insn`` directive with these operands stands for (raises :class:`OperandError`)."""
    if not nodes:
        raise OperandError("'.insn' needs a type and fields, or an instruction word")
    typ = nodes[0].name()
    typ = typ.lower() if typ is not None else None
    if typ not in TYPES:
        return _raw(list(nodes), ctx)
    fields = list(TYPES[typ])
    if typ == "i" and len(nodes) == 5 and nodes[-1].kind == "mem":
        fields[-2:] = ["mem"]
    if len(nodes) != 2 + len(fields):
        names = ", ".join(f.upper() for f in ["opcode", *fields])
        raise OperandError(f"'.insn {typ}' takes {names}", nodes[0])
    word = _opcode(nodes[1], ctx)
    for name, node in zip(fields, nodes[2:]):
        if name in REG_FIELDS:
            word |= _register(node) << REG_FIELDS[name][1]
        elif name in FIXED_FIELDS:
            hi, lo = FIXED_FIELDS[name]
            value = ctx.constant(node, name)
            if not 0 <= value < 1 << (hi - lo + 1):
                raise OperandError(f"{name} {value} out of range 0..{(1 << (hi - lo + 1)) - 1}", node)
            word |= value << lo
        else:
            kind = KINDS[name]
            vals = kind.parse([node], ctx)
            msg = kind.check(vals)
            if msg:
                raise OperandError(msg, node)
            word |= kind.encode(vals)
    return word
