"""Pointwise and reduction kernels' configs under ``mode="max-autotune"``: the candidates worth running.

With ``triton.autotune_pointwise`` (on under max-autotune) Inductor gives a pointwise or reduction kernel a few
configs (``XBLOCK`` and the like) and, at its first launch, runs each one: for the chip, each is a kernel
mtiacc compiles and the simulator runs.  Before that, a ``CachingAutotuner`` plugin (Inductor's hook for
choosing among the configs, ``pre_autotune``) drops the configs whose programs keep fewer than half as many
PEs busy as the config keeping the most busy (the GEMM templates' rule, :func:`.gemm_search.keep_busy`): on a
16-row layer norm, ``XBLOCK=8`` (2 programs) goes and ``XBLOCK=1`` (16 programs) stays.  Programs are counted
from the kernel's size hints (numels rounded up to powers of two) over the config's ``XBLOCK``/``YBLOCK``/
``ZBLOCK``; a kernel whose configs do not name a block for each of its program dimensions is left alone, and
so is every kernel not compiled for the chip.  The configs left are compiled and simulated in parallel
(:func:`mtiacc.triton_backend.tuning.in_parallel`), then timed one after another from those results.  The
launches that time them are recorded as tuning (:func:`mtiacc.triton_backend.records.tuning`): the coverage
report counts them with autotuning's, not as the model's runs of the kernel.
"""
from __future__ import annotations

import functools
import math
from typing import Dict, Mapping, Optional

from mtiacc.torch_backend.gemm_search import chip, keep_busy
from mtiacc.triton_backend import records, tuning

PROGRAM_DIMS = ("x", "y", "z")


def busy_pes(size_hints: Mapping[str, int], kwargs: Mapping[str, object], pes: int) -> Optional[int]:
    """PEs a config keeps busy (its programs, at most ``pes``), or None when a program dimension has no block."""
    programs = 1
    for dim in PROGRAM_DIMS:
        if dim not in size_hints:
            continue
        block = kwargs.get(f"{dim.upper()}BLOCK")
        if not isinstance(block, int) or block <= 0:
            return None
        programs *= math.ceil(size_hints[dim] / block)
    return min(programs, pes)


def _plugin_class():
    from torch._inductor.runtime import triton_heuristics as th

    class KeepPEsBusy(th.CachingAutotunerPlugin):
        def pre_autotune(self, autotuner, *args, stream, **kwargs):
            hints: Dict[str, int] = autotuner.size_hints or {}
            pes = chip().n_pes
            busy = [busy_pes(hints, launcher.config.kwargs, pes) for launcher in autotuner.launchers]
            if hints and None not in busy:
                autotuner.launchers = keep_busy(autotuner.launchers, busy)
            if len(autotuner.launchers) > 1:   # timing the configs is tuning, not the model's runs
                calls = [functools.partial(autotuner.bench, launcher, *args, **kwargs)
                         for launcher in autotuner.launchers]
                with records.tuning(), tuning.in_parallel(calls):
                    autotuner.autotune_to_one_config(*args, **kwargs)
            return th.DEFER

    return KeepPEsBusy


def install() -> None:
    """Add the plugin to every ``CachingAutotuner`` made from now on for a kernel on the ``cpu`` device (the
    chip's: the Triton backend ``cpu`` is mtiacc's)."""
    from torch._inductor.runtime import triton_heuristics as th
    if getattr(th.get_caching_autotuner_plugins, "_mtiacc", False):
        return
    plugin, inner = _plugin_class()(), th.get_caching_autotuner_plugins

    def get_caching_autotuner_plugins(autotuner):
        plugins = inner(autotuner)
        device = getattr(getattr(autotuner, "device_props", None), "type", None)
        return plugins + [plugin] if device == "cpu" else plugins

    get_caching_autotuner_plugins._mtiacc = True
    th.get_caching_autotuner_plugins = get_caching_autotuner_plugins
