"""A vector add to sweep over: the kernel (examples/vector_add.py), its inputs and a spec writer, in a temporary
folder."""
import json
import shutil
import textwrap

import numpy as np
import pytest

from tests.conftest import EXAMPLES


def make_sweep_dir(folder, monkeypatch):
    """``folder`` with add.py, two inputs (N = 4096 and N = 1000) and an isolated cache."""
    monkeypatch.setenv("MTIACC_CACHE_DIR", str(folder / "cache"))
    shutil.copy(EXAMPLES / "vector_add.py", folder / "add.py")
    rng = np.random.default_rng(7)
    for name, n in (("big.npz", 4096), ("small.npz", 1000)):
        a = rng.standard_normal(n).astype(np.float32)
        b = rng.standard_normal(n).astype(np.float32)
        np.savez(folder / name, A_ptr=a, B_ptr=b, C_ptr=np.zeros(n, np.float32), N=np.int32(n))
    return folder


@pytest.fixture
def sweep_dir(tmp_path, monkeypatch):
    """A folder with add.py, two inputs (N = 4096 and N = 1000) and an isolated cache."""
    return make_sweep_dir(tmp_path, monkeypatch)


def write_spec(folder, text: str):
    path = folder / "spec.yaml"
    path.write_text(textwrap.dedent(text))
    return path


def read_rows(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


# a slice of a Triton tests folder for benchmarks/conformance.py: three test functions, the second of more cases
# than a chunk holds, so that the run is three chunks (test_a; test_b; test_c)
TEST_CORE = '''
import pytest


def test_a():
    pass


@pytest.mark.parametrize("x", range(260))
def test_b(x):
    assert x % 100 != 7


def test_c():
    pytest.skip("not on this device")
'''

CONFTEST = '''
def pytest_addoption(parser):
    parser.addoption("--device", default="cpu")
'''

CONFORMANCE = EXAMPLES.parent / "benchmarks" / "conformance.py"


@pytest.fixture
def conformance_slice(tmp_path):
    tests = tmp_path / "triton-tests"
    (tests / "language").mkdir(parents=True)
    (tests / "language" / "test_core.py").write_text(TEST_CORE)
    (tests / "conftest.py").write_text(CONFTEST)
    return tests


def run_conformance(tests, results, *extra):
    """benchmarks/conformance.py on ``tests`` (no interpreter): its table's rows (the summary lines above it name
    the run's seconds) and the state it saved."""
    import subprocess
    import sys
    out = results / "conformance.md"
    proc = subprocess.run([sys.executable, str(CONFORMANCE), "--tests", str(tests), "--results", str(results),
                           "--no-interpreter", "--out", str(out), "--case-timeout", "60", *extra],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    rows = [ln for ln in out.read_text().splitlines() if ln.startswith("| `")]
    return rows, json.loads((results / "state.json").read_text())
