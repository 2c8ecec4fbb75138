"""Every example's documented `mtiacc` command line compiles (the commands in the examples' docstrings), and a
grid stored as an input array's size (`--grid 'X.shape[0]'`) launches one program per row."""
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mtiacc.diagnostics import UsageError, UserError
from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(p for p in (ROOT / "examples").glob("*.py") if "\n    mtiacc " in p.read_text())


def _command(path: Path):
    doc = path.read_text().split('"""')[1].replace("\\\\\n", " ").replace("\\\n", " ")
    line = next(ln.strip() for ln in doc.splitlines() if ln.strip().startswith("mtiacc "))
    return shlex.split(line)[1:]


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_the_documented_command_compiles(path, tmp_path):
    args = _command(path)
    if "-o" in args:
        args[args.index("-o") + 1] = str(tmp_path / "k.bin")
    else:
        args += ["-o", str(tmp_path / "k.bin")]
    r = subprocess.run([sys.executable, "-m", "mtiacc.cli", *args], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "k.bin").read_bytes()[:4] == b"\x7fELF"


def test_a_grid_of_one_program_per_input_row():
    opts = Options(defines={"BLOCK_SIZE": "128"}, signature="*fp32,*fp32,i32,i32,i32", grid="input_ptr.shape[0]")
    binary = compile_kernel(str(ROOT / "examples" / "softmax.py"), opts).binary
    x = np.random.default_rng(3).standard_normal((37, 100)).astype(np.float32)
    r = run(binary, {"input_ptr": x, "output_ptr": np.zeros_like(x), "input_row_stride": np.array(100),
                     "output_row_stride": np.array(100), "n_cols": np.array(100)})
    assert r.stats.programs == 37
    e = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(r.outputs["output_ptr"], e / e.sum(1, keepdims=True), rtol=1e-5, atol=1e-6)
    with pytest.raises(UserError, match=r"'input_ptr' has shape \(37, 100\), with no axis 2"):
        run(compile_kernel(str(ROOT / "examples" / "softmax.py"),
                           Options(defines={"BLOCK_SIZE": "128"}, signature="*fp32,*fp32,i32,i32,i32",
                                   grid="input_ptr.shape[2]")).binary,
            {"input_ptr": x, "output_ptr": np.zeros_like(x), "input_row_stride": np.array(100),
             "output_row_stride": np.array(100), "n_cols": np.array(100)})


def test_only_pointer_parameters_have_a_shape():
    with pytest.raises(UsageError, match=r"--grid: 'n_cols.shape\[0\]' is not allowed in a grid expression"):
        compile_kernel(str(ROOT / "examples" / "softmax.py"),
                       Options(defines={"BLOCK_SIZE": "128"}, signature="*fp32,*fp32,i32,i32,i32",
                               grid="n_cols.shape[0]"))
