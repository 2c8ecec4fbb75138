"""The mutation tool (benchmarks/mutate.py, ``make mutate``): which mutants it makes, that each changes exactly one
thing, that keys survive edits elsewhere in the module, and how equivalent mutants are read from docs/mutation.md."""
import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import mutate  # noqa: E402

SRC = '''"""Doc."""
__all__ = ["f"]


def f(lo, hi, xs):
    """Doc of f."""
    assert lo >= 0
    n = 0
    for x in xs:
        if not x:
            continue
        n += x * 2
    return lo < hi and n - 1
'''


def _keys(src):
    return [mu.key for mu in mutate.mutants("m.py", src)]


def test_the_mutants_of_a_function():
    keys = _keys(SRC)
    for want in ["f: lo < hi -> lo <= hi", "f: n - 1 -> n + 1", "f: x * 2 -> x // 2", "f: 2 -> 3", "f: 2 -> 1",
                 "f: not x -> x", "f: lo < hi and n - 1 -> lo < hi or n - 1", "f: n += x * 2 -> pass",
                 "f: n += x * 2 -> n -= x * 2", "f: continue -> pass", "f: n = 0 -> pass", "f: 0 -> 1"]:
        assert want in keys, want
    # docstrings, __all__ and asserts are left alone
    assert not [k for k in keys if "Doc" in k or "__all__" in k or ">= 0" in k or "lo >= 0" in k]


def test_each_mutant_changes_one_thing():
    base = ast.dump(ast.parse(SRC))
    for mu in mutate.mutants("m.py", SRC):
        text = mutate.mutated_source(SRC, mu.index)
        assert ast.dump(ast.parse(text)) != base, mu.key
        assert mu.after.split(" #")[0] in text or mu.after == "pass", mu.key


def test_keys_do_not_move_with_lines_elsewhere():
    shifted = SRC.replace('__all__ = ["f"]\n', '__all__ = ["f"]\n\n\nX = 1\n')
    assert set(_keys(SRC)) <= set(_keys(shifted))


def test_equivalents_come_from_the_docs_table(tmp_path, monkeypatch):
    doc = tmp_path / "mutation.md"
    doc.write_text("| `mtiacc/opt/cse.py` | `not a mutant: the rooms table` | x |\n## Equivalent mutants\n"
                   "| module | mutant | why it is equivalent |\n| --- | --- | --- |\n"
                   "| mtiacc/opt/licm.py | `hoist_loop: 0 -> 1` | the count is only compared with 0 |\n")
    monkeypatch.setattr(mutate, "DOC", doc)
    assert mutate.equivalents() == {("mtiacc/opt/licm.py", "hoist_loop: 0 -> 1"): "the count is only compared with 0"}


def test_every_room_has_tests():
    for mod in mutate.modules_of(mutate.ROOMS):
        assert all((ROOT / t.split("::")[0]).exists() for t in mutate.tests_for(mod)), mod


def test_targeted_tests_first_and_the_room_wide_subset_for_their_survivors():
    # timing.py has targeted tests: the room's subset is its final check; a module without any runs the room's at
    # once, with no second stage
    assert mutate.tests_for("mtiasim/timing.py") != mutate.room_tests_for("mtiasim/timing.py")
    assert mutate.final_tests_for("mtiasim/timing.py") == mutate.ROOM_TESTS["mtiasim/timing.py"]
    assert mutate.tests_for("mtiacc/opt/cse.py") == mutate.ROOM_TESTS["mtiacc/opt"]
    assert mutate.final_tests_for("mtiacc/opt/cse.py") is None
    # a mutant that passed only its targeted tests is still pending, one that passed the room's is a survivor
    assert mutate._pending({"status": "pass", "checked": "module"})
    assert not mutate._pending({"status": "pass", "checked": "room"})
    assert not mutate._pending({"status": "fail", "checked": "module"})
