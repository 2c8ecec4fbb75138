"""fp32 GEMMs on the chip follow ``torch.set_float32_matmul_precision``.

The matrix engine multiplies fp16, bf16 and 8-bit integers only; an fp32 ``tl.dot`` is a sum of bf16 products
(``docs/language.md``, ``input_precision``).  The precision the user set picks how many:

==========  ===============================================  ======  ===================================
precision   the dot                                          passes  error (normwise, ``|A| |B|``-relative)
==========  ===============================================  ======  ===================================
"highest"   ``input_precision="bf16x6"``: each operand split  6       about 2^-24: fp32's own rounding
            into three bf16 parts (24 significant bits)
"high"      ``input_precision="bf16x3"``: two bf16 parts       3       about 2^-18 (TF32 itself: 2^-11)
            (16 bits), ``hi*hi + hi*lo + lo*hi``
"medium"    the operands rounded to bf16, one product          1       about 2^-8 (bf16's rounding)
==========  ===============================================  ======  ===================================

The products accumulate in fp32 in every case.  The bounds tests/torch/test_gemm_default.py checks against an
fp64 reference are in :data:`ERROR_BOUNDS`; on its 32 x 96 @ 96 x 48 GEMM of normal values the largest error
is 2^-24.2 ("highest"), 2^-18.7 ("high") and 2^-9.6 ("medium") of ``|A| @ |B|``.  fp16 and bf16 GEMMs are one
product, whatever the precision.

The split costs cycles and the simulator's host time: the vector unit splits each operand block into its bf16
parts, one loop per operand that reads the f32 block once and writes every part (``codegen/matrix/dot.py``,
``split_loop``: 128 elements a trip, 23 instructions for three parts, 18 for two; the parts' rests subtracted on
the SE).  On BERT-base's feed-forward GEMM, 128 x 3072 x 768 with the default mode's fp32 tile of 32 x 32 x 64
(``make bench-fp32-gemm``), against bf16 operands' 62,214 cycles and 332 K instructions: "highest" 439,948
cycles and 4.27 M instructions (7.1x and 13x bf16's), "high" 351,271 and 3.27 M (5.6x, 9.8x); the simulator's
host CPU time about 4x bf16's for "highest" and 2.7x for "high" (4.9 s and 3.2 s against 1.2 s).  The split of
the 32 x 64 and 64 x 32 blocks is most of it: every program splits its own blocks, 96 programs the same rows of
A (a larger tile would split less, but the compiler's local-memory plan finds no room for one at this shape).

Inductor's GEMM templates (``mm``, ``bmm``) call ``tl.dot(a, b, allow_tf32=ALLOW_TF32)``, which can say
"tf32" or "ieee" only.  For the chip, :func:`chip_template` makes a template from Inductor's own source (read
from the installed torch when first needed) whose dot takes ``input_precision=INPUT_PRECISION`` and its
operands cast to ``DOT_TYPE``, two constants the chip's heuristics (:mod:`.gemm_choices`) set from the
precision; the GEMMs of graphs compiled for the chip use it in place of Inductor's.  If the installed torch's
template does not have the dot this expects, Inductor's template is used as it is (its ``ALLOW_TF32``: bf16x3
for "high" and "medium" on GEMMs of at least 16 x 512 x 512, else ``ieee``, exact fp32 products on the vector
unit).
"""
from __future__ import annotations

import functools
from typing import Dict, NamedTuple, Optional

DOT = "tl.dot(a, b,"
ALLOW = "allow_tf32=ALLOW_TF32"


class Precision(NamedTuple):
    input_precision: str      # tl.dot's, for fp32 operands
    bf16_operands: bool       # the operands rounded to bf16 first
    passes: int               # bf16 products on the matrix engine
    split_parts: int          # bf16 parts the vector unit splits each fp32 operand into (0: none)


PRECISIONS: Dict[str, Precision] = {
    "highest": Precision("bf16x6", False, 6, 3),
    "high": Precision("bf16x3", False, 3, 2),
    "medium": Precision("ieee", True, 1, 0),
}

# |C - C_fp64| <= bound * (|A| @ |B|), elementwise, for the fp32 GEMM at each precision (tests check these)
ERROR_BOUNDS: Dict[str, float] = {"highest": 2.0 ** -21, "high": 2.0 ** -15, "medium": 2.0 ** -7}

_TL_TYPES = {"torch.float32": "tl.float32", "torch.float16": "tl.float16", "torch.bfloat16": "tl.bfloat16"}


def current() -> Precision:
    """The precision fp32 GEMMs take now (``torch.get_float32_matmul_precision()``)."""
    import torch
    return PRECISIONS.get(torch.get_float32_matmul_precision(), PRECISIONS["highest"])


def engine_passes(dtype) -> Precision:
    """How a GEMM of ``dtype`` operands runs on the engine: fp32 by :func:`current`, others in one product."""
    import torch
    if dtype == torch.float32:
        return current()
    return Precision("ieee", False, 1, 0)


def template_kwargs(dtype) -> Dict[str, str]:
    """The constants :func:`chip_template`'s dot reads, for ``dtype`` operands (as the kernel's source spells
    them: Inductor writes ``NAME : tl.constexpr = value``)."""
    p = engine_passes(dtype)
    dot_type = "tl.bfloat16" if p.bf16_operands else _TL_TYPES.get(str(dtype), "tl.float32")
    return {"INPUT_PRECISION": repr(p.input_precision), "DOT_TYPE": dot_type}


def _derived_source(source: str) -> Optional[str]:
    if source.count(ALLOW) < 1 or DOT not in source:
        return None
    out = source.replace(DOT, "tl.dot(a.to(DOT_TYPE), b.to(DOT_TYPE),")
    return out.replace(ALLOW, "input_precision=INPUT_PRECISION")


@functools.lru_cache(maxsize=None)
def chip_template(name: str):
    """The chip's variant of Inductor's template ``name`` (``"mm"`` or ``"bmm"``), or None when its source does
    not have the dot this module rewrites."""
    from pathlib import Path

    import torch._inductor.kernel as kernels
    from torch._inductor.select_algorithm import TritonTemplate
    from torch._inductor.utils import load_template
    if name == "mm":
        from torch._inductor.kernel.mm import mm_grid as grid
        source_name, extra = "triton_mm", {}
    else:
        from torch._inductor.kernel.bmm import bmm_grid as grid
        source_name, extra = "triton_bmm", {"cache_codegen_enabled_for_template": True}
    source = _derived_source(load_template(source_name, Path(kernels.__file__).parent / "templates"))
    if source is None:
        return None
    chip_name = f"mtia_{name}"
    existing = TritonTemplate.all_templates.get(chip_name)
    return existing or TritonTemplate(name=chip_name, grid=grid, source=source, **extra)


def cache_key_pass():
    """A ``post_grad_custom_post_pass`` that changes nothing in the graph and keys Inductor's FX graph cache by
    the fp32 precision: the cache keys by ``torch.backends.cuda.matmul.fp32_precision``, which is ``"tf32"``
    for both "high" and "medium", so a graph compiled at one would be reused at the other.  It keys it by the
    source of the chip's templates and lowerings too (this folder's modules), which Inductor's key does not
    see."""
    from torch._inductor.custom_graph_pass import CustomGraphPass, get_hash_for_files

    class Fp32PrecisionKey(CustomGraphPass):
        def __call__(self, graph) -> None:
            return None

        def uuid(self):
            import torch
            from pathlib import Path
            files = tuple(sorted(str(p) for p in Path(__file__).parent.rglob("*.py")))
            return (get_hash_for_files(files), torch.get_float32_matmul_precision())

    return Fp32PrecisionKey()
