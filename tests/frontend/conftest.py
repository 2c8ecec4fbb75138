"""Helpers: write a kernel file, compile it, and look at the error it gives."""
import textwrap

import pytest

from mtiacc.diagnostics import CompileError
from mtiacc.frontend import compile_file

HEADER = "import triton\nimport triton.language as tl\n\n\n"


class Kernels:
    def __init__(self, tmp_path):
        self.tmp_path = tmp_path
        self.count = 0

    def write(self, body: str, header: str = HEADER) -> str:
        self.count += 1
        path = self.tmp_path / f"kernel{self.count}.py"
        path.write_text(header + textwrap.dedent(body), encoding="utf-8")
        return str(path)

    def compile(self, body: str, header: str = HEADER, **kw):
        return compile_file(self.write(body, header), **kw)

    def error(self, body: str, header: str = HEADER, **kw) -> CompileError:
        path = self.write(body, header)
        with pytest.raises(CompileError) as info:
            compile_file(path, **kw)
        err = info.value
        err.path = path
        return err


@pytest.fixture
def kernels(tmp_path):
    return Kernels(tmp_path)


def line_of(path: str, needle: str) -> int:
    """1-based number of the first line of `path` containing `needle`."""
    with open(path, encoding="utf-8") as f:
        for i, text in enumerate(f, start=1):
            if needle in text:
                return i
    raise AssertionError(f"{needle!r} not in {path}")
