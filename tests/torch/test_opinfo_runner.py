"""benchmarks/opinfo.py on a slice of OpInfo: each sample's status, the JSON, the table, --resume."""
import json
import sys
import types
from pathlib import Path

import pytest

pytest.importorskip("expecttest")   # torch.testing._internal needs it

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import opinfo  # noqa: E402
import opinfo_run  # noqa: E402

OPS = "add,where,cholesky"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("opinfo")
    js, md = out / "opinfo.json", out / "opinfo.md"
    args = ["--ops", OPS, "--dtypes", "float32", "--limit-samples", "1", "--executor", "inline",
            "--json", str(js), "--md", str(md)]
    assert opinfo.main(args) == 0
    return args, js, md


def test_statuses_and_json(run):
    _, js, _ = run
    data = json.loads(js.read_text())
    res = data["results"]
    assert list(res) == ["add", "cholesky", "where"]      # op_db's order
    for key in ("add", "where"):
        rows = res[key]["dtypes"]["float32"]
        assert len(rows) == 1
        assert rows[0]["status"] == "chip", rows
        assert rows[0]["kernels"] >= 1
    # Inductor leaves a Cholesky factorization to aten: matches eager, partly on the host, and the row says which
    ch = res["cholesky"]["dtypes"]["float32"][0]
    assert ch["status"] == "host", ch
    assert "aten:cholesky" in ch["host"], ch
    s = data["summary"]
    assert s["ops"] == 3 and s["samples"] == 3
    assert s["by_op"] == {"chip": 2, "host": 1, "wrong": 0, "error": 0, "uncapturable": 0, "skipped": 0}
    assert s["by_sample"]["chip"] == 2 and s["captured_samples_on_chip"] == pytest.approx(2 / 3)
    assert data["meta"]["dtypes"] == ["float32"] and data["meta"]["limit_samples"] == 1


def test_markdown(run):
    _, _, md = run
    text = md.read_text()
    assert "Command: `python benchmarks/opinfo.py --ops add,where,cholesky" in text
    assert "| entries | 2 | 1 | 0 | 0 | 0 | 0 | 3 |" in text
    assert "| `cholesky` | host | float32 | 0 | 1 |" in text


def test_resume_runs_nothing_again(run, monkeypatch):
    args, js, _ = run
    before = json.loads(js.read_text())["results"]

    def never(keys, *rest):
        raise AssertionError(f"ran {keys} again")
    monkeypatch.setattr(opinfo_run, "run_inline", never)
    assert opinfo.main(args + ["--resume"]) == 0
    assert json.loads(js.read_text())["results"] == before


def _fake(fn):
    return types.SimpleNamespace(op=fn, decorators=())


def _sample(x):
    return types.SimpleNamespace(input=x, args=(), kwargs={})


def test_wrong_uncapturable_and_random_samples():
    import torch
    x = torch.arange(6, dtype=torch.float32)

    def differs(t):   # compiled, it adds one: a wrong result by construction
        return t + 1 if torch.compiler.is_compiling() else t * 1
    r = opinfo_run.run_sample(_fake(differs), _sample(x), torch.float32)
    assert r["status"] == "wrong" and "Mismatched elements: 6 / 6" in r["detail"], r

    def breaks(t):
        torch._dynamo.graph_break()
        return t + 1
    r = opinfo_run.run_sample(_fake(breaks), _sample(x), torch.float32)
    assert r["status"] == "uncapturable", r

    r = opinfo_run.run_sample(_fake(lambda t: t + torch.rand_like(t)), _sample(x), torch.float32)
    assert r["status"] == "skipped" and r["detail"].startswith("random"), r

    r = opinfo_run.run_sample(_fake(lambda t: t.reshape(4)), _sample(x), torch.float32)
    assert r["status"] == "skipped" and "eager raises: RuntimeError" in r["detail"], r
