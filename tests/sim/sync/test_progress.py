"""Programs that wait on each other: progress in simulated time, and runs that cannot finish stopped with an
error naming where each program is (a deadlock, across waves too, an endless loop, a livelock, a runaway)."""
import numpy as np
import pytest

from mtiacc.diagnostics import UserError
from mtiasim.runner import run
from tests.sim.helpers import P, build

# program SETTER sets the flag to VALUE after a long computation; every other program spins until it is nonzero
WAIT = """
kernel:
    ld s0, 0(zero)        # flag
    mtia.pid t0, 0
    li t1, {setter}
    beq t0, t1, setter
spin:
    amoor.w.aq a0, zero, (s0)
    beqz a0, spin
    ret
setter:
    li t3, 3000
work:
    addi t3, t3, -1
    bnez t3, work
    li t2, {value}
    amoswap.w.rl zero, t2, (s0)
    ret
"""
SOURCE = {5: "    while tl.atomic_or(flag, 0) == 0:"}


def _lines():
    # the spin loop's instructions (pcs 0x10, 0x14) map to line 5 of kernel.py
    return [(0x10, 5, 11), (0x18, 0, 0)]


def _run(asm, grid, **kw):
    return run(build(asm, params=[P("f", "*i32")], source=SOURCE, lines=_lines()), {"f": np.zeros(1, np.int32)},
               grid=grid, **kw)


@pytest.mark.parametrize("seed", [0, 7])
def test_spinning_programs_wait_for_the_one_that_sets_the_flag(seed):
    r = _run(WAIT.format(setter=5, value=1), (8,), seed=seed)
    assert int(r.outputs["f"][0]) == 1
    # the setter's loop (3000 iterations of two instructions) paces the run; the spinners only wait for it
    assert 6000 < r.stats.cycles < 20000


def test_a_program_waits_for_one_of_an_earlier_wave():
    r = _run(WAIT.format(setter=3, value=1), (72,))     # programs 64..71 run after the setter has finished
    assert int(r.outputs["f"][0]) == 1


def test_a_deadlock_names_each_waiting_program_and_its_line():
    with pytest.raises(UserError) as e:
        _run(WAIT.format(setter=5, value=0), (8,))     # the setter writes 0: nobody ever sees a nonzero flag
    err = e.value
    assert err.message.startswith("deadlock: the 7 running programs of this wave cannot make progress")
    text = err.render()
    assert "kernel.py:5:11: error: deadlock" in text
    assert "note: programs (0, 0, 0), (1, 0, 0), (2, 0, 0), (3, 0, 0) and 3 more wait at kernel.py:5:11: " \
           "while tl.atomic_or(flag, 0) == 0:" in text


def test_waiting_for_a_program_of_a_later_wave_is_a_deadlock():
    with pytest.raises(UserError) as e:
        _run(WAIT.format(setter=70, value=1), (72,))
    text = e.value.render()
    assert "deadlock: the 64 running programs" in text
    assert "programs 64..71 (linear ids) have not started: the next wave starts only when every program of this " \
           "one has finished" in text


def test_an_endless_loop_that_reads_no_memory_is_stopped():
    asm = "kernel:\nloop:\n    fence\n    j loop\n"
    with pytest.raises(UserError, match="endless loop: every running program repeats the same state forever"):
        run(build(asm), {}, grid=(2,))


LIVELOCK = """
kernel:
    ld s0, 0(zero)
loop:
    li t1, 1
    amoswap.w zero, t1, (s0)
    amoswap.w zero, zero, (s0)
    j loop
"""


def test_a_livelock_is_stopped_by_max_cycles_with_every_program_s_place():
    with pytest.raises(UserError) as e:
        run(build(LIVELOCK, params=[P("f", "*i32")]), {"f": np.zeros(1, np.int32)}, grid=(3,), max_cycles=50_000)
    text = e.value.render()
    assert "the run passed --max-cycles (50000 cycles) without finishing: a runaway loop or a livelock" in text
    assert "note: programs (0, 0, 0)" in text


def test_a_runaway_loop_is_stopped_by_max_cycles():
    asm = "kernel:\nloop:\n    addi t0, t0, 1\n    j loop\n"
    with pytest.raises(UserError, match=r"passed --max-cycles \(20000 cycles\)"):
        run(build(asm), {}, grid=(1,), max_cycles=20_000)


# each iteration copies 128 KiB (thousands of cycles in a few host instructions): the default limit in under a second
RUNAWAY = '''
@triton.jit
def loop_kernel(x_ptr):
    offs = tl.arange(0, 32768)
    while tl.load(x_ptr) >= 0:
        tl.store(x_ptr + 32768 + offs, tl.load(x_ptr + 65536 + offs))
    tl.store(x_ptr, 1)
'''


@pytest.fixture(scope="module")
def runaway():
    from tests.language.harness import build as build_kernel
    return str(build_kernel(RUNAWAY, "*i32"))


def test_a_runaway_kernel_stops_at_the_default_cycle_limit_within_seconds(runaway):
    with pytest.raises(UserError) as e:
        run(runaway, {"x_ptr": np.zeros(3 * 32768, np.int32)}, grid=(1,))
    text = e.value.render()
    assert "error: the run passed --max-cycles (10000000 cycles) without finishing" in text
    assert "note: program (0, 0, 0) is at " in text
    assert "tl.store(x_ptr + 32768 + offs, tl.load(x_ptr + 65536 + offs))" in text


def test_timeout_stops_a_run_by_host_time(runaway):
    with pytest.raises(UserError) as e:
        run(runaway, {"x_ptr": np.zeros(3 * 32768, np.int32)}, grid=(1,), max_cycles=10**12, timeout=0.3)
    assert e.value.message.startswith("the run took longer than its --timeout on the host without finishing, after ")
