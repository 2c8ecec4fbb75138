"""Progress on stderr while a graph's kernels are compiled and simulated (plain lines off a terminal, a rich bar
on one, nothing with MTIACC_QUIET=1), and no warning from Triton the user did not cause."""
import io
import os
import subprocess
import sys

import pytest

pytest.importorskip("triton")
pytest.importorskip("torch")
import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

from mtiacc.triton_backend import progress  # noqa: E402
from mtiacc.triton_backend.driver import MtiaDriver  # noqa: E402

pytestmark = pytest.mark.skipif(not MtiaDriver.is_active(), reason="another Triton backend is active here")


@triton.jit
def progress_add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@triton.jit
def progress_neg_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, -tl.load(x_ptr + offs, mask=mask), mask=mask)


def _run_graph(stream, label="graph 0 (forward)"):
    x, y = torch.arange(100.0), torch.ones(100)
    out, neg = torch.empty(100), torch.empty(100)
    with progress.graph(label, ["progress_add_kernel", "progress_neg_kernel"], stream=stream):
        progress_add_kernel[(4,)](x, y, out, 100, BLOCK=32)
        progress_add_kernel[(4,)](x, y, out, 100, BLOCK=32)      # the same kernel again: counted once
        progress_neg_kernel[(4,)](out, neg, 100, BLOCK=32)
    torch.testing.assert_close(neg, -(x + 1))


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_plain_lines_off_a_terminal(monkeypatch):
    monkeypatch.delenv(progress.QUIET_ENV, raising=False)
    out = io.StringIO()
    _run_graph(out)
    lines = out.getvalue().splitlines()
    assert lines[0] == "mtiacc: graph 0 (forward): kernel 1 of 2 compiled (progress_add_kernel)" or \
        lines[0] == "mtiacc: graph 0 (forward): kernel 1 of 2 compiled (progress_add_kernel, from the cache)"
    assert lines[1].startswith("mtiacc: graph 0 (forward): kernel 1 of 2 simulated (progress_add_kernel, ")
    assert lines[1].endswith(" cycles)")
    assert lines[2].startswith("mtiacc: graph 0 (forward): kernel 2 of 2 compiled (progress_neg_kernel")
    assert lines[3].startswith("mtiacc: graph 0 (forward): kernel 2 of 2 simulated (progress_neg_kernel")
    assert len(lines) == 4


def test_a_bar_on_a_terminal_and_nothing_left_of_it(monkeypatch):
    monkeypatch.delenv(progress.QUIET_ENV, raising=False)
    out = _Terminal()
    _run_graph(out)
    text = out.getvalue()
    assert "mtiacc: graph 0 (forward): kernel 2 of 2 simulated" in text, text   # the bar was drawn
    assert "\x1b[" in text                                                  # with the terminal's controls
    assert "kernel 1 of 2 compiled (progress_add_kernel)\n" not in text    # not the plain lines


def test_quiet(monkeypatch):
    monkeypatch.setenv(progress.QUIET_ENV, "1")
    out = io.StringIO()
    _run_graph(out)
    assert out.getvalue() == ""


def test_kernels_outside_an_announced_graph_say_nothing(capfd):
    x = torch.arange(10.0)
    out = torch.empty(10)
    progress_neg_kernel[(1,)](x, out, 10, BLOCK=16)
    assert "mtiacc:" not in capfd.readouterr().err


_SCRIPT = r"""
import os, torch, triton, triton.language as tl
@triton.jit
def k(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) + 1.0)
x = torch.zeros(16)
k[(1,)](x, BLOCK=16)
assert (x == 1).all()
print("FUSION", os.environ.get("TRITON_DEFAULT_FP_FUSION"))
"""


def test_triton_knobs_are_set_where_the_user_has_not_and_triton_does_not_warn(fresh_torch_process):
    """A fresh process (tests/conftest.py) with MTIACC_TRITON=1 and no TRITON_DEFAULT_FP_FUSION launches a Triton
    kernel: the knob is set, and nothing warns."""
    r, _, printed = fresh_torch_process
    assert r.returncode == 0, r.stderr
    assert printed["FUSION"] == "1"
    assert "Warning" not in r.stderr and "TRITON_DEFAULT_FP_FUSION" not in r.stderr, r.stderr


def test_the_users_triton_knob_is_kept_and_triton_does_not_warn(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "TRITON_DEFAULT_FP_FUSION"}
    root = os.path.dirname(os.path.dirname(os.path.abspath(progress.__file__)))    # mtiacc's folder's parent
    env["PYTHONPATH"] = os.pathsep.join(p for p in [os.path.dirname(root), env.get("PYTHONPATH", "")] if p)
    env["MTIACC_TRITON"] = "1"
    env["TRITON_DEFAULT_FP_FUSION"] = "0"
    script = tmp_path / "one_kernel.py"
    script.write_text(_SCRIPT)
    r = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "FUSION 0" in r.stdout
    assert "Warning" not in r.stderr and "TRITON_DEFAULT_FP_FUSION" not in r.stderr, r.stderr
