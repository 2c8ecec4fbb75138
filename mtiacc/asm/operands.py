"""Operand kinds: the unit of reuse of the ISA table.

Each kind knows, for the decoded attributes it provides (``rd``, ``imm``, ``vm`` ...), how to

* place them in an instruction word (``encode``) and read them back (``decode``),
* range-check them (``check``: an error message or ``None``),
* parse them from assembly operands (``parse``) and print them (``format``),
* describe its bit fields (``fields``, for coverage checks and the encoding diagrams) and its legal values
  (``domain``, for property tests).

A kind instance is shared by every table row that uses it (``XD`` is "an integer register in bits 11:7,
decoded as ``rd``").  The assembler turns each comma-separated operand into a :class:`Node`; a kind consumes one
node (a variadic kind such as the vtype consumes several).
"""
from __future__ import annotations

import dataclasses
from typing import Dict, Optional, Sequence, Tuple, Union

Domain = Union[Tuple[int, int, int], Sequence[int]]  # (lo, hi, step) inclusive, or explicit values


class OperandError(Exception):
    """A bad operand; ``node`` (if any) tells the assembler where to point the caret."""

    def __init__(self, message: str, node: Optional["Node"] = None):
        super().__init__(message)
        self.message = message
        self.node = node


# --------------------------------------------------------------------------------------------------------------
# Parsed operands (built by the assembler from its generic grammar)
# --------------------------------------------------------------------------------------------------------------
Term = Tuple[int, Union[int, str]]  # (sign +1/-1, integer | symbol name | "." for the current address)


@dataclasses.dataclass(slots=True)
class Node:
    """One comma-separated operand.

    ``kind`` is ``"expr"`` (``terms``), ``"mem"`` (``terms`` is the offset, possibly empty; ``base`` the register
    name), ``"str"`` (a string literal in ``text``) or ``"at"`` (``@name``, in ``text``).
    """

    kind: str
    terms: Tuple[Term, ...] = ()
    base: Optional[str] = None
    text: str = ""
    col: int = 1
    end_col: int = 2

    def name(self) -> Optional[str]:
        """The identifier if this operand is a lone identifier (a register, a label, ``v0.t`` ...)."""
        if self.kind == "expr" and len(self.terms) == 1 and self.terms[0][0] == 1 \
                and isinstance(self.terms[0][1], str) and self.terms[0][1] != ".":
            return self.terms[0][1]
        return None


class EvalContext:
    """Symbol values for operand evaluation: ``pc`` (the instruction's address), labels and constants.

    ``labels`` is ``None`` in the assembler's first pass (label-relative operands are not evaluated then).
    """

    def __init__(self, pc: int = 0, labels: Optional[Dict[str, int]] = None,
                 consts: Optional[Dict[str, int]] = None):
        self.pc = pc
        self.labels = labels
        self.consts = consts or {}

    def evaluate(self, node: Node, allow_labels: bool) -> int:
        total = 0
        for sign, atom in node.terms:
            if isinstance(atom, int):
                value = atom
            elif atom in self.consts:
                value = self.consts[atom]
            elif not allow_labels:
                if atom == "." or (self.labels is not None and atom in self.labels):
                    raise OperandError(f"expected a constant, got address '{atom}'", node)
                raise OperandError(f"undefined symbol '{atom}'", node)
            elif atom == ".":
                value = self.pc
            elif self.labels is None:
                value = 0  # first pass
            elif atom in self.labels:
                value = self.labels[atom]
            else:
                raise OperandError(f"undefined label '{atom}'", node)
            total += sign * value
        return total

    def constant(self, node: Node, what: str) -> int:
        if node.kind != "expr":
            raise OperandError(f"expected {what}", node)
        return self.evaluate(node, allow_labels=False)


@dataclasses.dataclass
class FormatContext:
    """What printing needs: the instruction's address and the label names by address."""

    pc: int = 0
    symbols: Dict[int, str] = dataclasses.field(default_factory=dict)


def _bits(hi: int, lo: int) -> int:
    return ((1 << (hi - lo + 1)) - 1) << lo


def _field(word: int, hi: int, lo: int) -> int:
    return (word >> lo) & ((1 << (hi - lo + 1)) - 1)


def _sext(value: int, width: int) -> int:
    value &= (1 << width) - 1
    return value - (1 << width) if value >> (width - 1) else value


# --------------------------------------------------------------------------------------------------------------
# The base kind
# --------------------------------------------------------------------------------------------------------------
class Kind:
    """Base of all operand kinds.  ``syntax`` is how the operand is written in the ISA reference."""

    attrs: Tuple[str, ...] = ()
    optional = False   # may be omitted (only trailing operands); then ``default()`` applies
    variadic = False   # consumes one or more comma-separated nodes
    syntax = ""
    # what the instruction does with the register(s) this operand names, unless its ISA row says otherwise:
    # "r" read, "w" written, "rw" both, "" no register (immediates, targets, rounding modes, vtypes)
    access = ""

    def fields(self) -> Sequence[Tuple[str, int, int]]:
        """``(label, hi, lo)`` of every word bit range this kind occupies."""
        return ()

    @property
    def mask(self) -> int:
        m = 0
        for _, hi, lo in self.fields():
            m |= _bits(hi, lo)
        return m

    def encode(self, vals: Dict[str, int]) -> int:
        return 0

    def decode(self, word: int) -> Dict[str, int]:
        return {}

    def check(self, vals: Dict[str, int]) -> Optional[str]:
        return None

    def default(self) -> Dict[str, int]:
        return {}

    def parse(self, nodes: Sequence[Node], ctx: EvalContext) -> Dict[str, int]:
        raise NotImplementedError

    def format(self, vals: Dict[str, int], fctx: FormatContext) -> str:
        raise NotImplementedError

    def domain(self) -> Dict[str, Domain]:
        return {}

    def reg_classes(self) -> Dict[str, str]:
        """The register class (``x``, ``f``, ``v``) of each register attribute this kind provides."""
        return {}

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.syntax}>"


# --------------------------------------------------------------------------------------------------------------
# Registers
# --------------------------------------------------------------------------------------------------------------
X_ABI = ["zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1"] + [f"a{i}" for i in range(8)] \
    + [f"s{i}" for i in range(2, 12)] + ["t3", "t4", "t5", "t6"]
F_ABI = [f"ft{i}" for i in range(8)] + ["fs0", "fs1"] + [f"fa{i}" for i in range(8)] \
    + [f"fs{i}" for i in range(2, 12)] + [f"ft{i}" for i in range(8, 12)]

REGISTER_NAMES: Dict[str, Dict[str, int]] = {
    "x": {**{f"x{i}": i for i in range(32)}, **{n: i for i, n in enumerate(X_ABI)}, "fp": 8},
    "f": {**{f"f{i}": i for i in range(32)}, **{n: i for i, n in enumerate(F_ABI)}},
    "v": {f"v{i}": i for i in range(32)},
}
_REG_PRINT = {"x": X_ABI, "f": F_ABI, "v": [f"v{i}" for i in range(32)]}
_REG_WHAT = {"x": "an integer register", "f": "a floating-point register", "v": "a vector register"}

# Where a register attribute lives in the word.
REG_FIELDS = {"rd": (11, 7), "vd": (11, 7), "vs3": (11, 7), "rs1": (19, 15), "vs1": (19, 15),
              "rs2": (24, 20), "vs2": (24, 20), "rs3": (31, 27)}


def register_number(cls: str, name: str) -> Optional[int]:
    return REGISTER_NAMES[cls].get(name.lower())


def register_name(cls: str, num: int) -> str:
    return _REG_PRINT[cls][num]


class Reg(Kind):
    """A register of class ``x``, ``f`` or ``v`` in the field of ``attr``."""

    def __init__(self, cls: str, attr: str):
        self.cls, self.attr = cls, attr
        self.attrs = (attr,)
        self.hi, self.lo = REG_FIELDS[attr]
        self.access = "w" if attr in ("rd", "vd") else "r"     # destinations are written, sources read
        self.syntax = attr if cls == "v" else ("f" if cls == "f" else "") + attr

    def fields(self):
        return ((self.syntax, self.hi, self.lo),)

    def encode(self, vals):
        return vals[self.attr] << self.lo

    def decode(self, word):
        return {self.attr: _field(word, self.hi, self.lo)}

    def check(self, vals):
        v = vals[self.attr]
        if not isinstance(v, int) or not 0 <= v < 32:
            return f"register number {v!r} out of range 0..31"
        return None

    def parse(self, nodes, ctx):
        node = nodes[0]
        name = node.name()
        num = register_number(self.cls, name) if name else None
        if num is None:
            got = node.text or "?"
            raise OperandError(f"expected {_REG_WHAT[self.cls]}, got '{got}'", node)
        return {self.attr: num}

    def format(self, vals, fctx):
        return register_name(self.cls, vals[self.attr])

    def domain(self):
        return {self.attr: (0, 31, 1)}

    def reg_classes(self):
        return {self.attr: self.cls}


# --------------------------------------------------------------------------------------------------------------
# Immediates
# --------------------------------------------------------------------------------------------------------------
Piece = Tuple[int, int, int]  # (word hi, word lo, value lo)


class Imm(Kind):
    """An immediate whose value bits are scattered over the word in ``pieces``.

    ``width`` is the value's width including the implicit zero low bits (``align``), ``signed`` whether it is
    sign-extended on decode.  ``lo``/``hi`` narrow the assembler's legal range (e.g. a grid axis 0..2).
    """

    def __init__(self, attr: str, syntax: str, pieces: Sequence[Piece], width: int, signed: bool,
                 align: int = 1, lo: Optional[int] = None, hi: Optional[int] = None, hex_print: bool = False):
        self.attr, self.syntax, self.pieces = attr, syntax, tuple(pieces)
        self.attrs = (attr,)
        self.width, self.signed, self.align, self.hex_print = width, signed, align, hex_print
        self.lo = lo if lo is not None else (-(1 << (width - 1)) if signed else 0)
        self.hi = hi if hi is not None else ((1 << (width - 1)) - 1 if signed else (1 << width) - 1)

    def fields(self):
        out = []
        for whi, wlo, vlo in self.pieces:
            vhi = vlo + whi - wlo
            label = f"{self.syntax}[{vhi}:{vlo}]" if vhi != vlo else f"{self.syntax}[{vlo}]"
            out.append((label, whi, wlo))
        return out

    def encode(self, vals):
        v = vals[self.attr] & ((1 << self.width) - 1)
        word = 0
        for whi, wlo, vlo in self.pieces:
            word |= _field(v, vlo + whi - wlo, vlo) << wlo
        return word

    def decode(self, word):
        v = 0
        for whi, wlo, vlo in self.pieces:
            v |= _field(word, whi, wlo) << vlo
        return {self.attr: _sext(v, self.width) if self.signed else v}

    def range_text(self) -> str:
        return f"{self.lo}..{self.hi}"

    def check(self, vals):
        v = vals[self.attr]
        if not isinstance(v, int):
            return f"{self.syntax} must be an integer, got {v!r}"
        if not self.lo <= v <= self.hi:
            return f"immediate {v} out of range {self.range_text()}"
        if v % self.align:
            return f"immediate {v} must be a multiple of {self.align}"
        return None

    def parse(self, nodes, ctx):
        return {self.attr: ctx.constant(nodes[0], "an immediate")}

    def format(self, vals, fctx):
        v = vals[self.attr]
        return hex(v) if self.hex_print else str(v)

    def domain(self):
        return {self.attr: (self.lo, self.hi, self.align)}


class OptionalImm(Imm):
    """An immediate that may be left out: omitted it is 0, and 0 is not printed (``mtia.dma.wait`` is
    ``mtia.dma.wait 0``)."""

    optional = True

    def default(self):
        return {self.attr: 0}

    def format(self, vals, fctx):
        return "" if vals[self.attr] == 0 else super().format(vals, fctx)


class UpperImm(Imm):
    """``lui``/``auipc``: written as the 20-bit field (0..0xfffff), decoded as that value << 12, sign-extended."""

    def __init__(self):
        super().__init__("imm", "imm20", [(31, 12, 12)], 32, True, align=4096)

    def range_text(self):
        return "-0x80000000..0x7ffff000 (the field shifted left by 12)"

    def check(self, vals):
        msg = super().check(vals)
        if msg and "multiple" in msg:
            return f"{msg}: lui/auipc take imm as the value already shifted (imm20 << 12)"
        return msg

    def parse(self, nodes, ctx):
        v = ctx.constant(nodes[0], "an upper immediate")
        if not 0 <= v <= 0xFFFFF:
            raise OperandError(f"upper immediate {v} out of range 0..0xfffff", nodes[0])
        return {self.attr: _sext(v << 12, 32)}

    def format(self, vals, fctx):
        return hex((vals[self.attr] >> 12) & 0xFFFFF)


class Target(Imm):
    """A pc-relative branch/jump target: written as a label (or ``.+N``), decoded as the byte offset."""

    def __init__(self, syntax: str, pieces: Sequence[Piece], width: int):
        super().__init__("imm", syntax, pieces, width, True, align=2)

    def range_text(self):
        return f"{self.lo}..{self.hi} bytes"

    def check(self, vals):
        msg = super().check(vals)
        if msg and "out of range" in msg:
            return f"{'branch' if self.width == 13 else 'jump'} target out of range: offset {vals[self.attr]} " \
                   f"is not within {self.range_text()}"
        return msg

    def parse(self, nodes, ctx):
        node = nodes[0]
        if node.kind != "expr":
            raise OperandError("expected a label", node)
        return {self.attr: ctx.evaluate(node, allow_labels=True) - ctx.pc}

    def format(self, vals, fctx):
        off = vals[self.attr]
        name = fctx.symbols.get(fctx.pc + off)
        if name is not None:
            return name
        return f".{off:+d}"


class LiImm(Imm):
    """The 64-bit constant of ``li`` (pseudo only: occupies no bits)."""

    def __init__(self):
        super().__init__("imm", "imm", [], 64, True, lo=-(1 << 63), hi=(1 << 64) - 1)

    def fields(self):
        return ()

    def parse(self, nodes, ctx):
        v = ctx.constant(nodes[0], "an immediate")
        if not self.lo <= v <= self.hi:
            raise OperandError(f"immediate {v} does not fit in 64 bits", nodes[0])
        return {self.attr: _sext(v, 64)}

    def domain(self):
        return {self.attr: (-(1 << 63), (1 << 63) - 1, 1)}


# --------------------------------------------------------------------------------------------------------------
# Addressing
# --------------------------------------------------------------------------------------------------------------
class Mem(Kind):
    """``imm(rs1)``: a 12-bit signed offset (I- or S-type placement) and the base integer register."""

    def __init__(self, imm: Imm):
        self.imm = imm
        self.base = Reg("x", "rs1")
        self.attrs = ("imm", "rs1")
        self.syntax = "imm(rs1)"
        self.access = "r"      # the base register

    def fields(self):
        return tuple(self.imm.fields()) + tuple(self.base.fields())

    def encode(self, vals):
        return self.imm.encode(vals) | self.base.encode(vals)

    def decode(self, word):
        return {**self.imm.decode(word), **self.base.decode(word)}

    def check(self, vals):
        return self.imm.check(vals) or self.base.check(vals)

    def parse(self, nodes, ctx):
        node = nodes[0]
        if node.kind != "mem":
            raise OperandError("expected a memory operand 'offset(register)'", node)
        offset = ctx.evaluate(Node("expr", node.terms), allow_labels=False) if node.terms else 0
        base = register_number("x", node.base)
        if base is None:
            raise OperandError(f"expected an integer base register, got '{node.base}'", node)
        return {"imm": offset, "rs1": base}

    def format(self, vals, fctx):
        return f"{vals['imm']}({register_name('x', vals['rs1'])})"

    def domain(self):
        return {**self.imm.domain(), **self.base.domain()}

    def reg_classes(self):
        return {"rs1": "x"}


class VMem(Kind):
    """``(rs1)``: the base address register of a vector load/store (``0(rs1)`` is accepted too)."""

    attrs = ("rs1",)
    syntax = "(rs1)"
    access = "r"

    def __init__(self):
        self.base = Reg("x", "rs1")

    def fields(self):
        return self.base.fields()

    def encode(self, vals):
        return self.base.encode(vals)

    def decode(self, word):
        return self.base.decode(word)

    def check(self, vals):
        return self.base.check(vals)

    def parse(self, nodes, ctx):
        node = nodes[0]
        if node.kind != "mem":
            raise OperandError("expected a vector memory operand '(register)'", node)
        if node.terms and ctx.evaluate(Node("expr", node.terms), allow_labels=False) != 0:
            raise OperandError("vector memory operands take no offset", node)
        base = register_number("x", node.base)
        if base is None:
            raise OperandError(f"expected an integer base register, got '{node.base}'", node)
        return {"rs1": base}

    def format(self, vals, fctx):
        return f"({register_name('x', vals['rs1'])})"

    def domain(self):
        return self.base.domain()

    def reg_classes(self):
        return {"rs1": "x"}


# --------------------------------------------------------------------------------------------------------------
# Vector specials
# --------------------------------------------------------------------------------------------------------------
class VMask(Kind):
    """The optional ``v0.t``: ``vm`` (bit 25) is 0 when present (masked), 1 when omitted."""

    attrs = ("vm",)
    optional = True
    syntax = "vm"
    access = "r"       # v0, when present (masked)

    def fields(self):
        return (("vm", 25, 25),)

    def encode(self, vals):
        return (vals["vm"] & 1) << 25

    def decode(self, word):
        return {"vm": (word >> 25) & 1}

    def check(self, vals):
        return None if vals["vm"] in (0, 1) else f"vm must be 0 or 1, got {vals['vm']!r}"

    def default(self):
        return {"vm": 1}

    def parse(self, nodes, ctx):
        if nodes[0].name() != "v0.t":
            raise OperandError(f"expected the mask operand 'v0.t', got '{nodes[0].text}'", nodes[0])
        return {"vm": 0}

    def format(self, vals, fctx):
        return "" if vals["vm"] else "v0.t"

    def domain(self):
        return {"vm": (0, 1, 1)}


class V0(Kind):
    """The literal ``v0`` of the merge instructions (the mask register; encoded as vm=0 by the row)."""

    syntax = "v0"
    access = "r"

    def parse(self, nodes, ctx):
        if nodes[0].name() != "v0":
            raise OperandError(f"expected 'v0', got '{nodes[0].text}'", nodes[0])
        return {}

    def format(self, vals, fctx):
        return "v0"


SEW = {"e8": 0, "e16": 1, "e32": 2, "e64": 3}
LMUL = {"m1": 0, "m2": 1, "m4": 2, "m8": 3, "mf8": 5, "mf4": 6, "mf2": 7}
_SEW_NAME = {v: k for k, v in SEW.items()}
_LMUL_NAME = {v: k for k, v in LMUL.items()}


def vtype_fields(vtypei: int) -> Tuple[int, int, int, int]:
    """``(sew_bits, lmul_code, vta, vma)``: vsew in [5:3] (SEW = 8 << code), vlmul in [2:0], vta bit 6, vma bit 7."""
    return 8 << ((vtypei >> 3) & 7), vtypei & 7, (vtypei >> 6) & 1, (vtypei >> 7) & 1


class VType(Kind):
    """``e32, m8, ta, ma`` (LMUL, tail and mask policy optional: m1, tu, mu) or a number; ``width`` bits at 20."""

    attrs = ("vtypei",)
    variadic = True
    syntax = "vtypei"

    def __init__(self, width: int):
        self.width = width

    def fields(self):
        return ((f"vtypei[{self.width - 1}:0]", 19 + self.width, 20),)

    def encode(self, vals):
        return vals["vtypei"] << 20

    def decode(self, word):
        return {"vtypei": _field(word, 19 + self.width, 20)}

    def check(self, vals):
        v = vals["vtypei"]
        if not isinstance(v, int) or not 0 <= v < (1 << self.width):
            return f"vtype immediate {v!r} out of range 0..{(1 << self.width) - 1}"
        return None

    def parse(self, nodes, ctx):
        if len(nodes) == 1 and nodes[0].name() is None:
            v = ctx.constant(nodes[0], "a vtype")
            msg = self.check({"vtypei": v})
            if msg:
                raise OperandError(msg, nodes[0])
            return {"vtypei": v}
        names = []
        for node in nodes:
            name = node.name()
            if name is None:
                raise OperandError(f"expected a vtype part (e8..e64, m1..m8, mf2..mf8, ta/tu, ma/mu), "
                                   f"got '{node.text}'", node)
            names.append((name.lower(), node))
        order = [("SEW (e8, e16, e32, e64)", SEW, None), ("LMUL (m1, m2, m4, m8, mf2, mf4, mf8)", LMUL, 0),
                 ("tail policy (ta, tu)", {"tu": 0, "ta": 1}, 0), ("mask policy (ma, mu)", {"mu": 0, "ma": 1}, 0)]
        values = []
        i = 0
        for what, table, default in order:
            if i < len(names) and names[i][0] in table:
                values.append(table[names[i][0]])
                i += 1
            elif default is None:
                raise OperandError(f"expected {what}, got '{names[0][0] if names else ''}'",
                                   names[0][1] if names else nodes[0])
            else:
                values.append(default)
        if i < len(names):
            raise OperandError(f"unexpected vtype part '{names[i][0]}' (the order is SEW, LMUL, ta/tu, ma/mu)",
                               names[i][1])
        sew, lmul, ta, ma = values
        return {"vtypei": lmul | sew << 3 | ta << 6 | ma << 7}

    def format(self, vals, fctx):
        v = vals["vtypei"]
        sew, lmul = (v >> 3) & 7, v & 7
        if v >> 8 or sew not in _SEW_NAME or lmul not in _LMUL_NAME:
            return hex(v)
        return f"{_SEW_NAME[sew]}, {_LMUL_NAME[lmul]}, {'ta' if v >> 6 & 1 else 'tu'}, {'ma' if v >> 7 & 1 else 'mu'}"

    def domain(self):
        return {"vtypei": [lmul | sew << 3 | ta << 6 | ma << 7 for sew in range(4) for lmul in _LMUL_NAME
                           for ta in (0, 1) for ma in (0, 1)]}


ROUNDING_MODES = {"rne": 0, "rtz": 1, "rdn": 2, "rup": 3, "rmm": 4, "dyn": 7}
_RM_NAME = {v: k for k, v in ROUNDING_MODES.items()}


class RoundingMode(Kind):
    """The optional rounding mode (bits 14:12); omitted means ``dyn`` (7), as GNU as encodes it."""

    attrs = ("rm",)
    optional = True
    syntax = "rm"

    def fields(self):
        return (("rm", 14, 12),)

    def encode(self, vals):
        return vals["rm"] << 12

    def decode(self, word):
        return {"rm": (word >> 12) & 7}

    def check(self, vals):
        return None if vals["rm"] in _RM_NAME else f"invalid rounding mode {vals['rm']!r}"

    def default(self):
        return {"rm": 7}

    def parse(self, nodes, ctx):
        name = nodes[0].name()
        if name is None or name.lower() not in ROUNDING_MODES:
            raise OperandError(f"expected a rounding mode (rne, rtz, rdn, rup, rmm, dyn), got '{nodes[0].text}'",
                               nodes[0])
        return {"rm": ROUNDING_MODES[name.lower()]}

    def format(self, vals, fctx):
        rm = vals["rm"]
        return "" if rm == 7 else _RM_NAME.get(rm, str(rm))

    def domain(self):
        return {"rm": sorted(_RM_NAME)}


# --------------------------------------------------------------------------------------------------------------
# The kinds by the names the table uses
# --------------------------------------------------------------------------------------------------------------
_I12 = [(31, 20, 0)]
SIMM12 = Imm("imm", "imm", _I12, 12, True)
KINDS: Dict[str, Kind] = {
    "xd": Reg("x", "rd"), "xs1": Reg("x", "rs1"), "xs2": Reg("x", "rs2"),
    "fd": Reg("f", "rd"), "fs1": Reg("f", "rs1"), "fs2": Reg("f", "rs2"), "fs3": Reg("f", "rs3"),
    "vd": Reg("v", "vd"), "vs1": Reg("v", "vs1"), "vs2": Reg("v", "vs2"), "vs3": Reg("v", "vs3"),
    "simm12": SIMM12,
    "shamt6": Imm("shamt", "shamt", [(25, 20, 0)], 6, False),
    "shamt5": Imm("shamt", "shamt", [(24, 20, 0)], 5, False),
    "imm20": UpperImm(),
    "btarget": Target("offset", [(31, 31, 12), (30, 25, 5), (11, 8, 1), (7, 7, 11)], 13),
    "jtarget": Target("offset", [(31, 31, 20), (30, 21, 1), (20, 20, 11), (19, 12, 12)], 21),
    "mem": Mem(SIMM12),
    "smem": Mem(Imm("imm", "imm", [(31, 25, 5), (11, 7, 0)], 12, True)),
    "vmem": VMem(),
    "vm": VMask(), "v0": V0(),
    "simm5": Imm("imm", "simm5", [(19, 15, 0)], 5, True),
    "uimm5": Imm("imm", "uimm5", [(19, 15, 0)], 5, False),
    "vtypei11": VType(11), "vtypei10": VType(10),
    "rm": RoundingMode(),
    "axis": Imm("imm", "axis", _I12, 12, False, lo=0, hi=2),
    "creg": Imm("imm", "creg", _I12, 12, False, lo=0, hi=7),
    # mtia.dma.wait's count: how many of the transfers issued last may stay in flight (omitted: none)
    "inflight": OptionalImm("imm", "inflight", _I12, 12, False, hi=2047),
    # mtia.dpe.wait's count: how many of the engine commands issued last may still run (omitted: none); the command
    # processor tracks the completion of its last 256 commands (an assumption named in the YAML's dpe:)
    "dpe_inflight": OptionalImm("imm", "inflight", _I12, 12, False, hi=255),
    "imm64": LiImm(),
}
