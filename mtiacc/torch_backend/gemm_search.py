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

In the default mode (no autotuning) each GEMM gets one of these tiles, the cost model's (:mod:`.gemm_cost`).
Inductor's heuristics are replaced by ones with these rules in :mod:`.gemm_choices`.

The candidates left are compiled and simulated in parallel (:func:`benchmark_in_parallel`): Inductor's
``benchmark_choices`` measures them one after another as always, each from a result
:func:`mtiacc.triton_backend.tuning.prefetch` computed beforehand on the executor (``MTIACC_EXECUTOR``,
``MTIACC_JOBS``), with the same timings and choice.
"""
from __future__ import annotations

import functools
import math
from typing import Iterable, List, NamedTuple, Optional, Tuple

from mtiacc.triton_backend import tuning

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


def benchmark_in_parallel() -> None:
    """Inductor's ``AlgorithmSelectorCache.benchmark_choices`` with its template candidates compiled and simulated in
    parallel first (:func:`mtiacc.triton_backend.tuning.in_parallel`); aten's candidates run on the host, as
    measured."""
    from torch._inductor.select_algorithm import AlgorithmSelectorCache as cache
    original = cache.__dict__["benchmark_choices"]
    if getattr(original, "_mtiacc", False):
        return
    inner = original.__func__

    def benchmark_choices(cls, choices, autotune_args, is_collective=False):
        calls = [functools.partial(cls.benchmark_choice, c, autotune_args) for c in choices
                 if not cls._is_extern(c)]
        with tuning.in_parallel([] if is_collective else calls):
            return inner(cls, choices, autotune_args, is_collective)

    benchmark_choices._mtiacc = True
    cache.benchmark_choices = classmethod(benchmark_choices)
    cache.__dict__["benchmark_choices"].__func__._mtiacc = True
