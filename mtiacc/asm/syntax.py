"""The assembler's syntax: GNU-as-style text -> labels and statements, by a hand-written line parser.

The grammar knows lines, labels, directives and the shapes of operands, but no mnemonic (the assembler
matches a statement's name against the ISA table and lets each operand kind interpret its operand)::

    text      := line (SEP line)*                 SEP is a newline or ';'
    line      := label* statement?
    label     := NAME ':'
    statement := NAME [operand (',' operand | bare)*]
    operand   := expr | [expr] '(' NAME ')' | STRING | '@' NAME
    bare      := atom (SIGN atom)* | STRING       an operand after a blank (directives: `.loc 1 12 5`)
    expr      := [SIGN] atom (SIGN atom)*
    atom      := INT | NAME

    SIGN   '+' | '-'
    INT    0x hex | 0b binary | decimal digits (a leading 0: octal)
    NAME   [A-Za-z_.$ non-ASCII][A-Za-z0-9_.$ non-ASCII]*
    STRING "..." with backslash escapes, on one line
    '#' to the end of the line is a comment; blanks (space, tab, form feed, carriage return) separate tokens.

Instructions require the commas; the assembler reports a ``bare`` operand of an instruction.  The parser stops
at the first token that cannot continue the text (``syntax error: unexpected ...``) or the first character that
starts no token (``unexpected character ...``), with its line and column.
"""
from __future__ import annotations

import dataclasses
import re
from typing import List, Optional, Tuple, Union

from .operands import Node

# NAME's characters, A-Za-z_.$ and every one beyond ASCII, as the ASCII characters they are not (a class of all
# non-ASCII characters takes Python's regex compiler milliseconds to build; its complement, none)
_NOT_NAME = r"\x00-\x23\x25-\x2d\x2f\x3a-\x40\x5b-\x5e\x60\x7b-\x7f"
_TOKEN = re.compile(
    r"(?P<WS>[ \t\f\r]+)"
    r"|(?P<COMMENT>#[^\n]*)"
    r"|(?P<INT>0[xX][0-9a-fA-F]+|0[bB][01]+|[0-9]+)"
    rf"|(?P<NAME>[^0-9{_NOT_NAME}][^{_NOT_NAME}]*)"
    r'|(?P<STRING>"(?:[^"\\\n]|\\.)*")'
    r"|(?P<PUNCT>[-+,:()@;])")
_ENDS = (";", "EOL", "END")      # what ends a statement


@dataclasses.dataclass
class Statement:
    """A directive or an instruction: its name, where it stands, and its operands."""

    name: str
    line: int
    col: int
    end_col: int
    nodes: List[Node]
    bare: List[Node]  # operands not preceded by a comma


@dataclasses.dataclass(frozen=True)
class Label:
    name: str
    line: int
    col: int


class SyntaxProblem(Exception):
    """Where the text stops being assembly: the assembler turns it into an error with a caret."""

    def __init__(self, message: str, line: int, col: int, end_col: Optional[int] = None,
                 notes: Tuple[str, ...] = ()):
        super().__init__(message)
        self.message, self.line, self.col, self.end_col, self.notes = message, line, col, end_col, notes


# A token: (kind, text, column).  Kinds: INT, NAME, STRING, the punctuation character itself (';' too), EOL (the
# newline ending the line), END (the end of the text) and BAD (a character that starts no token).
Token = Tuple[str, str, int]


def _int_token(text: str) -> int:
    t = text.lower()
    if t.startswith(("0x", "0b")):
        return int(t, 0)
    if len(t) > 1 and t.startswith("0"):
        return int(t, 8)
    return int(t)


class _Line:
    """The tokens of one physical line, and the parser over them."""

    __slots__ = ("src", "number", "toks", "i")

    def __init__(self, src: str, number: int, last: bool):
        self.src, self.number, self.i = src, number, 0
        toks: List[Token] = []
        pos, n = 0, len(src)
        match = _TOKEN.match
        while pos < n:
            m = match(src, pos)
            if m is None:
                toks.append(("BAD", src[pos], pos + 1))
                break
            kind = m.lastgroup
            if kind == "PUNCT":
                toks.append((m.group(), m.group(), pos + 1))
            elif kind != "WS" and kind != "COMMENT":
                toks.append((kind, m.group(), pos + 1))
            pos = m.end()
        toks.append(("END", "", n + 1) if last else ("EOL", "\n", n + 1))
        self.toks = toks

    # -- errors ----------------------------------------------------------------------------------------------
    def unexpected(self, tok: Token) -> SyntaxProblem:
        kind, text, col = tok
        if kind == "BAD":
            notes = ("relocation operators such as %hi/%lo are not supported",) if text == "%" else ()
            return SyntaxProblem(f"unexpected character {text!r}", self.number, col, notes=notes)
        if kind == "END":
            return SyntaxProblem("syntax error: unexpected end of input", self.number, col)
        if kind in (";", "EOL"):
            return SyntaxProblem("syntax error: unexpected end of line", self.number, col)
        return SyntaxProblem(f"syntax error: unexpected '{text}'", self.number, col, col + len(text))

    def expect(self, kind: str) -> Token:
        tok = self.toks[self.i]
        if tok[0] != kind:
            raise self.unexpected(tok)
        self.i += 1
        return tok

    # -- the grammar -----------------------------------------------------------------------------------------
    def parse(self, out: list) -> None:
        toks = self.toks
        while True:
            tok = toks[self.i]
            kind = tok[0]
            if kind == ";":
                self.i += 1
                continue
            if kind == "EOL" or kind == "END":
                return
            if kind != "NAME":
                raise self.unexpected(tok)
            self.i += 1
            if toks[self.i][0] == ":":
                self.i += 1
                out.append(Label(tok[1], self.number, tok[2]))
            else:
                out.append(self.statement(tok))     # stops at ';', EOL or END

    def statement(self, name: Token) -> Statement:
        toks = self.toks
        nodes: List[Node] = []
        bare: List[Node] = []
        if toks[self.i][0] not in _ENDS:
            nodes.append(self.operand())
            while True:
                kind = toks[self.i][0]
                if kind == ",":
                    self.i += 1
                    nodes.append(self.operand())
                elif kind in ("INT", "NAME", "STRING"):
                    node = self.bare()
                    nodes.append(node)
                    bare.append(node)
                elif kind in _ENDS:
                    break
                else:
                    raise self.unexpected(toks[self.i])
        return Statement(name[1], self.number, name[2], name[2] + len(name[1]), nodes, bare)

    def node(self, kind: str, col: int, end_col: int, **fields) -> Node:
        return Node(kind, text=self.src[col - 1:end_col - 1], col=col, end_col=end_col, **fields)

    def operand(self) -> Node:
        toks = self.toks
        tok = toks[self.i]
        kind, text, col = tok
        if kind == "STRING":
            self.i += 1
            return Node("str", text=text, col=col, end_col=col + len(text))
        if kind == "@":
            self.i += 1
            name = self.expect("NAME")
            return Node("at", text=name[1], col=col, end_col=name[2] + len(name[1]))
        terms: Tuple = ()
        if kind != "(":
            terms = self.expr(signed=True)
            tok = toks[self.i]
            if tok[0] != "(":
                end = toks[self.i - 1]
                return self.node("expr", col, end[2] + len(end[1]), terms=terms)
        self.i += 1
        base = self.expect("NAME")
        close = self.expect(")")
        return self.node("mem", col, close[2] + 1, terms=terms, base=base[1])

    def bare(self) -> Node:
        tok = self.toks[self.i]
        kind, text, col = tok
        if kind == "STRING":
            self.i += 1
            return Node("str", text=text, col=col, end_col=col + len(text))
        terms = self.expr(signed=False)
        end = self.toks[self.i - 1]
        return self.node("expr", col, end[2] + len(end[1]), terms=terms)

    def expr(self, signed: bool) -> Tuple:
        toks = self.toks
        sign = 1
        if signed and toks[self.i][0] in ("+", "-"):
            sign = -1 if toks[self.i][0] == "-" else 1
            self.i += 1
        out = [(sign, self.atom())]
        while toks[self.i][0] in ("+", "-"):
            sign = -1 if toks[self.i][0] == "-" else 1
            self.i += 1
            out.append((sign, self.atom()))
        return tuple(out)

    def atom(self):
        tok = self.toks[self.i]
        if tok[0] == "INT":
            self.i += 1
            return _int_token(tok[1])
        if tok[0] == "NAME":
            self.i += 1
            return tok[1]
        raise self.unexpected(tok)


def parse(text: str) -> List[Union[Label, Statement]]:
    """The labels and statements of ``text``, in order (raises :class:`SyntaxProblem`)."""
    out: List[Union[Label, Statement]] = []
    lines = text.split("\n")
    last = len(lines)
    for number, src in enumerate(lines, 1):
        _Line(src, number, number == last).parse(out)
    return out
