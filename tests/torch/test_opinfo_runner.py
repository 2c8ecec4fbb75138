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

OPS = "add,where,matrix_exp"


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
    assert list(res) == ["add", "matrix_exp", "where"]      # op_db's order
    for key in ("add", "where"):
        rows = res[key]["dtypes"]["float32"]
        assert len(rows) == 1
        assert rows[0]["status"] == "chip", rows
        assert rows[0]["kernels"] >= 1
    # Inductor leaves a matrix exponential to aten: matches eager, partly on the host, and the row says which
    ch = res["matrix_exp"]["dtypes"]["float32"][0]
    assert ch["status"] == "host", ch
    assert "aten:linalg_matrix_exp" in ch["host"], ch
    # the ATen overloads dynamo's graphs call: each sample's, and the distinct ops by status
    assert rows[0]["aten"] == ["aten.where.self"], rows
    assert res["add"]["dtypes"]["float32"][0]["aten"] == ["aten.add.Tensor"]
    assert ch["aten"] == ["aten.linalg_matrix_exp.default"], ch
    s = data["summary"]
    at = s["aten_ops"]
    assert at["distinct"] == 3 and at["by_status"] == {"chip": 2, "host": 1, "wrong": 0, "error": 0}, at
    assert at["ops"]["aten.linalg_matrix_exp.default"] == {"status": "host", "samples": {"host": 1},
                                                           "entries": ["matrix_exp"]}
    assert s["ops"] == 3 and s["samples"] == 3
    assert s["by_op"] == {"chip": 2, "host": 1, "wrong": 0, "error": 0, "uncapturable": 0, "skipped": 0}
    assert s["by_sample"]["chip"] == 2 and s["captured_samples_on_chip"] == pytest.approx(2 / 3)
    assert data["meta"]["dtypes"] == ["float32"] and data["meta"]["limit_samples"] == 1


def test_markdown(run):
    _, _, md = run
    text = md.read_text()
    assert "Command: `python benchmarks/opinfo.py --ops add,where,matrix_exp" in text
    assert "| entries | 2 | 1 | 0 | 0 | 0 | 0 | 3 |" in text
    assert "| `matrix_exp` | host | float32 | 0 | 1 |" in text
    assert "| `aten.linalg_matrix_exp.default` | host | 1 | 0 | 1 | 0 | 0 | `matrix_exp` |" in text


def test_counting_aten_ops():
    """An ATen op is on the chip only when every sample that calls it ran wholly on the chip; samples dynamo
    did not capture, and entries whose process died, call none."""
    def row(status, *aten):
        return {"status": status, "aten": list(aten), **({"host": ["aten:sort"]} if status == "host" else {})}
    results = {
        "a": {"op": "a", "dtypes": {"float32": [row("chip", "aten.add.Tensor", "aten.view.default")],
                                    "float16": [row("host", "aten.view.default", "aten.sort.default")]}},
        "b": {"op": "b", "dtypes": {"float32": [row("chip", "aten.add.Tensor"), row("chip", "aten.mul.Tensor")]}},
        "c": {"op": "c", "dtypes": {"float32": [row("wrong", "aten.mul.Tensor", "aten.exp.default"),
                                                row("error", "aten.exp.default"), row("chip", "aten.neg.default")]}},
        "d": {"op": "d", "dtypes": {"float32": [{"status": "uncapturable", "detail": "x"},
                                                {"status": "skipped", "detail": "y"}]}},
        "e": {"op": "e", "error": "the process died"},
    }
    ops = opinfo.aten_ops(results)
    assert {k: v["status"] for k, v in ops.items()} == {
        "aten.add.Tensor": "chip", "aten.exp.default": "wrong", "aten.mul.Tensor": "wrong",
        "aten.neg.default": "chip", "aten.sort.default": "host", "aten.view.default": "host"}
    assert ops["aten.add.Tensor"] == {"status": "chip", "samples": {"chip": 2}, "entries": ["a", "b"]}
    assert ops["aten.exp.default"]["samples"] == {"wrong": 1, "error": 1}
    assert ops["aten.view.default"]["samples"] == {"chip": 1, "host": 1}
    s = opinfo.summarize(results)["aten_ops"]
    assert s["distinct"] == 6 and s["by_status"] == {"chip": 2, "host": 2, "wrong": 2, "error": 0}, s
    md = opinfo.markdown({"torch": "2", "command": "c", "date": "d", "dtypes": ["float32"], "limit_samples": 1,
                          "op_db": 5}, results, opinfo.summarize(results))
    assert "wholly on the chip (every sample that calls the op ran wholly on the chip): **2**" in md
    assert "| `aten.view.default` | host | 2 | 1 | 1 | 0 | 0 | `a` |" in md
    assert "| `aten.exp.default` | wrong | 2 | 0 | 0 | 1 | 1 | `c` |" in md


def test_further_run_section(run, tmp_path):
    """--extra: a further run's section (other dtypes, more samples) before the rows by entry."""
    _, js, _ = run
    x = {"meta": {"torch": "2", "command": "python benchmarks/opinfo.py --dtypes float16,int32", "date": "d",
                  "dtypes": ["float16", "int32"], "limit_samples": 3, "op_db": 5},
         "results": {"add": {"op": "add", "dtypes": {
             "float16": [{"status": "chip", "aten": ["aten.add.Tensor"]}] * 2
             + [{"status": "chip", "aten": ["aten.add.Tensor"], "reference": "float64"}],
             "int32": [{"status": "chip", "aten": ["aten.add.Tensor"]},
                       {"status": "wrong", "detail": "Tensor-likes are not equal", "aten": ["aten.add.Tensor"]}]}}}}
    xs, md = tmp_path / "more.json", tmp_path / "opinfo.md"
    xs.write_text(json.dumps(x))
    assert opinfo.main(["--report-only", "--json", str(js), "--extra", str(xs), "--md", str(md)]) == 0
    text = md.read_text()
    sec = text.index("## Further run: float16, int32, 3 samples per dtype")
    assert text.index("| entries | 2 | 1 | 0 | 0 | 0 | 0 | 3 |") < sec < text.index("## Entries")
    assert "| samples | 4 | 0 | 1 | 0 | 0 | 0 | 5 |" in text[sec:]
    assert "| int32 samples | 1 | 0 | 1 | 0 | 0 | 0 | 2 |" in text[sec:]
    assert "wholly on the chip: **0**; partly on the host: 0; wrong: 1; error: 0 (`aten.add.Tensor`)" in text[sec:]
    assert "| `add` | wrong | float16, int32 | int32: Tensor-likes are not equal |" in text[sec:]
    assert "no further from the op computed in float64 than eager's result (within one rounding; counted as chip " \
           "or host): 1, in `add`." in text[sec:]


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


def test_half_precision_judged_against_float64():
    """In float16, a result that misses eager's is right when it is no further from the op computed in float64
    from the same inputs than eager's is (within one more rounding of float16), and wrong when it is further;
    float32 has no such second look."""
    import torch
    x = torch.linspace(0.1, 0.9, 8)

    def lossy(t):   # eager loses t to the rounding of 10000 + t: all of it in float16, up to 5e-4 in float32
        return t if torch.compiler.is_compiling() else (t + 10000) - 10000
    op = types.SimpleNamespace(op=lossy, decorators=(),
                               supported_dtypes=lambda dev: {torch.float16, torch.float32, torch.float64})
    r = opinfo_run.run_sample(op, _sample(x.half()), torch.float16)
    assert r["status"] == "chip" and r["reference"] == "float64", r
    r = opinfo_run.run_sample(op, _sample(x), torch.float32)
    assert r["status"] == "wrong" and "reference" not in r, r

    def further(t):   # compiled, off by 1: further from the float64 result than eager's (0.9 at most)
        return t + 1 if torch.compiler.is_compiling() else (t + 10000) - 10000
    op.op = further
    r = opinfo_run.run_sample(op, _sample(x.half()), torch.float16)
    assert r["status"] == "wrong", r


def test_outputs_compared_through_output_process_fn_grad():
    """A result that differs from eager only where the sample's output_process_fn_grad looks past it (a sign, as
    of an eigenvector) matches, marked ``processed``; one that differs past it too is wrong."""
    import torch
    x = torch.linspace(0.1, 0.9, 8)

    def flipped(t):   # compiled, the sign of the vector flips
        return -t if torch.compiler.is_compiling() else t * 1
    sample = types.SimpleNamespace(input=x, args=(), kwargs={}, output_process_fn_grad=torch.abs)
    r = opinfo_run.run_sample(_fake(flipped), sample, torch.float32)
    assert r["status"] == "chip" and r["processed"] is True, r

    def scaled(t):
        return -2 * t if torch.compiler.is_compiling() else t * 1
    r = opinfo_run.run_sample(_fake(scaled), sample, torch.float32)
    assert r["status"] == "wrong" and "processed" not in r, r
