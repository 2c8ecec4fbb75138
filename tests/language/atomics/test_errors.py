"""Atomics a kernel may not write: errors at the call, with Triton's wording, never a traceback."""
import pytest

from mtiacc.diagnostics import CompileError
from mtiacc.driver import Options, compile_kernel
from tests.language.harness import HEADER


@pytest.mark.parametrize("ptr_type,stmt,message", [
    ("*fp16", "tl.atomic_max(P, 1.0)", "atomic_max does not support fp16"),
    ("*bf16", "tl.atomic_xchg(P, 1.0)", "atomic_xchg does not support bf16"),
    ("*i16", "tl.atomic_add(P, 1)", "atomic_add does not support i16"),
    ("*u8", "tl.atomic_or(P, 1)", "atomic_or does not support u8"),
    ("*fp8e4nv", "tl.atomic_add(P, 1.0)", "atomic_add does not support fp8e4nv"),
    ("*fp32", "tl.atomic_and(P, 1.0)", "atomic_and does not support fp32: it applies to integers"),
    ("*i8", "tl.atomic_cas(P, 0, 1)", "atomic_cas only supports elements with width {16, 32, 64}, got i8"),
    ("*i32", 'tl.atomic_add(P, 1, sem="seq_cst")',
     "memory semantic 'seq_cst' not supported (expected one of 'relaxed', 'acquire', 'release', 'acq_rel')"),
    ("*i32", 'tl.atomic_add(P, 1, scope="block")',
     "memory scope 'block' not supported (expected one of 'gpu', 'cta', 'sys')"),
    ("*i32", "tl.atomic_add(P, tl.arange(0, 4))", "the value cannot be a block when the pointer is a scalar"),
    ("*i32", "tl.atomic_add(P, 1, mask=tl.arange(0, 4) < 2)",
     "the mask cannot be a block when the pointer is a scalar"),
    ("i32", "tl.atomic_add(P, 1)", "tl.atomic_add needs a pointer or a block of pointers, got a value of type i32"),
    ("*i32", "tl.load(P, volatile=1)", "tl.load's volatile must be a constexpr boolean, got the constant 1"),
])
def test_error_at_the_call(tmp_path, ptr_type, stmt, message):
    path = tmp_path / "k.py"
    path.write_text(HEADER + f"@triton.jit\ndef k(P):\n    {stmt}\n")
    with pytest.raises(CompileError) as info:
        compile_kernel(str(path), Options(signature=ptr_type))
    rendered = info.value.render().splitlines()
    line = HEADER.count("\n") + 3
    assert rendered[0] == f"{path}:{line}:5: error: {message}"
    assert rendered[1] == f"    {stmt}"
    assert rendered[2].startswith("    ^")
    assert "Traceback" not in info.value.render()
