"""tl.atomic_load, tl.atomic_store and tl.atomic_poll: a producer publishes data and flags, consumers poll
for the flags and read the data; the values against numpy, over seeds; the errors at the call."""
import numpy as np
import pytest

from mtiacc.diagnostics import UserError
from mtiasim.runner import run
from tests.language.harness import assert_error_at_call, build

POLL = '''
@triton.jit
def poll_kernel(flag_ptr, data_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    if pid == 0:
        acc = 0.0
        for i in range(n):
            acc += i * 0.5
        tl.store(data_ptr + offs, acc + offs)
        tl.atomic_store(flag_ptr + offs % 2, 1 + offs % 2)
    else:
        done = tl.atomic_poll(flag_ptr + offs % 2, 1 + offs % 2)
        v = tl.atomic_load(data_ptr + offs, mask=done)
        tl.store(out_ptr + pid * BLOCK + offs, v)
        x = tl.atomic_load(flag_ptr + 1, sem="relaxed")
        tl.atomic_store(flag_ptr + 2 + pid, x + pid, sem="relaxed")
'''


@pytest.mark.parametrize("seed", [0, 3])
def test_consumers_poll_for_the_producer_s_flags_then_read_its_data(seed):
    binary = build(POLL, "*i32,*fp32,*fp32,i32", (("BLOCK", "16"),))
    f, d, o = np.zeros(8, np.int32), np.zeros(16, np.float32), np.zeros(64, np.float32)
    r = run(str(binary), {"flag_ptr": f, "data_ptr": d, "out_ptr": o, "n": np.array(50, np.int32)}, grid=(4,),
            seed=seed)
    data = np.float32(sum(i * 0.5 for i in range(50))) + np.arange(16, dtype=np.float32)
    np.testing.assert_array_equal(r.outputs["data_ptr"], data)
    np.testing.assert_array_equal(r.outputs["out_ptr"].reshape(4, 16)[1:], np.tile(data, (3, 1)))
    assert r.outputs["flag_ptr"].tolist() == [1, 2, 0, 3, 4, 5, 0, 0]     # flag[2 + pid] = flag[1] + pid


def test_a_poll_nobody_satisfies_is_a_deadlock_at_the_poll():
    src = POLL.replace("tl.atomic_store(flag_ptr + offs % 2, 1 + offs % 2)", "pass")
    binary = build(src, "*i32,*fp32,*fp32,i32", (("BLOCK", "16"),))
    with pytest.raises(UserError) as e:
        run(str(binary), {"flag_ptr": np.zeros(8, np.int32), "data_ptr": np.zeros(16, np.float32),
                          "out_ptr": np.zeros(64, np.float32), "n": np.array(5, np.int32)}, grid=(4,))
    text = e.value.render()
    assert "deadlock: the 3 running programs" in text
    assert "done = tl.atomic_poll(flag_ptr + offs % 2, 1 + offs % 2)" in text


@pytest.mark.parametrize("stmt, message, underlined", [
    ("a = tl.atomic_poll(Y.to(tl.pointer_type(tl.float32)), 1.0)",
     "atomic_poll only supports integer elements with width {16, 32, 64}", "tl.atomic_poll"),
    ("a = tl.atomic_poll(Y.to(tl.pointer_type(tl.int32)), 1, timeout_ns=100)",
     "atomic_poll(timeout_ns=...) is not supported: this chip has no global timer (leave it out; a poll that "
     "never succeeds is reported as a deadlock)", "tl.atomic_poll"),
    ("a = tl.atomic_load(Y, sem='release')",
     "atomic_load semantic 'release' not supported (expected one of 'acquire', 'relaxed')", "tl.atomic_load"),
    ("tl.atomic_store(Y, x, sem='acquire')",
     "atomic_store semantic 'acquire' not supported (expected one of 'release', 'relaxed')", "tl.atomic_store"),
])
def test_errors_at_the_call(tmp_path, stmt, message, underlined):
    assert_error_at_call(tmp_path, stmt, message, stmt[stmt.index(underlined):])   # the whole call
