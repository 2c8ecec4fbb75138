"""The assembler: GNU-as-style text -> machine code, symbols and a source line table.

The syntax (``syntax.py``) knows lines, labels, directives and the shapes of operands, but no mnemonic: a
statement's name is looked up in the ISA table (then the pseudo table) and each operand is parsed by the operand
kind of the matched row.  Two passes: the first places labels (every instruction is 4 bytes; ``li`` expands to
a value-dependent count), the second parses operands with all labels known and encodes.

Errors are :class:`UserError` with ``file:line:col`` of the assembly text and the offending span.
"""
from __future__ import annotations

import dataclasses
import functools
from typing import Dict, FrozenSet, List, Optional, Sequence, Set, Tuple, Union

from ..diagnostics import SourceLocation, UserError
from .encoding import EncodeError, encode, encode_checked
from .insn import encode_insn
from .isa import BY_NAME, InstrSpec
from .operands import KINDS, EvalContext, Kind, Node, OperandError
from .pseudo import BY_PSEUDO_NAME, Pseudo
from .syntax import Label, Statement, SyntaxProblem
from .syntax import parse as parse_text

NOP = 0x00000013
Form = Union[InstrSpec, Pseudo]


class AsmError(UserError):
    """An error in assembly text."""


@dataclasses.dataclass
class AssembledProgram:
    code: bytes
    symbols: Dict[str, int]                # every label -> .text offset
    lines: List[Tuple[int, int, int]]      # (offset, line, col) per instruction, from `.loc`
    globals: List[str] = dataclasses.field(default_factory=list)
    files: Dict[int, str] = dataclasses.field(default_factory=dict)   # `.file N "name"`
    statements: List["Placed"] = dataclasses.field(default_factory=list)   # each instruction, in order

    @property
    def source_file(self) -> Optional[str]:
        return self.files.get(1) or next(iter(self.files.values()), None)


@dataclasses.dataclass(frozen=True)
class Placed:
    """An instruction statement of the text and the words it became (several for ``li`` or a relaxed branch)."""

    line: int
    col: int
    end_col: int                     # just past its last operand
    offset: int
    specs: Tuple[InstrSpec, ...]
    words: Tuple[int, ...]
    relaxed: bool = False            # a conditional branch too far for its 13 bits, as three words


@dataclasses.dataclass
class _Item:
    stmt: Statement
    offset: int
    size: int
    loc: Optional[Tuple[int, int]]
    form: Optional[Form] = None   # None for data words (.word)
    groups: Optional[List[List[Node]]] = None   # the operands by the form's kinds (instructions)


def assign(kinds: Sequence[Kind], nodes: Sequence[Node]) -> Optional[List[List[Node]]]:
    """Distribute operand nodes over a row's kinds (optional kinds last, a variadic kind takes several)."""
    spans = _spans(tuple(kinds), len(nodes))
    return None if spans is None else [list(nodes[a:b]) for a, b in spans]


@functools.lru_cache(maxsize=None)
def _spans(kinds: Tuple[Kind, ...], n: int) -> Optional[Tuple[Tuple[int, int], ...]]:
    """The node range each of ``kinds`` takes of ``n`` nodes, or None if they do not fit: a function of the
    row and the count only, so worked out once for each (a text has a few hundred distinct pairs)."""
    spans = []
    i = 0
    for k_idx, kind in enumerate(kinds):
        required_after = sum(1 for k in kinds[k_idx + 1:] if not k.optional)
        avail = n - i
        if kind.variadic:
            take = avail - required_after
            if take < 1:
                return None
        elif kind.optional:
            take = 1 if avail > required_after else 0
        else:
            if avail < 1:
                return None
            take = 1
        spans.append((i, i + take))
        i += take
    return tuple(spans) if i == n else None


def parse_operands(form: Form, groups: List[List[Node]], ctx: EvalContext,
                   override: Optional[Tuple[Kind, Dict[str, int]]] = None) -> Dict[str, int]:
    """Operand values by attribute; ``override`` gives one kind's values instead of parsing them."""
    vals: Dict[str, int] = {}
    for kind, group in zip(form.operands, groups):
        if not group:
            vals.update(kind.default())
            continue
        vals.update(override[1] if override and kind is override[0] else kind.parse(group, ctx))
        msg = kind.check(vals)
        if msg:
            raise OperandError(msg, group[0])
    return vals


def expand(form: Form, vals: Dict[str, int]) -> List[Tuple[InstrSpec, Dict[str, int]]]:
    return form.expand(vals) if isinstance(form, Pseudo) else [(form, vals)]


_BTARGET = KINDS["btarget"]
_BRANCH_RANGE = range(-4096, 4096)


class _Assembler:
    def __init__(self, text: str, filename: str, relaxed: FrozenSet[Tuple[int, int]] = frozenset(),
                 selected: Optional[Dict[int, Tuple[Form, List[List[Node]]]]] = None):
        self.relaxed = relaxed     # (line, col) of conditional branches too far for 13 bits: 3 words
        self.selected = {} if selected is None else selected   # id(statement) -> select(statement), every pass
        self.text = text
        self.filename = filename
        self.src_lines = text.split("\n")
        self.labels: Dict[str, int] = {}
        self.label_lines: Dict[str, int] = {}
        self.consts: Dict[str, int] = {}
        self.globals: List[str] = []
        self.files: Dict[int, str] = {}
        self.items: List[_Item] = []
        self.placed: List[Placed] = []
        self.offset = 0
        self.section = ".text"
        self.loc: Optional[Tuple[int, int]] = None

    # -- diagnostics -------------------------------------------------------------------------------------------
    def error(self, message: str, line: int, col: int = 1, end_col: Optional[int] = None,
              notes: Sequence[str] = ()) -> AsmError:
        src = self.src_lines[line - 1] if 0 < line <= len(self.src_lines) else None
        return AsmError(message, SourceLocation(self.filename, line, col, end_col), notes, source_line=src)

    def node_error(self, message: str, stmt: Statement, node: Optional[Node]) -> AsmError:
        if node is None:
            return self.error(message, stmt.line, stmt.col, stmt.end_col)
        return self.error(message, stmt.line, node.col, node.end_col)

    # -- parsing -----------------------------------------------------------------------------------------------
    def parse(self) -> List[Union[Label, Statement]]:
        try:
            return parse_text(self.text)
        except SyntaxProblem as e:
            raise self.error(e.message, e.line, e.col, e.end_col, e.notes) from None

    # -- pass 1 ------------------------------------------------------------------------------------------------
    def pass1(self, items: Sequence[Union[Label, Statement]]) -> None:
        for item in items:
            if isinstance(item, Label):
                self.define_label(item)
            elif item.name.startswith("."):
                self.directive(item)
            else:
                self.instruction(item)

    def define_label(self, label: Label) -> None:
        name = label.name
        if name in self.labels or name in self.consts:
            prev = self.label_lines.get(name)
            raise self.error(f"symbol '{name}' is already defined" + (f" (line {prev})" if prev else ""),
                             label.line, label.col, label.col + len(name))
        self.labels[name] = self.offset
        self.label_lines[name] = label.line

    def forms(self, stmt: Statement) -> List[Form]:
        forms: List[Form] = []
        name = stmt.name.lower()
        if name in BY_NAME:
            forms.append(BY_NAME[name])
        forms.extend(BY_PSEUDO_NAME.get(name, ()))
        if not forms:
            known = list(BY_NAME) + list(BY_PSEUDO_NAME)
            import difflib
            close = difflib.get_close_matches(name, known, n=1)
            notes = [f"did you mean '{close[0]}'?"] if close else []
            raise self.error(f"unknown instruction '{stmt.name}'", stmt.line, stmt.col, stmt.end_col, notes)
        return forms

    def select(self, stmt: Statement) -> Tuple[Form, List[List[Node]]]:
        forms = self.forms(stmt)
        for form in forms:
            groups = assign(form.operands, stmt.nodes)
            if groups is not None:
                return form, groups
        n = len(stmt.nodes)
        syntaxes = " | ".join(f.syntax for f in forms)
        counts = sorted({sum(1 for k in f.operands if not k.optional) for f in forms})
        want = " or ".join(str(c) for c in counts) if len(counts) < 3 else \
            ", ".join(str(c) for c in counts[:-1]) + f" or {counts[-1]}"
        raise self.error(f"'{stmt.name}' takes {want} operand{'s' if counts != [1] else ''}, got {n}",
                         stmt.line, stmt.col, stmt.end_col, [f"syntax: {syntaxes}"])

    def instruction(self, stmt: Statement) -> None:
        if not self.section.startswith(".text"):
            raise self.error(f"instructions must be in .text, not {self.section}", stmt.line, stmt.col,
                             stmt.end_col)
        if stmt.bare:
            raise self.node_error("expected ',' between operands", stmt, stmt.bare[0])
        sel = self.selected.get(id(stmt))
        if sel is None:
            sel = self.selected[id(stmt)] = self.select(stmt)
        form, groups = sel
        size = 4
        if isinstance(form, Pseudo) and form.expander is not None:
            vals = self.parse_or_raise(form, groups, stmt, EvalContext(self.offset, None, self.consts))
            size = 4 * len(expand(form, vals))
        if (stmt.line, stmt.col) in self.relaxed:
            size = 12
        self.items.append(_Item(stmt, self.offset, size, self.loc, form, groups))
        self.offset += size

    def parse_or_raise(self, form: Form, groups, stmt: Statement, ctx: EvalContext) -> Dict[str, int]:
        try:
            return parse_operands(form, groups, ctx)
        except OperandError as e:
            raise self.node_error(e.message, stmt, e.node) from None

    # -- directives --------------------------------------------------------------------------------------------
    def const(self, stmt: Statement, node: Node, labels: bool = False) -> int:
        try:
            if node.kind != "expr":
                raise OperandError("expected a number", node)
            return EvalContext(self.offset, self.labels, self.consts).evaluate(node, allow_labels=labels)
        except OperandError as e:
            raise self.node_error(e.message, stmt, e.node) from None

    def args(self, stmt: Statement, lo: int, hi: int) -> List[Node]:
        if not lo <= len(stmt.nodes) <= hi:
            want = str(lo) if lo == hi else f"{lo} to {hi}"
            raise self.error(f"'{stmt.name}' takes {want} argument{'s' if hi != 1 else ''}, got {len(stmt.nodes)}",
                             stmt.line, stmt.col, stmt.end_col)
        return stmt.nodes

    def symbol_arg(self, stmt: Statement, node: Node) -> str:
        name = node.name()
        if name is None:
            raise self.node_error("expected a symbol name", stmt, node)
        return name

    def string_arg(self, stmt: Statement, node: Node) -> str:
        if node.kind != "str":
            raise self.node_error("expected a string", stmt, node)
        return node.text[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape")

    _IGNORED = {".option", ".attribute", ".ident", ".addrsig", ".cfi_startproc", ".cfi_endproc", ".size",
                ".type", ".local", ".weak", ".hidden", ".variant_cc"}

    def directive(self, stmt: Statement) -> None:
        d = stmt.name.lower()
        if d in self._IGNORED:
            return
        if d in (".text",):
            self.section = ".text"
        elif d in (".data", ".bss", ".rodata"):
            self.section = d
        elif d == ".section":
            self.section = self.symbol_arg(stmt, self.args(stmt, 1, 4)[0])
        elif d in (".globl", ".global"):
            for node in self.args(stmt, 1, 64):
                self.globals.append(self.symbol_arg(stmt, node))
        elif d in (".p2align", ".align", ".balign"):
            nodes = self.args(stmt, 1, 3)
            n = self.const(stmt, nodes[0])
            align = n if d == ".balign" else 1 << n if 0 <= n < 16 else -1
            if align <= 0 or align & (align - 1) or align > 1 << 15:
                raise self.node_error(f"bad alignment {n}", stmt, nodes[0])
            if self.section.startswith(".text"):
                while self.offset % align:
                    self.items.append(_Item(stmt, self.offset, 4, None, BY_NAME["addi"]))
                    self.offset += 4
        elif d == ".file":
            nodes = self.args(stmt, 1, 3)
            if nodes[0].kind == "str":
                self.files.setdefault(0, self.string_arg(stmt, nodes[0]))
            else:
                num = self.const(stmt, nodes[0])
                if len(nodes) < 2:
                    raise self.node_error("expected a file name after the file number", stmt, nodes[0])
                self.files[num] = self.string_arg(stmt, nodes[-1] if nodes[-1].kind == "str" else nodes[1])
        elif d == ".loc":
            nodes = stmt.nodes
            if len(nodes) < 2:
                raise self.error("'.loc' takes FILENO LINE [COLUMN]", stmt.line, stmt.col, stmt.end_col)
            fileno = self.const(stmt, nodes[0])
            if fileno not in self.files:
                raise self.node_error(f"file number {fileno} was not declared by '.file'", stmt, nodes[0])
            line = self.const(stmt, nodes[1])
            col = self.const(stmt, nodes[2]) if len(nodes) > 2 and nodes[2].name() is None else 0
            self.loc = (line, col)
        elif d in (".equ", ".set"):
            name_node, value_node = self.args(stmt, 2, 2)
            name = self.symbol_arg(stmt, name_node)
            if name in self.labels:
                raise self.node_error(f"symbol '{name}' is already defined as a label", stmt, name_node)
            self.consts[name] = self.const(stmt, value_node)
        elif d == ".insn":
            if not self.section.startswith(".text"):
                raise self.error(f"instructions must be in .text, not {self.section}", stmt.line, stmt.col,
                                 stmt.end_col)
            self.items.append(_Item(stmt, self.offset, 4, self.loc, None))
            self.offset += 4
        elif d in (".word", ".4byte", ".long"):
            if not self.section.startswith(".text"):
                raise self.error(f"data must be in .text, not {self.section}", stmt.line, stmt.col, stmt.end_col)
            for _node in self.args(stmt, 1, 256):
                self.items.append(_Item(Statement(stmt.name, stmt.line, _node.col, _node.end_col, [_node], []),
                                        self.offset, 4, None, None))
                self.offset += 4
        else:
            raise self.error(f"unknown directive '{stmt.name}'", stmt.line, stmt.col, stmt.end_col)

    # -- pass 2 ------------------------------------------------------------------------------------------------
    def pass2(self) -> Tuple[bytes, List[Tuple[int, int, int]]]:
        out = bytearray()
        lines: List[Tuple[int, int, int]] = []
        for item in self.items:
            stmt = item.stmt
            if item.form is None and stmt.name.lower() == ".insn":
                try:
                    words = [encode_insn(stmt.nodes, EvalContext(item.offset, self.labels, self.consts))]
                except OperandError as e:
                    raise self.node_error(e.message, stmt, e.node) from None
            elif item.form is None:  # .word
                value = self.const(stmt, stmt.nodes[0], labels=True)
                if not -(1 << 31) <= value < (1 << 32):
                    raise self.node_error(f"value {value} does not fit in 32 bits", stmt, stmt.nodes[0])
                words = [value & 0xFFFFFFFF]
            elif item.form is BY_NAME["addi"] and stmt.name.startswith("."):  # alignment padding
                words = [NOP]
            elif item.size == 12 and (stmt.line, stmt.col) in self.relaxed:
                words = self.relaxed_branch(item)
            else:
                form, groups = item.form, item.groups
                vals = self.parse_or_raise(form, groups, stmt, EvalContext(item.offset, self.labels, self.consts))
                if isinstance(form, Pseudo):
                    words, specs = [], []
                    for spec, v in expand(form, vals):
                        try:
                            words.append(encode(spec, **v))
                        except EncodeError as e:
                            raise self.error(e.message, stmt.line, stmt.col, stmt.end_col) from None
                        specs.append(spec)
                else:               # parse_operands filled in every operand and checked it
                    words, specs = [encode_checked(form, vals)], [form]
                assert len(words) * 4 == item.size
                self.place(item, specs, words)
            for i, w in enumerate(words):
                if item.loc is not None:
                    lines.append((item.offset + 4 * i, item.loc[0], item.loc[1]))
                out += w.to_bytes(4, "little")
        return bytes(out), lines

    def place(self, item: _Item, specs: Sequence[InstrSpec], words: Sequence[int], relaxed: bool = False) -> None:
        stmt = item.stmt
        end = max([stmt.end_col] + [n.end_col for n in stmt.nodes])
        self.placed.append(Placed(stmt.line, stmt.col, end, item.offset, tuple(specs), tuple(words), relaxed))

    # -- branch relaxation ---------------------------------------------------------------------------------------
    def branch_offset(self, item: _Item) -> Optional[int]:
        """The byte offset to a conditional branch's target (unchecked), or None if not a branch."""
        if item.form is None or _BTARGET not in item.form.operands:
            return None
        form, groups = item.form, item.groups
        node = groups[form.operands.index(_BTARGET)][0]
        try:
            return EvalContext(item.offset, self.labels, self.consts).evaluate(node, allow_labels=True) - item.offset
        except OperandError:
            return None         # pass 2 reports it

    def far_branches(self) -> Set[Tuple[int, int]]:
        """Conditional branches whose target lies beyond the 13-bit range (+-4 KiB), as GNU as relaxes them."""
        far = set()
        for item in self.items:
            off = self.branch_offset(item)
            if off is not None and off not in _BRANCH_RANGE:
                far.add((item.stmt.line, item.stmt.col))
        return far

    def relaxed_branch(self, item: _Item) -> List[int]:
        """``b<cond> ..., far`` as ``b<cond> ..., .+8; j .+8; j far``: the same condition, no inversion."""
        stmt = item.stmt
        off = self.branch_offset(item)
        if not -(1 << 20) <= off - 8 < (1 << 20):
            raise self.error(f"branch target out of range: offset {off} is beyond a jump's 1 MiB",
                             stmt.line, stmt.col, stmt.end_col)
        form, groups = item.form, item.groups
        try:
            vals = parse_operands(form, groups, EvalContext(item.offset, self.labels, self.consts),
                                  override=(_BTARGET, {"imm": 8}))
        except OperandError as e:
            raise self.node_error(e.message, stmt, e.node) from None
        jal = BY_NAME["jal"]
        parts = expand(form, vals) + [(jal, {"rd": 0, "imm": 8}), (jal, {"rd": 0, "imm": off - 8})]
        words = [encode(spec, **v) for spec, v in parts]
        self.place(item, [spec for spec, _v in parts], words, relaxed=True)
        return words


def assemble(text: str, filename: str = "<asm>") -> AssembledProgram:
    """Assemble GNU-style RISC-V assembly into ``.text`` bytes (raises :class:`AsmError`, a UserError).

    Conditional branches to targets beyond +-4 KiB are relaxed to three words (see ``relaxed_branch``);
    relaxing moves later code, so pass 1 repeats until no further branch needs it."""
    relaxed: FrozenSet[Tuple[int, int]] = frozenset()
    items = _Assembler(text, filename).parse()
    selected: Dict[int, Tuple[Form, List[List[Node]]]] = {}
    while True:
        asm = _Assembler(text, filename, relaxed, selected)
        asm.pass1(items)
        far = asm.far_branches() - relaxed
        if not far:
            break
        relaxed = relaxed | far
    code, lines = asm.pass2()
    for g in asm.globals:
        if g not in asm.labels:
            raise asm.error(f"global symbol '{g}' is never defined", 1)
    return AssembledProgram(code, dict(asm.labels), lines, list(asm.globals), dict(asm.files), asm.placed)
