"""Models compiled with torch.compile(backend="mtia") against eager PyTorch on the CPU, and what ran where."""
import pytest
import torch

import torch_models as zoo
from mtiacc.torch_backend import report

MODELS = [m for m in zoo.MODELS if m not in ("gpt2", "bert")]


def _check_report(on_chip_required=True):
    rep = report()
    assert rep["kernels_total"] > 0
    if on_chip_required:
        assert rep["kernels_on_chip"] == rep["kernels_total"], rep["fallbacks"]
        assert rep["fallbacks"] == []
    assert 0 < rep["layer_coverage"] <= 1
    # None only when no non-GEMM work is left (everything fused into GEMM templates)
    assert rep["nongemm_time_share"] is None or 0 < rep["nongemm_time_share"] <= 1
    for k in rep["kernels"]:
        assert k["launches"] >= 1
        if k["on_chip"]:
            assert k["simulated_s"] > 0 and 0 < k["roofline_fraction"] <= 1.0
    return rep


# the DLRM with -m slow: test_zoo.py's test_zoo_rows compiles the same layers (the zoo's DLRM, larger tables) in the
# default mode and checks its row as this test checks its report (every kernel on the chip, no fallback, no GEMM
# left to aten, within 1e-4)
@pytest.mark.parametrize("name", [pytest.param(m, marks=pytest.mark.slow) if m == "dlrm" else m for m in MODELS])
def test_model_matches_eager(name):
    err = zoo.run_model(name)
    assert err <= zoo.MODELS[name][1]
    rep = _check_report()
    # the default mode's GEMMs are the chip's templates: none left to aten
    assert not {op["name"] for op in rep["aten_ops"]} & {"mm", "addmm", "bmm", "baddbmm"}, rep["aten_ops"]


@pytest.mark.parametrize("name", [pytest.param("gpt2", marks=pytest.mark.slow), "bert"])   # the zoo: make zoo
def test_transformers_model_matches_eager(name):
    pytest.importorskip("transformers")
    err = zoo.run_model(name)
    assert err <= zoo.MODELS[name][1]
    rep = _check_report()
    # the linears and matmuls are the chip's GEMM templates (attention's own kernel aside)
    assert any(k["gemm"] and k["on_chip"] for k in rep["kernels"]), [k["name"] for k in rep["kernels"]]
    assert not {op["name"] for op in rep["aten_ops"]} & {"mm", "addmm", "bmm", "baddbmm"}, rep["aten_ops"]


def test_training_step_matches_eager():
    assert zoo.train_step() <= 1e-4
    rep = _check_report()
    assert rep["graphs"] >= 3          # forward, backward, and the optimizer's step


def test_max_autotune_runs_gemm_templates_tuned_by_simulated_time():
    from torch._inductor.runtime.benchmarking import benchmarker
    from mtiacc.triton_backend import clock
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(32, 32), torch.nn.ReLU())
    x = torch.randn(16, 32)
    c = torch.compile(m, backend="mtia", mode="max-autotune")
    with torch.no_grad():
        torch.testing.assert_close(c(x), m(x), atol=1e-4, rtol=1e-4)
        rep = _check_report()
        # the GEMM became a Triton template that ran on the chip; the candidates autotuning tried were
        # simulated too, and timed on the simulated clock
        assert rep["aten_ops"] == [] and rep["layer_coverage"] == 1.0
        assert any(k["gemm"] and k["on_chip"] for k in rep["kernels"]), [k["name"] for k in rep["kernels"]]
        assert rep["autotuning"]["simulated_s"] > 0
        # the chip's search space for 16 x 32 @ 32 x 32: the 16 x 16 and 16 x 32 tiles (gemm_search.py)
        assert rep["autotuning"]["kernels"] == 2
        t0 = clock.now_s()
        ms = benchmarker.benchmark_cpu(lambda: c(x))
    assert ms == pytest.approx((clock.now_s() - t0) * 1e3) and ms > 0


# every model's GEMMs and convolutions run on the chip in the default mode (above); under max-autotune the MLP's
# training step keeps the template search in the suite (its forward tunes the float32 MLP's three GEMMs, as "mlp"
# does, then its backward's), the rest are the exhaustive part (`pytest -m slow`)
_SLOW_AUTOTUNE = ("mlp", "transformer", "gpt2", "bert", "mlp-fp16", "mlp-bf16", "dlrm", "cnn")


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in _SLOW_AUTOTUNE else n
                                  for n in [*zoo.MODELS, "mlp-train"]])
def test_max_autotune(name):
    """Every model under max-autotune: GEMMs as Triton templates on the chip, tuned over the chip's search space
    (mtiacc/torch_backend/gemm_search.py), matching eager."""
    if name in ("gpt2", "bert"):
        pytest.importorskip("transformers")
    if name == "mlp-train":
        assert zoo.train_step(mode="max-autotune") <= 1e-4
    else:
        err = zoo.run_model(name, mode="max-autotune")
        assert err <= zoo.MODELS[name][1]
    rep = _check_report()
    assert any(k["gemm"] and k["on_chip"] for k in rep["kernels"]), [k["name"] for k in rep["kernels"]]
    # GEMMs and convolutions are templates: nothing of the matmul or convolution family is left to aten
    assert not any(op["gemm"] for op in rep["aten_ops"]), rep["aten_ops"]
