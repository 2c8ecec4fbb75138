"""Scalar tl.load / tl.store (one-element DMA + a scalar load/store of a slot), every element type."""
import numpy as np
import pytest

from tests.codegen.memory.common import NP, build, random_values, simulate
from tests.numerics import fma

DTYPES = ["i1", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "fp16", "bf16", "fp32"]
# `other` for each type, and its bits in the output buffer
OTHER = {"i1": ("1", True), "i8": ("-3", -3), "i16": ("-300", -300), "i32": ("-70000", -70000),
         "i64": ("-5", -5), "u8": ("250", 250), "u16": ("65000", 65000), "u32": ("7", 7),
         "u64": ("9", 9), "fp16": ("-1.5", -1.5), "bf16": ("-1.5", 0xBFC0), "fp32": ("-2.25", -2.25)}


@pytest.mark.parametrize("dtype", DTYPES)
def test_masked_scalar_load_takes_other(dtype):
    n = 5
    x = random_values(dtype, n, seed=len(dtype))
    binary = build("scalar_copy", f"*{dtype},*{dtype},i32", OTHER=OTHER[dtype][0])
    out = simulate(binary, {"x_ptr": x, "y_ptr": np.zeros(n + 3, NP[dtype]),
                            "n": np.array(n, np.int32)}, grid=(n + 3,))
    expected = np.concatenate([x, np.full(3, OTHER[dtype][1], NP[dtype])])
    np.testing.assert_array_equal(out["y_ptr"], expected)
    np.testing.assert_array_equal(out["x_ptr"], x)


@pytest.mark.parametrize("dtype", ["i8", "u16", "i64", "fp16", "fp32"])
def test_masked_scalar_store_leaves_the_rest(dtype):
    n = 6
    x = random_values(dtype, n, seed=3)
    y = random_values(dtype, n + 4, seed=4)
    out = simulate(build("scalar_masked_store", f"*{dtype},*{dtype},i32"),
                   {"x_ptr": x, "y_ptr": y.copy(), "n": np.array(n, np.int32)}, grid=(n + 4,))
    np.testing.assert_array_equal(out["y_ptr"], np.concatenate([x, y[n:]]))


@pytest.mark.parametrize("opt", [0, 2])
def test_scalar_loads_mixed_with_blocks(opt):
    n = 300
    rng = np.random.default_rng(11)
    x = rng.standard_normal(n).astype(np.float32)
    a = np.array([1.5, -0.25], np.float32)
    out = simulate(build("scalar_axpy", "*fp32,*fp32,*fp32,i32", opt, BLOCK=128),
                   {"x_ptr": x, "a_ptr": a, "y_ptr": np.zeros(n, np.float32), "N": np.array(n, np.int32)},
                   grid=(3,))
    np.testing.assert_array_equal(out["y_ptr"], fma(a[0], x, a[1]))   # contract-fma


def test_scalar_loads_in_a_loop():
    n = 37
    x = np.random.default_rng(5).standard_normal(n).astype(np.float32)
    out = simulate(build("scalar_loop_sum", "*fp32,*fp32,i32"),
                   {"x_ptr": x, "out_ptr": np.zeros(2, np.float32), "n": np.array(n, np.int32)}, grid=(2,))
    acc = np.float32(0)
    for v in x:
        acc = np.float32(acc + v)
    np.testing.assert_array_equal(out["out_ptr"], [acc, acc])
