"""The model zoo's slice in the suite: tiny models through the zoo's runner in a worker process, each matched
against eager, and the rows of build/zoo.json, its table and its HTML page: a transformer encoder (the zoo's
Hugging Face builder) and the DLRM (its own networks') by default, a CNN too with `-m slow` (convolutions through
torch.compile are tests/torch/test_models.py's and test_conv_*.py's in the default run)."""
import json

import pytest

pytest.importorskip("transformers")

from benchmarks.zoo import __main__ as zoo  # noqa: E402
from benchmarks.zoo import run  # noqa: E402


@pytest.mark.parametrize("models", [["distilbert", "dlrm"],
                                    pytest.param(["distilbert", "dlrm", "lenet"], marks=pytest.mark.slow)],
                         ids=["encoder-dlrm", "encoder-dlrm-cnn"])
def test_zoo_rows(tmp_path, capsys, models):
    k = len(models)
    out = tmp_path / "zoo"
    status = zoo.main(["--models", ",".join(models), "--jobs", "1", "--timeout", "600", "--out", str(out)])
    doc = json.loads((tmp_path / "zoo.json").read_text())
    rows = {r["model"]: r for r in doc["rows"]}
    assert list(rows) == models
    for name, r in rows.items():
        assert r["status"] == "ok", r
        assert r["family"] == run.families()[name] and r["size"] == "tiny" and r["train"] is False
        assert 0 <= r["error"] <= r["tolerance"] == run.TOLERANCE["float32"]
        assert 0 < r["layers_on_chip"] <= r["layers_total"]
        assert r["layer_coverage"] == pytest.approx(r["layers_on_chip"] / r["layers_total"])
        assert 0 < r["total_time_share"] <= 1 and r["simulated_s"] > 0
        assert 0 < r["roofline_fraction"] <= 1
        assert all(isinstance(op, str) and n > 0 for op, n in r["host_ops"].items())
    # the DLRM as test_models.py checks its own (the same layers, larger tables): every kernel on the chip, no
    # fallback, no GEMM left to aten, within its float32 tolerance there (relative here: its outputs are below 1)
    dlrm = rows["dlrm"]
    assert dlrm["kernels_on_chip"] == dlrm["kernels_total"] > 0 and dlrm["fallback_reasons"] == {}, dlrm
    assert not set(dlrm["host_ops"]) & {"mm", "addmm", "bmm", "baddbmm"}, dlrm["host_ops"]
    assert dlrm["error"] <= 1e-4
    assert status == 0
    s = doc["summary"]
    assert (s["models"], s["ran"], s["match"]) == (k, k, k)
    assert s["layers_total"] == sum(r["layers_total"] for r in rows.values())
    table = capsys.readouterr().out
    assert all(f"| {name} |" in table for name in models)
    assert f"{k} of {k} models ran, {k} match eager" in table
    page = (tmp_path / "zoo.html").read_text()
    assert page.count("data:image/png;base64,") == 3 and "<td>dlrm</td>" in page

    # --resume keeps the finished rows: nothing runs again
    assert zoo.main(["--models", "dlrm", "--resume", "--out", str(out)]) == 0
    again = {r["model"]: r for r in json.loads((tmp_path / "zoo.json").read_text())["rows"]}
    assert again == rows          # the same rows, their wall times too


def test_unknown_model_is_a_usage_error(tmp_path, capsys):
    assert zoo.main(["--models", "dlrm,nosuch", "--out", str(tmp_path / "zoo")]) == 2
    assert "zoo: error: unknown model(s) nosuch" in capsys.readouterr().err


class _LinearLayerNorm:
    """A linear layer into a LayerNorm (unit weight, zero bias, as initialized): the end of every encoder."""

    def __new__(cls, dtype):
        import torch
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.GELU(), torch.nn.Linear(64, 64),
                                    torch.nn.LayerNorm(64)).to(dtype)
        x = torch.randn(2, 8, 32, generator=torch.Generator().manual_seed(1)).to(dtype)
        return model, (x,)


def test_training_loss_gradients_are_not_rounding_noise():
    # mean(out ** 2) through a final LayerNorm has a zero gradient (sum(y ** 2) of a normalized row is constant):
    # fp32 gradients were rounding noise, 1e6 times off fp64's, and compiled-vs-eager errors of ~1 meant nothing
    import torch
    m32, (x32,) = _LinearLayerNorm(torch.float32)
    m64, (x64,) = _LinearLayerNorm(torch.float64)
    g32 = run._train(m32, (x32,), {}, m32)[0]
    g64 = run._train(m64, (x64,), {}, m64)[0]
    assert len(g32) == 6
    assert run._compare(g32, g64, run.GRAD_FLOOR) <= 1e-5


def test_training_step_through_the_chip_matches_eager():
    import torch
    from mtiacc.torch_backend import reset
    torch._dynamo.reset()
    reset()
    model, args = _LinearLayerNorm(torch.float32)
    got, want = run._train(model, args, {}, torch.compile(model, backend="mtia"))
    assert len(got) == len(want) == 6
    assert run._compare(got, want, run.GRAD_FLOOR) <= 1e-4


def test_gradient_error_floor():
    import torch
    want = [torch.tensor([100.0, -50.0]), torch.tensor([1e-12, -1e-12])]     # the second: zero up to rounding
    got = [torch.tensor([100.0, -50.01]), torch.tensor([3e-12, 0.0])]
    assert run._compare(got, want) == pytest.approx(2.0)                      # relative to its own magnitude
    assert run._compare(got, want, run.GRAD_FLOOR) == pytest.approx(1e-4, rel=1e-3)   # the first's 0.01 / 100
