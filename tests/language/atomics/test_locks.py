"""Locks built from atomics, run on the simulator: a compare-and-swap spin lock guarding a read-modify-write
(Triton's serialized_add), a volatile spin on a flag, and tutorial 05's layer-norm backward (its Lock/Count
spin lock accumulating partial dW/dB) against a numpy reference."""
from pathlib import Path

import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run as sim_run
from tests.language.atomics.common import run

KERNELS = Path(__file__).with_name("layer_norm_kernels.py")

SERIALIZED_ADD = """
@triton.jit
def serialized_add(data, Lock):
    ptrs = data + tl.arange(0, 128)
    while tl.atomic_cas(Lock, 0, 1, SEM) == 1:
        pass
    tl.store(ptrs, tl.load(ptrs) + 1.0)
    tl.debug_barrier()
    tl.atomic_xchg(Lock, 0)
"""


@pytest.mark.parametrize("sem", ["acquire", "acq_rel", "relaxed"])
@pytest.mark.parametrize("lock_type", ["i32", "i64"])
@pytest.mark.parametrize("seed", [0, 1])
def test_cas_lock_serializes_a_read_modify_write(sem, lock_type, seed):
    out = run(SERIALIZED_ADD.replace("SEM", f'"{sem}"'), f"*fp32,*{lock_type}",
              {"data": np.zeros(128, np.float32), "Lock": np.zeros(1, np.dtype(lock_type.replace("i", "int")))},
              grid=(40,), seed=seed)
    np.testing.assert_array_equal(out["data"], np.full(128, 40.0, np.float32))
    assert out["Lock"][0] == 0


FLAG = """
@triton.jit
def flag(F, O):
    pid = tl.program_id(0)
    if pid == 0:
        tl.store(O, 42)
        tl.debug_barrier()
        tl.atomic_xchg(F, 1)
    else:
        while tl.load(F, volatile=True) == 0:
            pass
        tl.store(O + pid, tl.load(O) + pid)
"""


@pytest.mark.parametrize("seed", [0, 1])
def test_volatile_spin_sees_the_flag(seed):
    out = run(FLAG, "*i32,*i32", {"F": np.zeros(1, np.int32), "O": np.zeros(4, np.int32)}, grid=(4,), seed=seed)
    np.testing.assert_array_equal(out["O"], [42, 43, 44, 45])


def _compile(kernel: str, signature: str, defines: dict):
    return compile_kernel(str(KERNELS), Options(kernel=kernel, signature=signature, defines=defines)).binary


DX_SIG = "*fp32,*fp32,*fp32,*fp32,*fp32,*fp32,*fp32,*fp32,*fp32,*i32,i32,i32,fp32"
DWDB_SIG = "*fp32,*fp32,*fp32,*fp32,i32,i32"


def test_layer_norm_backward_compiles():
    _compile("_layer_norm_bwd_dx_fused", DX_SIG, {"GROUP_SIZE_M": "4", "BLOCK_SIZE_N": "64"})
    _compile("_layer_norm_bwd_dwdb", DWDB_SIG, {"BLOCK_SIZE_M": "4", "BLOCK_SIZE_N": "32"})


@pytest.mark.parametrize("seed", [0, 1])
def test_layer_norm_backward(seed):
    rng = np.random.default_rng(seed)
    M, N, G, eps = 12, 50, 4, 1e-5
    x = (-2.3 + 0.5 * rng.standard_normal((M, N))).astype(np.float32)
    w = rng.random(N).astype(np.float32)
    b = rng.random(N).astype(np.float32)
    dy = (0.1 * rng.standard_normal((M, N))).astype(np.float32)
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1)
    rstd = 1 / np.sqrt(x64.var(axis=1) + eps)
    dx_bin = _compile("_layer_norm_bwd_dx_fused", DX_SIG, {"GROUP_SIZE_M": str(G), "BLOCK_SIZE_N": "64"})
    kwargs = {"seed": seed}
    out = sim_run(dx_bin, {"DX": np.zeros((M, N), np.float32), "DY": dy, "DW": np.zeros((G, N), np.float32),
                           "DB": np.zeros((G, N), np.float32), "X": x, "W": w, "B": b,
                           "M": mean.astype(np.float32), "V": rstd.astype(np.float32),
                           "Lock": np.zeros(2 * G, np.int32), "stride": N, "N": N, "eps": eps},
                  grid=(M,), **kwargs).outputs
    dwdb_bin = _compile("_layer_norm_bwd_dwdb", DWDB_SIG, {"BLOCK_SIZE_M": "4", "BLOCK_SIZE_N": "32"})
    fin = sim_run(dwdb_bin, {"DW": out["DW"], "DB": out["DB"], "FINAL_DW": np.zeros(N, np.float32),
                             "FINAL_DB": np.zeros(N, np.float32), "M": G, "N": N}, grid=(2,)).outputs
    xhat = (x64 - mean[:, None]) * rstd[:, None]
    wdy = w * dy.astype(np.float64)
    c1 = (xhat * wdy).mean(axis=1, keepdims=True)
    c2 = wdy.mean(axis=1, keepdims=True)
    dx = (wdy - (xhat * c1 + c2)) * rstd[:, None]
    np.testing.assert_allclose(out["DX"], dx, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(fin["FINAL_DW"], (dy * xhat).sum(axis=0), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(fin["FINAL_DB"], dy.sum(axis=0), rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(out["Lock"], [0] * G + [1] * G)
