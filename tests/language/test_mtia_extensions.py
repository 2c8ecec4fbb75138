"""The MTIA language extensions (triton.language.extra.mtia / mtiacc.language) against numpy, seeded:
local buffers and asynchronous copies, the barrier, atomic_add with a memory scope; their errors; the
functions outside a kernel; the double-buffered example's cycles against the plain one's."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mtiacc.diagnostics import UserError
from tests.language.harness import launch

ROOT = Path(__file__).resolve().parents[2]
MTIA = "from triton.language.extra import mtia\n"

COPY = MTIA + '''
@triton.jit
def copy2(X, Y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * 2 * BLOCK + tl.arange(0, BLOCK)
    buf = mtia.local_buffer((BLOCK,), tl.float32, num=2)
    t0 = mtia.async_copy(buf.index(0), X + offs, mask=offs < n)
    t1 = mtia.async_copy(buf.index(1), X + offs + BLOCK, mask=offs + BLOCK < n, other=-1.0)
    t0.wait()
    mtia.wait(t1)
    a = mtia.load(buf.index(0))
    t2 = mtia.async_copy(buf.index(0), X + offs + BLOCK)    # overwrites slot 0: `a` keeps its copy
    mtia.wait(t2)
    tl.store(Y + offs, a * 3.0, mask=offs < n)
    tl.store(Y + offs + BLOCK, buf.index(1).load() + buf.index(0).load())
'''


@pytest.mark.parametrize("n", [256, 200, 100])
def test_async_copies_into_slots_match_numpy(n):
    x = np.random.default_rng(n).standard_normal(256).astype(np.float32)
    y = np.zeros(256, np.float32)
    r = launch(COPY, "*fp32,*fp32,i32", {"X": x, "Y": y, "n": np.int32(n)}, defines=(("BLOCK", "128"),))
    want = np.zeros(256, np.float32)
    want[:min(n, 128)] = x[:min(n, 128)] * 3
    hi = np.where(np.arange(128) + 128 < n, x[128:], np.float32(-1.0))
    want[128:] = hi + x[128:]           # slot 1 (masked, other=-1) + slot 0 (recopied, unmasked)
    np.testing.assert_array_equal(r.outputs["Y"], want)


DOUBLE = MTIA + '''
@triton.jit
def scaled(X, Y, n, TILES: tl.constexpr, BLOCK: tl.constexpr):
    base = tl.program_id(0) * TILES * BLOCK
    end = tl.minimum(n, base + TILES * BLOCK)
    offs = tl.arange(0, BLOCK)
    buf = mtia.local_buffer((BLOCK,), tl.float32, num=2)
    tok = mtia.async_copy(buf.index(0), X + base + offs, mask=base + offs < end)
    for t in range(0, TILES, 2):
        for s in tl.static_range(2):
            start = base + (t + s) * BLOCK
            mtia.wait(tok)
            tok = mtia.async_copy(buf.index(1 - s), X + start + BLOCK + offs, mask=start + BLOCK + offs < end)
            tl.store(Y + start + offs, mtia.load(buf.index(s)) * 2.0 + 1.0, mask=start + offs < n)
'''


def test_double_buffered_loop_carries_its_token():
    n = 3 * 4 * 64 - 37
    x = np.random.default_rng(1).standard_normal(3 * 4 * 64).astype(np.float32)
    r = launch(DOUBLE, "*fp32,*fp32,i32", {"X": x, "Y": np.zeros_like(x), "n": np.int32(n)}, grid=(3,),
               defines=(("TILES", "4"), ("BLOCK", "64")))
    want = np.zeros_like(x)
    want[:n] = x[:n] * 2 + 1
    np.testing.assert_array_equal(r.outputs["Y"], want)
    assert r.stats.dma_transfers == 3 * (4 + 4)   # one transfer per copy and per store: the masks stay prefixes


BARRIER = MTIA + '''
@triton.jit
def rotate(X, C, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    tl.store(X + pid * BLOCK + offs, tl.load(X + pid * BLOCK + offs) + 1.0)
    mtia.barrier(C)
    nb = (pid + 1) % tl.num_programs(0)
    y = tl.load(X + nb * BLOCK + offs)
    mtia.barrier(C)
    tl.store(X + pid * BLOCK + offs, y)
'''


@pytest.mark.parametrize("programs", [1, 5, 16])
def test_barrier_orders_the_phases_of_every_program(programs):
    x = np.random.default_rng(programs).standard_normal(programs * 32).astype(np.float32)
    r = launch(BARRIER, "*fp32,*i32", {"X": x.copy(), "C": np.zeros(1, np.int32)}, grid=(programs,),
               defines=(("BLOCK", "32"),))
    want = np.roll((x + 1).reshape(programs, 32), -1, axis=0).reshape(-1)
    np.testing.assert_array_equal(r.outputs["X"], want)
    assert r.outputs["C"].tolist() == [2 * programs]


def test_barrier_beyond_one_wave_is_a_deadlock():
    x = np.zeros(65 * 32, np.float32)
    with pytest.raises(UserError) as e:
        launch(BARRIER, "*fp32,*i32", {"X": x, "C": np.zeros(1, np.int32)}, grid=(65,), defines=(("BLOCK", "32"),))
    text = e.value.render()
    assert "deadlock: the 64 running programs" in text
    assert "programs 64..64 (linear ids) have not started" in text
    assert "mtia.barrier(C)" in text


HIST = MTIA + '''
@triton.jit
def hist(I, H, BLOCK: tl.constexpr, SCOPE: tl.constexpr):
    i = tl.load(I + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK))
    mtia.atomic_add(H + i, 1, scope=SCOPE)
'''


def test_atomic_add_in_sram_places_the_buffer_there_and_is_faster():
    idx = np.random.default_rng(3).integers(0, 16, 4 * 32).astype(np.int32)
    runs = {}
    for scope in ("dram", "sram"):
        r = launch(HIST, "*i32,*i32", {"I": idx, "H": np.zeros(16, np.int32)}, grid=(4,),
                   defines=(("BLOCK", "32"), ("SCOPE", f"'{scope}'")))
        np.testing.assert_array_equal(r.outputs["H"], np.bincount(idx, minlength=16))
        runs[scope] = r.stats
    assert runs["sram"].cycles < runs["dram"].cycles
    assert runs["sram"].atomic_round_trip < runs["dram"].atomic_round_trip


@pytest.mark.parametrize("stmt, message", [
    ("mtia.atomic_add(H + i, 1, scope='local')", "scope='local' is not available"),
    ("mtia.atomic_add(H + i, 1, scope='l2')", "mtia.atomic_add's scope must be one of 'dram', 'sram', 'local'"),
    ("mtia.wait(i)", "mtia.wait needs the token of mtia.async_copy"),
    ("mtia.load(mtia.local_buffer((32,), tl.int32, num=2))", "the buffer has 2 slots; name one with buf.index(i)"),
    ("mtia.local_buffer((32,), tl.int32, num=2).index(2)", "slot 2 is out of range"),
    ("mtia.async_copy(mtia.local_buffer((16,), tl.int32), I + tl.arange(0, 32))",
     "the pointers point to tensor<32xi32>, the slot holds tensor<16xi32>"),
    ("mtia.barrier(H + i)", "mtia.barrier needs a scalar pointer to an int32 counter"),
    ("mtia.async_copyy(H, i)", "`mtia.async_copyy` does not exist; did you mean `mtia.async_copy`?"),
])
def test_errors_point_at_the_call(tmp_path, stmt, message):
    src = tmp_path / "k.py"
    src.write_text("import triton\nimport triton.language as tl\n" + MTIA +
                   "@triton.jit\ndef k(I, H):\n    i = tl.load(I + tl.arange(0, 32))\n    " + stmt + "\n")
    p = subprocess.run([sys.executable, "-m", "mtiacc", str(src), "--emit=ir", "--signature", "*i32,*i32"],
                       capture_output=True, text=True, cwd=ROOT)
    assert p.returncode != 0
    assert f"k.py:7:5: error: {message}" in p.stderr or f"k.py:7:" in p.stderr and message in p.stderr, p.stderr
    assert "Traceback" not in p.stderr


def test_local_buffer_inside_a_loop_is_an_error(tmp_path):
    src = tmp_path / "k.py"
    src.write_text("import triton\nimport triton.language as tl\nimport mtiacc.language as mtia\n"
                   "@triton.jit\ndef k(I):\n    for j in range(2):\n        b = mtia.local_buffer((32,), tl.int32)\n")
    p = subprocess.run([sys.executable, "-m", "mtiacc", str(src), "--emit=ir", "--signature", "*i32"],
                       capture_output=True, text=True, cwd=ROOT)
    assert "k.py:7:13: error: mtia.local_buffer() must be called at the kernel's top level" in p.stderr, p.stderr


def test_the_functions_raise_outside_a_kernel():
    import inspect
    import mtiacc.language as mtia
    for name in mtia.__all__:
        fn = getattr(mtia, name)
        required = [p for p in inspect.signature(fn).parameters.values() if p.default is inspect.Parameter.empty]
        with pytest.raises(RuntimeError, match=f"mtia.{name}\\(\\) can only be called inside a @triton.jit kernel"):
            fn(*[None] * len(required))
        assert getattr(mtia, name).__doc__


def test_double_buffered_example_takes_fewer_cycles_than_the_plain_one():
    from mtiacc.driver import Options, compile_kernel
    from mtiasim.runner import run
    path = str(ROOT / "examples" / "mtia_double_buffer.py")
    n = 64 * 4 * 1024      # every PE busy: DRAM is the bottleneck, and the copies' latency is worth hiding
    x = np.random.default_rng(5).standard_normal(n).astype(np.float32)
    cycles, outs = {}, {}
    for k in ("silu_plain", "silu_double_buffer"):
        # the plain loop as written, without the compiler's own pipelining of tile loads (num_stages=1), which
        # double-buffers it automatically (docs/passes.md)
        out = compile_kernel(path, Options(kernel=k, defines={"TILES": "4", "BLOCK": "1024"},
                                           signature="*fp32,*fp32,i32", num_stages=1))
        r = run(out.binary, {"x_ptr": x, "y_ptr": np.zeros_like(x), "n": np.int32(n)}, grid=(64,))
        cycles[k], outs[k] = r.stats.cycles, r.outputs["y_ptr"]
    np.testing.assert_allclose(outs["silu_plain"], x / (1 + np.exp(-x)), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(outs["silu_double_buffer"], outs["silu_plain"])
    assert cycles["silu_double_buffer"] < 0.95 * cycles["silu_plain"], cycles   # 37,216 vs 41,644


GROUPS = MTIA + '''
@triton.jit
def groups(X, C, G: tl.constexpr):
    pid = tl.program_id(0)
    tl.store(X + pid, pid + 1)
    mtia.barrier(C + pid // G, G)
    first = (pid // G) * G
    s = 0
    for j in range(G):
        s += tl.load(X + first + j)
    mtia.barrier(C + pid // G, G)
    tl.store(X + pid, s)
'''


def test_barrier_of_groups_with_their_own_counters():
    r = launch(GROUPS, "*i32,*i32", {"X": np.zeros(12, np.int32), "C": np.zeros(3, np.int32)}, grid=(12,),
               defines=(("G", "4"),))
    want = np.repeat(np.arange(1, 13).reshape(3, 4).sum(axis=1), 4)
    np.testing.assert_array_equal(r.outputs["X"], want)
    assert r.outputs["C"].tolist() == [8, 8, 8]
