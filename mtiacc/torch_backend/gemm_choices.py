"""Inductor's GEMM choices for graphs compiled for the chip, while :func:`chip_search_space` is active.

- Inductor's CPU GEMM template heuristics (the ``cpu`` device is the chip here) are replaced by the chip's:
  under ``mode="max-autotune"`` the candidates of :mod:`.gemm_search`'s search space, in the default mode the
  one tile of the cost model (:mod:`.gemm_cost`) that the compiler finds room for (:mod:`.gemm_fit`);
- a GEMM on the ``cpu`` device takes the chip's variants of Inductor's ``mm`` and ``bmm`` templates
  (:mod:`.precision`: their dot follows ``torch.set_float32_matmul_precision``), with the precision's constants;
- a convolution template's candidates are the same tiles (:func:`_chip_conv_configs`);
- in the default mode (Inductor's deterministic pick, no benchmark) the chip's GEMM template is picked over
  aten's GEMM, which would run on the host.
"""
from __future__ import annotations

import contextlib
import math
from typing import Iterator

from mtiacc.torch_backend.gemm_search import CHIP_CONFIGS, GROUP_M, chip_configs


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
            dtype = kernel_inputs.mat1mat2()[0].get_dtype()
            engine = precision.engine_passes(dtype)
            yield from super()._get_template_configs_impl(kernel_inputs, op_name, batch=batch,
                                                          engine=engine, dtype=dtype, **kwargs)

        def preprocess_mm_configs(self, m, n, k, configs, has_int8_tensor=False, scale=1.0, exclude=None,
                                  dtype_size=0, op_name="mm", batch=1, engine=None, dtype=None, **kwargs):
            int8 = has_int8_tensor or self.has_int8_tensor
            dtype_bytes = dtype_size or 4
            if not _AUTOTUNE:       # the default mode: one tile, the cost model's (gemm_cost.py)
                passes, parts = (engine.passes, engine.split_parts) if engine else (1, 0)
                tile = gemm_cost.choose_tile(_hint(m), _hint(n), _hint(k), dtype_bytes=dtype_bytes, batch=batch,
                                             passes=passes, int8=int8, split_parts=parts,
                                             **_fit_kwargs(dtype, op_name))
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


def _fit_kwargs(dtype, op_name: str) -> dict:
    """The fit rule's view of the template (:func:`.gemm_fit.fits`): the operands' type, the dot's type and
    precision (:mod:`.precision`), and the epilogue's output-sized blocks: a block fused into the epilogue (an
    added tensor, a residual) for every GEMM, and ``addmm``'s and ``baddbmm``'s bias."""
    if dtype is None:
        return {}
    from mtiacc.torch_backend import precision
    name = str(dtype).replace("torch.", "")
    if name not in ("float16", "bfloat16", "float32", "int8"):
        return {}
    consts = precision.template_kwargs(dtype)
    return {"dtype": name, "epilogue": 2 if op_name in ("addmm", "baddbmm") else 1,
            "dot_type": consts["DOT_TYPE"], "input_precision": consts["INPUT_PRECISION"].strip("'\"")}


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
