"""``kernel[grid](..., sanitize=True)`` and ``Prepared.execute(sanitize=True)``: the sanitizer's findings raise
after the outputs are written back; without it the same launch is silent."""
import textwrap

import numpy as np
import pytest

import mtiacc
from mtiacc.diagnostics import ExitCode, KernelFault
from mtiasim.sanitize import SanitizerError

SRC = textwrap.dedent('''\
    import triton
    import triton.language as tl


    @triton.jit
    def div_kernel(a_ptr, b_ptr, c_ptr, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(c_ptr + offs, tl.load(a_ptr + offs) // tl.load(b_ptr + offs))


    @triton.jit
    def scatter_kernel(a_ptr, b_ptr, c_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        q = tl.load(a_ptr + offs) // tl.load(b_ptr + offs)
        tl.store(c_ptr + q, offs)
    ''')


@pytest.fixture
def src(tmp_path, monkeypatch):
    monkeypatch.setenv("MTIACC_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "kernels.py"
    path.write_text(SRC)
    return str(path)


def _inputs(zero_at=()):
    a = np.arange(32, dtype=np.int32) * 3
    b = np.ones(32, np.int32)
    b[list(zero_at)] = 0
    return a, b, np.zeros(32, np.int32)


def test_a_sanitized_launch_reports_a_division_by_zero_after_writing_the_outputs_back(src):
    k = mtiacc.load(src, "div_kernel")
    a, b, c = _inputs(zero_at=[20])
    with pytest.raises(SanitizerError) as e:
        k[(2,)](a, b, c, BLOCK=16, sanitize=True)
    assert e.value.exit_code == ExitCode.KERNEL_FAULT
    assert [f.kind for f in e.value.findings] == ["division by zero"]
    assert "divides 60 by 0" in e.value.render() and "in program (1, 0, 0)" in e.value.render()
    want = a // np.where(b == 0, 1, b)
    want[20] = -1                                   # RISC-V: x / 0 is all ones
    np.testing.assert_array_equal(c, want)
    c[:] = 0
    k[(2,)](a, b, c, BLOCK=16)                      # the same launch unsanitized: silent
    np.testing.assert_array_equal(c, want)


def test_a_clean_sanitized_launch_returns_its_launch(src):
    k = mtiacc.load(src, "div_kernel")
    a, b, c = _inputs()
    launch = k.run(a, b, c, BLOCK=16, grid=(2,), sanitize=True)
    np.testing.assert_array_equal(c, a)
    assert launch.cycles > 0 and k.last_launch is launch


def test_prepared_execute_takes_sanitize_and_reports_findings_before_a_fault(src):
    k = mtiacc.load(src, "scatter_kernel")
    a, b, c = _inputs(zero_at=[5])
    a = np.arange(32, dtype=np.int32)
    p = k.prepare(a, b, c, BLOCK=32, grid=(1,))
    with pytest.raises(SanitizerError) as e:
        p.execute(sanitize=True)
    assert isinstance(e.value.fault, KernelFault) and "out-of-bounds" in e.value.fault.message
    text = e.value.render()
    assert text.index("division by zero") < text.index("out-of-bounds")
    assert not c.any()                              # a run that stopped at a fault writes nothing back
    with pytest.raises(KernelFault) as plain:
        p.execute()
    assert not isinstance(plain.value, SanitizerError)
