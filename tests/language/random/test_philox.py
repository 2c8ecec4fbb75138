"""tl.philox_impl, tl.philox, tl.randint4x and tl.randint compiled and run on the simulator, bit for bit against
the numpy model (reference.py): Random123's known answers through philox_impl (4x32 and 4x64, 10 and 7 rounds),
then Triton's seed and offset rules: 32-bit seeds sign- or zero-extended by their type, 64-bit seeds split into the
two key words, int32 / int16 / int64 offsets (the high word of an int64 offset is the second counter word),
constexpr seeds, scalar offsets, a block seed, and 64-bit counters (Philox-4x64, whose scalar results are (1,)
blocks, as Triton's `tl.full((1,), 0)` key makes them)."""
import numpy as np
import pytest

from tests.language.harness import launch
from tests.language.random import reference as ref
from tests.language.random.test_reference import KAT_32, KAT_64

KAT_KERNEL = '''
@triton.jit
def k(C0, C1, C2, C3, K0, K1, Y, N: tl.constexpr):
    i = tl.arange(0, N)
    c0, c1, c2, c3 = tl.load(C0 + i), tl.load(C1 + i), tl.load(C2 + i), tl.load(C3 + i)
    k0, k1 = tl.load(K0 + i), tl.load(K1 + i)
    a, b, c, d = tl.philox_impl(c0, c1, c2, c3, k0, k1)
    e, f, g, h = tl.philox_impl(c0, c1, c2, c3, k0, k1, n_rounds=7)
    tl.store(Y + i * 8 + 0, a)
    tl.store(Y + i * 8 + 1, b)
    tl.store(Y + i * 8 + 2, c)
    tl.store(Y + i * 8 + 3, d)
    tl.store(Y + i * 8 + 4, e)
    tl.store(Y + i * 8 + 5, f)
    tl.store(Y + i * 8 + 6, g)
    tl.store(Y + i * 8 + 7, h)
'''


@pytest.mark.parametrize("bits, kat", [(32, KAT_32), (64, KAT_64)])
def test_philox_impl_known_answers(bits, kat):
    """Each Random123 vector of both round counts, one per element (padded to 8 with seeded random ones)."""
    t = np.uint32 if bits == 32 else np.uint64
    rng = np.random.default_rng(bits)
    cases = [(c, k) for _, c, k, _ in kat]
    cases += [(tuple(int(v) for v in rng.integers(0, 2 ** bits, 4, dtype=t)),
               tuple(int(v) for v in rng.integers(0, 2 ** bits, 2, dtype=t))) for _ in range(8 - len(cases))]
    cols = {f"C{j}": np.array([c[j] for c, _ in cases], t) for j in range(4)}
    cols.update({f"K{j}": np.array([k[j] for _, k in cases], t) for j in range(2)})
    sig = ",".join([f"*u{bits}"] * 7)
    y = launch(KAT_KERNEL, sig, dict(cols, Y=np.zeros(64, t)), defines=(("N", "8"),)).outputs["Y"].reshape(8, 8)
    model = ref.philox4x32 if bits == 32 else ref.philox4x64
    for rounds, half in ((10, 0), (7, 4)):
        want = model([cols[f"C{j}"] for j in range(4)], [cols["K0"], cols["K1"]], rounds) if bits == 32 else \
            [np.array([model([np.array([cols[f"C{j}"][e]], t) for j in range(4)],
                             (cols["K0"][e], cols["K1"][e]), rounds)[w][0] for e in range(8)], t) for w in range(4)]
        np.testing.assert_array_equal(y[:, half:half + 4], np.stack(want, 1), err_msg=f"{rounds} rounds")
    for rounds, ctr, key, answer in kat:     # the published answers themselves, not only the model's
        e = cases.index((ctr, key))
        assert tuple(int(v) for v in y[e, (0 if rounds == 10 else 4):][:4]) == answer


RANDINT_KERNEL = '''
@triton.jit
def k(O, Y, seed, N, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < N
    off = tl.load(O + i, mask=m, other=0)
    a, b, c, d = tl.randint4x(seed, off)
    tl.store(Y + i * 6 + 0, a, mask=m)
    tl.store(Y + i * 6 + 1, b, mask=m)
    tl.store(Y + i * 6 + 2, c, mask=m)
    tl.store(Y + i * 6 + 3, d, mask=m)
    tl.store(Y + i * 6 + 4, tl.randint(seed, off), mask=m)
    tl.store(Y + i * 6 + 5, tl.randint(seed, off, n_rounds=7), mask=m)
'''


def offsets(dtype, n: int = 300) -> np.ndarray:
    """Seeded offsets of ``dtype``, edge values first (0, 1, extremes, and for int64 values around 2**32)."""
    info = np.iinfo(dtype)
    edges = [0, 1, 2, info.max, info.min, info.max - 1, -1 if info.min < 0 else 7]
    if info.bits == 64:
        edges += [2 ** 32 - 1, 2 ** 32, 2 ** 32 + 1, 3 << 40, -(2 ** 32), 0x0123456789ABCDEF]
    rng = np.random.default_rng(info.bits)
    return np.concatenate([np.array(edges, dtype), rng.integers(info.min, info.max, n - len(edges), dtype,
                                                                endpoint=True)])


SEED_TYPES = {"i32": np.int32, "i64": np.int64, "u32": np.uint32, "u64": np.uint64}


def run_randint(odtype, seed_sig: str, seed):
    """RANDINT_KERNEL over ``offsets(odtype)``; the seed a parameter of type ``seed_sig``, or with ``seed_sig``
    empty a constexpr (``-D seed=...``)."""
    off = offsets(odtype)
    n = len(off)
    args = {"O": off, "Y": np.zeros(6 * n, np.uint32), "N": np.array(n, np.int32)}
    defines = (("BLOCK", "128"),)
    if seed_sig:
        src, sig = RANDINT_KERNEL, f"*i{off.dtype.itemsize * 8},*u32,{seed_sig},i32"
        args["seed"] = np.array(seed, SEED_TYPES[seed_sig])
    else:
        src, sig = RANDINT_KERNEL.replace("seed, N,", "N, seed: tl.constexpr,"), f"*i{off.dtype.itemsize * 8},*u32,i32"
        defines += (("seed", str(seed)),)
    y = launch(src, sig, args, grid=(-(-n // 128),), defines=defines).outputs["Y"]
    return off, y.reshape(n, 6)


def check_randint(off, y, seed, seed_bits):
    want = ref.randint4x(seed, off, seed_bits=seed_bits)
    for j in range(4):
        np.testing.assert_array_equal(y[:, j], want[j], err_msg=f"word {j}")
    np.testing.assert_array_equal(y[:, 4], want[0])
    np.testing.assert_array_equal(y[:, 5], ref.randint4x(seed, off, rounds=7, seed_bits=seed_bits)[0])


# (offset type, seed parameter type, seeds): int32 seeds sign-extend into the high key word (-1 -> both words
# 0xffffffff), uint32 ones do not (0xffffffff -> high word 0), int64 seeds give both words (a seed >= 2**31 passed
# as int64 has a zero high word, as Triton types a Python seed that does not fit int32)
RANDINT_CASES = [
    (np.int32, "i32", [0, 42, -1, 2 ** 31 - 1, -(2 ** 31)]),
    (np.int32, "u32", [0xFFFFFFFF, 2 ** 31, 123]),
    (np.int64, "i64", [0x0000000FCAFEB0BA, 2 ** 31 + 5, 2 ** 32, -3, 2 ** 63 - 1, -(2 ** 63)]),
    (np.int16, "u64", [2 ** 64 - 1, 0xDEADBEEF00000001]),
]


@pytest.mark.parametrize("odtype, seed_sig, seeds", RANDINT_CASES, ids=lambda v: getattr(v, "__name__", None))
def test_randint4x_seed_and_offset_types(odtype, seed_sig, seeds):
    bits = int(seed_sig[1:])
    for seed in seeds:
        off, y = run_randint(odtype, seed_sig, seed)
        check_randint(off, y, seed, bits if seed_sig[0] == "i" else 64)


@pytest.mark.parametrize("seed", [3_000_000_000, -5, 0x0000000FCAFEB0BA])
def test_randint4x_constexpr_seed(seed):
    """A constexpr seed takes its literal type: 3e9 is uint32 (high word 0), -5 int32 (sign-extended), a 36-bit
    one int64."""
    off, y = run_randint(np.int64, "", seed)
    check_randint(off, y, seed, 64)


SCALAR_KERNEL = '''
from triton.language.random import randint


@triton.jit
def k(Y, seed, base):
    pid = tl.program_id(0)
    off = base + pid
    a, b, c, d = tl.randint4x(seed, off)
    tl.static_assert(a.shape == ())
    tl.store(Y + pid * 5 + 0, a)
    tl.store(Y + pid * 5 + 1, b)
    tl.store(Y + pid * 5 + 2, c)
    tl.store(Y + pid * 5 + 3, d)
    tl.store(Y + pid * 5 + 4, randint(seed, pid))
'''


def test_randint4x_scalar_offset():
    """A scalar int64 offset (a parameter >= 2**32 plus the program id) gives scalars; and an int32 one (through
    `from triton.language.random import randint`)."""
    seed, base, progs = 0x12345678ABCDEF, 2 ** 33 - 3, 6
    y = launch(SCALAR_KERNEL, "*u32,i64,i64", {"Y": np.zeros(5 * progs, np.uint32), "seed": np.array(seed, np.int64),
                                               "base": np.array(base, np.int64)}, grid=(progs,)).outputs["Y"]
    y = y.reshape(progs, 5)
    want = ref.randint4x(seed, np.arange(progs, dtype=np.int64) + base)
    np.testing.assert_array_equal(y[:, :4], np.stack(want, 1))
    np.testing.assert_array_equal(y[:, 4], ref.randint4x(seed, np.arange(progs, dtype=np.int32))[0])


BLOCK_SEED_KERNEL = '''
@triton.jit
def k(S, Y, N: tl.constexpr):
    i = tl.arange(0, N)
    seeds = tl.load(S + i)
    off = i[:, None] * N + i[None, :]
    a, b, c, d = tl.randint4x(seeds[:, None], off)
    o = off * 4
    tl.store(Y + o, a)
    tl.store(Y + o + 1, b)
    tl.store(Y + o + 2, c)
    tl.store(Y + o + 3, d)
'''


def test_randint4x_block_of_seeds():
    """One seed per row (a block seed broadcast against a 2-D offset block): Triton's tutorial exercise."""
    n = 8
    seeds = np.array([0, 1, -1, 2 ** 62 + 7, -(2 ** 40), 99, 2 ** 32, 5], np.int64)
    y = launch(BLOCK_SEED_KERNEL, "*i64,*u32", {"S": seeds, "Y": np.zeros(4 * n * n, np.uint32)},
               defines=(("N", str(n)),)).outputs["Y"].reshape(n, n, 4)
    for r, s in enumerate(seeds):
        want = ref.randint4x(int(s), np.arange(r * n, r * n + n, dtype=np.int32))
        np.testing.assert_array_equal(y[r], np.stack(want, 1), err_msg=f"row {r}")


PHILOX_32_KERNEL = '''
@triton.jit
def k(C, Y, seed, N: tl.constexpr):
    i = tl.arange(0, N)
    c = tl.load(C + i)
    a, b, cc, d = tl.philox(seed, c, c + 1, i, 7, n_rounds=7)
    tl.store(Y + i * 4, a)
    tl.store(Y + i * 4 + 1, b)
    tl.store(Y + i * 4 + 2, cc)
    tl.store(Y + i * 4 + 3, d)
'''


def test_philox_32_bit_counters():
    """tl.philox with int32 counters (one of them a Python int) is Philox-4x32 keyed by the seed's two words."""
    n, seed = 16, -0x123456789A
    c = np.concatenate([np.array([0, -1, 2 ** 31 - 1, -(2 ** 31)], np.int32),
                        np.random.default_rng(4).integers(-2 ** 31, 2 ** 31, n - 4, dtype=np.int32)])
    y = launch(PHILOX_32_KERNEL, "*i32,*u32,i64", {"C": c, "Y": np.zeros(4 * n, np.uint32),
                                                  "seed": np.array(seed, np.int64)},
               defines=(("N", str(n)),)).outputs["Y"]
    u = c.view(np.uint32)
    want = ref.philox4x32((u, u + np.uint32(1), np.arange(n, dtype=np.uint32), 7), ref.seed_words(seed), rounds=7)
    np.testing.assert_array_equal(y.reshape(n, 4), np.stack(want, 1))


PHILOX_64_KERNEL = '''
@triton.jit
def k(W0, W1, W2, W3, Z, S, seed, c0, N: tl.constexpr):
    i = tl.arange(0, N)
    e, f, g, h = tl.philox(seed, tl.load(W0 + i), tl.load(W1 + i), tl.load(W2 + i), tl.load(W3 + i))
    tl.store(Z + i * 4, e)
    tl.store(Z + i * 4 + 1, f)
    tl.store(Z + i * 4 + 2, g)
    tl.store(Z + i * 4 + 3, h)
    p, q, r, s = tl.philox(seed, c0, 1, -1, 3)
    tl.static_assert(p.shape == (1,))
    j = tl.arange(0, 1)
    tl.store(S + j * 4, p)
    tl.store(S + j * 4 + 1, q)
    tl.store(S + j * 4 + 2, r)
    tl.store(S + j * 4 + 3, s)
'''


def test_philox_64_bit_counters():
    """tl.philox with 64-bit counters is Philox-4x64 with the key (seed, 0); scalar counters give (1,) blocks."""
    n, seed, c0 = 8, -0x123456789A, 0xFEDCBA9876543210
    rng = np.random.default_rng(64)
    w = [rng.integers(-2 ** 63, 2 ** 63, n, dtype=np.int64, endpoint=False) for _ in range(4)]
    w[0][:2] = [0, -1]
    out = launch(PHILOX_64_KERNEL, "*i64,*i64,*i64,*i64,*u64,*u64,i64,u64",
                 {**{f"W{j}": w[j] for j in range(4)}, "Z": np.zeros(4 * n, np.uint64), "S": np.zeros(4, np.uint64),
                  "seed": np.array(seed, np.int64), "c0": np.array(c0, np.uint64)}, defines=(("N", str(n)),))
    want = ref.philox4x64([x.view(np.uint64) for x in w], (seed % 2 ** 64, 0))
    np.testing.assert_array_equal(out.outputs["Z"].reshape(n, 4), np.stack(want, 1))
    want = ref.philox4x64([np.array([v], np.uint64) for v in (c0, 1, 2 ** 64 - 1, 3)], (seed % 2 ** 64, 0))
    np.testing.assert_array_equal(out.outputs["S"], np.concatenate(want))
