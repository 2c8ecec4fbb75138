"""The user's file as text: parsing it with ``ast`` and turning AST positions into locations.

The file is read and parsed, never imported or executed.  Locations are file-absolute
(1-based lines) with 1-based columns counted in characters: ``ast`` column offsets are
UTF-8 byte offsets, so they are converted through the line's text.

A host program that has a kernel in hand (the Triton backend) passes it as a :class:`KernelSource`: the
function's own text, where it stands in its file, and the values it takes from its surroundings.  Its
locations are those of the user's file all the same (:class:`SourceFile` with ``first_line`` and ``indent``).
"""
from __future__ import annotations

import ast
import dataclasses
import io
import tokenize
from typing import Dict, List, Mapping, Optional


@dataclasses.dataclass(frozen=True)
class Global:
    """A module's attribute named in full (``triton.language.float16``, ``triton.language``): a captured value
    the kernel refers to by what it is."""

    dotted: str


@dataclasses.dataclass(frozen=True, eq=False)
class KernelSource:
    """One ``@triton.jit`` function handed over as it is in the running program.

    ``text`` is its source from ``def`` on, dedented (Triton's ``JITFunction.src``); it stands in ``path`` with its
    ``def`` on line ``first_line``, indented by ``indent`` columns.  ``captured`` binds the names the function
    takes from its surroundings (an enclosing function's locals, module-level values the file alone does not
    give) to numbers, strings, ``None``, tuples of them, :class:`Global` names and other ``KernelSource``
    functions; the rest of its module-level names are read from ``path`` as for a kernel compiled from its file.
    ``tuple_params`` names the parameters that take a tuple, with its structure (a tuple whose leaves are
    anything, nested tuples for nested tuples): each is compiled as one parameter per leaf, ``p__0``,
    ``p__1__0``, ..., and is that tuple in the body."""

    path: str
    name: str
    text: str
    first_line: int = 1
    indent: int = 0
    captured: Mapping[str, object] = dataclasses.field(default_factory=dict)
    tuple_params: Mapping[str, object] = dataclasses.field(default_factory=dict)

    def digest_text(self) -> str:
        """Everything the compiled code depends on, as text (for cache keys)."""
        def text(v):
            if isinstance(v, KernelSource):
                return f"<{v.digest_text()}>"
            if isinstance(v, tuple):
                return "(" + ",".join(text(x) for x in v) + ")"
            return repr(v)
        captured = ",".join(f"{k}={text(v)}" for k, v in sorted(self.captured.items()))
        return (f"{self.path}:{self.first_line}:{self.indent}:{self.name}\n{self.text}\n{captured}\n"
                f"{sorted((k, repr(v)) for k, v in self.tuple_params.items())}")

from mtiacc.diagnostics import CompileError, SourceLocation


class SourceFile:
    """``text`` as it stands in ``path``: from line ``first_line`` on, each line indented by ``indent`` more
    columns (a function's dedented source inside its file); lines and locations are the file's."""

    def __init__(self, path: str, text: str, first_line: int = 1, indent: int = 0):
        self.path = path
        self.text = text
        self.lines: List[str] = text.splitlines()
        self.first_line = first_line
        self.indent = indent

    @classmethod
    def read(cls, path: str) -> "SourceFile":
        """Read as Python does: UTF-8 (a byte-order mark is skipped) unless a PEP 263 coding line says
        otherwise; an undecodable byte is an error at its line and column."""
        try:
            with open(path, "rb") as f:
                raw = f.read()
        except FileNotFoundError:
            raise CompileError(f"no such file: {path}") from None
        except IsADirectoryError:
            raise CompileError(f"{path} is a directory, not a Python file") from None
        except OSError as e:
            raise CompileError(f"cannot read {path}: {e.strerror}") from None
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
        except SyntaxError as e:
            if "encoding declaration" not in str(e):  # an unknown codec in a coding line
                raise CompileError(f"{path}: {e.msg}") from None
            encoding = "utf-8"  # a non-UTF-8 byte in the first two lines: reported below at its place
        try:
            return cls(path, raw.decode(encoding))
        except UnicodeDecodeError as e:
            line = raw.count(b"\n", 0, e.start) + 1
            line_start = raw.rfind(b"\n", 0, e.start) + 1
            col = len(raw[line_start:e.start].decode(encoding, errors="replace")) + 1
            if encoding == "utf-8-sig" and line == 1:
                col -= 1
            text = raw.decode(encoding, errors="replace")
            name = "UTF-8" if encoding.startswith("utf-8") else encoding
            raise CompileError(f"the file is not {name} text: byte 0x{raw[e.start]:02x} cannot be decoded ({e.reason}); "
                               "save the file as UTF-8 or declare its encoding (# -*- coding: latin-1 -*-)",
                               SourceLocation(path, line, col), source_line=text.splitlines()[line - 1]) from None

    def line(self, lineno: int) -> str:
        """Line ``lineno`` of the file (as far as this text holds it)."""
        i = lineno - self.first_line
        if not 0 <= i < len(self.lines):
            return ""
        return " " * self.indent + self.lines[i] if self.indent and self.lines[i] else self.lines[i]

    def _char_col(self, lineno: int, byte_offset: int) -> int:
        """1-based character column of a UTF-8 byte offset in line ``lineno`` of the text."""
        raw = (self.lines[lineno - 1] if 1 <= lineno <= len(self.lines) else "").encode("utf-8")[:byte_offset]
        return len(raw.decode("utf-8", errors="ignore")) + 1 + self.indent

    def loc(self, node: ast.AST) -> Optional[SourceLocation]:
        """The location of an AST node; ``end_col`` underlines the node when it fits on its line."""
        lineno = getattr(node, "lineno", None)
        if lineno is None:
            return None
        col = self._char_col(lineno, node.col_offset)
        end_col = None
        if getattr(node, "end_lineno", None) == lineno and node.end_col_offset is not None:
            end_col = self._char_col(lineno, node.end_col_offset)
        return SourceLocation(self.path, lineno + self.first_line - 1, col, end_col)

    def parse(self) -> ast.Module:
        """The module's AST; a Python syntax error becomes a CompileError at its position."""
        nul = self.text.find("\0")
        if nul >= 0:
            line = self.text.count("\n", 0, nul) + 1
            col = nul - (self.text.rfind("\n", 0, nul) + 1) + 1
            raise CompileError("invalid Python syntax: a null byte in the source",
                               SourceLocation(self.path, line + self.first_line - 1, col + self.indent))
        try:
            return ast.parse(self.text, filename=self.path)
        except SyntaxError as e:
            # SyntaxError columns are already 1-based character offsets.
            line = e.lineno or 1
            col = max(e.offset or 1, 1)
            end = e.end_offset if e.end_lineno == line and e.end_offset and e.end_offset > col else None
            shift = self.indent
            raise CompileError(f"invalid Python syntax: {e.msg}",
                               SourceLocation(self.path, line + self.first_line - 1, col + shift,
                                              end + shift if end else None)) from None
        except (RecursionError, MemoryError):
            raise CompileError("an expression is nested too deeply for Python's parser; split it into "
                               "several statements", self._busiest_line()) from None

    def _busiest_line(self) -> Optional[SourceLocation]:
        """The line with the most operators: where a too deeply nested expression most likely is."""
        counts: Dict[int, int] = {}
        try:
            for tok in tokenize.generate_tokens(io.StringIO(self.text).readline):
                if tok.type == tokenize.OP:
                    counts[tok.start[0]] = counts.get(tok.start[0], 0) + 1
        except (tokenize.TokenError, SyntaxError):
            pass
        if not counts:
            return None
        line = max(counts, key=counts.get) + self.first_line - 1
        text = self.line(line)
        return SourceLocation(self.path, line, len(text) - len(text.lstrip()) + 1)

    def lines_of(self, node: ast.AST) -> Dict[int, str]:
        """``{line: text}`` for the lines a node spans (decorators included)."""
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        last = getattr(node, "end_lineno", node.lineno) or node.lineno
        shift = self.first_line - 1
        return {i + shift: self.line(i + shift) for i in range(first, last + 1)}
