"""Math on the SIMD engine (``--fast-math``) against numpy's float64, with the tolerance the SE states: 2 ULP of
fp32 for its 22-bit tables, 2^-22 absolute for sin and cos (docs/architecture.md, "The SIMD engine")."""
import math

import numpy as np

import mtiacc
from mtiasim.runner import run
from tests.language.harness import ulps

FUNCS = {  # output -> (expression, float64 reference, seeded inputs)
    "EXP": ("tl.exp(x)", np.exp, lambda r: r.uniform(-80, 80, 2000)),
    "EXP2": ("tl.exp2(x)", np.exp2, lambda r: r.uniform(-120, 120, 2000)),
    "LOG": ("tl.log(x)", np.log, lambda r: np.exp(r.uniform(-80, 80, 2000))),
    "LOG2": ("tl.log2(x)", np.log2, lambda r: np.exp(r.uniform(-80, 80, 2000))),
    "TANH": ("libdevice.tanh(x)", np.tanh, lambda r: r.uniform(-12, 12, 2000)),
    "ERF": ("tl.erf(x)", np.vectorize(math.erf), lambda r: r.uniform(-5, 5, 2000)),
    "SQRT": ("tl.sqrt(x)", np.sqrt, lambda r: np.exp(r.uniform(-80, 80, 2000))),
    "RSQRT": ("tl.rsqrt(x)", lambda v: 1 / np.sqrt(v), lambda r: np.exp(r.uniform(-80, 80, 2000))),
    "SIN": ("tl.sin(x)", np.sin, lambda r: r.uniform(-100, 100, 2000)),
    "COS": ("tl.cos(x)", np.cos, lambda r: r.uniform(-100, 100, 2000)),
}
KERNEL = '''import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def k({params}, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
{body}
'''


def test_every_se_function_through_the_compiler(tmp_path):
    names = list(FUNCS)
    body = "\n".join(f"    x = tl.load(X{n} + offs, mask=m)\n    tl.store({n} + offs, {FUNCS[n][0]}, mask=m)"
                     for n in names)
    params = ", ".join(f"X{n}, {n}" for n in names)
    src = tmp_path / "se_kernel.py"
    src.write_text(KERNEL.format(params=params, body=body))
    sig = ",".join(["*fp32"] * (2 * len(names)) + ["i32"])
    comp = mtiacc.compile(str(src), signature=sig, constexprs={"BLOCK": 512}, fast_math=True)
    assert comp.binary
    asm = mtiacc.compile(str(src), signature=sig, constexprs={"BLOCK": 512}, fast_math=True, stop_after="asm")
    for fn in ("exp", "exp2", "log", "log2", "tanh", "erf", "sqrt", "rsqrt", "sin", "cos"):
        assert f"mtia.se.{fn}.v" in asm.asm_text, fn
    rng = np.random.default_rng(0)
    n = 2000
    inputs = {"N": np.array(n, np.int32)}
    for name in names:
        inputs[f"X{name}"] = FUNCS[name][2](rng).astype(np.float32)
        inputs[name] = np.zeros(n, np.float32)
    path = tmp_path / "k.bin"
    path.write_bytes(comp.binary)
    res = run(str(path), inputs, grid=(-(-n // 512),))
    assert res.stats.se_elements == -(-n // 512) * 512 * len(names)    # whole blocks, the masked tail too
    for name in names:
        x = inputs[f"X{name}"].astype(np.float64)
        got, want = res.outputs[name], FUNCS[name][1](x)
        if name in ("SIN", "COS"):
            assert np.abs(got - want).max() <= 2.0 ** -22, name
        else:
            assert ulps(got, want).max() <= 2, name
