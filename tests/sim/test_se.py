"""The SIMD engine (``mtia.se.<function>.v``): values, accuracy against float64, masks and tails, timing on a
unit of its own, statistics and the trace's ``se`` track."""
import math

import numpy as np
import pytest

from mtiacc.asm.isa import SE_FUNCTIONS
from mtiacc.diagnostics import UsageError, UserError
from mtiacc.machine import MACHINE_DIR, load
from mtiasim import timing
from mtiacc.machine.simulator import load_config
from mtiasim.se.accuracy import inputs, measure
from mtiasim.se.model import REFERENCE, Accuracy, evaluate, round_bits
from tests.sim.helpers import run_asm
from tests.sim.test_vector_float import check
from tests.sim.vhelpers import FT, expected, vlmax, vrun

CFG = load_config()


def _args(fn, shape, seed, dtype):
    """Seeded arguments from the function's domain (and a few special values), shaped ``shape``."""
    n = int(np.prod(shape))
    x = inputs(fn, 4 * n, seed)
    with np.errstate(over="ignore"):
        x = np.random.default_rng(seed).permutation(x)[:n].astype(dtype)
    x[:4] = np.array([0.0, np.nan, np.inf, 1.0], dtype)
    return x.reshape(shape)


@pytest.mark.parametrize("fn", sorted(SE_FUNCTIONS))
def test_each_function_against_numpy_with_masks_and_tails(fn):
    sew, lmul = 32, 2
    progs, vm = 3, vlmax(sew, lmul)
    rng = np.random.default_rng(SE_FUNCTIONS[fn])
    A = _args(fn, (progs, vm), SE_FUNCTIONS[fn], np.float32)
    C = rng.standard_normal((progs, vm)).astype(np.float32)
    M = rng.integers(0, 2, (progs, vm))
    N = np.array([vm, vm - 5, vm // 3])
    model = evaluate(fn, A, CFG.se.accuracy(fn))
    for masked in (False, True):
        got, _ = vrun(sew, lmul, f"mtia.se.{fn}.v v24, v8" + (", v0.t" if masked else ""), A, A, C, M, N)
        check(got, expected(C, model, M, N, masked))
    # the stated tolerance against numpy's float64: 2 ULP of fp32 (bits: 22), or 2^-22 absolute (sin, cos)
    got, _ = vrun(sew, lmul, f"mtia.se.{fn}.v v24, v8", A, A, C)
    with np.errstate(all="ignore"):
        ref = REFERENCE[fn](A.astype(np.float64))
    if CFG.se.accuracy(fn).bits:
        np.testing.assert_array_max_ulp(got, ref.astype(np.float32), maxulp=2)
    else:
        np.testing.assert_allclose(got, ref, rtol=0, atol=2.0 ** -22)


def test_fp16_is_the_table_value_rounded_to_half():
    sew, lmul = 16, 1
    A = _args("tanh", (2, vlmax(sew, lmul)), 7, np.float16)
    C = np.zeros_like(A)
    got, _ = vrun(sew, lmul, "mtia.se.tanh.v v24, v8", A, A, C)
    check(got, evaluate("tanh", A, CFG.se.accuracy("tanh")))
    np.testing.assert_array_max_ulp(got, np.tanh(A.astype(np.float64)).astype(np.float16), maxulp=1)


def _round_bits_by_frexp(v, bits):
    """The definition: ``v = m 2^e`` with ``0.5 <= |m| < 1``, ``m 2^bits`` rounded to an integer (ties to even)."""
    m, e = np.frexp(v)
    return np.ldexp(np.rint(np.ldexp(m, bits)), e - bits)


@pytest.mark.parametrize("bits", [1, 2, 10, 11, 22, 24, 51, 52, 53, 60])
def test_round_bits_is_round_to_nearest_even_at_that_many_significant_bits(bits):
    rng = np.random.default_rng(bits)
    n = 20000
    with np.errstate(all="ignore"):
        wide = rng.standard_normal(n) * 10.0 ** rng.uniform(-320, 308, n)     # normals, subnormals, the top
        k = rng.integers(1 << max(bits - 1, 0), 1 << min(bits, 62), n).astype(np.float64)
        ties = np.ldexp(2 * k + 1, rng.integers(-1080, 1000, n) - 1) * rng.choice([-1.0, 1.0], n)  # halfway
        top = np.nextafter(np.full(8, np.finfo(np.float64).max), 0) * np.array([1, -1] * 4)      # carries to inf
        special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324, 2.2250738585072014e-308])
        v = np.concatenate([wide, ties, top, special])
        want = _round_bits_by_frexp(v, bits)
        got = round_bits(v, bits)
    np.testing.assert_array_equal(got.view(np.uint64), want.view(np.uint64))


def test_sew64_is_a_fault():
    asm = """
    li t0, 4
    vsetvli t1, t0, e64, m1, ta, ma
    mtia.se.exp.v v2, v4
    ret
    """
    with pytest.raises(Exception, match=r"SEW=64: the SIMD engine computes fp32 \(e32\) and fp16 \(e16\)"):
        run_asm(asm)


@pytest.mark.parametrize("fn", sorted(SE_FUNCTIONS))
def test_measured_accuracy_meets_the_yaml(fn):
    acc = CFG.se.accuracy(fn)
    r = measure(fn, acc, n=20_000, seed=1)
    assert r["special_mismatches"] == 0
    if acc.bits:
        bound = 2.0 ** (23 - acc.bits)          # half a unit in the last of `bits` significant bits, in fp32 ULPs
        assert 0 < r["max_ulp_f64"] <= bound
        assert r["max_ulp_f32"] <= bound
    else:
        assert 0 < r["max_abs"] <= 2.0 ** -acc.abs_bits


def test_coarser_table_is_measured_coarser():
    """The model follows the YAML: 16 significant bits give errors up to 2^7 ULP, and not below 2^6."""
    r = measure("exp", Accuracy(bits=16), n=20_000, seed=2)
    assert 2 ** 6 < r["max_ulp_f64"] <= 2 ** 7


def test_yaml_errors_name_the_key(tmp_path):
    with pytest.raises(UsageError, match=r"--set se.functions.gelu.bits=20: unknown key 'se.functions.gelu.bits'"):
        load(None, ["se.functions.gelu.bits=20"])
    m = tmp_path / "m.yaml"
    text = (MACHINE_DIR / "mtia2i.yaml").read_text()
    m.write_text(text.replace("exp:     {bits: 22}", "exp:     {bits: 22, abs_bits: 3}"))
    with pytest.raises(UserError, match="'se.functions.exp' needs exactly one of 'bits' or 'abs_bits'") as e:
        load(str(m))
    assert e.value.loc.file == str(m) and "abs_bits: 3" in m.read_text().splitlines()[e.value.loc.line - 1]
    with pytest.raises(UsageError, match="'se.elements_per_cycle' must be a positive number"):
        load(None, ["se.elements_per_cycle=0"])


# ---------------------------------------------------------------------------------------------------------------
# Timing
# ---------------------------------------------------------------------------------------------------------------
def _run(body, vl=64, lmul=4):
    asm = f"""
    li t0, {vl}
    vsetvli t1, t0, e32, m{lmul}, ta, ma
    vmv.v.i v8, 1
    vmv.v.i v12, 1
    {body}
    ret
    """
    return run_asm(asm)


def test_occupancy_is_vl_over_32_elements_per_cycle():
    n = 6
    r = _run("\n".join(f"mtia.se.exp.v v{16 + 4 * (k % 4)}, v8" for k in range(n)), vl=64)
    assert r.stats.se_busy == n * math.ceil(64 / CFG.se.elements_per_cycle)
    assert r.stats.se_elements == n * 64
    assert r.stats.units()["se"]["busy_cycles"] == r.stats.se_busy
    r = _run("mtia.se.exp.v v16, v8", vl=5)
    assert r.stats.se_busy == 1


def test_se_overlaps_the_vector_unit_and_results_wait_for_its_latency():
    issue, lat = CFG.timing["SE"]
    se = "\n".join(f"mtia.se.exp.v v{16 + 4 * (k % 2)}, v8" for k in range(8))
    vec = "\n".join(f"vfadd.vv v{24 + 4 * (k % 2)}, v12, v12" for k in range(8))
    both = "\n".join(f"mtia.se.exp.v v{16 + 4 * (k % 2)}, v8\nvfadd.vv v{24 + 4 * (k % 2)}, v12, v12"
                     for k in range(8))
    c_se, c_vec, c_both = (_run(b).stats.cycles for b in (se, vec, both))
    base = _run("").stats.cycles
    # 8 x 2 SE cycles and 8 x 8 vector cycles (64 fp32 over a 256-bit datapath) overlap: the sum is not paid
    assert c_both - base < (c_se - base) + (c_vec - base) - 8
    # a vector instruction reading an SE result waits for it: the SE's occupancy and latency
    # (vl 8: one cycle of each unit, so neither unit's occupancy hides the wait)
    wait = "li t2, 1\n" * 8
    dep = _run(wait + "mtia.se.exp.v v16, v8\nvfadd.vv v24, v16, v16", vl=8, lmul=1).stats
    indep = _run(wait + "mtia.se.exp.v v16, v8\nvfadd.vv v24, v12, v12", vl=8, lmul=1).stats
    assert dep.cycles - indep.cycles == lat - issue


def test_stats_and_trace_show_the_se(monkeypatch):
    body = "\n".join(f"mtia.se.sigmoid.v v{16 + 4 * (k % 2)}, v8\nvfadd.vv v24, v12, v12" for k in range(4))
    asm = f"""
    li t0, 64
    vsetvli t1, t0, e32, m4, ta, ma
    vmv.v.i v8, 1
    vmv.v.i v12, 1
    {body}
    ret
    """
    from tests.sim.helpers import build
    from mtiasim.runner import run
    fast = run(build(asm), {}, grid=(2,), trace=True)
    assert fast.stats.to_json()["se"] == {"busy_cycles": 16.0, "elements": 512.0}
    tracks = {(e["pid"], e["args"]["name"]) for e in fast.trace if e.get("name") == "thread_name"}
    assert {(0, "se"), (1, "se")} <= tracks
    se = [e for e in fast.trace if e.get("cat") == "se"]
    us = 1e6 / CFG.clock_hz
    assert sum(e["args"]["busy_cycles"] for e in se) == 16.0
    assert all(e["dur"] >= e["args"]["busy_cycles"] * us - 1e-9 for e in se)
    orig = timing.UniformTiming.reset

    def reset_off(self):      # the per-program arrays from the start: the same spans and counts
        orig(self)
        self.materialize()
    monkeypatch.setattr(timing.UniformTiming, "reset", reset_off)
    slow = run(build(asm), {}, grid=(2,), trace=True)
    assert slow.stats.cycles == fast.stats.cycles
    assert sorted((e["pid"], e["ts"], e["dur"]) for e in slow.trace if e.get("cat") == "se") == \
        sorted((e["pid"], e["ts"], e["dur"]) for e in se)


# ---------------------------------------------------------------------------------------------------------------
# The SE's floating-point ALUs (mtia.se.f<op>.vv / .vf)
# ---------------------------------------------------------------------------------------------------------------
SE_ALU_REF = {"fadd": np.add, "fsub": np.subtract, "frsub": lambda a, b: b - a, "fmul": np.multiply,
              "fmin": np.fmin, "fmax": np.fmax}


@pytest.mark.parametrize("sew,lmul", [(16, 2), (32, 4)])
@pytest.mark.parametrize("op", sorted(SE_ALU_REF))
def test_alu_is_the_vector_units_arithmetic_with_masks_and_tails(op, sew, lmul):
    """Each SE ALU operation gives the bits numpy and the vector unit's vf<op> give, fp32 and fp16, .vv and .vf,
    masked and not, with a shorter vl in some programs."""
    from tests.sim.test_vector_float import fdata, scalar_bits
    A, B, C, M, N = fdata(sew, lmul, seed=sew + len(op))
    s = FT[sew](1.5)
    forms = [("vf", f"mtia.se.{op}.vf v24, v8, fa5", SE_ALU_REF[op](A, s))]
    if op != "frsub":
        forms.append(("vv", f"mtia.se.{op}.vv v24, v8, v16", SE_ALU_REF[op](A, B)))
    for form, body, ref in forms:
        vec = body.replace(f"mtia.se.{op}", f"v{op}")
        for masked in (False, True):
            tail = ", v0.t" if masked else ""
            got, _ = vrun(sew, lmul, body + tail, A, B, C, M, N, scalar=scalar_bits(1.5, sew))
            if op not in ("fmin", "fmax"):    # (numpy's fmin/fmax do not order -0 below +0; RVV's do)
                check(got, expected(C, ref.astype(FT[sew]), M, N, masked))
            same, _ = vrun(sew, lmul, vec + tail, A, B, C, M, N, scalar=scalar_bits(1.5, sew))
            check(got, same)


def test_alu_sew64_is_a_fault():
    asm = """
    li t0, 4
    vsetvli t1, t0, e64, m1, ta, ma
    mtia.se.fmul.vv v2, v4, v6
    ret
    """
    with pytest.raises(Exception, match=r"SEW=64: the SIMD engine computes fp32 \(e32\) and fp16 \(e16\)"):
        run_asm(asm)


def test_alu_occupancy_latency_and_its_f_register_operand():
    """An SE ALU operation occupies the SE ceil(vl / 32) cycles, beside the vector unit; a reader of its result waits
    its latency; a .vf waits for its f register (here a scalar fdiv's latency)."""
    issue, lat = CFG.timing["SEALU"]
    r = _run("\n".join(f"mtia.se.fmul.vv v{16 + 4 * (k % 4)}, v8, v12" for k in range(6)), vl=64)
    assert r.stats.se_busy == 6 * 2 and r.stats.se_elements == 6 * 64
    # 8 SE multiplies (2 cycles each) beside 8 vector adds (8 cycles each): the SE's cycles and their issue slots
    # are hidden behind the vector unit's
    both = "\n".join(f"mtia.se.fmul.vv v{16 + 4 * (k % 2)}, v8, v8\nvfadd.vv v{24 + 4 * (k % 2)}, v12, v12"
                     for k in range(8))
    vec = "\n".join(f"vfadd.vv v{24 + 4 * (k % 2)}, v12, v12" for k in range(8))
    assert _run(both).stats.cycles == _run(vec).stats.cycles
    wait = "li t2, 1\n" * 8
    dep = _run(wait + "mtia.se.fadd.vv v16, v8, v8\nvfadd.vv v24, v16, v16", vl=8, lmul=1).stats
    indep = _run(wait + "mtia.se.fadd.vv v16, v8, v8\nvfadd.vv v24, v12, v12", vl=8, lmul=1).stats
    assert dep.cycles - indep.cycles == lat - issue
    fdiv_issue, fdiv_lat = CFG.timing["FDiv"]
    pre = "li t2, 2\nfcvt.s.w fa1, t2\nfcvt.s.w fa2, t2\n" + wait
    scal = _run(pre + "fdiv.s fa3, fa1, fa2\nmtia.se.fmul.vf v16, v8, fa3", vl=8, lmul=1).stats
    free = _run(pre + "fdiv.s fa3, fa1, fa2\nmtia.se.fmul.vf v16, v8, fa1", vl=8, lmul=1).stats
    assert scal.cycles - free.cycles == fdiv_lat - fdiv_issue


# ---------------------------------------------------------------------------------------------------------------
# The SE's conversion fp32 -> fp16 (mtia.se.fncvt.f.f.w)
# ---------------------------------------------------------------------------------------------------------------
def test_fncvt_is_the_vector_units_vfncvt_with_masks_and_tails():
    """fp32 -> fp16 rounded to nearest even, NaN canonical, overflow to inf, as numpy and the vector unit's
    vfncvt.f.f.w give it, masked and not, with a shorter vl in some programs (the fp32 source a group of twice the
    destination's: v8..v11 at e16, m2)."""
    from tests.sim.test_vector_float import fdata
    _, B, C, M, _ = fdata(16, 4, seed=3)
    progs = C.shape[0]
    rng = np.random.default_rng(12)
    src = (rng.standard_normal((progs, 64)) * np.float32(3.0) ** rng.integers(-20, 20, (progs, 64))).astype(np.float32)
    src[0, :8] = [np.nan, np.inf, -np.inf, -0.0, 65520.0, 65519.996, 1e-8, 2.0 ** -24 * 1.5]
    src[1, :2] = [1 + 2.0 ** -11, 1 + 3 * 2.0 ** -11]        # ties to even: down, up
    A = src.view(np.float16)                                # 128 halves: the fp32 source's bits
    N = np.array([64, 37, 1, 64, 5, 64, 64, 64][:progs])
    setvl = "vsetvli t0, s3, e16, m2, ta, ma\n"
    for masked in (False, True):
        tail = ", v0.t" if masked else ""
        got, _ = vrun(16, 4, setvl + "mtia.se.fncvt.f.f.w v24, v8" + tail, A, B, C, M, N)
        same, _ = vrun(16, 4, setvl + "vfncvt.f.f.w v24, v8" + tail, A, B, C, M, N)
        assert np.array_equal(got.view(np.uint16), same.view(np.uint16))
        with np.errstate(over="ignore"):
            want = src.astype(np.float16).view(np.uint16)
        want = np.where(np.isnan(src), np.uint16(0x7E00), want).view(np.float16)
        wide = np.concatenate([want, C[:, 64:]], axis=1)
        check(got, expected(C, wide, M, np.minimum(N, 64), masked))


def test_fncvt_waits_for_its_whole_fp32_source_and_takes_the_alus_timing():
    """Its source group is twice its destination's: a write of v10 (inside v8..v11, the fp32 source at e16, m2)
    delays it, one of v12 does not; it occupies the SE ceil(vl / 32) cycles."""
    issue, lat = CFG.timing["SEALU"]
    wait = "li t2, 1\n" * 8

    def prog(reg):
        return (wait + f"vsetvli t1, t0, e32, m2, ta, ma\nmtia.se.fadd.vv v{reg}, v16, v16\n"
                "vsetvli t1, t0, e16, m2, ta, ma\nmtia.se.fncvt.f.f.w v24, v8\nvfadd.vv v28, v24, v24")
    inside, outside = _run(prog(10), vl=64).stats, _run(prog(12), vl=64).stats
    assert inside.cycles > outside.cycles
    r = _run("vsetvli t1, t0, e16, m2, ta, ma\n" + "\n".join(f"mtia.se.fncvt.f.f.w v{16 + 4 * (k % 2)}, v8"
                                                                for k in range(5)), vl=64)
    assert r.stats.se_busy == 5 * 2 and r.stats.se_elements == 5 * 64


def test_fncvt_needs_sew16():
    with pytest.raises(Exception, match=r"SEW=32: the SIMD engine converts fp32 to fp16 \(e16\) only"):
        _run("mtia.se.fncvt.f.f.w v16, v8", vl=8)
