"""A seeded slice of the random-kernel differential tests (``python -m tests.fuzz.gen`` runs any number).

Each kernel is generated from its seed, compiled at -O0 and -O3, run on the simulator and compared with the
numpy reference of the same program model.  Small kernels (two top-level statements, plus the stores of what
they compute) keep the slice fast.
"""
import time

import numpy as np
import pytest

from tests.fuzz.gen import emit
from tests.fuzz.gen import model as m
from tests.fuzz.gen.evaluate import evaluate
from tests.fuzz.gen.generate import generate
from tests.fuzz.gen.minimize import TIMEOUT_TRY, TRY_FLOOR, candidates, try_timeout, well_formed
from tests.fuzz.gen.runner import _Timeout, check, compare, make_inputs, time_limit

# the suite's slice: 12 kernels here, the rest (`pytest -m slow`) and `make fuzz` (thousands, resumable)
SEEDS = [*range(12), *(pytest.param(s, marks=pytest.mark.slow) for s in range(12, 30))]


@pytest.mark.parametrize("seed", SEEDS)
def test_random_kernel(seed, tmp_path):
    k = generate(seed, size=2)
    v = check(k, str(tmp_path), timeout=60)
    assert not v.failed, f"seed {seed}: {v.kind} at -O{v.level}: {v.detail}\n{emit.source(k)}"


def _box_patterns(k):
    """(load|store, block|desc) of every block pointer and tensor descriptor access of ``k``."""
    out = set()
    for s in m.walk_stmts(k.body):
        if isinstance(s, m.Store):
            out.add(("store", s.access.kind))
        for e in m.stmt_exprs(s):
            out |= {("load", n.access.kind) for n in m.walk_expr(e) if isinstance(n, m.Load)}
    return {p for p in out if p[1] in ("block", "desc")}


BOX_PATTERNS = [("load", "block"), ("load", "desc"), ("store", "block"), ("store", "desc")]
# a small seeded kernel (size 1) using each pattern
BOX_SEEDS = {("load", "block"): 231, ("load", "desc"): 206, ("store", "block"): 131, ("store", "desc"): 228}


def test_the_generator_makes_block_pointers_and_tensor_descriptors():
    seen = set()
    for seed in range(300):
        seen |= _box_patterns(generate(seed, size=1))
    assert seen == set(BOX_PATTERNS)
    for p, seed in BOX_SEEDS.items():
        assert p in _box_patterns(generate(seed, size=1)), p


def test_block_pointer_and_descriptor_text():
    src = emit.source(generate(BOX_SEEDS[("store", "desc")], size=1))
    assert "tl.make_tensor_descriptor(" in src and ".store([" in src
    src = emit.source(generate(BOX_SEEDS[("load", "block")], size=1))
    assert "tl.make_block_ptr(" in src and "tl.advance(" in src and 'padding_option="zero"' in src


def test_the_reference_pads_a_block_pointer_load_with_zeros():
    """A 4x4 block at (-1, 2) of a 3x5 tensor: row -1 and columns 5.. read 0; a descriptor store of the block at the
    same box writes only the tensor's elements inside it."""
    ty = m.Ty("int32", ("A", "A"))
    acc = m.Access(shape=("A", "A"), kind="block", box=(-1, 1, -1, 2, 1, 0))
    desc = m.Access(shape=("A", "A"), kind="desc", box=(-1, 1, -1, 2, 0, 0))
    x = m.Load(ty, "X0", acc)
    k = m.Kernel(dims={"A": 4}, grid=1, buffers=(m.Buffer("X0", "int32", "in"), m.Buffer("O1", "int32", "out"),
                                                  m.Buffer("O2", "int32", "out")),
                 args=(), body=(m.Store("O1", m.Access(shape=("A", "A")), x), m.Store("O2", desc, x)))
    inputs = make_inputs(k)
    assert inputs["X0"].size == 15 and inputs["O2"].size == 15
    res = evaluate(k, inputs)
    xs = inputs["X0"].reshape(3, 5)
    block = np.zeros((4, 4), np.int32)
    block[1:4, 0:3] = xs[:, 2:5]
    assert (res["O1"][0].reshape(4, 4) == block).all()
    o2 = np.full((3, 5), 3, np.int32)
    o2[:, 2:5] = xs[:, 2:5]
    assert (res["O2"][0].reshape(3, 5) == o2).all()


@pytest.mark.parametrize("pattern", BOX_PATTERNS, ids=lambda p: "-".join(p))
def test_a_kernel_with_each_box_pattern_matches(pattern, tmp_path):
    k = generate(BOX_SEEDS[pattern], size=1)
    v = check(k, str(tmp_path), timeout=60)
    assert not v.failed, f"{pattern}: {v.kind} at -O{v.level}: {v.detail}\n{emit.source(k)}"


def test_generation_is_deterministic():
    assert emit.source(generate(7)) == emit.source(generate(7))
    a, b = make_inputs(generate(7)), make_inputs(generate(7))
    assert a.keys() == b.keys() and all(np.array_equal(a[n], b[n]) for n in a)


def test_the_comparison_catches_a_wrong_result():
    """The oracle can fail: a store of x + 1 checked against a reference of x + 2 is a mismatch."""
    ty = m.Ty("int32", ("A",))
    x = m.Load(ty, "X0", m.Access(shape=("A",)))
    k = m.Kernel(dims={"A": 8}, grid=1, buffers=(m.Buffer("X0", "int32", "in"), m.Buffer("O1", "int32", "out")),
                 args=(), body=(m.Store("O1", m.Access(shape=("A",)), m.BinLit(ty, "+", x, 1)),))
    wrong = k.replace(body=(m.Store("O1", m.Access(shape=("A",)), m.BinLit(ty, "+", x, 2)),))
    inputs = make_inputs(k)
    got = {"O1": evaluate(k, inputs)["O1"][0]}
    assert compare(k, evaluate(k, inputs), got) is None
    assert "O1[0]" in compare(wrong, evaluate(wrong, inputs), got)


def test_minimizer_proposals_are_smaller_and_well_formed():
    k = generate(3)
    props = [c for c in candidates(k) if well_formed(c)]
    assert props and all(m.count_nodes(c) <= m.count_nodes(k) for c in props[:50])


def test_minimizer_tries_are_limited_by_the_failing_check_time():
    assert try_timeout("mismatch", 0.1, 60) == TRY_FLOOR
    assert try_timeout("fault", 5.0, 60) == 3 * 5.0
    assert try_timeout("internal", 50.0, 60) == 60
    assert try_timeout("timeout", 60.0, 60) == TIMEOUT_TRY < 60
    assert try_timeout("timeout", 5.0, 5.0) == 5.0


def test_the_reference_of_a_dot_rounds_its_accumulator_with_the_products():
    """ones @ B + (1 + 2**-50), B's columns 4, 4, -4, -4, 0, ...: the running sum 1 + 2**-50 + 4 + 4 rounds (9 has
    no bit for 2**-50), so 1 is a correct result, and the reference must not call the sum exact (seed 30016 of
    the fuzzer: it checked only the last addition, and a correct f64 result one ULP off was a mismatch)."""
    P = ("P", "P")
    ty = m.Ty("float64", P)
    k = m.Kernel(dims={"P": 16}, grid=1, buffers=(m.Buffer("X0", "float64", "in"), m.Buffer("O1", "float64", "out")),
                 args=(), body=(m.Store("O1", m.Access(shape=P), m.Dot(ty, m.Full(ty, 1.0), m.Load(ty, "X0", m.Access(
                     shape=P)), m.Full(ty, 1 + 2.0 ** -50))),))
    inputs = make_inputs(k)
    b = np.zeros((16, 16))
    b[:4] = np.array([4.0, 4.0, -4.0, -4.0])[:, None]
    inputs["X0"] = b.reshape(-1)
    want, err, unk = evaluate(k, inputs)["O1"]
    assert not unk.any() and (err > 0).all()
    assert compare(k, {"O1": (want, err, unk)}, {"O1": np.full(256, 1.0)}) is None
    assert compare(k, {"O1": (want, err, unk)}, {"O1": np.full(256, 1.0 + 2.0 ** -50)}) is None


@pytest.mark.parametrize("seed", [1, 2])
def test_random_kernels_are_clean_under_the_sanitizer(seed, tmp_path):
    """The kernels are UB-free by construction: a sanitizer finding would be a false positive (or a compiler bug)."""
    k = generate(seed, size=2)
    v = check(k, str(tmp_path), timeout=60, levels=(3,), sanitize=True)
    assert v.kind in ("pass", "skip"), f"seed {seed}: {v.kind}: {v.detail}\n{emit.source(k)}"


def _edges(k):
    """The boundary shapes in ``k``: mask spellings and kinds, backwards accesses, loops that never run (by the
    form of their bounds), one-element dims."""
    out = set()
    for s in m.walk_stmts(k.body):
        accs = [s.access] if isinstance(s, m.Store) else []
        accs += [n.access for e in m.stmt_exprs(s) for n in m.walk_expr(e) if isinstance(n, m.Load)]
        for a in accs:
            if a.mask:
                out |= {("form", a.mask_form), ("mask", a.mask)}
            if a.reverse:
                out.add(("reverse",))
        if isinstance(s, m.For) and any(isinstance(b, m.Store) and isinstance(b.value, m.Load) and b.value.access.far
                                        for b in s.body):
            out.add(("dead", "arg" if isinstance(s.hi, str) else "equal" if s.lo == s.hi else "reversed"))
    if 1 in k.dims.values():
        out.add(("dim1",))
    return out


def test_the_generator_makes_every_boundary_shape():
    from tests.fuzz.gen.emit import MASK_FORMS
    seen = set()
    for seed in range(300):
        seen |= _edges(generate(seed, size=1))
    want = {("form", f) for f in MASK_FORMS} | {("mask", k) for k in ("arg", "half", "global")} | \
        {("dead", f) for f in ("arg", "equal", "reversed")} | {("reverse",), ("dim1",)}
    assert want <= seen, want - seen


def test_each_mask_spelling_means_offs_below_n():
    """Every spelling of emit.MASK_FORMS, evaluated by Python on integers, is ``o < n``."""
    from tests.fuzz.gen.emit import MASK_FORMS
    for name, form in MASK_FORMS.items():
        for o in range(-1, 6):
            for n in range(0, 5):
                assert eval(form.format(o=o, n=n)) == (0 <= o < n if "&" in form else o < n), (name, o, n)


# a small kernel with a loop that never runs, of constant bounds, around a load far past its buffer
DEAD_SEED = next(s for s in range(1000) if ("dead", "equal") in _edges(generate(s, size=1)))


def test_a_loop_that_never_runs_is_checked_at_O2_too(tmp_path):
    from tests.fuzz.gen.runner import levels_for
    k = generate(DEAD_SEED, size=1)
    assert levels_for(k) == (0, 2, 3)
    assert "range(" in emit.source(k) and f"+ {emit.FAR}" in emit.source(k)
    v = check(k, str(tmp_path), timeout=60)
    assert not v.failed, f"{v.kind} at -O{v.level}: {v.detail}\n{emit.source(k)}"


def test_a_seed_makes_the_same_kernel_in_every_process():
    """Pinned seeds keep their kernels: generation does not depend on Python's string hashing (iterating a set
    of dtype names made seed 5 a different kernel in each process)."""
    import os
    import subprocess
    import sys
    code = ("import hashlib; from tests.fuzz.gen import emit; from tests.fuzz.gen.generate import generate; "
            "print(hashlib.sha256(''.join(emit.source(generate(s, size=2)) for s in range(30)).encode()).hexdigest())")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    digests = {subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True,
                              env={**os.environ, "PYTHONHASHSEED": str(h), "PYTHONPATH": root}).stdout
               for h in (1, 2, 3)}
    assert len(digests) == 1, digests


def test_the_time_limit_counts_cpu_time_not_waiting():
    """A kernel waiting for a core on a loaded machine is not a timeout (seed 321 timed out at 60 s of wall clock
    having used 3 s of CPU): 0.3 s asleep passes a 0.05 s limit; spinning does not."""
    with time_limit(0.05):
        time.sleep(0.3)
    start = time.process_time()
    with pytest.raises(_Timeout):
        with time_limit(0.05):
            while time.process_time() - start < 30:
                pass
