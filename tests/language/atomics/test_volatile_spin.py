"""A program spinning on a volatile flag lets the program that sets it run, wherever the two are in the code
(the volatile load's fence makes the simulator schedule the programs by simulated time)."""
import numpy as np
import pytest

from tests.language.harness import launch

SETTER = '''
        acc = 0
        for i in range(n):
            acc += i
        tl.store(out_ptr, acc)
        tl.store(flag_ptr, 1)
'''
SPINNER = '''
        while tl.load(flag_ptr, volatile=True) == 0:
            pass
        tl.store(out_ptr + pid, tl.load(out_ptr))
'''
HEAD = '''
@triton.jit
def flag_kernel(flag_ptr, out_ptr, n):
    pid = tl.program_id(0)
'''
KERNELS = {
    "setter first": HEAD + "    if pid == 0:" + SETTER + "    else:" + SPINNER,
    # the spinners have the lower pcs: only scheduling by simulated time lets the setter run
    "spinners first": HEAD + "    if pid != 0:" + SPINNER + "    else:" + SETTER,
}


@pytest.mark.parametrize("order", sorted(KERNELS))
def test_spinning_on_a_volatile_flag(order):
    r = launch(KERNELS[order], "*i32,*i32,i32", {"flag_ptr": np.zeros(1, np.int32), "out_ptr": np.zeros(4, np.int32),
                                                 "n": np.array(100, np.int32)}, grid=(4,))
    assert r.outputs["out_ptr"].tolist() == [4950] * 4
    assert r.outputs["flag_ptr"].tolist() == [1]
