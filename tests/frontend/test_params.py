"""Parameters: constexpr values, the signature, annotations, and pointer inference."""
import os

from mtiacc.frontend import Param, compile_file
from mtiacc.ir import ops
from mtiacc.ir.types import PointerType, f16, f32, i32, i64, u8, parse_triton_type

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VECTOR_ADD = os.path.join(ROOT, "examples", "vector_add.py")


def types(result):
    return {p.name: p.type for p in result.params}


def test_vector_add_result():
    r = compile_file(VECTOR_ADD, defines={"BLOCK_SIZE": "128"})
    assert r.kernel == "add_kernel"
    ptr = PointerType(f32)
    assert r.params == [Param("A_ptr", ptr, False, None), Param("B_ptr", ptr, False, None),
                        Param("C_ptr", ptr, False, None), Param("N", i32, False, None),
                        Param("BLOCK_SIZE", None, True, 128)]
    assert r.constexprs == {"BLOCK_SIZE": 128}
    assert r.source_file == VECTOR_ADD
    (func,) = r.module.funcs
    assert isinstance(func, ops.FuncOp)
    assert func.sym_name == "add_kernel"
    assert func.arg_names == ["A_ptr", "B_ptr", "C_ptr", "N"]
    assert [a.type for a in func.args] == [ptr, ptr, ptr, i32]
    lines = r.source_lines
    assert lines[min(lines)] == "@triton.jit"
    assert lines[max(lines)].strip() == "tl.store(C_ptr + offsets, a + b, mask=mask)"
    # Every op carries a location inside the kernel's lines.
    for op in r.module.walk():
        if op is not r.module:
            assert op.loc is not None and op.loc.file == VECTOR_ADD and op.loc.line in lines, op


def test_constexpr_from_default_define_and_kinds(kernels):
    body = """
        @triton.jit
        def k(X, B: tl.constexpr = 2 * 8, SCALE: tl.constexpr = 0.5, FLAG: tl.constexpr = False):
            pass
        """
    assert kernels.compile(body).constexprs == {"B": 16, "SCALE": 0.5, "FLAG": False}
    r = kernels.compile(body, defines={"B": "64", "SCALE": "2", "FLAG": "true"})
    assert r.constexprs == {"B": 64, "SCALE": 2, "FLAG": True}
    assert kernels.compile(body, defines={"FLAG": "True"}).constexprs["FLAG"] is True


def test_constexpr_default_may_use_module_constants(kernels):
    r = kernels.compile("""
        BLOCK = 32
        HALF = BLOCK // 2

        @triton.jit
        def k(X, B: tl.constexpr = HALF):
            pass
        """)
    assert r.constexprs == {"B": 16}


def test_signature_sets_types_and_ignores_alignment_hints(kernels):
    r = kernels.compile("""
        @triton.jit
        def k(X, Y, N, B: tl.constexpr = 4):
            pass
        """, signature="*fp16:16, *u8, i64")
    assert types(r) == {"X": PointerType(f16), "Y": PointerType(u8), "N": i64, "B": None}


def test_annotations_give_types(kernels):
    r = kernels.compile("""
        @triton.jit
        def k(X: tl.pointer_type(tl.float16), N: tl.int64, S: tl.float32, P: "*i32", Q):
            pass
        """)
    assert types(r) == {"X": PointerType(f16), "N": i64, "S": f32, "P": PointerType(i32), "Q": i32}


def test_pointer_inference(kernels):
    r = kernels.compile("""
        @triton.jit
        def k(src, dst, stride, n, other_ptr, unused):
            pid = tl.program_id(0)
            base = src + pid * stride          # src is the pointer, stride is not
            offs = tl.arange(0, 16)
            x = tl.load(base + offs, mask=offs < n)
            p = offs + dst                     # a pointer on the right of `+`
            tl.store(p, x)
            q = other_ptr
            q += 1
            tl.store(pointer=q, value=1.0)
        """)
    ptr = parse_triton_type("*fp32")
    assert types(r) == {"src": ptr, "dst": ptr, "stride": i32, "n": i32, "other_ptr": ptr, "unused": i32}


def test_jit_decorator_forms(kernels):
    header = "import triton\nfrom triton import jit\nimport triton.language as tl\n\n\n"
    path = kernels.write("""
        @jit
        def a(X):
            pass

        @triton.jit(do_not_specialize=["X"])
        def b(X):
            pass

        @triton.autotune(configs=[], key=["X"])
        @triton.jit
        def c(X):
            pass

        def not_a_kernel(X):
            pass
        """, header=header)
    for name in "abc":
        assert compile_file(path, kernel=name).kernel == name


def test_module_level_code_is_never_executed(kernels, tmp_path):
    marker = tmp_path / "executed"
    header = (f"import triton\nimport triton.language as tl\nimport no_such_module_anywhere\n"
              f"open({str(marker)!r}, 'w').write('ran')\nprint('hello')\n"
              f"raise SystemExit('module code ran')\n\n\n")
    r = kernels.compile("""
        if __name__ == "__main__":
            main()

        @triton.jit
        def k(X):
            tl.store(X, 1.0)
        """, header=header)
    assert r.kernel == "k"
    assert not marker.exists()


def test_from_import_of_language(kernels):
    header = "from triton import language as tl\nimport triton\nfrom triton.language import arange\n\n\n"
    r = kernels.compile("""
        @triton.jit
        def k(X):
            tl.store(X + arange(0, 4), 1.0)
        """, header=header)
    assert r.kernel == "k"
