"""The user's file as text: parsing it with ``ast`` and turning AST positions into locations.

The file is read and parsed, never imported or executed.  Locations are file-absolute
(1-based lines) with 1-based columns counted in characters: ``ast`` column offsets are
UTF-8 byte offsets, so they are converted through the line's text.
"""
from __future__ import annotations

import ast
from typing import Dict, List, Optional

from mtiacc.diagnostics import CompileError, SourceLocation


class SourceFile:
    def __init__(self, path: str, text: str):
        self.path = path
        self.text = text
        self.lines: List[str] = text.splitlines()

    @classmethod
    def read(cls, path: str) -> "SourceFile":
        try:
            with open(path, encoding="utf-8") as f:
                return cls(path, f.read())
        except FileNotFoundError:
            raise CompileError(f"no such file: {path}") from None
        except UnicodeDecodeError as e:
            raise CompileError(f"{path} is not UTF-8 text: {e.reason}") from None
        except OSError as e:
            raise CompileError(f"cannot read {path}: {e.strerror}") from None

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
        try:
            return ast.parse(self.text, filename=self.path)
        except SyntaxError as e:
            # SyntaxError columns are already 1-based character offsets.
            line = e.lineno or 1
            col = max(e.offset or 1, 1)
            end = e.end_offset if e.end_lineno == line and e.end_offset and e.end_offset > col else None
            raise CompileError(f"invalid Python syntax: {e.msg}",
                               SourceLocation(self.path, line, col, end)) from None

    def lines_of(self, node: ast.AST) -> Dict[int, str]:
        """``{line: text}`` for the lines a node spans (decorators included)."""
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        last = getattr(node, "end_lineno", node.lineno) or node.lineno
        return {i: self.line(i) for i in range(first, last + 1)}
