"""Misuse of the random builtins is a compile error at the call, saying what Triton's checks say (a float or
pointer seed, a float offset, counters Philox has no variant for, a run-time n_rounds, ...)."""
import pytest

from tests.language.harness import assert_error_at_call

CASES = [
    ("y = tl.rand(1.5, tl.arange(0, 8))", "tl.rand(1.5, tl.arange(0, 8))",
     "tl.rand(): the seed must be an integer (a scalar or a block), got f32; Triton asserts seed.dtype.is_int()"),
    ("y = tl.randn(x, tl.arange(0, 8))", "tl.randn(x, tl.arange(0, 8))",
     "tl.randn(): the seed must be an integer (a scalar or a block), got f32; Triton asserts seed.dtype.is_int()"),
    ("y = tl.rand(X, tl.arange(0, 8))", "tl.rand(X, tl.arange(0, 8))",
     "tl.rand(): the seed must be a number or a block, not a pointer"),
    ("y = tl.randint(7, x)", "tl.randint(7, x)",
     "tl.randint(): the offset must be an integer (a block or a scalar of int32, int64, ...), got f32"),
    ("a, b, c, d = tl.rand4x(7, x * 2)", "tl.rand4x(7, x * 2)",
     "tl.rand4x(): the offset must be an integer (a block or a scalar of int32, int64, ...), got f32"),
    ("y = tl.randint(7, tl.arange(0, 8), n_rounds=x)", "tl.randint(7, tl.arange(0, 8), n_rounds=x)",
     "tl.randint(): n_rounds must be a constexpr integer, got a value of type tensor<4x8xf32>"),
    ("y = tl.randint4x(7, tl.arange(0, 8), -1)", "tl.randint4x(7, tl.arange(0, 8), -1)",
     "tl.randint4x(): n_rounds must be >= 0, got -1"),
    ("a, b, c, d = tl.philox(7, x.to(tl.float16), 0, 0, 0)", "tl.philox(7, x.to(tl.float16), 0, 0, 0)",
     "tl.philox(): bitwidth not supported in philox: the counters must be 32- or 64-bit, c0 is f16"),
    ("a, b, c, d = tl.philox(7, tl.arange(0, 8), tl.arange(0, 8).to(tl.int64), 0, 0)",
     "tl.philox(7, tl.arange(0, 8), tl.arange(0, 8).to(tl.int64), 0, 0)",
     "tl.philox(): the counters must all have c0's width (32 bits); c1 is i64"),
    ("a, b, c, d = tl.philox_impl(tl.arange(0, 8), 0, 0, 0, 1, 2)", "tl.philox_impl(tl.arange(0, 8), 0, 0, 0, 1, 2)",
     "tl.philox_impl(): dtype not supported in philox_impl: c0 must be uint32 or uint64, got i32"),
    ("y = tl.uint_to_uniform_float(x)", "tl.uint_to_uniform_float(x)",
     "tl.uint_to_uniform_float(): needs int32, uint32, int64 or uint64 values, got f32"),
    ("y = tl.random.uint_to_uniform_float(x.to(tl.int16))", "tl.random.uint_to_uniform_float(x.to(tl.int16))",
     "tl.uint_to_uniform_float(): needs int32, uint32, int64 or uint64 values, got i16"),
    ("y = tl.random.uint32_to_uniform_float(x)", "tl.random.uint32_to_uniform_float",
     "`tl.random.uint32_to_uniform_float` does not exist; did you mean `tl.random.uint_to_uniform_float`?"),
]


@pytest.mark.parametrize("stmt, underlined, message", CASES, ids=[c[0].split("(")[0].split()[-1] + str(i)
                                                                  for i, c in enumerate(CASES)])
def test_error_at_the_call(tmp_path, stmt, underlined, message):
    assert_error_at_call(tmp_path, stmt, message, underlined)
