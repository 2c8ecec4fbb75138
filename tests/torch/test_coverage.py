"""The coverage report: per-kernel fallback, the report's figures, its JSON and its table."""
import io
import json

import pytest
import torch

from mtiacc.diagnostics import CompileError
from mtiacc.runtime.launcher import Kernel
from mtiacc.torch_backend import graphs, print_report, report
from tests.torch.test_coverage_rendering import _table


def test_a_kernel_mtiacc_rejects_falls_back_and_the_model_goes_on(monkeypatch):
    real = Kernel.prepare

    def prepare(self, *args, **kwargs):
        if "sigmoid" in self.name:
            raise CompileError("this kernel is rejected for the test")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Kernel, "prepare", prepare)
    fn = lambda a: (torch.sigmoid(a) * 3, torch.erf(a) + 1)   # erf: a libdevice call on the host
    a = torch.randn(8, 50)
    c = torch.compile(lambda a: torch.sigmoid(torch.erf(a)) * 3, backend="mtia")
    torch.testing.assert_close(c(a), torch.sigmoid(torch.erf(a)) * 3)
    rep = report()
    assert rep["kernels_total"] == 1 and rep["kernels_on_chip"] == 0
    (fb,) = rep["fallbacks"]
    assert "sigmoid" in fb["name"] and fb["reason"] == "error: this kernel is rejected for the test"
    (k,) = rep["kernels"]
    assert k["on_chip"] is False and k["simulated_s"] is None and k["estimated_s"] > 0
    assert rep["layer_coverage"] == 0 and rep["nongemm_time_share"] == 0


def test_without_fallback_the_error_is_mtiaccs(monkeypatch):
    from mtiacc.triton_backend import records
    monkeypatch.setenv("MTIACC_FALLBACK", "0")
    monkeypatch.setattr(Kernel, "prepare", lambda self, *a, **k: (_ for _ in ()).throw(
        CompileError("rejected for the test")))
    with pytest.raises(Exception, match="rejected for the test"):
        torch.compile(lambda a: torch.cos(a) + 1, backend="mtia")(torch.randn(10))
    monkeypatch.delenv("MTIACC_FALLBACK")
    assert not records.fallback_enabled()          # outside a compiled graph, no fallback
    with records.fallback_scope():
        assert records.fallback_enabled()


def test_figures_of_a_small_mlp():
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.Linear(32, 8), torch.nn.Softmax(-1))
    x = torch.randn(4, 16)
    with torch.no_grad():   # the GEMMs left to aten (options=: no templates), to count them
        torch.testing.assert_close(torch.compile(m, backend="mtia", options={"max_autotune_gemm": False})(x), m(x))
    rep = report()
    # two linears left to aten; GELU and softmax each in a kernel on the chip
    assert {op["name"] for op in rep["aten_ops"]} == {"addmm"}
    assert rep["aten_ops"][0]["calls"] == 2 and rep["aten_ops"][0]["flops"] == 2 * 4 * (16 * 32 + 32 * 8)
    assert rep["layers_total"] == 4 and rep["layers_on_chip"] == 2 and rep["layer_coverage"] == 0.5
    assert rep["nongemm_time_share"] == 1.0 and 0 < rep["total_time_share"] < 1.0
    out = io.StringIO()
    from rich.console import Console
    print_report(rep, console=Console(file=out, width=200))
    text = out.getvalue()
    assert "2 / 2" in text and "2 / 4 (50.0%)" in text and "addmm" in text


def test_report_written_at_exit_as_json_and_as_markdown(fresh_torch_process):
    """``MTIACC_REPORT=path.json`` writes the JSON when the process exits, ``path.md`` the Markdown.  One process
    (tests/conftest.py, shared with the unwritable-cache test) imports torch and compiles one graph, then forks: the
    parent leaves with ``.json`` set, the child with ``.md``, each through its own at-exit hook (the hook reads the
    variable when the process exits)."""
    r, folder, printed = fresh_torch_process
    path, md = folder / "report.json", folder / "report.md"
    assert r.returncode == 0, r.stderr
    assert printed["SUM"] == "20.0"
    rep = json.loads(path.read_text())
    for key in ("kernels_total", "kernels_on_chip", "layer_coverage", "nongemm_time_share", "kernels"):
        assert key in rep
    (k,) = rep["kernels"]
    assert set(k) >= {"name", "on_chip", "reason", "simulated_s"}
    assert k["on_chip"] is True and k["reason"] is None and k["simulated_s"] > 0
    text = md.read_text()
    assert text.startswith("# mtiacc: what ran on the chip\n") and "## kernels" in text
    rows = _table(text, "## kernels")[2:]
    assert len(rows) == 1 and rows[0].split("|")[1].strip().startswith("triton_poi_fused_")
    assert rows[0].split("|")[2].strip() == "chip"


def test_unknown_mode_is_refused():
    with pytest.raises(Exception, match="takes mode= one of"):
        torch.compile(lambda a: a + 1, backend="mtia", mode="fastest")(torch.randn(3))


WRAPPER = '''
# kernel path: /cache/ab/kernel_a.py
# Topologically Sorted Source Nodes: [gelu], Original ATen: [aten.gelu]
triton_poi_fused_gelu_0 = async_compile.triton('triton_poi_fused_gelu_0', """
@triton.jit
def triton_poi_fused_gelu_0(in_ptr0, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    pass
""", device_str='cpu')

class Runner:
    def call(self, args):
        buf0 = empty_strided_cpu((8, 64), (64, 1), torch.float32)
        # Topologically Sorted Source Nodes: [linear], Original ATen: [aten.addmm]
        extern_kernels.addmm(primals_2, primals_3, reinterpret_tensor(primals_1, (32, 64), (1, 32), 0), out=buf0)
        # Topologically Sorted Source Nodes: [linear, gelu], Original ATen: [aten.gelu]
        triton_poi_fused_gelu_0.run(buf0, buf1, 512, stream=raw_streamNone)
        # Topologically Sorted Source Nodes: [gelu, bag], Original ATen: [aten._embedding_bag]
        buf2 = torch.ops.aten._embedding_bag.default(buf1, arg1_1)
        return (buf1, )
'''


def test_wrapper_calls_are_read_with_their_source_nodes():
    w = graphs.parse(WRAPPER)
    assert w.kernels == {"triton_poi_fused_gelu_0": "/cache/ab/kernel_a.py"}
    assert [(c.kind, c.name, c.nodes) for c in w.calls] == [
        ("aten", "addmm", ("linear",)),
        ("kernel", "triton_poi_fused_gelu_0", ("linear", "gelu")),
        ("aten", "_embedding_bag", ("gelu", "bag")),
    ]
    assert w.calls[1].path == "/cache/ab/kernel_a.py"


def test_pointwise_autotuning_launches_are_counted_apart():
    """Under max-autotune a reduction kernel times its configs at its first call: those launches are
    autotuning's, and the kernel's own count is the model's two calls."""
    import torch
    from mtiacc.torch_backend import report
    torch.manual_seed(0)

    def fn(x):
        return torch.nn.functional.gelu(x) * 2 + x.sum(dim=1, keepdim=True)
    f = torch.compile(fn, backend="mtia", mode="max-autotune")
    x = torch.randn(4096, 64)
    for _ in range(2):
        torch.testing.assert_close(f(x), fn(x), rtol=1e-4, atol=1e-4)
    rep = report()
    assert [k["launches"] for k in rep["kernels"]] == [2]
    assert rep["autotuning"]["kernels"] == 1 and rep["autotuning"]["launches"] >= 2
    assert rep["autotuning"]["simulated_s"] > 0


def test_roofline_from_the_kernels_bytes_and_flops():
    # one pointwise kernel: a + b of 1024 fp32 each, out 1024 fp32: 3 x 4096 bytes at the DRAM bandwidth of the
    # machine description (204.8 GB/s), no matrix-engine FLOPs
    from mtiacc.machine.simulator import load_config
    cfg = load_config()
    f = torch.compile(lambda a, b: a + b, backend="mtia")
    a, b = torch.randn(1024), torch.randn(1024)
    torch.testing.assert_close(f(a, b), a + b)
    rep = report()
    (k,) = rep["kernels"]
    assert k["bytes"] == 3 * 4096 and k["dpe_flops"] == 0
    assert k["roofline_s"] == pytest.approx(3 * 4096 / 204.8e9) == pytest.approx(3 * 4096 / cfg.dram_bw_bytes_per_s)
    assert k["roofline_fraction"] == pytest.approx(k["roofline_s"] / k["simulated_s"])
    assert rep["roofline_s"] == pytest.approx(k["roofline_s"])
    assert rep["roofline_fraction"] == pytest.approx(rep["roofline_s"] / rep["simulated_s"])
    assert 0 < rep["roofline_fraction"] < 1          # the launch's microsecond alone is longer than 60 ns


def test_a_gemms_roofline_is_its_flops_at_the_matrix_engines_peak():
    # the chip's GEMM template, 256 x 2048 @ 2048 x 256 bf16: 2 x 256 x 2048 x 256 FLOPs at 177 TFLOP/s (1.52 us)
    # against 2.1 MB of tensors at 204.8 GB/s (10.2 us): the bytes bound it; the sum over kernels is the model's
    from mtiacc.torch_backend.coverage import _peaks, kernel_roofline
    m, k_, n = 256, 2048, 256
    a = torch.randn(m, k_, dtype=torch.bfloat16)
    b = torch.randn(k_, n, dtype=torch.bfloat16)
    torch.testing.assert_close(torch.compile(lambda x, y: x @ y, backend="mtia")(a, b), a @ b, rtol=2e-2, atol=2e-1)
    rep = report()
    (g,) = [k for k in rep["kernels"] if k["gemm"]]
    assert g["dpe_flops"] == 2 * m * n * k_
    # the kernel's bytes are its tensors' (2 x (m k + k n + m n)), or what it moved from DRAM when that is less:
    # here the tensors' (the 32-wide tile the cost model picks reads B in half-lines; the cache fills whole lines,
    # so DRAM moves each of B's lines once)
    assert g["bytes"] == 2 * (m * k_ + k_ * n + m * n)
    pk = _peaks()
    assert pk["dpe_flops"] == pytest.approx(64 * 1024 * 2 * 1.35e9)
    assert g["roofline_s"] == pytest.approx(max(g["bytes"] / 204.8e9, 2 * m * n * k_ / pk["dpe_flops"]))
    # a kernel that moved fewer bytes than its tensors hold is held to what it moved; FLOPs win when they are longer
    assert kernel_roofline(1000, 400, 0, pk) == pytest.approx(400 / pk["dram_bw"])
    assert kernel_roofline(1000, 4000, 1e12, pk) == pytest.approx(1e12 / pk["dpe_flops"])
    assert rep["roofline_s"] == pytest.approx(sum(k["roofline_s"] for k in rep["kernels"] if k["on_chip"]))
