"""Inductor-style kernels (tests/kernels/inductor_kernels.py) through our bundled triton_helpers,
against numpy; -D on a plain parameter specializes it like Triton's `constants`."""
from pathlib import Path

import numpy as np
import pytest

from mtiacc.diagnostics import CompileError
from mtiacc.frontend import compile_file
from tests.codegen.tensor.blocks.helpers import build, launch

K = Path(__file__).resolve().parent / "inductor_kernels.py"


@pytest.mark.parametrize("xnumel, r0_numel", [(5, 32), (8, 17), (3, 1)])
def test_per_reductions_through_triton_helpers(tmp_path, xnumel, r0_numel):
    X = 4
    rng = np.random.default_rng(xnumel * 100 + r0_numel)
    x = rng.integers(-4, 5, (xnumel, r0_numel)).astype(np.float32) * 0.5  # ties for the argmin
    out = launch(tmp_path, build("per_amax_argmin_any", "*fp32,*fp32,*i64,*i8,*fp32,i32,i32", path=K, XBLOCK=X),
                 {"in_ptr0": x.ravel(), "out_ptr0": np.zeros(xnumel, np.float32),
                  "out_ptr1": np.zeros(xnumel, np.int64), "out_ptr2": np.zeros(xnumel, np.int8),
                  "out_ptr3": np.zeros(xnumel, np.float32),
                  "xnumel": np.array(xnumel, np.int32), "r0_numel": np.array(r0_numel, np.int32)},
                 (-(-xnumel // X),))
    amax = x.max(1)
    np.testing.assert_array_equal(out["out_ptr0"], amax)
    np.testing.assert_array_equal(out["out_ptr1"], x.argmin(1))
    np.testing.assert_array_equal(out["out_ptr2"], (np.abs(x) > 1.5).any(1).astype(np.int8))
    np.testing.assert_array_equal(out["out_ptr3"], np.maximum(amax, np.floor(amax * 0.5)))


@pytest.mark.parametrize("xnumel, r0_numel, R", [(4, 64, 16), (3, 50, 16), (6, 7, 8)])
def test_red_welford_loop(tmp_path, xnumel, r0_numel, R):
    X = 2
    x = np.random.default_rng(r0_numel).standard_normal((xnumel, r0_numel)).astype(np.float32) + 3
    out = launch(tmp_path, build("red_welford", "*fp32,*fp32,*fp32,i32,i32", path=K, XBLOCK=X, R0_BLOCK=R),
                 {"in_ptr0": x.ravel(), "out_ptr0": np.zeros(xnumel, np.float32),
                  "out_ptr1": np.zeros(xnumel, np.float32),
                  "xnumel": np.array(xnumel, np.int32), "r0_numel": np.array(r0_numel, np.int32)},
                 (-(-xnumel // X),))
    np.testing.assert_allclose(out["out_ptr0"], x.mean(1), rtol=1e-5)
    np.testing.assert_allclose(out["out_ptr1"], x.var(1), rtol=1e-4)


def test_floor_div_and_remainder(tmp_path):
    n = 50
    rng = np.random.default_rng(9)
    a = rng.integers(-20, 21, n).astype(np.int32)
    b = rng.integers(1, 7, n).astype(np.int32) * rng.choice([-1, 1], n).astype(np.int32)
    out = launch(tmp_path, build("poi_floor_div_mod", "*i32,*i32,*i32,*i32,i32", path=K, XBLOCK=64),
                 {"in_ptr0": a, "in_ptr1": b, "out_ptr0": np.zeros(n, np.int32), "out_ptr1": np.zeros(n, np.int32),
                  "xnumel": np.array(n, np.int32)}, (1,))
    np.testing.assert_array_equal(out["out_ptr0"], a // b)
    np.testing.assert_array_equal(out["out_ptr1"], a % b)


def test_define_specializes_a_plain_parameter():
    res = compile_file(str(K), kernel="poi_floor_div_mod", defines={"XBLOCK": "64", "xnumel": "50"},
                       signature="*i32,*i32,*i32,*i32")
    assert [p.name for p in res.params if not p.constexpr] == ["in_ptr0", "in_ptr1", "out_ptr0", "out_ptr1"]
    assert res.constexprs["xnumel"] == 50


def test_unknown_helper_is_an_error_at_its_use(tmp_path):
    p = tmp_path / "k.py"
    p.write_text(K.read_text().split("@triton.jit")[0] + (
        "@triton.jit\ndef k(X):\n    x = triton_helpers.no_such_helper(tl.load(X))\n"))
    with pytest.raises(CompileError) as info:
        compile_file(str(p), kernel="k")
    assert info.value.message == "module 'torch._inductor.runtime.triton_helpers' has no attribute 'no_such_helper'"
    assert info.value.loc.line == p.read_text().splitlines().index(
        "    x = triton_helpers.no_such_helper(tl.load(X))") + 1
