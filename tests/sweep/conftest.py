"""A vector add to sweep over: the kernel, its inputs and a spec writer, in a temporary folder."""
import json
import textwrap

import numpy as np
import pytest

KERNEL = textwrap.dedent('''
    import triton
    import triton.language as tl


    @triton.jit
    def add_kernel(A_ptr, B_ptr, C_ptr, N, BLOCK_SIZE: tl.constexpr):
        pid = tl.program_id(axis=0)
        offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offsets < N
        a = tl.load(A_ptr + offsets, mask=mask)
        b = tl.load(B_ptr + offsets, mask=mask)
        tl.store(C_ptr + offsets, a + b, mask=mask)
''')


@pytest.fixture
def sweep_dir(tmp_path, monkeypatch):
    """A folder with add.py, two inputs (N = 4096 and N = 1000) and an isolated cache."""
    monkeypatch.setenv("MTIACC_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "add.py").write_text(KERNEL)
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
