"""Atomics in the simulator: what each one does to memory and returns, against numpy; many programs on one
address under several seeds; the timing model's round trips and contention."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mtiacc.diagnostics import UserError
from mtiacc.machine.simulator import load_config
from mtiasim.runner import run
from mtiasim.sync.atomics import AtomicUnits, perform
from tests.sim.helpers import P, build

# ---------------------------------------------------------------------------------------------- one operation
_NP = {"w": (np.int32, np.uint32), "d": (np.int64, np.uint64), "h": (np.int16, np.uint16)}


def _reference(op, w, old, val, expected):
    s, u = _NP[w]
    so, sv = np.array(old, u).view(s), np.array(val, u).view(s)
    uo, uv = np.array(old, u), np.array(val, u)
    with np.errstate(over="ignore"):
        r = {"add": lambda: (uo + uv), "swap": lambda: uv, "xor": lambda: uo ^ uv, "or": lambda: uo | uv,
             "and": lambda: uo & uv, "min": lambda: np.minimum(so, sv).view(u), "max": lambda: np.maximum(so, sv).view(u),
             "minu": lambda: np.minimum(uo, uv), "maxu": lambda: np.maximum(uo, uv),
             "cas": lambda: uv if uo == np.array(expected, u) else uo}[op]()
    return int(r)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["add", "swap", "xor", "or", "and", "min", "max", "minu", "maxu", "cas"]),
       st.sampled_from(["w", "d"]), st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1), st.booleans())
def test_integer_operations_match_numpy(op, w, old, val, equal):
    mask = (1 << (32 if w == "w" else 64)) - 1
    old, val = old & mask, val & mask
    expected = old if equal else old ^ 1
    assert perform(op, w, old, val, expected) == _reference(op, w, old, val, expected)


@settings(max_examples=300, deadline=None)
@given(st.floats(width=32, allow_nan=False), st.floats(width=32, allow_nan=False))
def test_float_add_rounds_once(a, b):
    fa, fb = np.float32(a), np.float32(b)
    bits = perform("fadd", "s", int(fa.view(np.uint32)), int(fb.view(np.uint32)), 0)
    with np.errstate(over="ignore"):
        assert bits == int(np.float32(fa + fb).view(np.uint32))
    ha, hb = np.float16(a), np.float16(b)
    if np.isfinite(ha) and np.isfinite(hb):
        bits = perform("fadd", "h", int(ha.view(np.uint16)), int(hb.view(np.uint16)), 0)
        with np.errstate(over="ignore"):
            assert bits == int(np.float16(np.float64(ha) + np.float64(hb)).view(np.uint16))
    da, db = float(a) * 3.0, float(b)
    bits = perform("fadd", "d", int(np.float64(da).view(np.uint64)), int(np.float64(db).view(np.uint64)), 0)
    assert bits == int(np.float64(da + db).view(np.uint64))


def test_bfloat16_add_rounds_to_nearest_even():
    def bf(x):
        return int(np.float32(x).view(np.uint32)) >> 16
    # 1 + 2**-8 is halfway between 1 and 1 + 2**-7: ties to even (1); 1 + 3 * 2**-9 rounds up
    assert perform("fadd", "bf", bf(1.0), bf(2.0 ** -8), 0) == bf(1.0)
    assert perform("fadd", "bf", bf(1.0 + 2.0 ** -7), bf(2.0 ** -8), 0) == bf(1.0 + 2.0 ** -6)
    assert perform("fadd", "bf", bf(3.0), bf(-3.0), 0) == 0
    # just above the tie: up; far below the last place: unchanged
    assert perform("fadd", "bf", bf(1.0), bf(2.0 ** -8 + 2.0 ** -15), 0) == bf(1.0 + 2.0 ** -7)
    assert perform("fadd", "bf", bf(1.0), bf(2.0 ** -20), 0) == bf(1.0)
    assert perform("fadd", "bf", bf(-1.0), bf(-(2.0 ** -8 + 2.0 ** -15)), 0) == bf(-(1.0 + 2.0 ** -7))


# ---------------------------------------------------------------------------------------------- in kernels
ONE = """
kernel:
    ld s0, 0(zero)        # mem
    ld s1, 8(zero)        # out
    li a0, {expected}
    li t1, {value}
    {mnemonic} a0, t1, (s0)
    sd a0, 64(zero)
    li t3, 64
    li t4, 8
    mtia.dma.out s1, t3, t4
    mtia.dma.wait
    ret
"""


@pytest.mark.parametrize("mnemonic, ty, init, value, expected, mem, ret", [
    ("amoadd.w", "*i32", -5, 7, 0, 2, -5),
    ("amomin.w", "*i32", -5, 7, 0, -5, -5),
    ("amominu.w", "*i32", -5, 7, 0, 7, -5),             # -5 is 0xfffffffb unsigned
    ("amomax.d.aq", "*i64", -2**40, 3, 0, 3, -2**40),
    ("amoxor.d.rl", "*i64", 0b1100, 0b1010, 0, 0b0110, 0b1100),
    ("amocas.w.aqrl", "*i32", 9, 4, 9, 4, 9),          # equal: swapped
    ("amocas.w", "*i32", 9, 4, 8, 9, 9),               # not equal: kept
    ("amoswap.h", "*i16", -1, 5, 0, 5, -1),            # the old value sign-extended
    ("amocas.h", "*i16", 300, 7, 300, 7, 300),
])
def test_one_atomic_in_a_kernel(mnemonic, ty, init, value, expected, mem, ret):
    dt = {"*i32": np.int32, "*i64": np.int64, "*i16": np.int16}[ty]
    asm = ONE.format(mnemonic=mnemonic, value=value, expected=expected)
    r = run(build(asm, params=[P("m", ty), P("o", "*i64")]), {"m": np.array([init], dt), "o": np.zeros(1, np.int64)},
            grid=(1,))
    assert int(r.outputs["m"][0]) == mem
    assert int(r.outputs["o"][0]) == ret
    assert r.stats.atomics == 1


def test_float_atomic_add_in_a_kernel():
    asm = ONE.format(mnemonic="mtia.amofadd.s", value=int(np.float32(0.25).view(np.uint32)), expected=0)
    r = run(build(asm, params=[P("m", "*fp32"), P("o", "*i64")]),
            {"m": np.array([1.5], np.float32), "o": np.zeros(1, np.int64)}, grid=(1,))
    assert r.outputs["m"][0] == np.float32(1.75)
    assert np.int64(r.outputs["o"][0]).astype(np.int32).view(np.float32) == np.float32(1.5)


LOCAL = """
kernel:
    li s0, 256
    li t0, 40
    sw t0, 0(s0)
    li t1, 2
    amoadd.w a0, t1, (s0)
    lw a1, 0(s0)
    ld s1, 0(zero)
    sd a0, 64(zero)
    sd a1, 72(zero)
    li t3, 64
    li t4, 16
    mtia.dma.out s1, t3, t4
    mtia.dma.wait
    ret
"""


def test_an_atomic_on_local_memory():
    r = run(build(LOCAL, params=[P("o", "*i64")]), {"o": np.zeros(2, np.int64)}, grid=(1,))
    assert r.outputs["o"].tolist() == [40, 42]


@pytest.mark.parametrize("addr, message", [("s0, 2", "misaligned atomic add: address"),
                                           ("s0, -2048", "out-of-bounds atomic add of 4 bytes at DRAM")])
def test_bad_addresses_fault(addr, message):
    asm = ONE.format(mnemonic="amoadd.w", value=1, expected=0).replace("    li a0, 0\n",
                                                                        f"    li a0, 0\n    addi {addr.replace(', ', ', s0, ')}\n")
    with pytest.raises(UserError, match=message):
        run(build(asm, params=[P("m", "*i32"), P("o", "*i64")]), {"m": np.zeros(4, np.int32),
                                                                   "o": np.zeros(1, np.int64)}, grid=(1,))


# ---------------------------------------------------------------------------------------------- many programs
COUNTER = """
kernel:
    ld s0, 0(zero)        # counter
    ld s1, 8(zero)        # out[pid]
    mtia.pid t0, 0
    li t1, 1
    amoadd.w.aqrl a0, t1, (s0)
    slli t2, t0, 3
    add s1, s1, t2
    sd a0, 64(zero)
    li t3, 64
    li t4, 8
    mtia.dma.out s1, t3, t4
    mtia.dma.wait
    ret
"""


def _counter(seed, n=100):
    return run(build(COUNTER, params=[P("c", "*i32"), P("o", "*i64")]),
               {"c": np.zeros(1, np.int32), "o": np.zeros(n, np.int64)}, grid=(n,), seed=seed)


def test_a_contended_counter_returns_each_old_value_once_in_a_seeded_order():
    runs = {seed: _counter(seed) for seed in (0, 1, 2)}
    for r in runs.values():
        assert int(r.outputs["c"][0]) == 100
        assert sorted(r.outputs["o"].tolist()) == list(range(100))
    orders = [tuple(r.outputs["o"].tolist()) for r in runs.values()]
    assert len(set(orders)) == 3                                   # the seed changes who comes first
    assert tuple(_counter(1).outputs["o"].tolist()) == orders[1]   # and the same seed repeats the run


LOCKED_INCREMENT = """
kernel:
    ld s0, 0(zero)        # lock
    ld s1, 8(zero)        # counter (i64), read and written with plain DMA inside the lock
acquire:
    li a0, 0
    li t1, 1
    amocas.w.aq a0, t1, (s0)
    bnez a0, acquire
    li t3, 64
    li t4, 8
    mtia.dma.in t3, s1, t4
    mtia.dma.wait
    ld t5, 64(zero)
    addi t5, t5, 1
    sd t5, 64(zero)
    mtia.dma.out s1, t3, t4
    mtia.dma.wait
    amoswap.w.rl zero, zero, (s0)
    ret
"""


@pytest.mark.parametrize("seed", [0, 5, 11])
@pytest.mark.parametrize("n", [64, 100])
def test_a_spin_lock_makes_a_read_modify_write_exclusive(seed, n):
    r = run(build(LOCKED_INCREMENT, params=[P("l", "*i32"), P("c", "*i64")]),
            {"l": np.zeros(1, np.int32), "c": np.zeros(1, np.int64)}, grid=(n,), seed=seed)
    assert int(r.outputs["c"][0]) == n
    assert int(r.outputs["l"][0]) == 0


# ---------------------------------------------------------------------------------------------- timing
def test_round_trips_and_contention_follow_the_machine_description():
    cfg = load_config()
    a = cfg.atomics
    units = AtomicUnits(cfg, 4)
    units.reset(seed=0, wave=0)
    dram = 2 * a.noc_cycles + a.service_cycles + cfg.ns_to_cycles(cfg.dram_latency_ns)
    assert units.round_trip("dram") == dram
    assert units.round_trip("sram") == 2 * a.noc_cycles + a.service_cycles + cfg.ns_to_cycles(cfg.sram_latency_ns)
    assert units.round_trip("local") == a.service_cycles + a.local_latency_cycles
    # four programs on one DRAM address at cycle 0: served one after another
    order, done = units.serve([0, 1, 2, 3], [0.0] * 4, [("dram", 64)] * 4)
    assert sorted(done) == [dram + k * a.service_cycles for k in range(4)]
    assert units.contention == sum(k * a.service_cycles for k in range(4))
    # four programs on four addresses: no waiting
    units.reset(seed=0, wave=0)
    _order, done = units.serve([0, 1, 2, 3], [0.0] * 4, [("dram", 64 * k) for k in range(4)])
    assert done == [dram] * 4 and units.contention == 0


def test_an_acquiring_atomic_stalls_the_core_for_its_round_trip():
    cfg = load_config()
    cyc = {}
    for suffix in ("", ".aq"):
        asm = ONE.format(mnemonic="amoadd.w" + suffix, value=1, expected=0).replace("    sd a0, 64(zero)\n", "")
        r = run(build(asm, params=[P("m", "*i32"), P("o", "*i64")]),
                {"m": np.zeros(1, np.int32), "o": np.zeros(1, np.int64)}, grid=(1,))
        cyc[suffix] = r.stats.cycles
        assert r.stats.atomic_round_trip == AtomicUnits(cfg, 1).round_trip("dram")
    assert cyc[".aq"] > cyc[""]
