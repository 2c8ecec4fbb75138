"""``tl.dot_scaled``: the ops the frontend builds for it (one ``tt.dot`` on compute-type operands), and every
error with its location."""
import pytest

from mtiacc.ir import ops
from mtiacc.ir.dot_ops import DotOp

from .test_dot import SIG, _body, error_at


def ir(kernels, code: str):
    module = kernels.compile(_body(code), signature=SIG).module
    return list(module.funcs[0].walk())


def the_dot(found) -> DotOp:
    dots = [op for op in found if isinstance(op, DotOp)]
    assert len(dots) == 1
    return dots[0]


def u8(shape) -> str:
    return f"tl.full({shape}, 0x3C, tl.uint8)"


def ty(v) -> str:
    return str(v.type)


@pytest.mark.parametrize("fa, fb, a, b, compute", [
    ("e2m1", "e4m3", u8("(32, 32)"), u8("(64, 16)"), "bf16"),
    ("e4m3", "e2m1", u8("(32, 64)"), u8("(32, 16)"), "bf16"),
    ("e5m2", "fp16", u8("(32, 64)"), "tl.full((64, 16), 1, tl.float16)", "f16"),
    ("bf16", "e5m2", "tl.full((32, 64), 1, tl.uint16)", "tl.full((64, 16), 1, tl.float8e5)", "bf16"),
])
def test_one_dot_on_the_compute_type(kernels, fa, fb, a, b, compute):
    d = the_dot(ir(kernels, f"c = tl.dot_scaled({a}, None, '{fa}', {b}, None, '{fb}')"))
    assert (ty(d.a), ty(d.b), ty(d.result)) == \
        (f"tensor<32x64x{compute}>", f"tensor<64x16x{compute}>", "tensor<32x16xf32>")


def test_packed_along_m_and_n(kernels):
    d = the_dot(ir(kernels, f"c = tl.dot_scaled({u8('(16, 64)')}, None, 'e2m1', {u8('(64, 8)')}, None, 'e2m1', "
                            "lhs_k_pack=False, rhs_k_pack=False)"))
    assert (ty(d.a), ty(d.b)) == ("tensor<32x64xbf16>", "tensor<64x16xbf16>")


def test_batched_with_scales_and_an_accumulator(kernels):
    found = ir(kernels, f"""
s = {u8('(2, 32, 2)')}
acc = tl.zeros((2, 32, 16), dtype=tl.float32) + 1.0
c = tl.dot_scaled({u8('(2, 32, 32)')}, s, 'e2m1', {u8('(2, 64, 16)')}, {u8('(2, 16, 2)')}, 'e4m3', acc)
""")
    d = the_dot(found)
    assert (ty(d.a), ty(d.b), ty(d.result)) == \
        ("tensor<2x32x64xbf16>", "tensor<2x64x16xbf16>", "tensor<2x32x16xf32>")
    assert not isinstance(d.acc.owner, ops.SplatOp)   # the given accumulator


A = u8("(32, 64)")
B = u8("(64, 32)")
S = u8("(32, 2)")


@pytest.mark.parametrize("call, message", [
    (f"tl.dot_scaled({A}, None, 'e3m3', {B}, None, 'e4m3')",
     "tl.dot_scaled: lhs_format must be one of 'e2m1', 'e4m3', 'e5m2', 'bf16', 'fp16', got 'e3m3'"),
    (f"tl.dot_scaled({A}, None, 'e4m3', {B}, None, 4)",
     "tl.dot_scaled: rhs_format must be one of 'e2m1', 'e4m3', 'e5m2', 'bf16', 'fp16', got the constant 4"),
    (f"tl.dot_scaled(tl.full((32, 32), 0, tl.int8), None, 'e2m1', {B}, None, 'e4m3')",
     "tl.dot_scaled: e2m1 format must be packed as uint8 (two fp4 values per byte); lhs is i8"),
    (f"tl.dot_scaled({A}, None, 'e4m3', tl.full((64, 32), 1, tl.float16), None, 'e5m2')",
     "tl.dot_scaled: unexpected dtype for e5m2: rhs is f16 (expected u8 bits or f8E5M2)"),
    (f"tl.dot_scaled({A}, None, 'e4m3', 1.0, None, 'e4m3')",
     "tl.dot_scaled: rhs must be a 2-D or 3-D block (not a scalar), got the constant 1.0"),
    (f"tl.dot_scaled({A}, None, 'e4m3', {u8('(32, 32)')}, None, 'e4m3')",
     "tl.dot_scaled: the operands must pack the same number of elements along K; lhs [32, 64] (e4m3) holds 64, "
     "rhs [32, 32] (e4m3) holds 32"),
    (f"tl.dot_scaled({A}, None, 'e4m3', {u8('(32, 32)')}, None, 'e2m1')",
     None),   # 64 == 2 * 32: fine (checked by the compile below)
    (f"tl.dot_scaled({A}, {u8('(32, 4)')}, 'e4m3', {B}, None, 'e4m3')",
     "tl.dot_scaled: lhs_scale must be a tensor of shape [32, 2] (one scale per 32 elements along K=64), "
     "got [32, 4]"),
    (f"tl.dot_scaled({A}, None, 'e4m3', {B}, tl.full((32, 2), 1, tl.int8), 'e4m3')",
     "tl.dot_scaled: rhs_scale must hold e8m0 scales as uint8, got i8"),
    (f"tl.dot_scaled({A}, None, 'e4m3', {B}, None, 'e4m3', out_dtype=tl.float16)",
     "tl.dot_scaled: only float32 is supported for out_dtype, got the type f16"),
    (f"tl.dot_scaled({A}, None, 'e4m3', {B}, None, 'e4m3', lhs_k_pack=False)",
     "tl.dot_scaled: only e2m1 (mxfp4) operands can be packed along a dimension other than K; lhs_k_pack=False "
     "with e4m3"),
    (f"tl.dot_scaled({A}, None, 'e4m3', {B}, None, 'e4m3', tl.zeros((32, 16), dtype=tl.float32))",
     "tl.dot_scaled: acc must be a float32 block of shape [32, 32], got a value of type tensor<32x16xf32>"),
    (f"tl.dot_scaled({u8('(8, 64)')}, None, 'e4m3', {B}, None, 'e4m3')",
     "tl.dot_scaled: the operands must have M >= 16, N >= 16 and K >= 16; got M=8, N=32, K=64"),
])
def test_errors_point_at_the_call(kernels, call, message):
    if message is None:
        the_dot(ir(kernels, f"c = {call}"))
        return
    error_at(kernels, f"c = {call}", "c = tl.dot_scaled", message, "tl.dot_scaled")
