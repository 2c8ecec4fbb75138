"""Differential grid on scalars (not blocks): every binary operator on same-type pairs and ``.to()`` between
element types, with each program loading one element, against the same numpy references as the block grids
(test_grid_binary, test_grid_casts).  Narrow integers are computed in 64-bit registers and re-normalized,
fp16/bf16 in f32 rounded back (mtiacc/codegen/arith/scalar_narrow.py).
"""
import numpy as np
import pytest

from tests.language import test_grid_binary as gb
from tests.language import test_grid_casts as gc
from tests.language.dtypes import ALL, DTYPES, width
from tests.language.harness import launch

N = 40


def kernel(ops) -> str:
    outs = ", ".join(f"O{i}" for i in range(len(ops)))
    body = "\n".join(f"    tl.store(O{i} + i, {gb.expr(op)})" for i, op in enumerate(ops))
    return f'''
@triton.jit
def k(X, Z, S, {outs}):
    i = tl.program_id(0)
    x = tl.load(X + i)
    z = tl.load(Z + i)
    s = tl.load(S + i)
{body}
'''


@pytest.mark.parametrize("t", gb.TYPES)
def test_scalar_binary(t):
    ops = gb.ops_for(t)
    rng = np.random.default_rng(width(t) * 17 + len(t))
    x, z, s = (v[:N] for v in gb.operands(t, t, rng))
    rts = [gb.result_type(op, t) for op in ops]
    sig = ",".join([f"*{DTYPES[t][0]}"] * 3 + [f"*{DTYPES[r][0]}" for r in rts])
    data = {"X": x, "Z": z, "S": s}
    data.update({f"O{i}": np.zeros(N, DTYPES[r][1]) for i, r in enumerate(rts)})
    out = launch(kernel(ops), sig, data, grid=(N,))
    for i, (op, r) in enumerate(zip(ops, rts)):
        gb.check(out.outputs[f"O{i}"], gb.reference(op, x, z, s, t, t), r, f"scalar {t} {op} {t}")


CAST = '''
@triton.jit
def k(X, Y):
    i = tl.program_id(0)
    tl.store(Y + i, tl.load(X + i).to(tl.DST) * 1)
'''
PAIRS = [(s, d) for s in ALL for d in ALL if s != d and d != "int1"]


@pytest.mark.parametrize("s,d", PAIRS, ids=[f"{s}->{d}" for s, d in PAIRS])
def test_scalar_cast(s, d):
    rng = np.random.default_rng(width(s) * 131 + width(d) + len(s) * 7 + len(d))
    x = gc.source_values(s, d, rng)[:N]
    out = launch(CAST.replace("DST", d), f"*{DTYPES[s][0]},*{DTYPES[d][0]}",
                 {"X": x, "Y": np.zeros(N, DTYPES[d][1])}, grid=(N,))
    gc.check(out.outputs["Y"], gc.reference(x, s, d), d)
