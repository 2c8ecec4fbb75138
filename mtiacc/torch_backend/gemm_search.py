"""The GEMM and convolution templates' search space under ``mode="max-autotune"``: the candidates worth
compiling for the chip.

Every candidate Inductor benchmarks is a kernel mtiacc compiles and the simulator runs, so each one costs
about a second or two of host time.  Inductor's CPU list (its GPU list scaled by one half, ~15 configs per
GEMM) is replaced, for the ``mm``/``addmm``/``bmm``/``baddbmm`` templates of graphs compiled for the chip, by
:data:`CHIP_CONFIGS` and these rules (:func:`chip_configs`):

- block sizes are clamped to the problem (at most the next power of two of M, N, K; at least 16, 32 for
  K of int8), as Inductor does;
- ``num_stages`` is clamped to the K loop's trip count (``pipeline-dots`` pipelines no deeper: a deeper
  config is the same program) and ``num_warps`` means nothing on the chip, so configs differing only there
  are one candidate;
- a tile whose operand blocks and accumulator (one stage) do not fit in a PE's local memory is dropped
  before it is compiled;
- with the default search space, tiles that leave most PEs idle are dropped: a candidate keeps at least
  half as many PEs busy (programs, up to the PE count) as the candidate that keeps the most busy.  A
  GEMM too small to fill the chip keeps its smallest tiles; one that fills it with every tile keeps all.

A convolution template is a GEMM too (its M the batch times the output pixels, its N the output channels, its K
the input channels of each kernel tap): its candidates are the same tiles under the same rules, instead of
Inductor's nine CPU configs.

Inductor's ``max_autotune_gemm_search_space = "EXHAUSTIVE"`` (or
``TORCHINDUCTOR_MAX_AUTOTUNE_GEMM_SEARCH_SPACE=EXHAUSTIVE``: ``torch.compile`` takes no ``options=`` beside
``mode=``) searches Inductor's exhaustive list instead, under the first three rules only.  A GEMM left with
one candidate is not benchmarked at all (Inductor's rule).  The rules are an estimate made before compiling;
the benchmark on the simulated clock still picks among the candidates left.

In the default mode (no autotuning) the same heuristics give each GEMM one tile, the cost model's
(:mod:`.gemm_cost`), and the GEMM runs as the chip's template without a benchmark (:func:`chip_search_space`).
"""
from __future__ import annotations

import contextlib
import functools
import math
from typing import Iterable, Iterator, List, NamedTuple, Optional, Tuple

# (BLOCK_M, BLOCK_N, BLOCK_K, num_stages): small tiles for GEMMs that cannot fill 64 PEs, one and several
# 32 x 32 matrix-engine tiles per program, and the large tiles benchmarks/bench_gemm.py finds best for big GEMMs
CHIP_CONFIGS: Tuple[Tuple[int, int, int, int], ...] = (
    (16, 16, 64, 2),
    (32, 32, 64, 2),
    (32, 64, 64, 2),
    (64, 64, 64, 2),
    (64, 128, 64, 2),
    (128, 128, 64, 2),
    (256, 128, 64, 2),
)

GROUP_M = 8


class Tile(NamedTuple):
    block_m: int
    block_n: int
    block_k: int
    num_stages: int


@functools.lru_cache(maxsize=None)
def chip():
    """The machine the kernels run on (the simulator's description: its PEs and their local memory)."""
    from mtiacc.machine.simulator import load_config
    return load_config()


def _pow2_at_least(x: int) -> int:
    return 1 << max(0, int(x) - 1).bit_length()


def chip_configs(m: int, n: int, k: int, configs: Iterable[Tuple[int, int, int, int]], *, dtype_bytes: int,
                 batch: int = 1, int8: bool = False, prune_idle: bool = True, pes: Optional[int] = None,
                 lmem_bytes: Optional[int] = None) -> List[Tile]:
    """The distinct candidates of ``configs`` for a ``batch`` x (``m`` x ``k``) @ (``k`` x ``n``) GEMM, in
    order (the rules are in the module's docstring)."""
    machine = chip()
    pes = machine.n_pes if pes is None else pes
    lmem_bytes = machine.local_memory_bytes if lmem_bytes is None else lmem_bytes
    m_hi, n_hi = max(_pow2_at_least(m), 16), max(_pow2_at_least(n), 16)
    k_lo = 32 if int8 else 16
    k_hi = max(_pow2_at_least(k), k_lo)
    tiles: List[Tile] = []
    for bm, bn, bk, stages in configs:
        bm, bn, bk = max(min(bm, m_hi), 16), max(min(bn, n_hi), 16), max(min(bk, k_hi), k_lo)
        tile = Tile(bm, bn, bk, max(1, min(stages, math.ceil(k / bk))))
        if (bm * bk + bk * bn) * dtype_bytes + bm * bn * 4 > lmem_bytes or tile in tiles:
            continue
        tiles.append(tile)
    if prune_idle:
        tiles = keep_busy(tiles, [min(pes, batch * math.ceil(m / t.block_m) * math.ceil(n / t.block_n))
                                  for t in tiles])
    return tiles


def keep_busy(candidates: List, busy: List[int]) -> List:
    """The ``candidates`` keeping at least half as many PEs busy (``busy``, in the same order) as the busiest."""
    most = max(busy, default=0)
    return [c for c, b in zip(candidates, busy) if 2 * b >= most]


def _hint(x) -> int:
    if isinstance(x, int):
        return x
    from torch._inductor.virtualized import V
    return int(V.graph.sizevars.optimization_hint(x))


def _heuristic_classes():
    """Subclasses of Inductor's CPU GEMM heuristics (the ``cpu`` device is the chip here) with the chip's
    search space, keyed by (template, op) as Inductor's registry looks them up: Inductor's ``mm`` and ``bmm``
    templates, and the chip's variants of them (:func:`.precision.chip_template`), which also take the fp32
    precision's constants."""
    from torch._inductor import config
    from torch._inductor.template_heuristics import triton as th
    from mtiacc.torch_backend import gemm_cost, precision

    class ChipSearchSpace:
        def __init__(self) -> None:
            super().__init__()
            self.mm_configs = [th.GemmConfig(*c[:3], c[3], 4, group_m=GROUP_M) for c in CHIP_CONFIGS]

        def _get_template_configs_impl(self, kernel_inputs, op_name, **kwargs):
            size = kernel_inputs.output_layout(flexible=False).size
            batch = math.prod(_hint(s) for s in size[:-2])
            engine = precision.engine_passes(kernel_inputs.mat1mat2()[0].get_dtype())
            yield from super()._get_template_configs_impl(kernel_inputs, op_name, batch=batch,
                                                          engine=engine, **kwargs)

        def preprocess_mm_configs(self, m, n, k, configs, has_int8_tensor=False, scale=1.0, exclude=None,
                                  dtype_size=0, op_name="mm", batch=1, engine=None, **kwargs):
            int8 = has_int8_tensor or self.has_int8_tensor
            dtype_bytes = dtype_size or 4
            if not _AUTOTUNE:       # the default mode: one tile, the cost model's (gemm_cost.py)
                passes, parts = (engine.passes, engine.split_parts) if engine else (1, 0)
                tile = gemm_cost.choose_tile(_hint(m), _hint(n), _hint(k), dtype_bytes=dtype_bytes, batch=batch,
                                             passes=passes, int8=int8, split_parts=parts)
                tiles = [tile] if tile else []
            else:
                tiles = chip_configs(_hint(m), _hint(n), _hint(k),
                                     [(c.block_m, c.block_n, c.block_k, c.num_stages) for c in configs],
                                     dtype_bytes=dtype_bytes, batch=batch, int8=int8,
                                     prune_idle=config.max_autotune_gemm_search_space != "EXHAUSTIVE")
            for t in tiles:
                yield self.triton_config(t.num_stages, max(1, min(4, t.block_m * t.block_n // 256)),
                                         BLOCK_M=t.block_m, BLOCK_N=t.block_n, BLOCK_K=t.block_k,
                                         hint_override=None, GROUP_M=GROUP_M)

    class ChipPrecision:
        def get_extra_kwargs(self, kernel_inputs, op_name):
            kwargs = dict(super().get_extra_kwargs(kernel_inputs, op_name))
            kwargs.update(precision.template_kwargs(kernel_inputs.mat1mat2()[0].get_dtype()))
            return kwargs

    class ChipMM(ChipSearchSpace, th.CPUMMTemplateConfigHeuristic):
        pass

    class ChipAddMM(ChipSearchSpace, th.CPUAddmmTemplateConfigHeuristic):
        pass

    class ChipPrecisionMM(ChipPrecision, ChipMM):
        pass

    class ChipPrecisionAddMM(ChipPrecision, ChipAddMM):
        pass

    mm, bmm = th.mm_template.uid, th.bmm_template.uid
    classes = {(mm, "mm"): ChipMM, (bmm, "bmm"): ChipMM, (mm, "addmm"): ChipAddMM, (bmm, "baddbmm"): ChipAddMM}
    chip_mm, chip_bmm = precision.chip_template("mm"), precision.chip_template("bmm")
    if chip_mm is not None:
        classes.update({(chip_mm.uid, "mm"): ChipPrecisionMM, (chip_mm.uid, "addmm"): ChipPrecisionAddMM})
    if chip_bmm is not None:
        classes.update({(chip_bmm.uid, "bmm"): ChipPrecisionMM, (chip_bmm.uid, "baddbmm"): ChipPrecisionAddMM})
    return classes


def _chip_conv_configs(original):
    """``InductorChoices.get_conv_configs`` with the chip's tiles for the ``cpu`` device: a convolution template
    is a GEMM of (batch x output pixels) x (input channels, per kernel tap) @ (input channels x output
    channels), and its candidates follow the same rules (clamped, fitting, keeping the PEs busy)."""
    def get_conv_configs(self, device_type="cuda"):
        from torch._inductor import config
        from torch._inductor.runtime.triton_compat import Config
        if device_type != "cpu" or config.max_autotune_gemm_search_space == "EXHAUSTIVE":
            return original(self, device_type)

        def configs(m, n, k, dtype_size=0, **_):
            for t in chip_configs(_hint(m), _hint(n), _hint(k), CHIP_CONFIGS, dtype_bytes=dtype_size or 4):
                yield Config({"BLOCK_M": t.block_m, "BLOCK_N": t.block_n, "BLOCK_K": t.block_k},
                             num_stages=t.num_stages, num_warps=max(1, min(4, t.block_m * t.block_n // 256)))
        return configs
    return get_conv_configs


_CLASSES = None
_AUTOTUNE = True
GEMM_OPS = ("mm", "addmm", "bmm", "baddbmm")


def _chip_template_of(template):
    """The chip's variant of Inductor's ``mm`` / ``bmm`` template (None for any other, or without a variant)."""
    from torch._inductor.kernel.bmm import bmm_template
    from torch._inductor.kernel.mm import mm_template
    from mtiacc.torch_backend import precision
    if template is mm_template:
        return precision.chip_template("mm")
    if template is bmm_template:
        return precision.chip_template("bmm")
    return None


def _chip_templates(original):
    """``InductorChoices._finalize_template_configs`` with, for a GEMM on the ``cpu`` device, the chip's
    templates (:mod:`.precision`) in place of Inductor's ``mm`` and ``bmm``."""
    def finalize(self, template_choices, kernel_inputs, templates, op_name, kwarg_overrides=None):
        if kernel_inputs.device_type == "cpu" and op_name in GEMM_OPS:
            for template in templates:
                chip_template = _chip_template_of(template)
                if chip_template is not None and template.uid in template_choices:
                    template_choices[template.uid] = self.get_ktc(
                        kernel_inputs, chip_template, op_name, (kwarg_overrides or {}).get(template.uid, {}))
        return original(self, template_choices, kernel_inputs, templates, op_name, kwarg_overrides)
    return finalize


def is_chip_gemm(choice) -> bool:
    """Whether an autotuning choice is one of the chip's GEMM templates."""
    ktc = getattr(choice, "annotations", {}).get("ktc")
    return getattr(getattr(ktc, "template", None), "name", "").startswith("mtia_")


def _prefer_chip(original):
    """``AlgorithmSelectorCache.pick_deterministic_choice`` (the default mode picks without benchmarking) with
    the chip's GEMM template first: aten's GEMMs run on the host."""
    def pick(self, choices):
        for choice in choices:
            if is_chip_gemm(choice):
                return choice
        return original(self, choices)
    return pick


@contextlib.contextmanager
def chip_search_space(autotune: bool = True) -> Iterator[None]:
    """Inductor's GEMM template heuristics for the ``cpu`` device replaced by the chip's while the block runs:
    with ``autotune`` the candidates of the chip's search space, else the cost model's one tile
    (:mod:`.gemm_cost`), picked over aten's GEMM without a benchmark."""
    global _CLASSES, _AUTOTUNE
    from torch._inductor.template_heuristics import registry
    if _CLASSES is None:
        _CLASSES = _heuristic_classes()
    table, saved = registry._TEMPLATE_HEURISTIC_REGISTRY, {}
    keys = [(template, "cpu", op) for template, op in _CLASSES]
    for key, cls in zip(keys, _CLASSES.values()):
        saved[key] = table.get(key)
        table[key] = cls
    registry._HEURISTIC_CACHE.clear()
    from torch._inductor.choices import InductorChoices
    from torch._inductor.select_algorithm import AlgorithmSelectorCache
    conv, finalize = InductorChoices.get_conv_configs, InductorChoices._finalize_template_configs
    pick = AlgorithmSelectorCache.pick_deterministic_choice
    InductorChoices.get_conv_configs = _chip_conv_configs(conv)
    InductorChoices._finalize_template_configs = _chip_templates(finalize)
    AlgorithmSelectorCache.pick_deterministic_choice = _prefer_chip(pick)
    was, _AUTOTUNE = _AUTOTUNE, autotune
    try:
        yield
    finally:
        _AUTOTUNE = was
        InductorChoices.get_conv_configs = conv
        InductorChoices._finalize_template_configs = finalize
        AlgorithmSelectorCache.pick_deterministic_choice = pick
        for key, old in saved.items():
            if old is None:
                table.pop(key, None)
            else:
                table[key] = old
        registry._HEURISTIC_CACHE.clear()
