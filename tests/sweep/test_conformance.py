"""``benchmarks/conformance.py --executor local``: the chunks of test functions as jobs of the sweep's local
executor give the table the chunks give one after another."""
from .conftest import run_conformance

ROWS = ["| `test_a` | 1 / 0 / 0 | - | complete |",
        "| `test_b` | 257 / 3 / 0 | - | complete |",
        "| `test_c` | 0 / 0 / 1 | - | complete |"]


def test_chunks_on_the_local_executor_give_the_serial_table(conformance_slice, tmp_path):
    serial, serial_state = run_conformance(conformance_slice, tmp_path / "serial")
    rows, state = run_conformance(conformance_slice, tmp_path / "local", "--executor", "local", "--jobs", "2")
    assert serial == ROWS
    assert rows == ROWS
    assert [c["functions"] for c in state["chunks"]] == [["test_a"], ["test_b"], ["test_c"]]
    assert sorted(state["ours"]) == sorted(serial_state["ours"]) and len(state["ours"]) == 3
    assert all(r["complete"] for r in state["ours"].values())
    for ch in state["chunks"]:
        assert (tmp_path / "local" / f"{ch['id']}.xml").read_text().count("<testcase") >= 1
