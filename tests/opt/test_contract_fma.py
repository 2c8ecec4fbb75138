"""contract-fma end to end: a * b + c is rounded once by default and twice with fp_fusion off, bit for bit,
through every entry point (mtiacc.compile, mtiacc.load, the CLI's --no-fp-fusion, Triton's enable_fp_fusion)."""
import subprocess
import sys

import numpy as np
import pytest

import mtiacc
from mtiasim.runner import run
from tests.numerics import fma

KERNEL = """
import triton
import triton.language as tl


@triton.jit
def axpb(X, A, B, Y, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(Y + offs, tl.load(X + offs) * tl.load(A + offs) + tl.load(B + offs))
"""


def _data(n=256):
    """Products whose rounding error the addend exposes: a * b + c, with c = -round(a * b) (about)."""
    rng = np.random.default_rng(3)
    a = (rng.standard_normal(n) * 8).astype(np.float32)
    b = (1 + rng.integers(-64, 64, n) * np.finfo(np.float32).eps).astype(np.float32)
    c = -(a * b).astype(np.float32)
    return a, b, c


def _separate(a, b, c):
    return (a * b).astype(np.float32) + c


def test_the_two_roundings_differ_on_these_inputs():
    a, b, c = _data()
    assert (fma(a, b, c) != _separate(a, b, c)).sum() > 100     # so the tests below can fail


@pytest.mark.parametrize("fusion", [True, False])
def test_compile_rounds_once_by_default(tmp_path, fusion):
    src = tmp_path / "k.py"
    src.write_text(KERNEL)
    a, b, c = _data()
    comp = mtiacc.compile(str(src), "axpb", signature="*fp32,*fp32,*fp32,*fp32", constexprs={"BLOCK": 256},
                          fp_fusion=fusion)
    out = run(comp.binary, {"X": a, "A": b, "B": c, "Y": np.zeros_like(a)}, grid=(1,)).outputs["Y"]
    want = fma(a, b, c) if fusion else _separate(a, b, c)
    assert (out.view(np.uint32) == want.view(np.uint32)).all()


@pytest.mark.parametrize("fusion", [True, False])
def test_load_passes_fp_fusion(tmp_path, fusion, monkeypatch):
    monkeypatch.setenv("MTIACC_CACHE_DIR", str(tmp_path / "cache"))
    src = tmp_path / "k.py"
    src.write_text(KERNEL)
    a, b, c = _data()
    y = np.zeros_like(a)
    mtiacc.load(str(src), "axpb", fp_fusion=fusion)[(1,)](a, b, c, y, BLOCK=256)
    want = fma(a, b, c) if fusion else _separate(a, b, c)
    assert (y.view(np.uint32) == want.view(np.uint32)).all()


def test_cli_no_fp_fusion(tmp_path):
    src = tmp_path / "k.py"
    src.write_text(KERNEL)
    args = [sys.executable, "-m", "mtiacc", str(src), "--signature=*fp32,*fp32,*fp32,*fp32", "-D", "BLOCK=256",
            "--emit=asm", "-o", "-"]
    on = subprocess.run(args, capture_output=True, text=True)
    off = subprocess.run(args + ["--no-fp-fusion"], capture_output=True, text=True)
    assert on.returncode == 0 and off.returncode == 0, (on.stderr, off.stderr)
    assert "vfmacc" in on.stdout or "vfmadd" in on.stdout
    # (the add on the SE's ALUs)
    assert "vfmacc" not in off.stdout and "vfmadd" not in off.stdout and "mtia.se.fadd.vv" in off.stdout


def test_triton_enable_fp_fusion():
    pytest.importorskip("triton")
    torch = pytest.importorskip("torch")
    from mtiacc.triton_backend.driver import MtiaDriver
    if not MtiaDriver.is_active():
        pytest.skip("another Triton backend is active here")
    from tests.triton import kernels as K
    a, b, c = (torch.from_numpy(v) for v in _data())
    for fusion, want in ((True, fma(*_data())), (False, _separate(*_data()))):
        y = torch.zeros(256)
        K.axpb_kernel[(1,)](a, b, c, y, BLOCK=256, enable_fp_fusion=fusion)
        assert (y.numpy().view(np.uint32) == want.view(np.uint32)).all(), fusion
