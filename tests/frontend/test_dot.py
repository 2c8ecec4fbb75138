"""``tl.dot`` and ``a @ b``: the ``tt.dot`` the frontend builds, and every error with its location."""
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiacc.diagnostics import CompileError
from mtiacc.ir.text.printer import print_ir
from mtiacc.ir import ops
from mtiacc.ir.core import BlockArgument
from mtiacc.ir.dot_ops import DotOp

from .conftest import line_of

SIG = "*fp32"


def _body(code: str) -> str:
    body = "".join(f"    {line}\n" for line in code.strip().splitlines())
    return "@triton.jit\ndef k(X):\n" + body


def dots(kernels, code: str):
    module = kernels.compile(_body(code), signature=SIG).module
    return [op for op in module.funcs[0].walk() if isinstance(op, DotOp)]


def one_dot(kernels, code: str) -> DotOp:
    found = dots(kernels, code)
    assert len(found) == 1
    return found[0]


def ty(v) -> str:
    return str(v.type)


def full(shape, dtype: str) -> str:
    return f"tl.full({shape}, 1, tl.{dtype})"


# --------------------------------------------------------------------------- the IR built

def test_2d_f16_accumulates_in_f32_from_zeros(kernels):
    d = one_dot(kernels, f"c = tl.dot({full('(32, 16)', 'float16')}, {full('(16, 64)', 'float16')})")
    assert (ty(d.a), ty(d.b), ty(d.acc), ty(d.result)) == \
        ("tensor<32x16xf16>", "tensor<16x64xf16>", "tensor<32x64xf32>", "tensor<32x64xf32>")
    zero = d.acc.owner   # a splat of the constant 0.0 (Triton's create_splat)
    assert isinstance(zero, ops.SplatOp) and zero.operands[0].owner.attrs["value"] == 0.0
    assert d.input_precision is None and d.max_num_imprecise_acc is None   # recorded for f32 operands only
    assert d.shape == (1, 32, 64, 16)


def test_3d_batched(kernels):
    d = one_dot(kernels, f"c = tl.dot({full('(2, 32, 16)', 'bfloat16')}, {full('(2, 16, 16)', 'bfloat16')})")
    assert ty(d.result) == "tensor<2x32x16xf32>" and d.shape == (2, 32, 16, 16)


def test_rank_4_dot_is_folded_to_a_3d_tt_dot(kernels):
    module = kernels.compile("""
@triton.jit
def k(X):
    a = tl.full((2, 4, 16, 32), 1, tl.float16)
    b = tl.full((2, 4, 32, 16), 1, tl.float16)
    tl.store(X + tl.arange(0, 16), tl.sum(tl.reshape(tl.dot(a, b), (128, 16)), 0))
""", signature="*fp32").module
    text = print_ir(module)
    assert '"tt.dot"' in text and "(tensor<8x16x32xf16>, tensor<8x32x16xf16>, tensor<8x16x16xf32>)" in text
    assert "(tensor<8x16x16xf32>) -> tensor<2x4x16x16xf32>" in text


def test_acc_is_the_accumulator_and_the_result_type(kernels):
    d = one_dot(kernels, f"""
acc = tl.zeros((32, 32), dtype=tl.float32) + 1.0
c = tl.dot({full('(32, 16)', 'float16')}, {full('(16, 32)', 'float16')}, acc)
""")
    assert isinstance(d.acc.owner, ops.AddFOp) and ty(d.result) == "tensor<32x32xf32>"


def test_out_dtype_f16_with_f16_operands(kernels):
    d = one_dot(kernels, f"c = tl.dot({full('(16, 16)', 'float16')}, {full('(16, 16)', 'float16')}, "
                         "out_dtype=tl.float16)")
    assert ty(d.result) == "tensor<16x16xf16>" and str(d.acc.owner.operands[0].type) == "f16"
    d = one_dot(kernels, f"c = tl.dot({full('(16, 16)', 'float16')}, {full('(16, 16)', 'float16')}, "
                         "tl.zeros((16, 16), tl.float16), out_dtype=tl.float16)")
    assert ty(d.result) == "tensor<16x16xf16>"


def test_out_dtype_is_ignored_for_bf16_and_f32_operands(kernels):
    """Triton: f32 and bf16 operands always give f32 (out_dtype applies to f16 and fp8)."""
    d = one_dot(kernels, f"c = tl.dot({full('(16, 16)', 'bfloat16')}, {full('(16, 16)', 'bfloat16')}, "
                         "out_dtype=tl.float16)")
    assert ty(d.result) == "tensor<16x16xf32>"


def test_int8_gives_int32(kernels):
    d = one_dot(kernels, f"c = tl.dot({full('(16, 32)', 'int8')}, {full('(32, 16)', 'int8')})")
    assert ty(d.result) == "tensor<16x16xi32>" and d.acc.owner.operands[0].owner.attrs["value"] == 0
    d = one_dot(kernels, f"c = tl.dot({full('(16, 32)', 'int8')}, {full('(32, 16)', 'int8')}, "
                         "tl.zeros((16, 16), tl.int32), out_dtype=tl.int32)")
    assert ty(d.result) == "tensor<16x16xi32>"


def test_f64(kernels):
    d = one_dot(kernels, f"c = tl.dot({full('(16, 16)', 'float64')}, {full('(16, 16)', 'float64')})")
    assert ty(d.result) == "tensor<16x16xf64>" and d.input_precision is None
    d = one_dot(kernels, f"c = tl.dot({full('(16, 16)', 'float64')}, {full('(16, 16)', 'float64')}, "
                         "tl.zeros((16, 16), tl.float64), out_dtype=tl.float64)")
    assert ty(d.result) == "tensor<16x16xf64>"


@pytest.mark.parametrize("a, b", [("float8e4nv", "float8e4nv"), ("float8e4nv", "float8e5"), ("float8e5", "float8e4b8"),
                                  ("float8e5b16", "float8e5b16")])
def test_fp8_operands_stay_fp8(kernels, a, b):
    d = one_dot(kernels, f"c = tl.dot({full('(16, 32)', a)}, {full('(32, 16)', b)}, out_dtype=tl.float16)")
    assert str(d.a.type.element_type).startswith("f8") and str(d.b.type.element_type).startswith("f8")
    assert ty(d.result) == "tensor<16x16xf16>"


def test_fp8e4b15_operands_become_f16_first(kernels):
    """Triton converts both operands to f16 when either is float8e4b15."""
    d = one_dot(kernels, f"c = tl.dot({full('(16, 32)', 'float8e4b15')}, {full('(32, 16)', 'float8e5')})")
    assert ty(d.a) == "tensor<16x32xf16>" and ty(d.b) == "tensor<32x16xf16>"
    assert isinstance(d.a.owner, ops.ExtFOp) and isinstance(d.b.owner, ops.ExtFOp)
    assert ty(d.result) == "tensor<16x16xf32>"


@pytest.mark.parametrize("args, precision", [
    ("", "tf32"), ("allow_tf32=True", "tf32"), ("allow_tf32=False", "ieee"), ("input_precision='ieee'", "ieee"),
    ("input_precision='tf32x3'", "tf32x3"), ("input_precision='TF32X3'", "tf32x3"),
    ("input_precision='bf16x3'", "bf16x3"), ("input_precision='BF16x6'", "bf16x6"), ("input_precision='IEEE'", "ieee"),
])
def test_input_precision_of_f32_operands(kernels, args, precision):
    d = one_dot(kernels, f"c = tl.dot({full('(16, 16)', 'float32')}, {full('(16, 16)', 'float32')}, {args})")
    assert d.input_precision == precision


def test_input_precision_is_not_recorded_for_other_operands(kernels):
    d = one_dot(kernels, f"c = tl.dot({full('(16, 16)', 'float16')}, {full('(16, 16)', 'float16')}, "
                         "input_precision='tf32')")
    assert d.input_precision is None


def test_max_num_imprecise_acc_is_recorded(kernels):
    d = one_dot(kernels, f"c = tl.dot({full('(16, 32)', 'float8e5')}, {full('(32, 16)', 'float8e5')}, "
                         "max_num_imprecise_acc=32)")
    assert d.max_num_imprecise_acc == 32


def test_matmul_operator_is_tl_dot(kernels):
    found = dots(kernels, f"""
a = {full('(32, 16)', 'float32')}
b = {full('(16, 32)', 'float32')}
acc = tl.zeros((32, 32), dtype=tl.float32)
acc += a @ b
c = a @ b
""")
    assert len(found) == 2
    assert all(d.input_precision == "tf32" and ty(d.result) == "tensor<32x32xf32>" for d in found)
    add = found[0].result.uses[0].op
    assert isinstance(add, ops.AddFOp)


def test_tutorial_matmul_k_loop(kernels):
    path = kernels.write("""
@triton.jit
def matmul(A, B, C, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = A + rm[:, None] * K + rk[None, :]
    b_ptrs = B + rk[:, None] * BN + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=rk[None, :] < K - k * BK, other=0.0)
        b = tl.load(b_ptrs, mask=rk[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * BN
    tl.store(C + rm[:, None] * BN + rn[None, :], acc.to(tl.float16))
""")
    from mtiacc.frontend import compile_file
    m = compile_file(path, defines={"BM": "64", "BN": "32", "BK": "32"},
                     signature="*fp16,*fp16,*fp16,i32").module
    (d,) = [op for op in m.funcs[0].walk() if isinstance(op, DotOp)]
    assert ty(d.result) == "tensor<64x32xf32>" and isinstance(d.acc, BlockArgument)   # carried by the loop
    assert d.loc.line == line_of(path, "acc = tl.dot")


# --------------------------------------------------------------------------- errors


def error_at(kernels, code: str, needle: str, message: str, col_of: str = None):
    """The error of compiling ``code``: its message, and its location: the line holding ``needle``, the column
    of ``col_of`` (``needle`` when None) in it."""
    err = kernels.error(_body(code), signature=SIG)
    line = line_of(err.path, needle)
    text = open(err.path, encoding="utf-8").read().splitlines()[line - 1]
    col = text.index(col_of or needle) + 1
    rendered = err.render().splitlines()
    assert rendered[0] == f"{err.path}:{line}:{col}: error: {message}", rendered[0]
    assert rendered[1] == text and "Traceback" not in err.render()
    return err


A16 = full("(16, 16)", "float16")


@pytest.mark.parametrize("a, b, message", [
    ("(32, 8)", "(8, 32)", "tl.dot: input shapes should have M >= 16, N >= 16 and K >= 16; got M=32, N=32, K=8 "
                           "(shapes [32, 8] and [8, 32])"),
    ("(8, 16)", "(16, 32)", "tl.dot: input shapes should have M >= 16, N >= 16 and K >= 16; got M=8, N=32, K=16 "
                            "(shapes [8, 16] and [16, 32])"),
    ("(16, 16)", "(16, 8)", "tl.dot: input shapes should have M >= 16, N >= 16 and K >= 16; got M=16, N=8, K=16 "
                            "(shapes [16, 16] and [16, 8])"),
    ("(16, 32)", "(16, 32)", "tl.dot: shapes [16, 32] and [16, 32] are not compatible for a matrix product (the last "
                             "dimension of the first, 32, must equal the second-to-last of the second, 16)"),
    ("(2, 16, 16)", "(4, 16, 16)", "tl.dot: the batch dimensions differ: shapes [2, 16, 16] and [4, 16, 16]"),
    ("(2, 2, 16, 16)", "(2, 4, 16, 16)", "tl.dot: the batch dimensions differ: shapes [2, 2, 16, 16] and "
                                         "[2, 4, 16, 16]"),
    ("(16,)", "(16,)", "tl.dot: both operands must have the same rank, 2 or more, got shapes [16] and [16]"),
    ("(16, 16)", "(1, 16, 16)", "tl.dot: both operands must have the same rank, 2 or more, got shapes [16, 16] "
                                  "and [1, 16, 16]"),
])
def test_shape_errors(kernels, a, b, message):
    error_at(kernels, f"c = tl.dot({full(a, 'float16')}, {full(b, 'float16')})", "c = tl.dot", message, "tl.dot")


@pytest.mark.parametrize("a, b, message", [
    ("float16", "float32", "tl.dot: both operands must have the same type, got f16 and f32"),
    ("uint8", "uint8", "tl.dot: only i8 integer operands are supported, got u8"),
    ("int16", "int16", "tl.dot: unsupported first operand type i16 (expected f16, bf16, f32, f64, i8 or two fp8 "
                       "formats)"),
    ("float8e5", "float16", "tl.dot: unsupported first operand type f8E5M2 (expected f16, bf16, f32, f64, i8 or two "
                            "fp8 formats)"),
    ("float16", "int1", "tl.dot: unsupported second operand type i1 (expected f16, bf16, f32, f64, i8 or two fp8 "
                        "formats)"),
])
def test_operand_type_errors(kernels, a, b, message):
    error_at(kernels, f"c = tl.dot({full('(16, 16)', a)}, {full('(16, 16)', b)})", "c = tl.dot", message, "tl.dot")


@pytest.mark.parametrize("args, message", [
    ("input_precision='tf16'", "tl.dot: input_precision must be one of 'ieee', 'tf32', 'tf32x3', 'bf16x3', 'bf16x6', got 'tf16'"),
    ("input_precision=3", "tl.dot: input_precision must be one of 'ieee', 'tf32', 'tf32x3', 'bf16x3', 'bf16x6', got the constant 3"),
    ("input_precision='ieee', allow_tf32=True", "tl.dot: only one of input_precision and allow_tf32 can be specified"),
    ("out_dtype=tl.bfloat16", "tl.dot: out_dtype=bfloat16 is unsupported; use out_dtype=tl.float32 or tl.float16 and "
                              "convert the result with .to(tl.bfloat16)"),
    ("out_dtype=tl.float64", "tl.dot: f16 operands give out_dtype f32 or f16, got out_dtype f64"),
    ("out_dtype=1", "tl.dot: out_dtype must be a data type such as tl.float32, got the constant 1"),
    ("tl.zeros((16, 32), tl.float32)", "tl.dot: acc must be a block of the result's shape [16, 16], got a value of "
                                       "type tensor<16x32xf32>"),
    ("0.0", "tl.dot: acc must be a block of the result's shape [16, 16], got the constant 0.0"),
    ("tl.zeros((16, 16), tl.float16)", "tl.dot: the accumulator's type f16 must be out_dtype (f32)"),
    ("tl.zeros((16, 16), tl.float16), out_dtype=tl.float32",
     "tl.dot: the accumulator's type f16 must be out_dtype (f32)"),
    ("foo=1", "tl.dot(): got an unexpected keyword argument 'foo'"),
])
def test_argument_errors(kernels, args, message):
    error_at(kernels, f"c = tl.dot({A16}, {A16}, {args})", "c = tl.dot", message, "tl.dot")


def test_int8_accumulator_needs_out_dtype_int32(kernels):
    """Triton checks ``acc.dtype == out_dtype``, so an i32 accumulator needs out_dtype=tl.int32."""
    i8 = full("(16, 16)", "int8")
    error_at(kernels, f"c = tl.dot({i8}, {i8}, tl.zeros((16, 16), tl.int32))", "c = tl.dot",
             "tl.dot: the accumulator's type i32 must be out_dtype (f32); pass out_dtype=tl.int32", "tl.dot")
    error_at(kernels, f"c = tl.dot({i8}, {i8}, tl.zeros((16, 16), tl.float32))", "c = tl.dot",
             "tl.dot: i8 operands accumulate in i32, got an accumulator of type f32", "tl.dot")


def test_f32_operands_with_an_f16_accumulator(kernels):
    f = full("(16, 16)", "float32")
    error_at(kernels, f"c = tl.dot({f}, {f}, tl.zeros((16, 16), tl.float16), out_dtype=tl.float16)", "c = tl.dot",
             "tl.dot: f32 operands accumulate in f32, got an accumulator of type f16", "tl.dot")


def test_max_num_imprecise_acc_errors(kernels):
    f8 = full("(16, 16)", "float8e5")
    error_at(kernels, f"c = tl.dot({f8}, {f8}, max_num_imprecise_acc=32)", "c = tl.dot",
             "tl.dot: max_num_imprecise_acc (32) must be <= K (16)", "tl.dot")
    error_at(kernels, f"c = tl.dot({A16}, {A16}, max_num_imprecise_acc=1.5)", "c = tl.dot",
             "tl.dot: max_num_imprecise_acc must be a constexpr integer, got the constant 1.5", "tl.dot")


@pytest.mark.parametrize("a, message", [
    ("1.0", "tl.dot's first operand must be a block of 2 or more dimensions, got the constant 1.0"),
    ("tl.load(X)", "tl.dot's first operand must be a block of 2 or more dimensions, got a value of type f32"),
])
def test_scalar_operands(kernels, a, message):
    error_at(kernels, f"c = tl.dot({a}, {A16})", "c = tl.dot", message, "tl.dot")


def test_matmul_operator_errors_point_at_the_expression(kernels):
    a = full("(16, 8)", "float16")
    error_at(kernels, f"a = {a}\nc = a @ a", "c = a @ a",
             "tl.dot: shapes [16, 8] and [16, 8] are not compatible for a matrix product (the last dimension of the "
             "first, 8, must equal the second-to-last of the second, 16)", "a @ a")


def test_dot_of_constant_blocks_compiles(kernels):
    path = kernels.write(_body(f"tl.store(X + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :], "
                               f"tl.dot({full('(16, 16)', 'float32')}, {full('(16, 16)', 'float32')}))"))
    assert "mtia.dpe.mm" in compile_kernel(path, Options(signature=SIG), stop_after="asm").asm_text



@pytest.mark.parametrize("kernel, sig", [("matmul", "*fp16,*fp16,*fp16,i32,i32,i32,i32"),
                                         ("matmul_plus", "*fp32,*fp32,*fp32,i32,i32,i32,i32")])
@pytest.mark.parametrize("codegen", [False, True])
def test_printed_ir_round_trips(kernel, sig, codegen):
    """print -> parse -> print is the identity on the tutorial matmul's IR, after the -O2 pipeline (and the
    passes only codegen runs)."""
    from pathlib import Path

    from mtiacc.frontend import compile_file
    from mtiacc.ir.text.parser import parse_ir
    from mtiacc.ir.text.printer import print_ir
    from mtiacc.opt import pipeline_for_level, run_pipeline
    path = Path(__file__).resolve().parents[1] / "filecheck" / "dot_matmul.py"
    m = compile_file(str(path), kernel=kernel, defines={"BM": "32", "BN": "32", "BK": "16"}, signature=sig).module
    run_pipeline(m, pipeline_for_level(2, codegen=codegen))
    text = print_ir(m)
    assert '"tt.dot"' in text
    assert print_ir(parse_ir(text)) == text


def test_fp8_dot_round_trips_after_legalize_fp8(kernels):
    from mtiacc.frontend import compile_file
    from mtiacc.ir.text.parser import parse_ir
    from mtiacc.ir.text.printer import print_ir
    from mtiacc.opt import run_pipeline
    path = kernels.write(_body(f"tl.store(X + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :], "
                               f"tl.dot({full('(16, 32)', 'float8e4nv')}, {full('(32, 16)', 'float8e5b16')}))"))
    m = compile_file(path, signature=SIG).module
    run_pipeline(m, "legalize-fp8")
    text = print_ir(m)
    assert 'fp8 = "f8E5M2FNUZ"' in text and "tensor<32x16xf16>" in text
    assert print_ir(parse_ir(text)) == text
