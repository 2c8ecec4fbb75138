"""A vector add to sweep over: the kernel (examples/vector_add.py), its inputs and a spec writer, in a temporary
folder."""
import json
import shutil
import textwrap

import numpy as np
import pytest

from tests.conftest import EXAMPLES


@pytest.fixture
def sweep_dir(tmp_path, monkeypatch):
    """A folder with add.py, two inputs (N = 4096 and N = 1000) and an isolated cache."""
    monkeypatch.setenv("MTIACC_CACHE_DIR", str(tmp_path / "cache"))
    shutil.copy(EXAMPLES / "vector_add.py", tmp_path / "add.py")
    rng = np.random.default_rng(7)
    for name, n in (("big.npz", 4096), ("small.npz", 1000)):
        a = rng.standard_normal(n).astype(np.float32)
        b = rng.standard_normal(n).astype(np.float32)
        np.savez(tmp_path / name, A_ptr=a, B_ptr=b, C_ptr=np.zeros(n, np.float32), N=np.int32(n))
    return tmp_path


def write_spec(folder, text: str):
    path = folder / "spec.yaml"
    path.write_text(textwrap.dedent(text))
    return path


def read_rows(path):
    return [json.loads(line) for line in path.read_text().splitlines()]
