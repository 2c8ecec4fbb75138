"""Imported by the local executor's fork server before it forks any worker: the compiler's and the simulator's
modules imported, and one small kernel compiled and simulated, once, so that a worker costs a fork and starts
warm.  Without it each worker's first compile imports some 170 modules of the compiler (over a second), and the
first simulation decodes its tables, in every worker.  A warm-up that fails changes nothing but the time."""
from __future__ import annotations

import os
import tempfile

KERNEL = '''
import triton
import triton.language as tl


@triton.jit
def warm(X, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(X + offs, tl.load(X + offs, mask=offs < N) * 2.0 + 1.0, mask=offs < N)
'''


def warm_up() -> None:
    import numpy as np

    from mtiacc.driver import Options, compile_kernel
    from mtiasim.runner import run
    with tempfile.TemporaryDirectory(prefix="mtiacc-warm-") as folder:
        path = os.path.join(folder, "warm.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(KERNEL)
        binary = compile_kernel(path, Options(defines={"BLOCK": "64"}, signature="*fp32,i32")).binary
    run(binary, {"X": np.zeros(64, np.float32)}, grid=(1,), args={"N": "64"})


try:
    warm_up()
except Exception:   # noqa: BLE001 - only a faster start is lost
    pass
