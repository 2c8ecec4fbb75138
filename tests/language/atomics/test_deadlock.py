"""Compiled kernels whose programs wait forever are stopped with the error and the source line of each waiting
program; one waiting for a program of a later wave is told why."""
import numpy as np
import pytest

from mtiacc.diagnostics import UserError
from tests.language.harness import launch

WAIT = '''
@triton.jit
def wait_kernel(flag_ptr, SETTER: tl.constexpr):
    pid = tl.program_id(0)
    if pid == SETTER:
        tl.atomic_xchg(flag_ptr, 1)
    while tl.atomic_add(flag_ptr, 0) == 0:
        pass
'''


def _run(setter, grid):
    return launch(WAIT, "*i32", {"flag_ptr": np.zeros(1, np.int32)}, grid=grid, defines=(("SETTER", str(setter)),))


def test_programs_waiting_for_one_of_their_wave_finish():
    r = _run(3, (8,))
    assert r.outputs["flag_ptr"].tolist() == [1]
    assert r.stats.atomics >= 9


def test_nobody_sets_the_flag_a_deadlock_at_the_spin_line():
    with pytest.raises(UserError) as e:
        _run(-1, (8,))
    text = e.value.render()
    assert "error: deadlock: the 8 running programs of this wave cannot make progress" in text
    assert "note: programs (0, 0, 0), (1, 0, 0), (2, 0, 0), (3, 0, 0) and 4 more wait at " in text
    assert ".py:12:11: while tl.atomic_add(flag_ptr, 0) == 0:" in text      # line 7 of WAIT, after the header


def test_waiting_for_a_later_wave_is_a_deadlock_that_says_so():
    with pytest.raises(UserError) as e:
        _run(64, (65,))
    text = e.value.render()
    assert "deadlock: the 64 running programs" in text
    assert "programs 64..64 (linear ids) have not started" in text
