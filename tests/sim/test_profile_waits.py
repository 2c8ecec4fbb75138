"""`mtiasim profile` charges a DMA wait's stall to the load or store that issued the transfer it waited for, not to
the wait's own line (the store's line for the loads' wait, the `def` line for the wait before the program ends)."""
from pathlib import Path

import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiasim.profile import attribute, render_profile
from mtiasim.runner import run

VECTOR_ADD = Path(__file__).resolve().parents[2] / "examples" / "vector_add.py"
_TEXT = VECTOR_ADD.read_text().splitlines()


def _line(start: str) -> int:
    return next(i for i, t in enumerate(_TEXT, start=1) if t.strip().startswith(start))


LINES = {"def": _line("def add_kernel"), "load_a": _line("a = tl.load(A_ptr"), "load_b": _line("b = tl.load(B_ptr"),
         "store": _line("tl.store(C_ptr")}


def _profile(opt_level=None):
    opts = Options(defines={"BLOCK_SIZE": "1024"}, grid="cdiv(N, BLOCK_SIZE)")
    if opt_level is not None:
        opts.opt_level = opt_level
    binary = compile_kernel(str(VECTOR_ADD), opts).binary
    n = 1 << 17
    rng = np.random.default_rng(3)
    inputs = {"A_ptr": rng.standard_normal(n).astype(np.float32), "B_ptr": rng.standard_normal(n).astype(np.float32),
              "C_ptr": np.zeros(n, np.float32), "N": np.array(n, np.int32)}
    plain = run(binary, inputs)
    r = run(binary, inputs, profile=True)
    np.testing.assert_array_equal(r.outputs["C_ptr"], inputs["A_ptr"] + inputs["B_ptr"])
    return plain, r


@pytest.fixture(scope="module")
def profiled():
    """At -O2 a program loads, adds and stores one block after the other, so nearly all its time is DMA waits
    (at the default level the next program's loads overlap this one's add, which then takes its own cycles)."""
    return _profile(opt_level=2)


def test_at_the_default_level_the_lines_of_the_transfers_take_the_waits():
    _plain, r = _profile()
    a = attribute(r)
    share = {k: a.lines.get(ln, 0.0) / a.core for k, ln in LINES.items()}
    assert share["load_a"] + share["load_b"] + share["store"] > 0.95, share
    assert share["def"] < 0.01, share


def test_the_source_lines_match_vector_add():
    text = VECTOR_ADD.read_text().splitlines()
    assert text[LINES["def"] - 1].startswith("def add_kernel")
    assert "tl.load(A_ptr" in text[LINES["load_a"] - 1] and "tl.load(B_ptr" in text[LINES["load_b"] - 1]
    assert "tl.store(C_ptr" in text[LINES["store"] - 1]


def test_dma_waits_are_billed_to_the_loads_and_the_store(profiled):
    plain, r = profiled
    assert r.stats.cycles == plain.stats.cycles          # profiling does not change the timing
    a = attribute(r)
    core = a.core
    share = {k: a.lines.get(ln, 0.0) / core for k, ln in LINES.items()}
    # the kernel is DRAM bound: nearly all of its core time is waiting for the transfers of its loads and store
    assert share["load_a"] + share["load_b"] + share["store"] > 0.95, share
    assert share["load_b"] > 0.3, share      # the later of the two loads ends the wait before the add
    assert share["def"] < 0.01, share        # before: about a third (the wait for the store before the end)
    rows = {text.split()[0]: 0.0 for _pc, text, _n, _c, _l in a.instructions}
    for _pc, text, n, c, _ln in a.instructions:
        rows[text.split()[0]] += c
        if text.startswith("mtia.dma.wait"):
            assert c < 0.01 * core, (text, n, c)     # a wait keeps its issue cycles only
    assert rows["mtia.dma.in"] + rows["mtia.dma.out"] > 0.9 * core
    assert "mtia.dma.in" in render_profile(a, top=3)


def test_billing_moves_cycles_and_keeps_their_sum(profiled):
    _plain, r = profiled
    assert r.profile_moved.sum() == pytest.approx(0.0, abs=1e-6 * r.profile.sum())
    spent = r.profile - r.profile_moved
    assert spent.sum() == pytest.approx(r.profile.sum(), rel=1e-12)
    assert (spent >= -1e-6).all()
    prog = r.program
    waits = [k for k, d in enumerate(prog.decoded) if d is not None and d.spec.sem_family == "dma_wait"]
    assert spent[waits].sum() > 0.9 * spent.sum()   # where the programs spent the time: at the waits
