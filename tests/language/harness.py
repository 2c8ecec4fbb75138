"""Compile small Triton kernels from source text and run them on the simulator."""
from __future__ import annotations

import functools
import tempfile
from pathlib import Path

import numpy as np
import pytest

from mtiacc.diagnostics import CompileError
from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run

HEADER = "import triton\nimport triton.language as tl\n" \
         "from triton.language.extra import libdevice\n" \
         "from torch._inductor.runtime.triton_helpers import math as tl_math\n\n"

_DIR = Path(tempfile.mkdtemp(prefix="mtiacc-lang-"))


@functools.lru_cache(maxsize=None)
def build(source: str, signature: str, defines: tuple = (), kernel: str = None) -> Path:
    """The binary of ``source`` (HEADER prepended), compiled once per (source, signature, defines, kernel)."""
    key = abs(hash((source, signature, defines, kernel)))
    src = _DIR / f"k{key}.py"
    src.write_text(HEADER + source)
    opts = Options(defines=dict(defines), signature=signature, kernel=kernel)
    out = _DIR / f"k{key}.bin"
    out.write_bytes(compile_kernel(str(src), opts).binary)
    return out


def grid_params(every, default):
    """The cases of a differential grid (tuples of names) as pytest params with ids "a-b": those in
    ``default`` always run, the rest are marked slow (the exhaustive part, deselected by default)."""
    return [pytest.param(*c, id="-".join(c), marks=() if c in default else pytest.mark.slow) for c in every]


def launch(source: str, signature: str, inputs: dict, grid=(1,), defines: tuple = (), kernel: str = None):
    return run(str(build(source, signature, defines, kernel)), inputs, grid=grid)


def ulps(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Distance in units in the last place of f32 (want is float64, rounded to f32 first)."""
    g = got.astype(np.float32)
    w = want.astype(np.float32)
    gi = g.view(np.int32).astype(np.int64)
    wi = w.view(np.int32).astype(np.int64)
    gi = np.where(gi < 0, -(gi & 0x7FFFFFFF), gi)
    wi = np.where(wi < 0, -(wi & 0x7FFFFFFF), wi)
    d = np.abs(gi - wi)
    both_nan = np.isnan(g) & np.isnan(w)
    return np.where(both_nan, 0, np.where(np.isnan(g) | np.isnan(w), 1 << 40, d))


def assert_error_at_call(tmp_path, stmt: str, message: str, underlined: str):
    """Compile a kernel that loads a 4x8 f32 block ``x`` and then runs ``stmt``: it must fail with a
    CompileError saying ``message`` at ``underlined`` (line, column, source line, caret), no traceback."""
    body = ("@triton.jit\ndef k(X, Y):\n    x = tl.load(X + tl.arange(0, 4)[:, None] * 8 + tl.arange(0, 8)[None, :])\n"
            f"    {stmt}\n    tl.store(Y, 0.0)\n")
    path = tmp_path / "k.py"
    path.write_text(HEADER + body)
    with pytest.raises(CompileError) as info:
        compile_kernel(str(path), Options(signature="*fp32,*fp32"))
    err = info.value
    line = HEADER.count("\n") + 4
    col = 4 + stmt.index(underlined) + 1
    rendered = err.render().splitlines()
    assert rendered[0] == f"{path}:{line}:{col}: error: {message}"
    assert rendered[1] == f"    {stmt}"
    assert rendered[2] == " " * (col - 1) + "^" + "~" * (len(underlined) - 1)
    assert "Traceback" not in err.render()
