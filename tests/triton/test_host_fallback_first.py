"""A kernel run on the host (mtiacc/triton_backend/fallback.py) as the process's first use of Triton's launch
machinery: Triton imports gluon when it first types a scalar argument, which failed under the interpreter's
patched triton.language (an AssertionError, then "Cannot call @triton.jit'd outside of the scope of a kernel"
on every later fallback of the process: Inductor's max_pool2d samples in benchmarks/opinfo.py).  A fresh
process, so that nothing imported gluon before."""
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("triton")

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = '''
import sys
import torch
import triton
import triton.language as tl
from mtiacc.triton_backend import fallback

assert "triton.experimental.gluon" not in sys.modules


@triton.jit
def k(X, Out, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    tl.store(Out + offs, tl.load(X + offs, mask=m) * 2.0 + n, mask=m)


x = torch.arange(5, dtype=torch.float32)
for n in (5, 3):
    out = torch.full((5,), -1.0)
    fallback.run_on_host(k.fn, (1,), [x, out, n, 8])
    print(out.tolist())
'''


def test_first_host_launch_of_a_process(tmp_path):
    src = tmp_path / "first.py"
    src.write_text(SCRIPT)
    r = subprocess.run([sys.executable, str(src)], cwd=tmp_path, capture_output=True, text=True, timeout=600,
                       env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split("\n")[:2] == ["[5.0, 7.0, 9.0, 11.0, 13.0]", "[3.0, 5.0, 7.0, -1.0, -1.0]"]
