"""RVV integer ops against numpy for every SEW and LMUL, with per-program vl (tails) and v0 masks."""
import numpy as np
import pytest

from tests.sim.vhelpers import ST, UT, expected, rand_ints, vlmax, vrun


def trunc_div(a, b):
    """RISC-V signed division on Python ints."""
    if b == 0:
        return -1
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def ref_int(op, a, b, sew):
    """Reference on int arrays of the SEW signed type; b broadcastable."""
    s, u = ST[sew], UT[sew]
    au, bu = a.view(u), np.broadcast_to(b, a.shape).astype(s).view(u)
    bs = bu.view(s)
    mask = u(sew - 1)
    with np.errstate(all="ignore"):
        simple = {
            "add": lambda: au + bu, "sub": lambda: au - bu, "rsub": lambda: bu - au, "mul": lambda: au * bu,
            "and": lambda: au & bu, "or": lambda: au | bu, "xor": lambda: au ^ bu,
            "sll": lambda: au << (bu & mask), "srl": lambda: au >> (bu & mask),
            "sra": lambda: (a >> (bs & s(sew - 1))).view(u),
            "min": lambda: np.minimum(a, bs).view(u), "max": lambda: np.maximum(a, bs).view(u),
            "minu": lambda: np.minimum(au, bu), "maxu": lambda: np.maximum(au, bu),
        }
        if op in simple:
            return simple[op]().view(s)
    out = np.empty(a.shape, s)
    mn = -(1 << (sew - 1))
    for idx in np.ndindex(a.shape):
        x, y = int(a[idx]), int(bs[idx])
        xu, yu = int(au[idx]), int(bu[idx])
        if op == "mulh":
            r = (x * y) >> sew
        elif op == "div":
            r = x if (x == mn and y == -1) else trunc_div(x, y)
        elif op == "rem":
            r = 0 if (x == mn and y == -1) else (x if y == 0 else x - trunc_div(x, y) * y)
        elif op == "divu":
            r = (1 << sew) - 1 if yu == 0 else xu // yu
        elif op == "remu":
            r = xu if yu == 0 else xu % yu
        else:
            raise KeyError(op)
        out[idx] = np.array(r & ((1 << sew) - 1), dtype=np.uint64).astype(u).view(s)
    return out


SIMPLE_OPS = ["add", "sub", "mul", "and", "or", "xor", "sll", "srl", "sra", "min", "max", "minu", "maxu"]
DIV_OPS = ["mulh", "div", "divu", "rem", "remu"]
CONFIGS = [(8, 1), (16, 2), (32, 8), (64, 4), (32, 1), (8, 8)]


def data(sew, lmul, seed, progs=3):
    rng = np.random.default_rng(seed)
    vm = vlmax(sew, lmul)
    A = rand_ints(rng, sew, (progs, vm))
    B = rand_ints(rng, sew, (progs, vm))
    B.reshape(-1)[3::11] = 0
    C = rand_ints(rng, sew, (progs, vm))
    M = rng.integers(0, 2, (progs, vm))
    N = np.array([vm, max(vm - 3, 0), vm // 2 + 1][:progs], np.int64)
    return A, B, C, M, N


@pytest.mark.parametrize("sew,lmul", CONFIGS)
@pytest.mark.parametrize("op", SIMPLE_OPS + DIV_OPS)
def test_vv_ops(op, sew, lmul):
    if op in DIV_OPS and lmul > 2:
        lmul = 1   # keep the Python reference loop short
    A, B, C, M, N = data(sew, lmul, seed=sew * 100 + lmul)
    mn = {"div": "vdiv", "divu": "vdivu", "rem": "vrem", "remu": "vremu", "mulh": "vmulh"}.get(op, "v" + op)
    for masked in (False, True):
        got, _ = vrun(sew, lmul, f"{mn}.vv v24, v8, v16" + (", v0.t" if masked else ""), A, B, C, M, N)
        np.testing.assert_array_equal(got, expected(C, ref_int(op, A, B, sew), M, N, masked), err_msg=f"{op}")


@pytest.mark.parametrize("sew,lmul", [(8, 2), (32, 4), (64, 1)])
@pytest.mark.parametrize("op", ["add", "sub", "rsub", "and", "or", "xor", "sll", "srl", "sra", "min", "maxu", "mul",
                                "divu", "rem"])
def test_vx_and_vi_ops(op, sew, lmul):
    A, B, C, M, N = data(sew, lmul, seed=7)
    mn = "v" + op
    for scalar in (-3, 5, -(1 << 40) + 77):
        got, _ = vrun(sew, lmul, f"{mn}.vx v24, v8, a5, v0.t", A, B, C, M, N, scalar=scalar)
        b = np.array(scalar & ((1 << sew) - 1), np.uint64).astype(UT[sew]).view(ST[sew])
        np.testing.assert_array_equal(got, expected(C, ref_int(op, A, b, sew), M, N, True), err_msg=f"{op} {scalar}")
    if op in ("add", "rsub", "and", "or", "xor"):
        got, _ = vrun(sew, lmul, f"{mn}.vi v24, v8, -7", A, B, C, M, N)
        np.testing.assert_array_equal(got, expected(C, ref_int(op, A, ST[sew](-7), sew), M, N, False))
    if op in ("sll", "srl", "sra"):
        got, _ = vrun(sew, lmul, f"{mn}.vi v24, v8, 5", A, B, C, M, N)
        np.testing.assert_array_equal(got, expected(C, ref_int(op, A, ST[sew](5), sew), M, N, False))


CMP = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
       "ltu": np.less, "leu": np.less_equal, "gtu": np.greater}


@pytest.mark.parametrize("sew,lmul", [(8, 8), (32, 2), (64, 1)])
@pytest.mark.parametrize("op", sorted(CMP))
def test_compares_write_masks_used_by_vmerge(op, sew, lmul):
    """vms<op> computes v0 from A and B; vmerge.vvm then picks A or B; masked-off bits and tails keep C."""
    A, B, C, M, N = data(sew, lmul, seed=11)
    B.reshape(-1)[::5] = A.reshape(-1)[::5]
    unsigned = op.endswith("u")
    a, b = (A.view(UT[sew]), B.view(UT[sew])) if unsigned else (A, B)
    form = "vv" if op not in ("gt", "gtu") else "vx"
    second = "v16" if form == "vv" else "a5"
    body = f"vms{op}.{form} v0, v8, {second}\n    vmerge.vvm v24, v16, v8, v0"
    scalar = 3
    got, _ = vrun(sew, lmul, body, A, B, C, M, N, scalar=scalar)
    bb = b if form == "vv" else np.array(scalar, b.dtype)
    cond = CMP[op](a, bb)
    np.testing.assert_array_equal(got, expected(C, np.where(cond, A, B), M, N, False))


def test_masked_compare_leaves_inactive_mask_bits_and_vmerge_vx_vi():
    sew, lmul = 32, 1
    A, B, C, M, N = data(sew, lmul, seed=12)
    # v0 (from M) gates the compare; inactive bits of the destination v1 keep the old v0 bits (copied first)
    body = ("vmand.mm v1, v0, v0\n    vmslt.vv v1, v8, v16, v0.t\n    vmand.mm v0, v1, v1\n"
            "    vmerge.vxm v24, v8, a5, v0")
    got, _ = vrun(sew, lmul, body, A, B, C, M, N, scalar=-9)
    cond = np.where(M != 0, A < B, False)
    np.testing.assert_array_equal(got, expected(C, np.where(cond, np.int32(-9), A), M, N, False))
    got, _ = vrun(sew, lmul, "vmerge.vim v24, v8, 7, v0", A, B, C, M, N)
    np.testing.assert_array_equal(got, expected(C, np.where(M != 0, np.int32(7), A), M, N, False))


MASK_OPS = {"vmand": lambda a, b: a & b, "vmor": lambda a, b: a | b, "vmxor": lambda a, b: a ^ b,
            "vmnand": lambda a, b: ~(a & b), "vmandn": lambda a, b: a & ~b, "vmorn": lambda a, b: a | ~b,
            "vmnor": lambda a, b: ~(a | b), "vmxnor": lambda a, b: ~(a ^ b)}


@pytest.mark.parametrize("op", sorted(MASK_OPS))
def test_mask_logic(op):
    sew, lmul = 16, 2
    A, B, C, M, N = data(sew, lmul, seed=13)
    body = f"vmslt.vv v1, v8, v16\n    {op}.mm v0, v1, v0\n    vmerge.vim v24, v8, 1, v0"
    got, _ = vrun(sew, lmul, body, A, B, C, M, N)
    cond = MASK_OPS[op](A < B, M != 0)
    np.testing.assert_array_equal(got, expected(C, np.where(cond, np.int16(1), A), M, N, False))


def test_vmv_vid_and_scalar_moves():
    sew, lmul = 32, 4
    A, B, C, M, N = data(sew, lmul, seed=14)
    got, _ = vrun(sew, lmul, "vmv.v.x v24, a5", A, B, C, M, N, scalar=-42)
    np.testing.assert_array_equal(got, expected(C, np.int32(-42), M, N, False))
    got, _ = vrun(sew, lmul, "vmv.v.i v24, -3", A, B, C, M, N)
    np.testing.assert_array_equal(got, expected(C, np.int32(-3), M, N, False))
    got, _ = vrun(sew, lmul, "vmv.v.v v24, v8", A, B, C, M, N)
    np.testing.assert_array_equal(got, expected(C, A, M, N, False))
    got, _ = vrun(sew, lmul, "vid.v v24, v0.t", A, B, C, M, N)
    np.testing.assert_array_equal(got, expected(C, np.arange(C.shape[1], dtype=np.int32)[None], M, N, True))
    # vmv.x.s reads element 0 (sign-extended); vmv.s.x writes element 0 only
    got, _ = vrun(sew, lmul, "vmv.x.s t4, v8\n    vmv.s.x v24, t4\n    vadd.vx v24, v24, zero", A, B, C, M, N)
    exp = C.copy()
    exp[:, 0] = A[:, 0]
    np.testing.assert_array_equal(got, exp)


RED = {"sum": lambda x: np.add.reduce(x), "max": np.max, "min": np.min, "and": np.bitwise_and.reduce,
       "or": np.bitwise_or.reduce, "xor": np.bitwise_xor.reduce}


@pytest.mark.parametrize("sew,lmul", [(8, 4), (32, 8), (64, 2)])
@pytest.mark.parametrize("op", ["sum", "max", "maxu", "min", "minu", "and", "or", "xor"])
def test_reductions(op, sew, lmul):
    A, B, C, M, N = data(sew, lmul, seed=15)
    got, _ = vrun(sew, lmul, f"vred{op}.vs v24, v8, v16, v0.t", A, B, C, M, N)
    exp = C.copy()
    for p in range(C.shape[0]):
        act = (np.arange(C.shape[1]) < N[p]) & (M[p] != 0)
        unsigned = op.endswith("u")
        x = (A[p].view(UT[sew]) if unsigned else A[p])[act]
        init = (B[p].view(UT[sew]) if unsigned else B[p])[0]
        base = op[:-1] if unsigned else op
        with np.errstate(over="ignore"):
            r = RED[base](np.concatenate([[init], x]).astype(x.dtype))
        if N[p] > 0:
            exp[p, 0] = np.array(r).astype(x.dtype).view(ST[sew])
    np.testing.assert_array_equal(got, exp)


@pytest.mark.parametrize("sew,lmul", [(8, 2), (32, 4), (64, 1)])
@pytest.mark.parametrize("off", [0, 1, 5, 31])
def test_vslidedown_vi(sew, lmul, off):
    """vd[i] = vs2[i + off] for the active body elements, 0 past VLMAX; tails and masked-off elements keep C's."""
    A, B, C, M, N = data(sew, lmul, seed=16 + off)
    vm = vlmax(sew, lmul)
    src = np.zeros_like(A)
    if off < vm:
        src[:, :vm - off] = A[:, off:]
    got, _ = vrun(sew, lmul, f"vslidedown.vi v24, v8, {off}", A, B, C, M, N)
    np.testing.assert_array_equal(got, expected(C, src, M, N, False))
    got, _ = vrun(sew, lmul, f"vslidedown.vi v24, v8, {off}, v0.t", A, B, C, M, N)
    np.testing.assert_array_equal(got, expected(C, src, M, N, True))


def test_vslidedown_then_reduction_sums_a_row_after_its_first_element():
    """The fused row sum's pair: vfredusum.vs of the row slid down by one, at vl = n - 1, starting from element 0
    of the row itself, equals the sum a reduction of elements 1.. into element 0 gives (the same additions)."""
    sew, lmul = 32, 4
    rng = np.random.default_rng(3)
    A = rng.standard_normal((4, 64)).astype(np.float32)
    B = rng.standard_normal((4, 64)).astype(np.float32)
    C = np.zeros((4, 64), np.float32)
    N = np.array([63, 63, 40, 1])
    got, _ = vrun(sew, lmul, "vslidedown.vi v16, v8, 1\n    vfredusum.vs v24, v16, v8", A, B, C, N=N)
    for p in range(4):
        want = A[p, 0] + np.add.reduce(A[p, 1:N[p] + 1], dtype=np.float32)
        assert got[p, 0].tobytes() == np.float32(want).tobytes()
