"""Triton's typing rules, checked on the semantic layer directly and through small kernels."""
import pytest

from mtiacc.diagnostics import CompileError
from mtiacc.frontend.language.semantic import Semantic, literal_type, promote_types
from mtiacc.ir import ops
from mtiacc.ir.core import Block, Builder
from mtiacc.ir.text.printer import print_ir
from mtiacc.ir.types import (BlockType, PointerType, bf16, f16, f32, f64, i1, i8, i16, i32, i64, u8,
                             u32, u64)


def sem_with(*types):
    block = Block(types)
    return Semantic(Builder(block)), block.args, block


def op_names(block):
    return [op.name for op in block.ops]


@pytest.mark.parametrize("a, b, expected", [
    (i32, f32, f32), (i1, i8, i8), (i8, i32, i32), (f16, f32, f32), (f16, bf16, f16),
    (i32, u32, u32), (u8, i32, i32), (i64, u32, i64), (bf16, i64, f32), (f64, f32, f64),
])
def test_promotion_between_values(a, b, expected):
    assert promote_types(a, b) == expected == promote_types(b, a)


@pytest.mark.parametrize("value, expected", [
    (True, i1), (1, i32), (2**31 - 1, i32), (2**31, u32), (2**32 - 1, u32), (2**32, i64), (-2**31 - 1, i64), (-2**63, i64), (2**64 - 1, u64),
    (1.5, f32), (1e300, f64),
])
def test_literal_types(value, expected):
    assert literal_type(value) == expected


def test_constant_of_the_same_kind_takes_the_value_type():
    sem, (h, b8), block = sem_with(f16, u8)
    assert sem.binary("mul", h, 2.0).type == f16
    assert sem.binary("add", b8, 1).type == u8
    assert sem.binary("add", 1, b8).type == u8


def test_constant_of_a_higher_kind_wins():
    sem, (x,), block = sem_with(i16)
    r = sem.binary("mul", x, 0.5)
    assert r.type == f32
    assert op_names(block) == ["arith.sitofp", "arith.constant", "arith.mulf"]


def test_int_true_division_is_f32():
    sem, (x, y), block = sem_with(i32, i32)
    assert sem.binary("truediv", x, y).type == f32
    assert op_names(block) == ["arith.sitofp", "arith.sitofp", "arith.divf"]


def test_floor_division_and_modulo_are_c_like_ops():
    sem, (x, y, u), block = sem_with(i32, i32, u32)
    sem.binary("floordiv", x, y)
    sem.binary("mod", x, y)
    sem.binary("floordiv", u, 3)
    sem.binary("rshift", u, 1)
    sem.binary("rshift", x, 1)
    names = [n for n in op_names(block) if n != "arith.constant"]
    assert names == ["arith.divsi", "arith.remsi", "arith.divui", "arith.shrui", "arith.shrsi"]


def test_constexprs_fold_in_python():
    sem, _, block = sem_with()
    assert sem.binary("floordiv", -7, 2) == -4     # Python semantics between constexprs, as Triton
    assert sem.binary("truediv", 7, 2) == 3.5
    assert sem.compare("lt", 1, 2) is True
    assert sem.where(False, 1, 2) == 2
    assert sem.unary("neg", 3) == -3 and sem.unary("not", 0) is True
    assert block.ops == []


def test_comparisons_give_i1_with_the_right_predicates():
    sem, (x, u, f), block = sem_with(i32, u32, f32)
    assert sem.compare("lt", x, 0).type == i1
    assert sem.compare("lt", u, 0).op.predicate == "ult"
    assert sem.compare("ne", f, 0.0).op.predicate == "une"
    assert sem.compare("ge", f, 1).op.predicate == "oge"


def test_scalar_meets_block_is_splatted_and_blocks_broadcast():
    sem, (x,), block = sem_with(i32)
    r = sem.binary("add", x, sem.builder.insert(ops.MakeRangeOp.get(0, 8)).result)
    assert r.type == BlockType((8,), i32)
    assert "tt.splat" in op_names(block)
    sem2, (a, b), block2 = sem_with(BlockType((1, 8), f32), BlockType((4, 1), f32))
    assert sem2.binary("add", a, b).type == BlockType((4, 8), f32)
    assert op_names(block2) == ["tt.broadcast", "tt.broadcast", "arith.addf"]
    # Ranks align at the trailing dimension: (8,) meets (1, 8) as (1, 8).
    r = sem2.binary("add", a, sem2.builder.insert(ops.MakeRangeOp.get(0, 8)).result)
    assert r.type == BlockType((1, 8), f32)
    assert "tt.expand_dims" in op_names(block2)
    with pytest.raises(CompileError, match="incompatible shapes"):
        sem2.binary("add", a, sem2.builder.insert(ops.MakeRangeOp.get(0, 4)).result)


def test_pointer_arithmetic():
    sem, (p, n), block = sem_with(PointerType(f32), i64)
    assert sem.binary("add", p, n).type == PointerType(f32)
    assert sem.binary("add", n, p).type == PointerType(f32)
    r = sem.binary("sub", p, 4)
    assert isinstance(r.op, ops.AddPtrOp) and isinstance(r.op.offset.op, ops.SubIOp)
    with pytest.raises(CompileError, match="pointer offsets must be integers"):
        sem.binary("add", p, 1.5)


@pytest.mark.parametrize("src, dst, names", [
    (i32, f32, ["arith.sitofp"]), (u32, f32, ["arith.uitofp"]), (f32, i32, ["arith.fptosi"]),
    (f32, u8, ["arith.fptoui"]), (i8, i32, ["arith.extsi"]), (u8, i32, ["arith.extui"]),
    (i1, i32, ["arith.extui"]), (i64, i32, ["arith.trunci"]), (f16, f32, ["arith.extf"]),
    (f32, bf16, ["arith.truncf"]), (f16, bf16, ["arith.extf", "arith.truncf"]),
    (i32, u32, ["tt.bitcast"]), (f32, i1, ["arith.constant", "arith.cmpf"]),
])
def test_casts(src, dst, names):
    sem, (x,), block = sem_with(src)
    assert sem.cast(x, dst).type == dst
    assert op_names(block) == names


def test_bitcast_needs_equal_widths():
    sem, (x,), block = sem_with(f32)
    assert sem.cast(x, i32, bitcast=True).op.name == "tt.bitcast"
    with pytest.raises(CompileError, match="different widths"):
        sem.cast(x, i16, bitcast=True)


def test_constant_range_is_checked():
    sem, (x,), block = sem_with(u8)
    with pytest.raises(CompileError, match="constant 300 does not fit in u8"):
        sem.binary("add", x, 300)
    assert sem.binary("and", x, 255).type == u8


def test_kernel_with_constexpr_if_and_casts(kernels):
    r = kernels.compile("""
        @triton.jit
        def k(X, Y: tl.pointer_type(tl.int32), HAS_Y: tl.constexpr = True, B: tl.constexpr = 8):
            offs = tl.arange(0, B)
            x = tl.load(X + offs)
            if HAS_Y and B > 4:
                tl.store(Y + offs, x.to(tl.int32))
            else:
                tl.store(X + offs, x)
            n = tl.num_programs(axis=0)
            z = tl.where(offs < n, x, -x)
            w = tl.maximum(z, 0.0) + tl.minimum(offs, tl.cdiv(n, 2)).to(tl.float32)
            tl.store(X + offs, w / 2 + tl.zeros((B,), tl.float32) + (x.dtype == tl.float32))
        """)
    text = print_ir(r.module)
    for name in ("arith.fptosi", "tt.get_num_programs", "arith.select", "arith.negf", "arith.maxnumf",
                 "arith.minsi", "arith.divsi", "arith.divf"):
        assert f'"{name}"' in text, name
    assert text.count('"tt.store"') == 2


@pytest.mark.parametrize("number, dtype", [("1", "i32"), ("2 ** 40", "i64"), ("0.5", "f32"), ("True", "i1")])
def test_a_number_has_its_literal_type_as_dtype(kernels, number, dtype):
    """Triton lifts a number assigned to a name to a scalar tensor: `.dtype` and methods work on it."""
    r = kernels.compile(f"""
        @triton.jit
        def k(X):
            v = {number}
            tl.store(X, tl.full([16], 0, v.dtype).to(tl.float32).sum() + v.to(tl.float32))
        """)
    text = print_ir(r.module)
    assert f"-> tensor<16x{dtype}>" in text and f"() -> {dtype} loc" in text


def test_other_attributes_of_a_number_are_errors(kernels):
    err = kernels.error("""
        @triton.jit
        def k(X):
            v = 1
            tl.store(X, v.foo)
        """)
    assert err.message == "the constant 1 has no attribute 'foo'" and (err.loc.line, err.loc.col) == (9, 17)
