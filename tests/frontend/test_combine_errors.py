"""User errors of tl.reduce / tl.associative_scan and the Python builtins: location, message, caret."""
import textwrap

import pytest

from mtiacc.diagnostics import CompileError
from mtiacc.frontend import compile_file

HEADER = "import triton\nimport triton.language as tl\n\n\n"
HELPERS = '''
@triton.jit
def add(a, b):
    return a + b


@triton.jit
def pair(a, b):
    return a + b, a


def plain(a, b):
    return a


'''


def _error(tmp_path, line: str):
    src = HEADER + HELPERS + textwrap.dedent(f"""
        @triton.jit
        def k(X, N):
            x = tl.load(X + tl.arange(0, 8))
            {line}
        """)
    path = tmp_path / "k.py"
    path.write_text(src)
    with pytest.raises(CompileError) as info:
        compile_file(str(path), kernel="k")
    err = info.value
    rendered = err.render().splitlines()
    lines = src.splitlines()
    lineno = next(i for i, t in enumerate(lines, 1) if t.strip() == line)
    return err, rendered, lineno, lines[lineno - 1]


@pytest.mark.parametrize("line, message, span", [
    ("y = tl.reduce(x, 0, plain)",
     "tl.reduce's combine_fn must be a @triton.jit function, got the plain Python function `plain`",
     "tl.reduce(x, 0, plain)"),
    ("y = tl.reduce(x, 0, pair)", "tl.reduce: the combine function returns 2 value(s) for 1 operand(s)",
     "tl.reduce(x, 0, pair)"),
    ("y = tl.reduce(x, 1, add)", "tl.reduce: axis 1 is out of range for a block of rank 1", "tl.reduce(x, 1, add)"),
    ("y = tl.associative_scan(x, 0, add, reverse=N)",
     "tl.associative_scan: reverse must be a constexpr bool, got a value of type i32",
     "tl.associative_scan(x, 0, add, reverse=N)"),
    ("y = x + float(N)", "the Python builtin `float` needs a compile-time constant, got a value of type i32; "
                         "use .to(tl.float32)", "float(N)"),
    ("y = x + float('infinite')", "could not convert string to float: 'infinite'", "float('infinite')"),
])
def test_errors(tmp_path, line, message, span):
    err, rendered, lineno, text = _error(tmp_path, line)
    col = text.index(span) + 1
    assert rendered[0].endswith(f"k.py:{lineno}:{col}: error: {message}"), rendered[0]
    assert rendered[1] == text
    assert rendered[2] == " " * (col - 1) + "^" + "~" * (len(span) - 1)
    assert "Traceback" not in err.render()
