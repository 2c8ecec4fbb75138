"""Inductor's `_triton_helper_fn_add0` / `_mul1` scan helpers, named but not defined in the file."""
from pathlib import Path

import numpy as np
import pytest

from mtiacc.diagnostics import CompileError
from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run

SRC = str(Path(__file__).with_name("inductor_scan.py"))


@pytest.mark.parametrize("rows,cols", [(6, 50), (4, 64)])
def test_cumsum_and_cumprod_through_missing_helpers(tmp_path, rows, cols):
    comp = compile_kernel(SRC, Options(kernel="triton_per_fused_cumsum_0", defines={"XBLOCK": "4"},
                                       signature="*fp32,*fp32,*fp32,i32,i32"))
    rng = np.random.default_rng(rows * cols)
    x = rng.uniform(0.9, 1.1, (rows, cols)).astype(np.float32)
    path = tmp_path / "k.bin"
    path.write_bytes(comp.binary)
    out = run(str(path), {"in_ptr0": x.ravel(), "out_ptr0": np.zeros(x.size, np.float32),
                          "out_ptr1": np.zeros(x.size, np.float32), "xnumel": np.array(rows, np.int32),
                          "r0_numel": np.array(cols, np.int32)}, grid=[-(-rows // 4)]).outputs
    np.testing.assert_allclose(out["out_ptr0"].reshape(rows, cols), np.cumsum(x, axis=1), rtol=1e-5)
    np.testing.assert_allclose(out["out_ptr1"].reshape(rows, cols), np.cumprod(x, axis=1), rtol=1e-4)


def test_a_helper_name_of_no_known_operation_stays_undefined():
    with pytest.raises(CompileError) as info:
        compile_kernel(SRC, Options(kernel="unknown_helper", defines={"XBLOCK": "16"}, signature="*fp32"))
    err = info.value
    lines = Path(SRC).read_text().splitlines()
    line = next(i + 1 for i, l in enumerate(lines) if "_frobnicate0" in l)
    assert err.message == "undefined name '_triton_helper_fn_frobnicate0'"
    assert (err.loc.line, err.loc.col) == (line, lines[line - 1].index("_triton_helper_fn_frob") + 1)
