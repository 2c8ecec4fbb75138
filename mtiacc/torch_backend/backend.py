"""The dynamo backend: TorchInductor with its Triton kernels on the chip.

``torch.compile(model, backend="mtia")`` reaches :func:`compile_graph` with dynamo's graph.  It calls Inductor's
``compile_fx`` with config patches (so every graph of the model, the backward ones too, is compiled with them):

- ``cpu_backend="triton"``: Inductor generates Triton kernels for CPU tensors, which Triton hands to the
  backend named ``cpu``, :mod:`mtiacc.triton_backend`: they run on the simulator;
- ``deterministic=True`` unless the user asked for autotuning (``mode="max-autotune"``), so the same model
  compiles to the same kernels each time;
- with ``mode="max-autotune"``: autotuning on the simulated clock (Inductor's CPU benchmarker reads it for
  candidates that ran on the simulator), the candidates compiled and simulated in parallel first
  (:mod:`mtiacc.triton_backend.tuning`: ``MTIACC_JOBS`` local processes, or Ray with ``MTIACC_EXECUTOR=ray``), and GEMMs and convolutions as Triton templates
  (``max_autotune_gemm_backends="TRITON"``; convolutions and their gradients the chip's templates,
  :mod:`.ops.conv`, a convolution's bias peeled off first by :mod:`.conv_bias`), which mtiacc compiles for
  the matrix engine, tuned over
  the chip's search space (:mod:`.gemm_search`: a few tiles that fit a PE's local memory and keep the PEs
  busy, instead of Inductor's ~15 CPU configs per GEMM, each of which would be compiled and simulated;
  ``TORCHINDUCTOR_MAX_AUTOTUNE_GEMM_SEARCH_SPACE=EXHAUSTIVE`` widens it); pointwise and reduction kernels'
  configs that leave most PEs idle are not run either (:mod:`.kernel_search`);
- ``compile_threads=1`` (unless ``TORCHINDUCTOR_COMPILE_THREADS`` says otherwise): Inductor's Triton compiles
  only build Triton's IR here (mtiacc compiles each kernel when it first runs, in this process), so a pool of
  compile workers brings nothing and costs seconds at exit, when Python waits for its processes to stop;
- without autotuning, GEMMs as the chip's Triton templates too (``max_autotune_gemm``), each with the one
  tile the cost model picks (:mod:`.gemm_cost`), chosen over aten's GEMM without a benchmark (the
  deterministic pick, :func:`.gemm_choices.chip_search_space`);
- in both modes, convolutions and their gradients as the chip's convolution templates (:mod:`.ops.conv`,
  :mod:`.ops.conv_grad`) and embedding bags as
  the chip's kernel (:mod:`.ops.embedding`), Inductor's lowerings replaced while the graph compiles
  (:mod:`.overrides`); the convolution's tile from the same cost model, or benchmarked under max-autotune;
- fp32 GEMMs as ``torch.set_float32_matmul_precision`` says (:mod:`.precision`), in both modes;
- scaled dot-product attention as the chip's flash-attention kernels (:mod:`.attention`), in both modes;
- the backend's own lowerings (:mod:`.lowerings`) of what Inductor leaves to aten (special functions,
  scatter_reduce / index_reduce, long sorts, nanmedian, histc), in Inductor's tables only while a graph of
  this backend compiles, and ``triton.decompose_sort_ops`` (topk, kthvalue, median, mode as sorts);
- ``options={...}`` (``torch.compile``'s) patched over these.

Every graph Inductor compiles is recorded for the coverage report (:mod:`.coverage`): its wrapper code (which
kernels and which aten operations it calls, and for which source nodes) and, each time it runs, the aten
operations it ran on the host (:mod:`.offchip`).  A graph's first run reports its kernels compiled and simulated on
stderr (:mod:`mtiacc.triton_backend.progress`; ``MTIACC_QUIET=1`` silences it).  Inductor's caches live in their own directory (under
mtiacc's cache, unless ``TORCHINDUCTOR_CACHE_DIR`` says otherwise), and per-kernel fallback is on for the
graphs' kernels: a kernel mtiacc cannot compile runs on the host and the model goes on (``MTIACC_FALLBACK=0``
turns that off).
"""
from __future__ import annotations

import functools
import os
from typing import Any, Dict, Optional

AUTOTUNE_MODES = ("max-autotune", "max-autotune-no-cudagraphs")
MODES = ("default", "reduce-overhead") + AUTOTUNE_MODES


def config_patches(mode: Optional[str], options: Optional[Dict[str, Any]]) -> Dict[str, Any]:
    """Inductor's configuration for a model compiled for the chip."""
    if mode is not None and mode not in MODES:
        raise ValueError(f"torch.compile(backend='mtia') takes mode= one of {', '.join(MODES)}; got {mode!r}")
    autotune = mode in AUTOTUNE_MODES
    patches: Dict[str, Any] = {
        "cpu_backend": "triton",
        "deterministic": not autotune,
        "max_autotune": autotune,
        "coordinate_descent_tuning": False,
        "triton.autotune_pointwise": autotune,
        "triton.cudagraphs": False,
        # topk, kthvalue, median and mode as sorts on the chip, and sorts of any length as one program's
        # bitonic network (Inductor's own lowerings, which leave them to aten unless this is set)
        "triton.decompose_sort_ops": True,
    }
    if not os.environ.get("TORCHINDUCTOR_COMPILE_THREADS"):
        patches["compile_threads"] = 1
    if autotune:
        patches["max_autotune_gemm_backends"] = "TRITON"
        # convolutions as Triton templates too (tuned against aten's); their bias peeled off first, as Inductor
        # does for GPUs only (conv_bias.py)
        patches["max_autotune_conv_backends"] = "TRITON"
        from mtiacc.torch_backend.conv_bias import PeelConvolutionBias
        patches["post_grad_custom_pre_pass"] = PeelConvolutionBias()
        # benchmarking fusions writes stand-alone modules that torch 2.13 cannot import for CPU devices (its
        # get_raw_stream helper breaks their indentation): the templates are tuned, fusions are not benchmarked
        patches["benchmark_epilogue_fusion"] = False
        patches["benchmark_fusion"] = False
    else:
        # GEMMs as the chip's Triton templates, one config each from the cost model (gemm_choices.py,
        # gemm_cost.py), picked over aten's without a benchmark (deterministic mode); convolutions and their
        # gradients are the chip's templates in both modes (overrides.py)
        patches["max_autotune_gemm"] = True
        patches["max_autotune_conv_backends"] = "ATEN"
        patches["benchmark_epilogue_fusion"] = False
        patches["benchmark_fusion"] = False
    # Inductor's FX graph cache keyed by the fp32 precision too (precision.py)
    from mtiacc.torch_backend.precision import cache_key_pass
    patches["post_grad_custom_post_pass"] = cache_key_pass()
    patches.update(options or {})
    return patches


def _cache_dir() -> None:
    """Inductor's caches under mtiacc's, unless the user chose a folder (Inductor writes its default into the
    environment the first time it looks, so only that value is replaced)."""
    from torch._inductor.runtime.cache_dir_utils import default_cache_dir
    current = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    if current and os.path.abspath(current) != os.path.abspath(default_cache_dir()):
        return
    from mtiacc.runtime.cache import cache_dir
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(cache_dir() / "inductor")


def _simulated_benchmarks() -> None:
    """Inductor times autotuning candidates on CPU tensors with the host's clock (``benchmark_cpu``); a
    candidate that launched kernels on the simulator is timed by the simulated clock instead, once, as
    ``triton.testing.do_bench`` is (the simulator is deterministic).  Host-only callables keep the host clock."""
    from torch._inductor.runtime.benchmarking import benchmarker
    from mtiacc.triton_backend import clock, tuning
    if getattr(benchmarker, "_mtiacc_simulated", False):
        return
    host = benchmarker.benchmark_cpu

    def benchmark_cpu(_callable, *args, **kwargs) -> float:
        if tuning.capturing():     # the candidates' launches, collected to run in parallel: once is enough
            _callable()
            return 0.0
        ms, n = clock.measure(_callable)
        return ms if n else host(_callable, *args, **kwargs)

    benchmarker.benchmark_cpu = benchmark_cpu
    benchmarker._mtiacc_simulated = True


def compile_graph(gm, example_inputs, mode: Optional[str] = None, options: Optional[Dict[str, Any]] = None):
    """The ``mtia`` dynamo backend (see the module's docstring)."""
    import torch._functorch.config as functorch_config
    from torch._inductor.compile_fx import compile_fx

    patches = config_patches(mode, options)
    if mode in AUTOTUNE_MODES:
        _simulated_benchmarks()
        from mtiacc.torch_backend import gemm_search, kernel_search
        kernel_search.install()
        gemm_search.benchmark_in_parallel()
    _cache_dir()
    from mtiacc.torch_backend import coverage
    coverage.enable_from_env()
    # AOTAutograd's own cache would hand back compiled graphs without calling the inner compiler, which is
    # where each graph is recorded; Inductor's FX graph cache (inside it) still saves the compile
    from mtiacc.triton_backend.records import fallback_scope
    with functorch_config.patch(enable_autograd_cache=False), fallback_scope():
        inner = functools.partial(_inner_compile, autotune=mode in AUTOTUNE_MODES)
        return compile_fx(gm, example_inputs, inner_compile=inner, config_patches=patches)


def _inner_compile(gm, example_inputs, autotune: bool = False, **kwargs):
    from torch._inductor.compile_fx import compile_fx_inner
    from mtiacc.torch_backend import coverage, offchip
    from mtiacc.torch_backend import lowerings
    from mtiacc.torch_backend.attention import chip_attention
    from mtiacc.torch_backend.gemm_choices import chip_search_space
    from mtiacc.torch_backend.overrides import chip_lowerings
    from mtiacc.triton_backend.records import fallback_scope
    # a backward graph compiles later, when backward first runs
    with fallback_scope(), chip_search_space(autotune), chip_lowerings(autotune), chip_attention(), \
            lowerings.installed():
        compiled = compile_fx_inner(gm, example_inputs, **kwargs)
    code = getattr(compiled, "source_code", None)
    run = getattr(compiled, "current_callable", None)
    if code is None or run is None:
        return compiled
    graph = coverage.add_graph(code, backward=bool(kwargs.get("is_backward")),
                             inference=bool(kwargs.get("is_inference")))
    compiled.current_callable = _first_run_progress(offchip.counted(run, graph), graph)
    return compiled


def _first_run_progress(run, graph):
    """``run``, its first call reporting the graph's kernels compiled and simulated (see the module's docstring)."""
    from mtiacc.triton_backend import progress
    label = f"graph {graph.index} ({'backward' if graph.backward else 'forward'})"
    first = [True]

    def call(inputs):
        if not first[0]:
            return run(inputs)
        first[0] = False
        with progress.graph(label, graph.code.names.values()):
            return run(inputs)
    return call
