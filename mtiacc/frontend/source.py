"""The user's file as text: parsing it with ``ast`` and turning AST positions into locations.

The file is read and parsed, never imported or executed.  Locations are file-absolute
(1-based lines) with 1-based columns counted in characters: ``ast`` column offsets are
UTF-8 byte offsets, so they are converted through the line's text.
"""
from __future__ import annotations

import ast
import io
import tokenize
from typing import Dict, List, Optional

from mtiacc.diagnostics import CompileError, SourceLocation


class SourceFile:
    def __init__(self, path: str, text: str):
        self.path = path
        self.text = text
        self.lines: List[str] = text.splitlines()

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
        return self.lines[lineno - 1] if 1 <= lineno <= len(self.lines) else ""

    def _char_col(self, lineno: int, byte_offset: int) -> int:
        """1-based character column of a UTF-8 byte offset in line ``lineno``."""
        raw = self.line(lineno).encode("utf-8")[:byte_offset]
        return len(raw.decode("utf-8", errors="ignore")) + 1

    def loc(self, node: ast.AST) -> Optional[SourceLocation]:
        """The location of an AST node; ``end_col`` underlines the node when it fits on its line."""
        lineno = getattr(node, "lineno", None)
        if lineno is None:
            return None
        col = self._char_col(lineno, node.col_offset)
        end_col = None
        if getattr(node, "end_lineno", None) == lineno and node.end_col_offset is not None:
            end_col = self._char_col(lineno, node.end_col_offset)
        return SourceLocation(self.path, lineno, col, end_col)

    def parse(self) -> ast.Module:
        """The module's AST; a Python syntax error becomes a CompileError at its position."""
        nul = self.text.find("\0")
        if nul >= 0:
            line = self.text.count("\n", 0, nul) + 1
            col = nul - (self.text.rfind("\n", 0, nul) + 1) + 1
            raise CompileError("invalid Python syntax: a null byte in the source",
                               SourceLocation(self.path, line, col))
        try:
            return ast.parse(self.text, filename=self.path)
        except SyntaxError as e:
            # SyntaxError columns are already 1-based character offsets.
            line = e.lineno or 1
            col = max(e.offset or 1, 1)
            end = e.end_offset if e.end_lineno == line and e.end_offset and e.end_offset > col else None
            raise CompileError(f"invalid Python syntax: {e.msg}",
                               SourceLocation(self.path, line, col, end)) from None
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
        line = max(counts, key=counts.get)
        text = self.line(line)
        return SourceLocation(self.path, line, len(text) - len(text.lstrip()) + 1)

    def lines_of(self, node: ast.AST) -> Dict[int, str]:
        """``{line: text}`` for the lines a node spans (decorators included)."""
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        last = getattr(node, "end_lineno", node.lineno) or node.lineno
        return {i: self.line(i) for i in range(first, last + 1)}
