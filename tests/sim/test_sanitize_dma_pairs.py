"""`mtiasim run --sanitize` on what the missing-wait rule first left out: DMA transfers against each other (an
outbound transfer reading local bytes an inbound one not waited for writes; an inbound and an outbound transfer
over the same DRAM bytes), `tl.device_print` / `tl.device_assert` reading a buffer a transfer still writes, and
atomics on local memory.  The races are planted in small Triton kernels by removing the compiler's
`mtia.dma.wait` between the two operations from the binary (its line table untouched), so each report must name
the user's lines and both operations; the kernels as compiled, and the same binaries on one DMA channel (which
runs every transfer in issue order), report nothing."""
import textwrap

import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiasim.loader import load_program
from mtiasim.runner import run
from mtiasim.sanitize import SanitizerError
from tests.sim.helpers import P, build

KERNELS = '''
import triton
import triton.language as tl


@triton.jit
def copy_kernel(X, Y, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    tl.store(Y + offs, x)
    tl.device_assert(x, "x is zero")


@triton.jit
def print_kernel(X, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    tl.device_print("x", x)


@triton.jit
def reload_kernel(X, Y, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    tl.store(Y + offs, x + 1)
    y = tl.load(Y + offs)
    tl.store(X + offs, y * 2)
'''
NOP = (0x00000013).to_bytes(4, "little")        # addi zero, zero, 0
ONE_CHANNEL = ("memory.dma.channels=1",)


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    path = tmp_path_factory.mktemp("pairs") / "pairs.py"
    path.write_text(textwrap.dedent(KERNELS))
    out = {}
    for name in ("copy_kernel", "print_kernel", "reload_kernel"):
        sig = "*i32" if name == "print_kernel" else "*i32,*i32"
        out[name] = compile_kernel(str(path), Options(kernel=name, signature=sig, defines={"BLOCK": "16"},
                                                      opt_level=2)).binary
    return str(path), out


def _without_waits(binary: bytes, first: int, then: int):
    """``binary`` with every DMA wait between line ``first``'s first transfer and the first transfer, print or
    assert of line ``then`` after it replaced by a nop; the number replaced."""
    prog = load_program(binary)
    names = [d.spec.name if d is not None else "" for d in prog.decoded]

    def at(k, line):
        loc, _ = prog.location(prog.text_base + 4 * k)
        n = names[k]
        return loc is not None and loc.line == line and (n in ("mtia.print", "mtia.assert") or (
            n.startswith("mtia.dma.") and n.split(".")[2] in ("in", "out", "in2d", "out2d")))
    start = next(k for k in range(len(names)) if at(k, first))
    end = next(k for k in range(start + 1, len(names)) if at(k, then))
    text = bytearray(binary)
    at = binary.find(prog.text)
    assert at >= 0 and binary.find(prog.text, at + 1) < 0
    dropped = 0
    for k in range(start + 1, end):
        if names[k].startswith("mtia.dma.wait"):
            text[at + 4 * k:at + 4 * k + 4] = NOP
            dropped += 1
    return bytes(text), dropped


def _ints(n=16, seed=0):
    return np.random.default_rng(seed).integers(1, 100, n).astype(np.int32)


def _findings(binary, inputs, **kw):
    with pytest.raises(SanitizerError) as e:
        run(binary, inputs, grid=(1,), sanitize=True, **kw)
    return e.value


# ------------------------------------------------------------------------------------------------------------
def test_the_kernels_as_compiled_are_clean(kernels):
    _, bins = kernels
    x = _ints()
    r = run(bins["copy_kernel"], {"X": x, "Y": np.zeros(16, np.int32)}, grid=(1,), sanitize=True)
    np.testing.assert_array_equal(r.outputs["Y"], x)
    run(bins["print_kernel"], {"X": x}, grid=(1,), sanitize=True)
    r = run(bins["reload_kernel"], {"X": x.copy(), "Y": np.zeros(16, np.int32)}, grid=(1,), sanitize=True)
    np.testing.assert_array_equal(r.outputs["X"], 2 * (x + 1))
    np.testing.assert_array_equal(r.outputs["Y"], x + 1)


def test_a_store_reading_a_load_buffer_not_waited_for_races_with_the_load(kernels):
    path, bins = kernels
    binary, dropped = _without_waits(bins["copy_kernel"], 9, 10)
    assert dropped == 1
    x = _ints()
    err = _findings(binary, {"X": x, "Y": np.zeros(16, np.int32)})
    kinds = {f.kind: f for f in err.findings}
    assert set(kinds) == {"DMA race", "missing DMA wait"}
    text = err.render()
    race = text[text.index(f"{path}:10:5: error: DMA race"):]
    assert race.startswith(
        f"{path}:10:5: error: DMA race: mtia.dma.out (tl.store) reads 64 bytes at local 0x40..0x80 that "
        f"mtia.dma.in (tl.load) writes, issued before it and not waited for: nothing orders the two transfers\n"
        f"    tl.store(Y + offs, x)\n"
        f"    ^\n"
        f"note: in program (0, 0, 0) (linear id 0, PE 0)\n"
        f"note: the earlier transfer: local 0x40..0x80 (64 bytes), issued at cycle "), race
    assert f"by {path}:9:9: x = tl.load(X + offs) (pc 0x" in race
    assert "the two are in flight together" in race.split("\nerror:")[0]
    # the assert reads the same buffer: the missing-wait rule, now for the debugging instructions too
    wait = text[text.index(f"{path}:11:5: error: missing DMA wait"):]
    assert wait.startswith(
        f"{path}:11:5: error: missing DMA wait: mtia.assert (tl.device_assert) reads 64 bytes at local "
        f"0x40..0x80 that mtia.dma.in (tl.load) writes, with no mtia.dma.wait between the two\n"
        f"    tl.device_assert(x, \"x is zero\")\n"), wait
    # the data moves at issue: the outputs are the correct kernel's
    np.testing.assert_array_equal(err.result.outputs["Y"], x)


def test_on_one_channel_the_store_waits_for_the_load_and_only_the_assert_is_reported(kernels):
    binary, _ = _without_waits(kernels[1]["copy_kernel"], 9, 10)
    err = _findings(binary, {"X": _ints(), "Y": np.zeros(16, np.int32)}, overrides=ONE_CHANNEL)
    assert [f.kind for f in err.findings] == ["missing DMA wait"]


def test_a_print_of_a_buffer_a_transfer_still_writes(kernels):
    path, bins = kernels
    binary, dropped = _without_waits(bins["print_kernel"], 16, 17)
    assert dropped == 1
    err = _findings(binary, {"X": _ints()})
    (f,) = err.findings
    assert err.render().startswith(
        f"{path}:17:5: error: missing DMA wait: mtia.print (tl.device_print) reads 64 bytes at local 0x40..0x80 "
        f"that mtia.dma.in (tl.load) writes, with no mtia.dma.wait between the two\n"
        f"    tl.device_print(\"x\", x)\n    ^\n"), err.render()
    assert f"issued at cycle " in err.render() and f"by {path}:16:9: x = tl.load(X + tl.arange(0, BLOCK))" in \
        err.render()


def test_a_load_of_dram_a_store_not_waited_for_writes(kernels):
    path, bins = kernels
    # the compiler waits for the store before the reload (access-plan's after_store): that wait removed
    binary, dropped = _without_waits(bins["reload_kernel"], 24, 25)
    assert dropped == 1
    x = _ints()
    err = _findings(binary, {"X": x.copy(), "Y": np.zeros(16, np.int32)})
    (f,) = err.findings
    text = err.render()
    assert text.startswith(
        f"{path}:25:9: error: DMA race: mtia.dma.in (tl.load) reads 64 bytes at DRAM 0x")
    assert ("('Y'[0]) that mtia.dma.out (tl.store) writes, issued before it and not waited for: nothing orders "
            "the two transfers\n    y = tl.load(Y + offs)\n        ^\n") in text
    assert f"note: the earlier transfer: local 0x" in text and f"(64 bytes) to DRAM 0x" in text
    assert f"by {path}:24:5: tl.store(Y + offs, x + 1) (pc 0x" in text
    np.testing.assert_array_equal(err.result.outputs["X"], 2 * (x + 1))
    # one channel runs the two in issue order: nothing to report
    r = run(binary, {"X": x.copy(), "Y": np.zeros(16, np.int32)}, grid=(1,), sanitize=True, overrides=ONE_CHANNEL)
    np.testing.assert_array_equal(r.outputs["X"], 2 * (x + 1))


# ------------------------------------------------------------------------------------------------------------
# Pairs in assembly: a DRAM write after a read (either order races), and what the machine orders
PAIR = """
kernel:
    ld s0, 0(zero)
    ld s1, 8(zero)
    li t0, 4096
    li t1, 64
    li t2, 8192
    {first}
    {wait}
    {second}
    mtia.dma.wait
    ret
"""
SOURCE = {3: "    x = tl.load(a + offs)", 4: "    tl.store(a + offs, y)"}
IN = "mtia.dma.in t0, s0, t1"
LINES = [(0x14, 3, 9), (0x18, 0, 0), (0x1c, 4, 5), (0x20, 0, 0)]


def _pair(first, second, wait="nop", source=SOURCE, lines=LINES):
    binary = build(PAIR.format(first=first, wait=wait, second=second), params=[P("a", "*i32"), P("b", "*i32")],
                   source=source, lines=lines)
    return binary, {"a": np.arange(16, dtype=np.int32), "b": np.zeros(16, np.int32)}


# a store, then a load of the bytes it writes (the Triton repro's pair, written by hand without the wait)
STORE_LOAD = {3: "    tl.store(a + offs, y)", 4: "    x = tl.load(a + offs)"}
STORE_LOAD_LINES = [(0x14, 3, 5), (0x18, 0, 0), (0x1c, 4, 9), (0x20, 0, 0)]
OUT = "mtia.dma.out s0, t2, t1"


def test_a_load_of_dram_a_store_not_waited_for_writes_in_assembly():
    binary, inputs = _pair(OUT, IN, source=STORE_LOAD, lines=STORE_LOAD_LINES)
    with pytest.raises(SanitizerError) as e:
        run(binary, inputs, grid=(1,), sanitize=True)
    races = [f for f in e.value.findings if f.kind == "DMA race"]
    assert len(races) == 1 and {f.kind for f in e.value.findings} <= {"DMA race", "uninitialized read"}
    text = e.value.render()
    assert ("kernel.py:4:9: error: DMA race: mtia.dma.in (tl.load) reads 64 bytes at DRAM 0x10000000 ('a'[0]) "
            "that mtia.dma.out (tl.store) writes, issued before it and not waited for: nothing orders the two "
            "transfers\n    x = tl.load(a + offs)\n        ^\n") in text, text
    assert "the earlier transfer: local 0x2000..0x2040 (64 bytes) to DRAM 0x10000000..0x10000040" in text
    assert "by kernel.py:3:5: tl.store(a + offs, y) (pc 0x14: mtia.dma.out s0, t2, t1)" in text


@pytest.mark.parametrize("wait,overrides", [
    ("mtia.dma.wait", ()),          # the compiler's wait between them
    ("mtia.dma.wait 0", ()),
    ("nop", ("memory.dma.channels=1",)),    # one channel: every transfer in issue order
])
def test_a_load_after_a_store_the_machine_orders_is_no_race(wait, overrides):
    binary, inputs = _pair(OUT, IN, wait, source=STORE_LOAD, lines=STORE_LOAD_LINES)
    try:
        run(binary, inputs, grid=(1,), sanitize=True, overrides=overrides)
    except SanitizerError as e:     # the store reads local bytes never written: no pair
        assert all(f.kind == "uninitialized read" for f in e.findings), e.render()


def test_a_load_of_other_dram_bytes_than_a_store_in_flight_is_no_race():
    binary, inputs = _pair(OUT, "mtia.dma.in t0, s1, t1", source=STORE_LOAD, lines=STORE_LOAD_LINES)
    try:
        run(binary, inputs, grid=(1,), sanitize=True)
    except SanitizerError as e:
        assert all(f.kind == "uninitialized read" for f in e.findings), e.render()


def test_a_store_over_dram_a_load_not_waited_for_reads():
    binary, inputs = _pair(IN, "mtia.dma.out s0, t2, t1")
    with pytest.raises(SanitizerError) as e:
        run(binary, inputs, grid=(1,), sanitize=True)
    kinds = [f.kind for f in e.value.findings]
    assert "DMA race" in kinds and set(kinds) <= {"DMA race", "uninitialized read"}
    text = e.value.render()
    assert ("kernel.py:4:5: error: DMA race: mtia.dma.out (tl.store) writes 64 bytes at DRAM 0x10000000 ('a'[0]) "
            "that mtia.dma.in (tl.load) reads, issued before it and not waited for: nothing orders the two "
            "transfers\n    tl.store(a + offs, y)\n    ^\n") in text
    assert "the earlier transfer: DRAM 0x10000000..0x10000040 to local 0x1000..0x1040 (64 bytes)" in text
    assert "by kernel.py:3:9: x = tl.load(a + offs) (pc 0x14: mtia.dma.in t0, s0, t1)" in text


@pytest.mark.parametrize("first,second,wait", [
    (IN, "mtia.dma.out s0, t2, t1", "mtia.dma.wait"),           # waited for
    (IN, "mtia.dma.out s0, t2, t1", "mtia.dma.wait.in"),        # the inbound ones waited for
    (IN, "mtia.dma.in t2, s0, t1", "nop"),                      # two reads of DRAM, one channel: in order
    ("mtia.dma.out s0, t2, t1", "mtia.dma.out s0, t0, t1", "nop"),   # two writes of DRAM, one channel: in order
    ("mtia.dma.out s1, t0, t1", IN, "nop"),     # an inbound transfer over local bytes an outbound one reads: held
])
def test_pairs_the_machine_orders_are_no_finding(first, second, wait):
    binary, inputs = _pair(first, second, wait)
    try:
        run(binary, inputs, grid=(1,), sanitize=True)
    except SanitizerError as e:     # a DMA out of local bytes never written, never a pair
        assert all(f.kind == "uninitialized read" for f in e.findings), e.render()


# ------------------------------------------------------------------------------------------------------------
# Atomics on local memory (a Triton kernel has no pointer into local memory: hand-written code only)
ATOMIC = """
kernel:
    ld s0, 0(zero)
    li t0, 4096
    li t1, 64
    mtia.dma.in t0, s0, t1
    li t2, 1
    {atomic} a0, t2, (t0)
    mtia.dma.wait
    ret
"""
ASOURCE = {3: "    x = tl.load(a + offs)", 5: "    tl.atomic_add(counter, 1)"}
ALINES = [(0x0c, 3, 9), (0x14, 5, 5)]


def _atomic(atomic):
    return build(ATOMIC.format(atomic=atomic), params=[P("a", "*i32")], source=ASOURCE, lines=ALINES)


def test_a_local_atomic_on_bytes_a_transfer_still_writes():
    with pytest.raises(SanitizerError) as e:
        run(_atomic("amoadd.w"), {"a": np.arange(16, dtype=np.int32)}, grid=(1,), sanitize=True)
    (f,) = e.value.findings
    assert e.value.render().startswith(
        "kernel.py:5:5: error: missing DMA wait: amoadd.w (tl.atomic_add) updates 4 bytes at local 0x1000..0x1004 "
        "that mtia.dma.in (tl.load) writes, with no mtia.dma.wait between the two\n"
        "    tl.atomic_add(counter, 1)\n")
    assert "the update meets bytes still in flight" in e.value.render()


def test_a_release_atomic_waits_for_the_transfers_first():
    r = run(_atomic("amoadd.w.rl"), {"a": np.arange(16, dtype=np.int32)}, grid=(1,), sanitize=True)
    assert r.stats.cycles > 0


def test_a_local_atomic_on_bytes_never_written_is_an_uninitialized_read():
    asm = "kernel:\n    li t0, 4096\n    li t2, 1\n    {atomic} a0, t2, (t0)\n    ret\n"
    with pytest.raises(SanitizerError) as e:
        run(build(asm.format(atomic="amoadd.w")), {}, grid=(1,), sanitize=True)
    (f,) = e.value.findings
    assert f.kind == "uninitialized read"
    assert f.message.startswith("amoadd.w of 4 bytes at local address 0x1000 reads 4 bytes of local memory that "
                                "the program never wrote")
    run(build(asm.format(atomic="amoswap.w").replace("a0,", "zero,")), {}, grid=(1,), sanitize=True)  # a store
