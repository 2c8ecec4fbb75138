"""`mtiasim run --sanitize` on atomics against DMA transfers of one program (the "DMA race" rule): an atomic
reaches its memory's atomic unit apart from the DMA engine, which compares no DRAM or SRAM addresses with it, on
one channel or two.  So an atomic without `.rl` over bytes a transfer not waited for writes or reads, and a
transfer over the bytes of an atomic without `.aq` that no `fence` (or later `.rl` atomic) retired, are reported;
what the ISA orders (`mtia.dma.wait` before the atomic, `.rl`, `fence` after it, `.aq`) is not.  `mtia.dma.wait`
waits for transfers only, so it does not retire an atomic."""
import numpy as np
import pytest

from mtiasim.runner import run
from mtiasim.sanitize import SanitizerError
from tests.sim.helpers import P, build

PAIR = """
kernel:
    ld s0, 0(zero)
    ld s1, 8(zero)
    li t0, 4096
    li t1, 64
    li t2, 8192
    {first}
    {between}
    {second}
    mtia.dma.wait
    fence
    ret
"""
LINES = [(0x14, 3, 5), (0x18, 0, 0), (0x1c, 4, 5), (0x20, 0, 0)]
STORE = ("mtia.dma.out s0, t2, t1", "    tl.store(a + offs, y)")
LOAD = ("mtia.dma.in t0, s0, t1", "    tl.load(a + offs)")
AMO = ("amoadd.w a0, t1, (s0)", "    tl.atomic_add(a, 64, sem=\"relaxed\")")
CHANNELS = [(), ("memory.dma.channels=1",)]


def _run(first, second, between="nop", overrides=()):
    binary = build(PAIR.format(first=first[0], between=between, second=second[0]),
                   params=[P("a", "*i32"), P("b", "*i32")], source={3: first[1], 4: second[1]}, lines=LINES)
    inputs = {"a": np.arange(16, dtype=np.int32), "b": np.zeros(16, np.int32)}
    try:
        run(binary, inputs, grid=(1,), sanitize=True, overrides=overrides)
    except SanitizerError as e:   # (a store of local bytes never written is an uninitialized read: not a pair)
        races = [f for f in e.findings if f.kind != "uninitialized read"]
        assert all(f.kind == "DMA race" for f in races), e.render()
        text = e.render()
        return text[text.index("kernel.py:4:5: error: DMA race"):] if races else None
    return None


@pytest.mark.parametrize("overrides", CHANNELS)
def test_an_atomic_over_bytes_a_store_in_flight_writes(overrides):
    text = _run(STORE, AMO, overrides=overrides)
    assert text is not None and text.startswith(
        "kernel.py:4:5: error: DMA race: amoadd.w (tl.atomic_add) updates 4 bytes at DRAM 0x10000000 ('a'[0]) that "
        "mtia.dma.out (tl.store) writes, issued before it and not waited for: nothing orders an atomic and a DMA "
        "transfer\n    tl.atomic_add(a, 64, sem=\"relaxed\")\n    ^\n"), text
    assert "note: the earlier transfer: issued at cycle " in text
    assert "by kernel.py:3:5: tl.store(a + offs, y) (pc 0x14: mtia.dma.out s0, t2, t1)" in text
    assert "a mtia.dma.wait before the atomic (or its .rl, which waits for every transfer before it) orders them" \
        in text


def test_an_atomic_over_bytes_a_load_in_flight_reads():
    text = _run(LOAD, AMO)
    assert text is not None and ("error: DMA race: amoadd.w (tl.atomic_add) updates 4 bytes at DRAM 0x10000000 "
                                 "('a'[0]) that mtia.dma.in (tl.load) reads") in text, text


@pytest.mark.parametrize("overrides", CHANNELS)
@pytest.mark.parametrize("later,verb", [(LOAD, "reads"), (STORE, "writes")])
def test_a_transfer_over_bytes_an_atomic_in_flight_updates(later, verb, overrides):
    text = _run(AMO, later, overrides=overrides)
    assert text is not None and text.startswith(
        f"kernel.py:4:5: error: DMA race: {later[0].split()[0]} ({'tl.load' if later is LOAD else 'tl.store'}) "
        f"{verb} 4 bytes at DRAM 0x10000000 ('a'[0]) that amoadd.w (tl.atomic_add) updates, issued before it and "
        f"not waited for: nothing orders an atomic and a DMA transfer\n"), text
    assert "note: the earlier atomic: issued by kernel.py:3:5: tl.atomic_add(a, 64, sem=\"relaxed\") (pc 0x14: " \
        "amoadd.w a0, t1, (s0))" in text
    assert "a fence between them (or the atomic's .aq, which holds the core until it is performed) orders them" in text


def test_a_dma_wait_does_not_retire_an_atomic():
    assert _run(AMO, LOAD, "mtia.dma.wait") is not None


@pytest.mark.parametrize("first,second,between", [
    (STORE, AMO, "mtia.dma.wait"),                                   # the store completes first
    (STORE, ("amoadd.w.rl a0, t1, (s0)", AMO[1]), "nop"),            # .rl waits for the transfers before it
    (STORE, ("amoadd.w a0, t1, (s1)", AMO[1]), "nop"),               # other bytes
    (AMO, LOAD, "fence"),                                            # the fence waits for the atomic
    (("amoadd.w.aq a0, t1, (s0)", AMO[1]), LOAD, "nop"),             # .aq: the core waits for it
    (AMO, LOAD, "amoadd.w.rl a1, t1, (s1)"),                         # a later .rl atomic waits for it
    (AMO, ("mtia.dma.in t0, s1, t1", LOAD[1]), "nop"),               # other bytes
])
def test_what_the_isa_orders_is_no_race(first, second, between):
    assert _run(first, second, between) is None
