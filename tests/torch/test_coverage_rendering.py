"""The coverage report reads well anywhere: off a terminal it is Markdown tables with every name whole on one line
(it wrapped at 80 columns, a kernel name cut into four lines); ``MTIACC_REPORT=path.md`` writes that Markdown."""
import io

from mtiacc.torch_backend.coverage import print_report, render_markdown

LONG = "triton_per_fused__softmax__to_copy_add_embedding_mul_native_layer_norm_pow_rsqrt_tanh_view_17"
REASON = "error: `tl.inline_asm_elementwise` is not supported yet | (a reason with a bar)"
REP = {
    "kernels_on_chip": 1, "kernels_total": 2, "layers_on_chip": 3, "layers_total": 4, "layer_coverage": 0.75,
    "nongemm_time_share": 0.5, "total_time_share": 0.25, "simulated_s": 12.5e-6, "host_estimated_s": 3e-6,
    "roofline_s": 10.15625e-6, "roofline_fraction": 0.8125,
    "kernels": [
        {"name": LONG, "on_chip": True, "reason": None, "launches": 3, "simulated_s": 12.5e-6,
         "roofline_s": 10.15625e-6, "roofline_fraction": 0.8125, "bound": "dram"},
        {"name": "triton_poi_fused_erf_0", "on_chip": False, "reason": REASON, "launches": 1, "simulated_s": None,
         "roofline_s": None, "roofline_fraction": None, "bound": None},
    ],
    "aten_ops": [{"name": "addmm", "calls": 2, "gemm": True, "flops": 2.0e9, "bytes": 4.0e6, "estimated_s": 3e-6}],
}


def _table(text, heading):
    lines = text.splitlines()
    start = lines.index(heading) + 2
    end = lines.index("", start) if "" in lines[start:] else len(lines)
    return lines[start:end]


def test_markdown_has_whole_names_on_one_line():
    text = render_markdown(REP)
    assert text.startswith("# mtiacc: what ran on the chip\n")
    kernels = _table(text, "## kernels")
    assert kernels[0].split("|")[1].strip() == "kernel" and set(kernels[1]) <= set("|-: ")
    rows = [[c.strip() for c in line.split("|")[1:-1]] for line in kernels[2:]]
    assert rows[0] == [LONG, "chip", "3", "12.50", "10.16", "81.2%", "dram"]
    assert kernels[3].startswith("| triton_poi_fused_erf_0 ") and REASON.replace("|", "\\|") in kernels[3]
    assert all(len(line) == len(kernels[0]) for line in kernels)       # aligned columns
    assert max(len(line) for line in text.splitlines()) > 80            # no wrapping at 80 columns
    aten = _table(text, "## left to aten (on the host)")
    assert [c.strip() for c in aten[2].split("|")[1:-1]] == ["addmm", "2", "yes", "2.000", "4.000", "3.00"]
    summary = text.splitlines()[2:5]
    assert "1 / 2" in summary[2] and "3 / 4 (75.0%)" in summary[2]
    assert [c.strip() for c in summary[2].split("|")[5:8]] == ["12.50", "10.16", "81.2%"]   # the model's roofline


def test_off_a_terminal_the_report_is_markdown(capsys):
    print_report(REP)                                    # stderr is captured: not a terminal
    err = capsys.readouterr().err
    assert err == render_markdown(REP)
    assert any(line.startswith(f"| {LONG} ") for line in err.splitlines())


def test_on_a_console_it_is_tables():
    from rich.console import Console
    out = io.StringIO()
    print_report(REP, console=Console(file=out, width=200))
    assert "┃" in out.getvalue() or "│" in out.getvalue()


# MTIACC_REPORT=path.md at exit: test_coverage.py::test_report_written_at_exit_as_json_and_as_markdown
