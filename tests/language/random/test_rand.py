"""tl.rand, tl.rand4x, tl.uint_to_uniform_float (bit for bit), tl.randn, tl.randn4x and tl.pair_uniform_to_normal
(within a few ULP: they go through log, sqrt, cos and sin), compiled and run on the simulator against the numpy model
of Triton's definitions (reference.py)."""
import numpy as np
import pytest

from tests.language.harness import launch, ulps
from tests.language.random import reference as ref
from tests.language.random.test_philox import offsets

RAND_KERNEL = '''
@triton.jit
def k(O, Y, seed, N, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < N
    off = tl.load(O + i, mask=m, other=0)
    a, b, c, d = tl.rand4x(seed, off)
    tl.store(Y + i * 5 + 0, a, mask=m)
    tl.store(Y + i * 5 + 1, b, mask=m)
    tl.store(Y + i * 5 + 2, c, mask=m)
    tl.store(Y + i * 5 + 3, d, mask=m)
    tl.store(Y + i * 5 + 4, tl.rand(seed, off), mask=m)
'''


def bits_equal(got: np.ndarray, want: np.ndarray, what: str):
    bad = np.flatnonzero(got.view(np.uint32) != want.astype(np.float32).view(np.uint32))
    assert not len(bad), f"{what}: {len(bad)} differ, e.g. [{bad[0]}] got {got[bad[0]]!r}, want {want[bad[0]]!r}"


@pytest.mark.parametrize("odtype, seeds", [(np.int32, [0, 42, -1, 0xCAFE]),
                                           (np.int64, [0x0000000FCAFEB0BA, 2 ** 31 + 1, -7])],
                         ids=["int32", "int64"])
def test_rand_and_rand4x_bit_exact(odtype, seeds):
    off = offsets(odtype, 512)
    n = len(off)
    for seed in seeds:
        y = launch(RAND_KERNEL, f"*i{off.dtype.itemsize * 8},*fp32,i64,i32",
                   {"O": off, "Y": np.zeros(5 * n, np.float32), "seed": np.array(seed, np.int64),
                    "N": np.array(n, np.int32)}, grid=(-(-n // 128),), defines=(("BLOCK", "128"),)).outputs["Y"]
        y = y.reshape(n, 5)
        words = ref.randint4x(seed, off)
        for j in range(4):
            bits_equal(y[:, j], ref.uint_to_uniform_float(words[j]), f"seed {seed}, rand4x word {j}")
        bits_equal(y[:, 4], ref.uint_to_uniform_float(words[0]), f"seed {seed}, rand")
        assert ((y >= 0) & (y < 1)).all()


UNIFORM_KERNEL = '''
@triton.jit
def k(X, Y, N: tl.constexpr):
    i = tl.arange(0, N)
    tl.store(Y + i, tl.random.uint_to_uniform_float(tl.load(X + i)))
'''


@pytest.mark.parametrize("t", [np.uint32, np.int32, np.uint64, np.int64])
def test_uint_to_uniform_float_extremes(t):
    """The extremes map just below 1.0 (Triton's test_rand_limits), the rest bit for bit; reached as
    tl.random.uint_to_uniform_float, as Triton's tests spell it."""
    info = np.iinfo(t)
    edges = np.array([0, 1, info.max, info.max - 1, info.min, info.min + 1, info.max // 2, info.max // 2 + 1], t)
    x = np.concatenate([edges, np.random.default_rng(3).integers(info.min, info.max, 56, t, endpoint=True)])
    sig = f"*{'u' if info.min == 0 else 'i'}{info.bits},*fp32"
    y = launch(UNIFORM_KERNEL, sig, {"X": x, "Y": np.zeros(64, np.float32)}, defines=(("N", "64"),)).outputs["Y"]
    bits_equal(y, ref.uint_to_uniform_float(x), str(t))
    top = y[6:8] if info.min == 0 else y[[2, 4]]        # the words 0x7f..f and 0x80..0
    assert np.all(top < 1.0) and np.all(top >= np.float32(1.0) - np.finfo(np.float32).eps)


RANDN_KERNEL = '''
@triton.jit
def k(O, Y, seed, N, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < N
    off = tl.load(O + i, mask=m, other=0)
    a, b, c, d = tl.randn4x(seed, off)
    tl.store(Y + i * 5 + 0, a, mask=m)
    tl.store(Y + i * 5 + 1, b, mask=m)
    tl.store(Y + i * 5 + 2, c, mask=m)
    tl.store(Y + i * 5 + 3, d, mask=m)
    tl.store(Y + i * 5 + 4, tl.randn(seed, off, n_rounds=7), mask=m)
'''
# randn goes through log, sqrt, cos and sin.  Their fp32 results here are within 1 ULP of the correctly rounded
# ones (docs/language.md, sqrt exact), the model's are correctly rounded: a 1-ULP log error moves
# r = sqrt(-2 log u1) by at most 1/2 ULP relative, and r * cos(th) adds cos's ULP and one rounding, so an element
# may differ by a few ULP; the bound is what the analysis allows, the fraction of exact elements is checked too.
RANDN_ULPS = 4


def check_normal(got: np.ndarray, want: np.ndarray, what: str):
    d = ulps(got, want.astype(np.float64))
    assert d.max() <= RANDN_ULPS, f"{what}: {d.max()} ULP at [{d.argmax()}]: got {got[d.argmax()]!r}, " \
                                  f"want {want[d.argmax()]!r}"
    assert (d == 0).mean() > 0.5, f"{what}: only {(d == 0).mean():.0%} bit for bit"


@pytest.mark.parametrize("odtype, seed", [(np.int32, 123), (np.int64, -0x0000000FCAFEB0BA)], ids=["int32", "int64"])
def test_randn_and_randn4x(odtype, seed):
    off = offsets(odtype, 1024)
    n = len(off)
    y = launch(RANDN_KERNEL, f"*i{off.dtype.itemsize * 8},*fp32,i64,i32",
               {"O": off, "Y": np.zeros(5 * n, np.float32), "seed": np.array(seed, np.int64),
                "N": np.array(n, np.int32)}, grid=(-(-n // 256),), defines=(("BLOCK", "256"),)).outputs["Y"]
    y = y.reshape(n, 5)
    u = [ref.uint_to_uniform_float(w) for w in ref.randint4x(seed, off)]
    n1, n2 = ref.pair_uniform_to_normal(u[0], u[1])
    n3, n4 = ref.pair_uniform_to_normal(u[2], u[3])
    for j, want in enumerate((n1, n2, n3, n4)):
        check_normal(y[:, j], want, f"randn4x word {j}")
    u7 = [ref.uint_to_uniform_float(w) for w in ref.randint4x(seed, off, rounds=7)[:2]]
    check_normal(y[:, 4], ref.pair_uniform_to_normal(*u7)[0], "randn")
    assert abs(y.mean()) < 0.05 and abs(y.std() - 1) < 0.05


PAIR_KERNEL = '''
@triton.jit
def k(U1, U2, Y, Z, N: tl.constexpr):
    i = tl.arange(0, N)
    a, b = tl.pair_uniform_to_normal(tl.load(U1 + i), tl.load(U2 + i))
    tl.store(Y + i, a)
    tl.store(Z + i, b)
'''


def test_pair_uniform_to_normal_edges():
    """u1 = 0 is clamped to 1e-7 (r = 5.68), u1 close to 1 gives r near 0; th over the whole turn."""
    n = 256
    rng = np.random.default_rng(9)
    u1 = rng.random(n, dtype=np.float32)
    u2 = rng.random(n, dtype=np.float32)
    u1[:6] = [0.0, 1e-9, 1e-7, 0.99999994, 0.5, 2 ** -24]
    u2[:6] = [0.0, 0.25, 0.5, 0.75, 0.99999994, 0.125]
    out = launch(PAIR_KERNEL, "*fp32,*fp32,*fp32,*fp32", {"U1": u1, "U2": u2, "Y": np.zeros(n, np.float32),
                                                          "Z": np.zeros(n, np.float32)}, defines=(("N", str(n)),))
    n1, n2 = ref.pair_uniform_to_normal(u1, u2)
    check_normal(out.outputs["Y"], n1, "cos half")
    check_normal(out.outputs["Z"], n2, "sin half")
    assert out.outputs["Y"][0] == np.sqrt(np.float32(-2.0) * ref.f32(np.log(np.float64(np.float32(1e-7)))))
