"""Encoder and decoder, derived from the ISA table.

``encode("addi", rd=10, rs1=11, imm=4) -> int`` and ``decode(word) -> Decoded``.  Decoding looks the word up by
match/mask in an index keyed by the opcode (and funct3 where every row of that opcode fixes it).
"""
from __future__ import annotations

from typing import Dict, Iterator, List, Optional, Tuple, Union

from ..diagnostics import UserError
from .isa import BY_NAME, INSTRUCTIONS, InstrSpec
from .operands import FormatContext

ATTRS = ("rd", "rs1", "rs2", "rs3", "imm", "vd", "vs1", "vs2", "vs3", "vm", "rm", "vtypei", "shamt")


class EncodeError(UserError, ValueError):
    """Bad operand values given to :func:`encode` (or an unknown mnemonic)."""


class DecodeError(UserError, ValueError):
    """A word that is no instruction of the table."""

    def __init__(self, word: int, message: Optional[str] = None):
        super().__init__(message or f"unknown instruction word {word:#010x}")
        self.word = word


class Decoded:
    """A decoded instruction: ``.spec``, ``.word`` and the operand values by name (``None`` when absent).

    Registers are numbers 0..31; ``vm`` is 1 when unmasked; immediates are sign-extended (branch/jump: byte
    offset from this instruction; lui/auipc: the value already shifted left by 12).  Shift-immediate
    instructions have ``shamt`` and, for convenience, the same value in ``imm``.
    """

    __slots__ = ("spec", "word") + ATTRS

    def __init__(self, spec: InstrSpec, word: int, values: Dict[str, int]):
        self.spec = spec
        self.word = word
        for a in ATTRS:
            setattr(self, a, values.get(a))
        if self.shamt is not None and self.imm is None:
            self.imm = self.shamt

    @property
    def name(self) -> str:
        return self.spec.name

    def values(self) -> Dict[str, int]:
        """The operand values this instruction has (by the spec's attributes)."""
        return {a: getattr(self, a) for a in self.spec.attrs}

    def text(self, pc: int = 0, symbols: Optional[Dict[int, str]] = None) -> str:
        return format_instruction(self.spec, self.values(), FormatContext(pc, symbols or {}))

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"<Decoded {self.word:#010x} {self.text()}>"


def lookup(name: str) -> InstrSpec:
    try:
        return BY_NAME[name]
    except KeyError:
        raise EncodeError(f"unknown instruction '{name}'") from None


def operand_values(spec: InstrSpec, values: Dict[str, int]) -> Dict[str, int]:
    """Complete ``values`` with the defaults of omitted optional operands and check them; return the full set."""
    vals = dict(values)
    if "imm" in vals and "shamt" in spec.attrs and "shamt" not in vals:
        vals["shamt"] = vals.pop("imm")
    allowed = set(spec.attrs)
    extra = set(vals) - allowed
    if extra:
        raise EncodeError(f"{spec.name} has no operand {', '.join(sorted(extra))} "
                          f"(operands: {', '.join(spec.attrs) or 'none'})")
    for kind in spec.operands:
        for a, v in kind.default().items():
            vals.setdefault(a, v)
    missing = [a for a in spec.attrs if a not in vals]
    if missing:
        raise EncodeError(f"{spec.name} needs operand {', '.join(missing)}")
    for kind in spec.operands:
        msg = kind.check(vals)
        if msg:
            raise EncodeError(f"{spec.name}: {msg}")
    return vals


def encode_checked(spec: InstrSpec, vals: Dict[str, int]) -> int:
    """The word of ``spec`` from values already complete and checked: every attribute of its operands, each
    kind's ``check`` passed (the assembler's parse of an instruction's operands)."""
    word = spec.match
    for kind in spec.operands:
        word |= kind.encode(vals)
    return word


def encode(spec_or_name: Union[str, InstrSpec], **values: int) -> int:
    """The 32-bit word of an instruction from its operand values (attribute names as in :class:`Decoded`)."""
    spec = lookup(spec_or_name) if isinstance(spec_or_name, str) else spec_or_name
    vals = operand_values(spec, values)
    word = spec.match
    for kind in spec.operands:
        word |= kind.encode(vals)
    return word


# --------------------------------------------------------------------------------------------------------------
# Decoding index
# --------------------------------------------------------------------------------------------------------------
def _build_index() -> Tuple[Dict[int, int], Dict[int, List[InstrSpec]]]:
    groups: Dict[int, List[InstrSpec]] = {}
    for s in INSTRUCTIONS:
        groups.setdefault(s.opcode, []).append(s)
    key_mask: Dict[int, int] = {}
    index: Dict[int, List[InstrSpec]] = {}
    for opcode, specs in groups.items():
        km = 0x707F if all(s.mask & 0x7000 == 0x7000 for s in specs) else 0x7F
        key_mask[opcode] = km
        # most specific first (matters only for rows explicitly allowed to overlap)
        for s in sorted(specs, key=lambda s: -bin(s.mask).count("1")):
            index.setdefault(s.match & km, []).append(s)
    return key_mask, index


_KEY_MASK, _INDEX = _build_index()


def find_spec(word: int) -> Optional[InstrSpec]:
    """The table row that matches ``word``, or ``None``."""
    km = _KEY_MASK.get(word & 0x7F)
    if km is None:
        return None
    for s in _INDEX.get(word & km, ()):
        if word & s.mask == s.match:
            return s
    return None


def decode(word: int) -> Decoded:
    """Decode one 32-bit word; raise :class:`DecodeError` naming the word if no row matches."""
    if not 0 <= word <= 0xFFFFFFFF:
        raise DecodeError(word, f"instruction word {word:#x} is not a 32-bit value")
    spec = find_spec(word)
    if spec is None:
        raise DecodeError(word)
    values: Dict[str, int] = {}
    for kind in spec.operands:
        values.update(kind.decode(word))
    return Decoded(spec, word, values)


def iter_words(code: bytes) -> Iterator[Tuple[int, int]]:
    """``(offset, word)`` for each little-endian 32-bit word of ``code``."""
    if len(code) % 4:
        raise DecodeError(0, f"code size {len(code)} is not a multiple of 4 bytes")
    for off in range(0, len(code), 4):
        yield off, int.from_bytes(code[off:off + 4], "little")


def decode_all(code: bytes) -> List[Decoded]:
    """Decode every 4-byte little-endian word of ``code`` (raises on the first unknown word, naming its offset)."""
    out = []
    for off, word in iter_words(code):
        try:
            out.append(decode(word))
        except DecodeError as e:
            raise DecodeError(word, f"{e.message} at offset {off:#x}") from None
    return out


def format_instruction(spec: InstrSpec, values: Dict[str, int], fctx: FormatContext) -> str:
    """Canonical text: ``addi a0, a1, 4``; omitted optional operands (vm=1, rm=dyn) are not printed."""
    parts = [p for p in (k.format(values, fctx) for k in spec.operands) if p]
    return f"{spec.name} {', '.join(parts)}" if parts else spec.name
