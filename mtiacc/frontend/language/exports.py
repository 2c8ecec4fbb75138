"""Every name ``triton.language`` exports (from Triton's language reference), grouped as it groups them.

This is data: the frontend uses it to tell a typo (``tl.maximun``) from a Triton name it does not
support yet, and ``tl_names.py`` renders ``docs/language.md``'s table of names from it.
"""
from __future__ import annotations

from typing import Dict, Tuple

TL_NAMES: Dict[str, Tuple[str, ...]] = {
    "Programming model": ("program_id", "num_programs"),
    "Creation ops": ("arange", "cat", "full", "zeros", "zeros_like", "cast"),
    "Shape manipulation ops": ("broadcast", "broadcast_to", "expand_dims", "interleave", "join", "permute",
                               "ravel", "reshape", "split", "trans", "view"),
    "Linear algebra ops": ("dot", "dot_scaled"),
    "Memory/pointer ops": ("load", "store", "make_block_ptr", "advance", "make_tensor_descriptor",
                           "load_tensor_descriptor", "store_tensor_descriptor"),
    "Indexing ops": ("flip", "where", "swizzle2d"),
    "Math ops": ("abs", "cdiv", "ceil", "clamp", "cos", "div_rn", "erf", "exp", "exp2", "fdiv", "floor", "fma",
                 "log", "log2", "maximum", "minimum", "rsqrt", "sigmoid", "sin", "softmax", "sqrt", "sqrt_rn",
                 "umulhi"),
    "Reduction ops": ("argmax", "argmin", "max", "min", "reduce", "sum", "xor_sum"),
    "Scan/sort ops": ("associative_scan", "cumprod", "cumsum", "histogram", "sort", "gather"),
    "Atomic ops": ("atomic_add", "atomic_and", "atomic_cas", "atomic_load", "atomic_max", "atomic_min", "atomic_or",
                   "atomic_poll", "atomic_store", "atomic_xchg", "atomic_xor"),
    "Random number generation": ("randint4x", "randint", "rand", "randn"),
    "Iterators": ("range", "static_range"),
    "Inline assembly": ("inline_asm_elementwise",),
    "Compiler hint ops": ("assume", "debug_barrier", "max_constancy", "max_contiguous", "multiple_of"),
    "Debug ops": ("static_print", "static_assert", "device_print", "device_assert"),
    "Types": ("int1", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
              "bfloat16", "float32", "float64", "float8e4nv", "float8e5", "float8e4b15", "float8e4b8",
              "float8e5b16", "void", "constexpr", "pointer_type", "block_type", "dtype", "tensor", "tuple"),
}
