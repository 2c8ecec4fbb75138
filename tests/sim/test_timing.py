"""The first timing model: in-order issue, register dependencies, vector occupancy, DMA bandwidth share."""
import numpy as np
import yaml

from mtiasim.config import DEFAULT_CONFIG, load_config
from mtiasim.runner import run
from tests.sim.helpers import P, build

CFG = load_config()


def cycles(asm, grid=(1,), inputs=None, params=None, **kw):
    r = run(build(asm, params=params), inputs or {}, grid=grid, **kw)
    return r.stats.wave_cycles[0], r.stats


def loop(n, body="addi a0, a0, 1"):
    return f"kernel:\n    li t0, {n}\nagain:\n    {body}\n    addi t0, t0, -1\n    bnez t0, again\n    ret\n"


def test_more_work_takes_more_cycles_and_launch_is_charged():
    c1, s1 = cycles(loop(10))
    c2, s2 = cycles(loop(100))
    assert c2 > c1
    assert c2 - c1 == 90 * 3          # three single-issue IntALU/Branch instructions per trip
    assert s1.cycles == s1.launch_cycles + c1 and s1.launch_cycles == CFG.job_launch_cycles == 1350


def test_dependent_chains_wait_for_latency():
    dep = "kernel:\n" + "    mul a0, a0, a0\n" * 10 + "    ret\n"
    ind = "kernel:\n" + "".join(f"    mul a{i % 6 + 1}, a0, a0\n" for i in range(10)) + "    ret\n"
    cd, _ = cycles(dep)
    ci, _ = cycles(ind)
    assert cd - ci == 9 * (CFG.timing["IntMul"][1] - CFG.timing["IntMul"][0])


def test_vector_occupancy_grows_with_vl():
    def k(n):
        return (f"kernel:\n    li t0, {n}\n    vsetvli t1, t0, e32, m8, ta, ma\n" +
                "    vadd.vv v8, v16, v24\n" * 20 + "    ret\n")
    c_small, _ = cycles(k(8))
    c_big, _ = cycles(k(128))
    # 128 x 32 bits over a 256-bit datapath: 16 cycles per instruction instead of 1
    assert c_big - c_small == 20 * (128 * 32 // CFG.datapath_bits - 1)


DMA = """
kernel:
    ld s0, 0(zero)
    mtia.pid t0, 0
    li t1, 65536
    mul t2, t0, t1
    add s0, s0, t2
    li a1, 8192
    mtia.dma.in a1, s0, t1
    {before}
    {work}
    {after}
    ret
"""


def dma_cycles(before, after, programs=1, work="addi a0, a0, 1\n    " * 50):
    data = np.zeros(programs * 65536, np.uint8)
    c, s = cycles(DMA.format(before=before, after=after, work=work), grid=(programs,),
                  inputs={"A": data}, params=[P("A", "*u8")])
    return c, s


def test_dma_wait_stalls_and_work_overlaps_transfers():
    waited_first, s = dma_cycles("mtia.dma.wait", "")
    overlapped, _ = dma_cycles("", "mtia.dma.wait")
    assert waited_first > overlapped
    transfer = CFG.dma_setup_cycles + 65536 / CFG.dram_bytes_per_cycle
    assert waited_first >= transfer + 50
    assert s.dram_bytes_in == 65536


def test_dram_bandwidth_is_shared_by_the_active_pes():
    one, _ = dma_cycles("mtia.dma.wait", "", programs=1)
    many, s = dma_cycles("mtia.dma.wait", "", programs=64)
    assert many > 30 * one
    assert s.dram_bytes_in == 64 * 65536


def test_timing_classes_come_from_the_machine_description(tmp_path):
    raw = yaml.safe_load(open(DEFAULT_CONFIG))
    raw["timing"]["IntALU"] = {"issue": 2, "latency": 2}
    raw["timing"]["Branch"] = {"issue": 3, "latency": 1}
    path = tmp_path / "slow.yaml"
    path.write_text(yaml.safe_dump(raw))
    c1, _ = cycles(loop(100))
    c2, _ = cycles(loop(100), config_path=str(path))
    assert c2 - c1 == 100 * (1 + 1 + 2) + 1   # per trip two IntALU one cycle slower, the branch two; and li


def test_scalar_fast_path_agrees_with_the_per_program_arrays(monkeypatch):
    """While all programs agree the model keeps scalars; forcing the array path must give the same cycles."""
    from mtiasim import timing
    kernels = [
        (loop(50), (64,), {}, None),
        (DMA.format(before="mtia.dma.wait", after="", work="addi a0, a0, 1"), (8,),
         {"A": np.zeros(8 * 65536, np.uint8)}, [P("A", "*u8")]),
        ("kernel:\n    li t0, 100\n    vsetvli t1, t0, e32, m8, ta, ma\n    vadd.vv v8, v16, v24\n"
         "    vfmul.vv v16, v8, v8\n    vredsum.vs v1, v8, v16\n    vmv.x.s a0, v1\n    add a1, a0, a0\n    ret\n",
         (3,), {}, None),
    ]
    fast = [run(build(k, params=p), i, grid=g).stats.wave_cycles for k, g, i, p in kernels]
    orig = timing.UniformTiming.reset

    def reset_off(self):
        orig(self)
        self.materialize()
    monkeypatch.setattr(timing.UniformTiming, "reset", reset_off)
    slow = [run(build(k, params=p), i, grid=g).stats.wave_cycles for k, g, i, p in kernels]
    assert fast == slow
