"""`tl.dot(a, b, acc)` with a constant accumulator (`tl.full`, or `tl.zeros(...) + c` folded at -O3) gave garbage
for fp32 operands: filling the accumulators drained the engine, which freed the operands' bf16 halves made just
before, and the fill was written over them.  Two constant operands (int8, f16, f64) lost the first the same way.
Found by the random-kernel tests (seed 10054)."""
import tempfile
from pathlib import Path

import numpy as np
import pytest

import mtiacc
import mtiasim
from tests.language.harness import HEADER

SRC = '''
@triton.jit
def k(X, Y, O, M: tl.constexpr, K: tl.constexpr, N: tl.constexpr):
    a = {a}
    b = {b}
    c = {c}
    tl.store(O + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :], tl.dot(a, b, c{out}))
'''
LOAD_A = "tl.load(X + tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :])"
LOAD_B = "tl.load(Y + tl.arange(0, K)[:, None] * N + tl.arange(0, N)[None, :])"
TYPES = {"fp32": (np.float32, np.float32), "fp16": (np.float16, np.float32), "i8": (np.int8, np.int32),
         "fp64": (np.float64, np.float64)}


@pytest.mark.parametrize("ty", sorted(TYPES))
@pytest.mark.parametrize("const", ["acc", "b+acc", "a+b"])
def test_dot_with_constant_operands(ty, const):
    t, acc_t = TYPES[ty]
    tl_t, tl_acc = {"fp32": ("float32", "float32"), "fp16": ("float16", "float32"), "i8": ("int8", "int32"),
                    "fp64": ("float64", "float64")}[ty]
    a = f"tl.full((M, K), 3, tl.{tl_t})" if "a" in const.split("+") else LOAD_A
    b = f"tl.full((K, N), 2, tl.{tl_t})" if "b" in const.split("+") else LOAD_B
    c = f"tl.full((M, N), 5, tl.{tl_acc})" if "acc" in const.split("+") else f"tl.zeros((M, N), tl.{tl_acc})"
    out = f", out_dtype=tl.{tl_acc}" if ty in ("i8", "fp64") else ""
    path = Path(tempfile.mkdtemp(prefix="mtiacc-dotc-")) / "k.py"
    path.write_text(HEADER + SRC.format(a=a, b=b, c=c, out=out))
    M = K = N = 16
    rng = np.random.default_rng(len(const))
    x, y = rng.integers(-4, 5, (M, K)).astype(t), rng.integers(-4, 5, (K, N)).astype(t)
    xa = np.full((M, K), 3) if "a" in const.split("+") else x.astype(np.int64)
    yb = np.full((K, N), 2) if "b" in const.split("+") else y.astype(np.int64)
    want = (xa @ yb + (5 if "acc" in const.split("+") else 0)).astype(acc_t)
    sig = f"*{ty},*{ty},*{'i32' if ty == 'i8' else 'fp64' if ty == 'fp64' else 'fp32'}"
    for level in (0, 3):
        comp = mtiacc.compile(str(path), "k", signature=sig, constexprs={"M": M, "K": K, "N": N}, opt_level=level)
        res = mtiasim.run(comp.binary, {"X": x, "Y": y, "O": np.zeros(M * N, acc_t)}, grid=(1,))
        np.testing.assert_array_equal(res.outputs["O"].reshape(M, N), want, err_msg=f"-O{level}")
