"""The compiler's command line, as a user runs it: outputs, and one clear error per mistake."""
import textwrap

import numpy as np
import pytest

from tests.conftest import EXAMPLES

VECTOR_ADD = EXAMPLES / "vector_add.py"


def assert_clean_error(proc, *fragments):
    assert proc.returncode != 0, proc.stdout
    assert "Traceback" not in proc.stderr, proc.stderr
    for f in fragments:
        assert f in proc.stderr, f"{f!r} not in:\n{proc.stderr}"


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return p


def test_emit_ir_shows_the_kernel(tool):
    proc = tool("mtiacc", VECTOR_ADD, "--emit=ir", "-D", "BLOCK_SIZE=256")
    assert proc.returncode == 0, proc.stderr
    assert '"tt.func"' in proc.stdout and "add_kernel" in proc.stdout
    assert '"tt.load"' in proc.stdout and '"tt.store"' in proc.stdout


def test_emit_asm_shows_dma_and_vector_loop(tool):
    proc = tool("mtiacc", VECTOR_ADD, "--emit=asm", "-D", "BLOCK_SIZE=256")
    assert proc.returncode == 0, proc.stderr
    for needle in ("mtia.dma.in", "mtia.dma.out", "vsetvli", "vfadd.vv", ".loc", "add_kernel:"):
        assert needle in proc.stdout, needle


def test_binary_written_and_disassembled(tool, tmp_path):
    out = tmp_path / "add.bin"
    proc = tool("mtiacc", VECTOR_ADD, "-o", out, "-D", "BLOCK_SIZE=256")
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes()[:4] == b"\x7fELF"
    dis = tool("mtiacc", "disasm", out)
    assert dis.returncode == 0, dis.stderr
    assert "mtia.pid" in dis.stdout and "vfadd.vv" in dis.stdout


def test_missing_file(tool, tmp_path):
    assert_clean_error(tool("mtiacc", tmp_path / "nope.py"), "nope.py")


def test_syntax_error_has_location_and_caret(tool, tmp_path):
    k = write(tmp_path, "bad.py", """\
        import triton
        import triton.language as tl

        @triton.jit
        def k(X, N):
            x = tl.load(X +)
        """)
    proc = tool("mtiacc", k, "-o", tmp_path / "k.bin")
    assert_clean_error(proc, "bad.py:6:", "error:", "^")
    assert not (tmp_path / "k.bin").exists()


def test_unknown_kernel_lists_the_kernels(tool):
    assert_clean_error(tool("mtiacc", VECTOR_ADD, "--kernel", "mul_kernel", "-D", "BLOCK_SIZE=4"),
                       "mul_kernel", "add_kernel")


def test_constexpr_without_value(tool, tmp_path):
    proc = tool("mtiacc", VECTOR_ADD, "-o", tmp_path / "k.bin")
    assert_clean_error(proc, "vector_add.py:", "BLOCK_SIZE", "-D BLOCK_SIZE=")
    assert not (tmp_path / "k.bin").exists()


def test_unsupported_construct_is_named_at_its_location(tool, tmp_path):
    k = write(tmp_path, "asm.py", """\
        import triton
        import triton.language as tl

        @triton.jit
        def k(X, Y, BLOCK: tl.constexpr):
            x = tl.load(X + tl.arange(0, BLOCK))
            y = tl.inline_asm_elementwise(x, x)
            tl.store(Y + tl.arange(0, BLOCK), y)
        """)
    proc = tool("mtiacc", k, "-D", "BLOCK=16", "-o", tmp_path / "k.bin")
    assert_clean_error(proc, "asm.py:7:", "tl.inline_asm_elementwise", "not supported")
    assert not (tmp_path / "k.bin").exists()


def test_bad_define_is_a_usage_error(tool):
    proc = tool("mtiacc", VECTOR_ADD, "-D", "BLOCK_SIZE")
    assert_clean_error(proc, "NAME=VALUE")


def test_bad_grid_expression(tool, tmp_path):
    proc = tool("mtiacc", VECTOR_ADD, "-D", "BLOCK_SIZE=4", "--grid", "cdiv(M, 4)", "-o", tmp_path / "k.bin")
    assert_clean_error(proc, "--grid", "'M'")


def test_grid_is_stored_in_the_binary(tool, tmp_path):
    from mtiacc.asm.elf import read_elf
    out = tmp_path / "k.bin"
    proc = tool("mtiacc", VECTOR_ADD, "-D", "BLOCK_SIZE=128", "--grid", "cdiv(N, BLOCK_SIZE)", "-o", out)
    assert proc.returncode == 0, proc.stderr
    meta = read_elf(out.read_bytes()).meta
    assert meta["grid"] == ["cdiv(N, BLOCK_SIZE)"]
    assert meta["constexprs"] == {"BLOCK_SIZE": 128}
    assert [p["type"] for p in meta["params"]] == ["*fp32", "*fp32", "*fp32", "i32"]
    assert meta["kernel"] == "add_kernel" and meta["format_version"] == 1
