"""Kernels that inspect types at compile time (``tl.tensor``, ``tl.dtype``, ``tl.block_type``,
``tl.pointer_type``, ``tl.tuple``: ``isinstance``, annotations, ``x.dtype.is_floating()``,
``.primitive_bitwidth``, ``.element_ty``, ``x.type.shape``, dtype constexpr parameters) and Triton 3's
tuples of values through helpers, loops and branches; run against numpy, and their errors.

The predicate table is Triton 3.9's ``dtype`` (``triton/language/core.py``): signed ints are
int8..int64, unsigned ones int1 and uint8..uint64, floats fp16/bf16/fp32/fp64 (and fp8).
"""
from __future__ import annotations

import numpy as np
import pytest

from mtiacc.diagnostics import CompileError
from mtiacc.driver import Options, compile_kernel
from tests.language.dtypes import DTYPES
from tests.language.harness import HEADER, launch

# Triton name -> (dtype.name, primitive_bitwidth)
NAMES = {"int1": ("int1", 1), "int8": ("int8", 8), "int16": ("int16", 16), "int32": ("int32", 32),
         "int64": ("int64", 64), "uint8": ("uint8", 8), "uint16": ("uint16", 16), "uint32": ("uint32", 32),
         "uint64": ("uint64", 64), "float16": ("fp16", 16), "bfloat16": ("bf16", 16), "float32": ("fp32", 32)}
PREDICATES = ["is_floating", "is_int", "is_int_signed", "is_int_unsigned", "is_bool", "is_fp16", "is_bf16",
              "is_fp32", "is_fp64", "is_int32", "is_uint8", "is_ptr", "is_block", "is_standard_floating"]


def expected(t: str, pred: str) -> bool:
    name = NAMES[t][0]
    signed = name in ("int8", "int16", "int32", "int64")
    unsigned = name in ("int1", "uint8", "uint16", "uint32", "uint64")
    table = {"is_floating": not (signed or unsigned), "is_int": signed or unsigned, "is_int_signed": signed,
             "is_int_unsigned": unsigned, "is_bool": name == "int1", "is_ptr": False, "is_block": False,
             "is_standard_floating": not (signed or unsigned)}
    return table.get(pred, pred == f"is_{name}")


PRED_KERNEL = """
@triton.jit
def k(X, O):
    x = tl.load(X + tl.arange(0, 4))
    d = x.dtype
{stores}
    tl.store(O + {n}, d.primitive_bitwidth)
    tl.store(O + {n1}, x.type.is_block() + 2 * x.type.is_floating() + 4 * isinstance(x.type, tl.dtype))
    tl.store(O + {n2}, x.type.scalar.primitive_bitwidth + 100 * (x.type.element_ty == d))
"""


@pytest.mark.parametrize("t", list(NAMES))
def test_dtype_predicates(t):
    stores = "\n".join(f"    tl.store(O + {i}, d.{p}())" for i, p in enumerate(PREDICATES))
    n = len(PREDICATES)
    src = PRED_KERNEL.format(stores=stores, n=n, n1=n + 1, n2=n + 2)
    x = np.zeros(4, DTYPES[t][1])
    out = launch(src, f"*{DTYPES[t][0]},*i32", {"X": x, "O": np.full(n + 3, -1, np.int32)}).outputs["O"]
    want = [int(expected(t, p)) for p in PREDICATES]
    assert list(out[:n]) == want, dict(zip(PREDICATES, out[:n]))
    bits = NAMES[t][1]
    assert out[n] == bits
    assert out[n + 1] == 1 + 0 + 4    # a block type is a dtype, but not a floating one (Triton's names)
    assert out[n + 2] == bits + 100


INSPECT = """
@triton.jit
def scale(x: tl.tensor, by) -> tl.tensor:
    if x.dtype.is_floating():
        return x * by
    elif x.dtype.is_int_signed():
        return x + by
    else:
        return x - by


@triton.jit
def k(X, Y, N: tl.constexpr, DT: tl.constexpr = tl.float16, OUT: tl.dtype = tl.float32):
    offs = tl.arange(0, N)
    p = X + offs
    x = tl.load(p)
    tl.static_assert(isinstance(x, tl.tensor) and not isinstance(N, tl.tensor))
    tl.static_assert(isinstance(N, tl.constexpr) and isinstance(N, int) and not isinstance(x, tl.constexpr))
    tl.static_assert(isinstance(p.dtype, tl.pointer_type) and not isinstance(x.dtype, tl.pointer_type))
    tl.static_assert(p.dtype.is_ptr() and p.type.is_block() and not x.dtype.is_ptr())
    tl.static_assert(isinstance(X.dtype, tl.pointer_type) and not X.type.is_block())
    tl.static_assert(p.dtype.element_ty == X.dtype.element_ty)
    tl.static_assert(isinstance(x.type, tl.block_type) and isinstance(x.type, tl.dtype))
    tl.static_assert(isinstance(DT, tl.dtype) and not isinstance(DT, tl.block_type))
    tl.static_assert(x.type.shape == (N,) and x.type.numel == N and x.numel == N)
    tl.static_assert(x.type == tl.block_type(x.dtype, [N]))
    tl.static_assert(DT.is_fp16() or DT.is_bf16() or DT.is_int_signed())
    tl.static_assert(OUT == tl.float32 and OUT != DT)
    tl.static_assert((x.dtype.name == "fp32") == x.dtype.is_fp32())
    y = scale(x, 3).to(DT)
    if DT.primitive_bitwidth < 32:
        y = y * 2
    tl.store(Y + offs, y.to(OUT))
"""


@pytest.mark.parametrize("t,dt", [("float32", "tl.float16"), ("int32", "int16"), ("uint32", "bf16"),
                                  ("int32", None)])
def test_type_inspection_kernel(t, dt):
    rng = np.random.default_rng(5)
    x = rng.integers(3, 40, 16).astype(DTYPES[t][1])   # uint32: x - 3 stays >= 0
    defines = (("N", "16"),) + ((("DT", dt),) if dt is not None else ())
    out = launch(INSPECT, f"*{DTYPES[t][0]},*fp32", {"X": x, "Y": np.zeros(16, np.float32)},
                 defines=defines, kernel="k").outputs["Y"]
    xi = x.astype(np.float64)
    y = xi * 3 if t == "float32" else (xi + 3 if t == "int32" else xi - 3)
    np.testing.assert_array_equal(out, y * 2)   # every DT here is 16 bits wide


TUPLES = """
@triton.jit
def swap(t: tl.tuple):
    return t[1], t[0]


@triton.jit
def k(X, Y, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs)
    t = (x, (x * 2, 3))
    for i in range(3):                          # a nested tuple carried by a for loop
        t = (t[0] + 1, (t[1][0], t[1][1] + i))
    j = 0
    while j < 2:                                # ... and a while loop
        t = (t[0] * 2, t[1])
        j += 1
    if tl.program_id(0) == 0:                   # ... and an if (program 0 swaps)
        t = (t[1][0], (t[0], t[1][1]))
    a, b = swap(tl.tuple((t[0], t[1][0])))
    tl.store(Y + tl.program_id(0) * N + offs, b - a + t[1][1])
"""


def test_tuples_through_control_flow():
    x = np.arange(8, dtype=np.float32) - 3
    out = launch(TUPLES, "*fp32,*fp32", {"X": x, "Y": np.zeros(16, np.float32)}, grid=(2,),
                 defines=(("N", "8"),), kernel="k").outputs["Y"]
    t0, t10, t11 = (x + 3) * 4, x * 2, 3 + 0 + 1 + 2
    np.testing.assert_array_equal(out[:8], t10 - t0 + t11)     # swapped: (t10, (t0, 6))
    np.testing.assert_array_equal(out[8:], t0 - t10 + t11)


# --------------------------------------------------------------------------- errors

def _error(tmp_path, text: str, defines=None, signature="*fp32"):
    src = tmp_path / "k.py"
    src.write_text(HEADER + text)
    with pytest.raises(CompileError) as e:
        compile_kernel(str(src), Options(defines=defines or {}, signature=signature, kernel="k"))
    return e.value


LINE = HEADER.count("\n") + 4   # the kernel's third line


@pytest.mark.parametrize("stmt,message,underlined", [
    ("    y = x.dtype.is_complex()", "`x.dtype.is_complex`: the type f32 has no attribute 'is_complex' here",
     "x.dtype.is_complex"),
    ("    y = isinstance(x, 3)", "isinstance() needs a class such as tl.tensor, tl.dtype or tl.constexpr, got "
     "the constant 3", "isinstance(x, 3)"),
    ("    y = x.dtype.get_int_max_value()", "get_int_max_value() needs an integer type, got f32",
     "x.dtype.get_int_max_value()"),
    ("    y = tl.tensor(x)", "tl.tensor cannot be constructed in a kernel", "tl.tensor(x)"),
    ("    y = tl.void", "`tl.void` is not supported yet", "tl.void"),
])
def test_type_errors(tmp_path, stmt, message, underlined):
    err = _error(tmp_path, "@triton.jit\ndef k(X):\n    x = tl.load(X + tl.arange(0, 4))\n" + stmt + "\n")
    assert message in str(err), str(err)
    assert (err.loc.line, err.loc.col) == (LINE, stmt.index(underlined) + 1), err.loc


def test_tuple_kernel_parameter_is_an_error(tmp_path):
    err = _error(tmp_path, "@triton.jit\ndef k(X, T: tl.tuple):\n    pass\n", signature=None)
    assert "tuple kernel parameters (`tl.tuple`) are not supported yet" in str(err)
    assert (err.loc.line, err.loc.col) == (LINE - 2, 13)


def test_dtype_define_errors(tmp_path):
    err = _error(tmp_path, "@triton.jit\ndef k(X, DT: tl.constexpr):\n    pass\n", defines={"DT": "tl.float99"})
    assert "-D DT=tl.float99: expected an int, float, bool or string literal, a tuple of those, or a type" in str(err)


def test_loop_must_keep_tuple_structure(tmp_path):
    err = _error(tmp_path, "@triton.jit\ndef k(X):\n    t = (1, 2)\n    for i in range(3):\n        t = (t[0], t[1], i)\n")
    assert "loop-carried variable `t` is a tuple of 2 before the loop but tuple at the end" in str(err)
