"""Every name ``triton.language`` exports (from Triton's language reference), grouped as it groups them.

This is data: the frontend uses it to tell a typo (``tl.maximun``) from a Triton name it does not
support yet, and ``tl_names.py`` renders ``docs/language.md``'s table of names from it.
"""
from __future__ import annotations

from typing import Dict, FrozenSet, Tuple

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

# Every name ``triton.language`` has in Triton 3.9 (its ``__all__`` and its submodules): a name outside this set and
# ``TL_NAMES`` does not exist in Triton at all (a typo: "`tl.arnge` does not exist"), one inside it that the frontend
# lacks is "not supported yet".
TL_EXPORTS: FrozenSet[str] = frozenset({
    'PropagateNan', 'TRITON_MAX_TENSOR_NUMEL', 'abs', 'add', 'arange', 'argmax', 'argmin', 'associative_scan',
    'assume', 'atomic_add', 'atomic_and', 'atomic_cas', 'atomic_load', 'atomic_max', 'atomic_min', 'atomic_or',
    'atomic_poll', 'atomic_store', 'atomic_xchg', 'atomic_xor', 'bfloat16', 'bitonic_merge', 'block_type',
    'broadcast', 'broadcast_to', 'cast', 'cat', 'cdiv', 'ceil', 'clamp', 'condition', 'const', 'constexpr',
    'constexpr_type', 'core', 'cos', 'cumprod', 'cumsum', 'debug_barrier', 'device_assert', 'device_print',
    'div_rn', 'dot', 'dot_scaled', 'dtype', 'erf', 'exp', 'exp2', 'expand_dims', 'expect_zero', 'extra', 'fdiv',
    'flip', 'float16', 'float32', 'float64', 'float8e4b15', 'float8e4b8', 'float8e4nv', 'float8e5',
    'float8e5b16', 'floor', 'fma', 'full', 'gather', 'histogram', 'inline_asm_elementwise', 'int1', 'int16',
    'int32', 'int64', 'int8', 'interleave', 'join', 'load', 'load_tensor_descriptor', 'log', 'log2',
    'make_block_ptr', 'make_tensor_descriptor', 'map_elementwise', 'math', 'max', 'max_constancy',
    'max_contiguous', 'maximum', 'min', 'minimum', 'mul', 'multiple_of', 'num_programs',
    'pair_uniform_to_normal', 'permute', 'philox', 'philox_impl', 'pi32_t', 'pointer_type', 'program_id',
    'rand', 'rand4x', 'randint', 'randint4x', 'randn', 'randn4x', 'random', 'range', 'ravel', 'reduce',
    'reduce_or', 'reshape', 'rsqrt', 'sigmoid', 'sin', 'slice', 'softmax', 'sort', 'split', 'sqrt', 'sqrt_rn',
    'squeeze', 'standard', 'static_assert', 'static_print', 'static_range', 'store', 'store_tensor_descriptor',
    'sub', 'sum', 'swizzle2d', 'target_info', 'tensor', 'tensor_descriptor', 'to_tensor', 'topk', 'trans',
    'tuple', 'uint16', 'uint32', 'uint64', 'uint8', 'uint_to_uniform_float', 'umulhi', 'unsqueeze', 'view',
    'void', 'where', 'xor_sum', 'zeros', 'zeros_like',
}) | frozenset(n for names in TL_NAMES.values() for n in names)

# ``triton.language.random``'s names (Triton 3.9).
RANDOM_EXPORTS: FrozenSet[str] = frozenset({
    'N_ROUNDS_DEFAULT', 'pair_uniform_to_normal', 'philox', 'philox_impl', 'rand', 'rand4x', 'randint',
    'randint4x', 'randn', 'randn4x', 'uint_to_uniform_float',
})

# The top-level names of ``triton`` (Triton 3.9).
TRITON_EXPORTS: FrozenSet[str] = frozenset({
    'AsyncCompileMode', 'CompilationError', 'Config', 'FutureKernel', 'InterpreterError', 'JITFunction',
    'KernelInterface', 'MockTensor', 'OutOfResources', 'TensorWrapper', 'TritonError', 'aggregate', 'autotune',
    'backends', 'cdiv', 'compile', 'compiler', 'constexpr_function', 'errors', 'heuristics', 'jit', 'knobs',
    'language', 'must_use_result', 'next_power_of_2', 'reinterpret', 'runtime', 'set_allocator', 'testing',
    'tools',
})
