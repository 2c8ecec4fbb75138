"""tl.atomic_add / max / min / and / or / xor / xchg run on the simulator against numpy: many programs
hitting the same elements (histograms, scatter-add, counters), every op over its element types, masks,
every sem, the returned old values, several seeds (program interleavings)."""
import numpy as np
import pytest

from tests.language.atomics.common import run
from tests.language.harness import build


SEEDS = (0, 1, 2)

HISTOGRAM = """
@triton.jit
def hist(X, H, N, BINS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < N, other=0)
    tl.atomic_add(H + x % BINS, 1, mask=offs < N, sem=SEM)
"""


@pytest.mark.parametrize("sem", ['"relaxed"', '"acquire"', '"release"', '"acq_rel"', "None"])
@pytest.mark.parametrize("seed", SEEDS[:2])
def test_histogram_many_programs(sem, seed):
    rng = np.random.default_rng(seed)
    n = 1000
    x = rng.integers(0, 1 << 20, n).astype(np.int32)
    out = run(HISTOGRAM.replace("SEM", sem), "*i32,*i32,i32", {"X": x, "H": np.zeros(16, np.int32), "N": n},
              grid=(8,), defines=(("BINS", "16"), ("BLOCK", "128")), seed=seed)
    np.testing.assert_array_equal(out["H"], np.bincount(x % 16, minlength=16))


SCATTER = """
@triton.jit
def scatter(V, I, Z, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.atomic_add(Z + tl.load(I + offs), tl.load(V + offs))
"""


@pytest.mark.parametrize("dtype,sig", [(np.float32, "fp32"), (np.float64, "fp64"), (np.int64, "i64"),
                                       (np.uint32, "u32"), (np.float16, "fp16")])
@pytest.mark.parametrize("seed", SEEDS)
def test_scatter_add(dtype, sig, seed):
    rng = np.random.default_rng(seed)
    v = rng.integers(-8, 9, 256).astype(dtype)   # small integers: every order of the float adds is exact
    if dtype == np.uint32:
        v = rng.integers(0, 9, 256).astype(dtype)
    idx = rng.integers(0, 10, 256).astype(np.int32)
    z0 = rng.integers(0, 5, 10).astype(dtype)
    out = run(SCATTER, f"*{sig},*i32,*{sig}", {"V": v, "I": idx, "Z": z0.copy()}, grid=(4,),
              defines=(("BLOCK", "64"),), seed=seed)
    want = z0.astype(np.float64)
    np.add.at(want, idx, v.astype(np.float64))
    np.testing.assert_array_equal(out["Z"], want.astype(dtype))


def test_scatter_add_bf16():
    v = np.arange(-32, 32).astype(np.float32)
    idx = (np.arange(64) % 5).astype(np.int32)
    bits = lambda a: (a.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)  # exact: small integers
    out = run(SCATTER, "*bf16,*i32,*bf16", {"V": bits(v), "I": idx, "Z": np.zeros(5, np.uint16)}, grid=(2,),
              defines=(("BLOCK", "32"),))
    want = np.zeros(5)
    np.add.at(want, idx, v)
    got = (out["Z"].astype(np.uint32) << 16).view(np.float32)
    np.testing.assert_array_equal(got, want.astype(np.float32))


COUNTER = """
@triton.jit
def counter(C, O):
    pid = tl.program_id(0)
    old = tl.atomic_add(C, 1)
    tl.store(O + pid, old)
"""


@pytest.mark.parametrize("seed", SEEDS)
def test_counter_hands_out_each_ticket_once(seed):
    out = run(COUNTER, "*i32,*i32", {"C": np.array([5], np.int32), "O": np.zeros(64, np.int32)}, grid=(64,),
              seed=seed)
    assert out["C"][0] == 69
    np.testing.assert_array_equal(np.sort(out["O"]), np.arange(5, 69))


SCALAR_OP = """
@triton.jit
def scalar_op(X, Z, O):
    pid = tl.program_id(0)
    old = tl.OP(Z, tl.load(X + pid), sem=SEM)
    tl.store(O + pid, old)
"""

NP_DTYPES = {"i32": np.int32, "u32": np.uint32, "i64": np.int64, "u64": np.uint64, "fp32": np.float32,
             "fp64": np.float64}
REDUCE = {"atomic_add": np.add, "atomic_max": np.maximum, "atomic_min": np.minimum,
          "atomic_and": np.bitwise_and, "atomic_or": np.bitwise_or, "atomic_xor": np.bitwise_xor}
CASES = [(op, t) for op in ("atomic_add", "atomic_max", "atomic_min") for t in NP_DTYPES] + \
        [(op, t) for op in ("atomic_and", "atomic_or", "atomic_xor") for t in ("i32", "u32", "i64", "u64")]


def _operands(t, seed, n):
    rng = np.random.default_rng(seed)
    d = NP_DTYPES[t]
    if np.issubdtype(d, np.floating):
        x = rng.integers(-50, 50, n).astype(d) * d(0.5)   # exact sums; signs and -0.0 mixed
        x[0] = -0.0
        return x, d(rng.integers(1, 9))
    info = np.iinfo(d)
    x = rng.integers(info.min, info.max, n, dtype=np.int64 if d != np.uint64 else np.uint64, endpoint=True)
    return x.astype(d), d(rng.integers(0, 100))


@pytest.mark.parametrize("op,t", CASES)
def test_scalar_ops_over_dtypes(op, t):
    n = 12
    x, z0 = _operands(t, 7, n)
    with np.errstate(over="ignore"):
        out = run(SCALAR_OP.replace("OP", op).replace("SEM", '"acq_rel"'), f"*{t},*{t},*{t}",
                  {"X": x, "Z": np.array([z0]), "O": np.zeros(n, x.dtype)}, grid=(n,))
        want = REDUCE[op].reduce(np.concatenate([[z0], x]).astype(x.dtype), dtype=x.dtype)   # wrapping, as the atomics do
    assert out["Z"][0] == want
    assert z0 in out["O"]   # the first program to run saw the initial value


@pytest.mark.parametrize("sem", ["relaxed", "acquire", "release", "acq_rel"])
@pytest.mark.parametrize("seed", SEEDS)
def test_xchg_old_values_are_a_permutation(sem, seed):
    n = 16
    x = (np.arange(n) * 3 + 100).astype(np.float32)
    out = run(SCALAR_OP.replace("OP", "atomic_xchg").replace("SEM", f'"{sem}"'), "*fp32,*fp32,*fp32",
              {"X": x, "Z": np.array([-1.0], np.float32), "O": np.zeros(n, np.float32)}, grid=(n,), seed=seed)
    seen = np.sort(np.concatenate([out["O"], out["Z"]]))
    np.testing.assert_array_equal(seen, np.sort(np.concatenate([x, [-1.0]]).astype(np.float32)))


BLOCK_OP = """
@triton.jit
def block_op(X, Z, O, M, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + tl.program_id(0) * BLOCK + offs)
    m = tl.load(M + offs) != 0
    old = tl.OP(Z + offs, x, mask=m)
    tl.store(O + tl.program_id(0) * BLOCK + offs, old)
"""


@pytest.mark.parametrize("op,t", [("atomic_add", "i32"), ("atomic_max", "fp32"), ("atomic_min", "fp64"),
                                  ("atomic_max", "u64"), ("atomic_xor", "i64"), ("atomic_add", "fp32")])
def test_block_ops_with_mask(op, t):
    block, progs = 32, 3
    x, _ = _operands(t, 3, block * progs)
    z0, _ = _operands(t, 4, block)
    m = (np.arange(block) % 3 != 1).astype(np.int8)
    out = run(BLOCK_OP.replace("OP", op), f"*{t},*{t},*{t},*i8",
              {"X": x, "Z": z0.copy(), "O": np.zeros_like(x), "M": m}, grid=(progs,), defines=(("BLOCK", "32"),))
    with np.errstate(over="ignore"):
        want = REDUCE[op].reduce(np.stack([z0] + list(x.reshape(progs, block))), axis=0, dtype=x.dtype)
    want = np.where(m != 0, want, z0)
    np.testing.assert_array_equal(out["Z"], want)
    old = out["O"].reshape(progs, block)
    assert (old[:, m == 0] == 0).all()          # masked-off elements return 0
    assert all(np.isin(z0[j], old[:, j]) for j in np.flatnonzero(m))   # the first program saw z0


def test_float_max_min_signed_zeros():
    src = """
@triton.jit
def k(X, MX, MN):
    i = tl.program_id(0)
    x = tl.load(X + i)
    tl.atomic_max(MX + i, x)
    tl.atomic_min(MN + i, x)
"""
    x = np.array([-0.0, 0.0, -3.5, 2.0], np.float32)
    mx0 = np.array([np.finfo(np.float32).min, -0.0, -4.0, 3.0], np.float32)
    mn0 = np.array([np.finfo(np.float32).max, -0.0, -3.0, 1.0], np.float32)
    out = run(src, "*fp32,*fp32,*fp32", {"X": x, "MX": mx0.copy(), "MN": mn0.copy()}, grid=(4,))
    np.testing.assert_array_equal(out["MX"].view(np.uint32),
                                  np.array([-0.0, 0.0, -3.5, 3.0], np.float32).view(np.uint32))
    np.testing.assert_array_equal(out["MN"].view(np.uint32),
                                  np.array([-0.0, -0.0, -3.5, 1.0], np.float32).view(np.uint32))
