"""The loader keeps a decoded program by its bytes: a kernel launched again is not decoded again, and a binary that
differs in any byte is decoded afresh (never served another binary's program)."""
from __future__ import annotations

from mtiasim import loader
from mtiasim.runner import run
from tests.sim.helpers import build

ADD = """
kernel:
    li t0, {value}
    sd t0, 0(zero)
    ret
"""


def test_the_same_bytes_give_the_same_program_and_other_bytes_another():
    one = build(ADD.format(value=5))
    assert loader.load_program(one) is loader.load_program(bytes(one))
    other = build(ADD.format(value=6))
    assert len(other) == len(one) and other != one
    p1, p2 = loader.load_program(one), loader.load_program(other)
    assert p1 is not p2
    assert p1.words != p2.words
    # the name a binary is loaded under is part of what is kept (its errors name it)
    assert loader.load_program(one, "a.bin") is not loader.load_program(one, "b.bin")


def test_a_kept_program_runs_as_a_fresh_one():
    binary = build(ADD.format(value=7))
    first = run(binary, {}, grid=(1,))
    again = run(binary, {}, grid=(1,))
    assert first.stats.cycles == again.stats.cycles > 0
    assert first.stats.instructions == again.stats.instructions == 3


def test_only_the_last_programs_are_kept():
    binaries = [build(ADD.format(value=100 + i)) for i in range(loader._PROGRAMS_KEPT + 1)]
    first = loader.load_program(binaries[0])
    for b in binaries[1:]:
        loader.load_program(b)
    assert len(loader._PROGRAMS) <= loader._PROGRAMS_KEPT
    assert loader.load_program(binaries[0]) is not first       # evicted, decoded again
    assert loader.load_program(binaries[-1]) is loader.load_program(binaries[-1])
