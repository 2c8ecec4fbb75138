"""The GEMM templates' config in the default mode: one tile chosen by a cost model of the chip, no benchmark.

In the default mode (no ``mode="max-autotune"``) a GEMM compiled for the chip gets exactly one candidate, so
Inductor neither compiles nor runs any other: :func:`choose_tile` picks it among the chip's tiles
(:data:`.gemm_search.CHIP_CONFIGS`, clamped to the problem and fitting a PE's local memory as
:func:`.gemm_search.chip_configs` keeps them) by the smallest estimated time, from the machine's description
(``mtiacc/machine/mtia2i.yaml``, :func:`.gemm_search.chip`):

- **programs and waves**: ``batch * ceil(M / BM) * ceil(N / BN)`` programs, one per PE at a time: ``waves =
  ceil(programs / PEs)``; the padding of a tile past the problem's edge is paid for;
- **the matrix engine** (two 32 x 32 arrays, one row of a 32-wide K chunk per cycle at fp16 / bf16, two at
  int8): per K block, ``ceil(BN / 32) * ceil(BK / 32)`` weight tiles, each streaming ``BM`` rows; a weight load
  (``weight_load_cycles``) overlaps the other array's streaming, so a tile costs ``max(BM, weight_load_cycles)``
  cycles; an fp32 GEMM takes ``passes`` bf16 products (:mod:`.precision`: 1, 3 or 6);
- **the vector unit**, for fp32 operands split into bf16 parts (``codegen/matrix/dot.py``, ``split_loop``): per
  element of each operand block, a 32-bit load, three 32-bit-wide operations for each rounded part (an add, and
  the narrowing shift and store at half width; the mask of the part as an f32) and one for the exact third part
  of ``bf16x6`` or two for the rounded second part of ``bf16x3`` (:data:`SPLIT_OPS`: 8 and 6), each
  ``32 / datapath_bits`` of a cycle (the subtractions run on the SE beside it);
- **DMA**: each K block's operand blocks at ``dma_pe_bytes_per_cycle`` per PE; the chip's DRAM bandwidth for the
  bytes first read (A, B and C once each) when the SRAM's LLC (``memory.sram.llc_bytes``) holds A and B, the
  programs' re-reads of the same rows and columns hitting it at the SRAM's bandwidth (every program's tiles at
  DRAM's when there is no LLC or it cannot hold them);
- **overheads**: ``dma_setup_cycles`` per transfer, a K block's loop bookkeeping, the accumulator's store.

A program's K loop overlaps the engine, the vector unit and the DMA (``pipeline-dots``), so a K block costs
the largest of the three.  The estimate is a ranking, not a prediction of cycles: ties (a GEMM bound by memory)
go to the candidate whose waves of programs take the fewest cycles of their own, then to the one listed first
(the smaller tile).  ``benchmarks/bench_gemm.py`` and ``mode="max-autotune"`` measure.

**Local memory.**  :func:`rank` keeps the tiles whose blocks, counted by hand (:func:`footprint`: the operand
blocks of every pipeline stage, their bf16 parts, the accumulator, ``epilogue`` output-sized blocks), fit the
machine's local memory.  That count is a lower bound: the compiler pipelines the K loop in stages, fetches the
next program's first tiles ahead and keeps the engine's operands until it waits for the engine, so the kernel may
need more.  Given the operands' ``dtype``, :func:`choose_tile` therefore takes the fastest tile the compiler finds
room for (:func:`.gemm_fit.fits`, which asks the compiler's local-memory plan of a kernel of the template's shape
for the candidate), so that the default mode's GEMM runs on the chip instead of failing at its launch.
"""
from __future__ import annotations

import math
from typing import List, NamedTuple, Optional

from mtiacc.torch_backend.gemm_search import CHIP_CONFIGS, Tile, chip, chip_configs

ARRAY = 32                 # the matrix engine's array: 32 x 32
LOOP_CYCLES = 40.0         # a K block's bookkeeping on the scalar core (addresses, DMA commands, the branch)
SPLIT_OPS = {2: 6, 3: 8}   # bf16 parts -> 32-bit-wide vector operations an element takes to split (see above)


class Estimate(NamedTuple):
    tile: Tile
    cycles: float


def program_cycles(tile: Tile, k: int, *, dtype_bytes: int, passes: int = 1, int8: bool = False,
                   split_parts: int = 0, machine=None) -> float:
    """A program's estimated cycles for its ``BM x BN`` tile over ``K``, alone on a PE."""
    machine = machine or chip()
    d = machine.dpe
    bm, bn, bk = tile.block_m, tile.block_n, tile.block_k
    rows_per_cycle = 2.0 if int8 else 1.0
    k_blocks = math.ceil(k / bk)
    weight_tiles = math.ceil(bn / ARRAY) * math.ceil(bk / ARRAY)
    engine = passes * weight_tiles * max(bm / rows_per_cycle, float(d.weight_load_cycles))
    elements = bm * bk + bk * bn
    vector = SPLIT_OPS.get(split_parts, 0) * elements * 32 / machine.datapath_bits
    dma = elements * dtype_bytes / machine.dma_pe_bytes_per_cycle + 2 * machine.dma_setup_cycles
    per_block = max(engine, vector, dma) + LOOP_CYCLES
    store = bm * bn * 4 / d.acc_bytes_per_cycle + bm * bn * dtype_bytes / machine.dma_pe_bytes_per_cycle
    return k_blocks * per_block + store + d.latency_cycles


def estimate(m: int, n: int, k: int, tile: Tile, *, dtype_bytes: int, batch: int = 1, passes: int = 1,
             int8: bool = False, split_parts: int = 0, machine=None) -> float:
    """The GEMM's estimated cycles with ``tile``: waves of programs, and no faster than DRAM allows."""
    machine = machine or chip()
    programs = batch * math.ceil(m / tile.block_m) * math.ceil(n / tile.block_n)
    waves = math.ceil(programs / machine.n_pes)
    one = program_cycles(tile, k, dtype_bytes=dtype_bytes, passes=passes, int8=int8, split_parts=split_parts,
                         machine=machine)
    k_pad = math.ceil(k / tile.block_k) * tile.block_k
    traffic = programs * (tile.block_m + tile.block_n) * k_pad * dtype_bytes + batch * m * n * dtype_bytes
    operands = batch * (m * k + k * n) * dtype_bytes
    if 0 < operands <= machine.llc_bytes:     # re-reads hit the LLC: DRAM moves each byte once
        memory = max((operands + batch * m * n * dtype_bytes) / machine.dram_bytes_per_cycle,
                     traffic / machine.sram_bytes_per_cycle)
    else:
        memory = traffic / machine.dram_bytes_per_cycle
    return max(waves * one, memory)


def rank(m: int, n: int, k: int, *, dtype_bytes: int, batch: int = 1, passes: int = 1, int8: bool = False,
         split_parts: int = 0, lmem_bytes: Optional[int] = None, epilogue: int = 0) -> List[Estimate]:
    """Every chip tile that fits, with its estimate, fastest first (ties in :data:`CHIP_CONFIGS`'s order)."""
    tiles = chip_configs(m, n, k, CHIP_CONFIGS, dtype_bytes=dtype_bytes, batch=batch, int8=int8,
                         prune_idle=False, lmem_bytes=lmem_bytes)
    machine = chip()
    lmem = machine.local_memory_bytes if lmem_bytes is None else lmem_bytes
    fitting = [t for t in tiles
               if footprint(t, dtype_bytes=dtype_bytes, split_parts=split_parts, epilogue=epilogue) <= lmem] or tiles
    out = [Estimate(t, estimate(m, n, k, t, dtype_bytes=dtype_bytes, batch=batch, passes=passes, int8=int8,
                                split_parts=split_parts, machine=machine)) for t in fitting]
    # memory-bound ties go to the tile whose programs finish their work soonest (more PEs streaming at once)
    waves = {e.tile: math.ceil(batch * math.ceil(m / e.tile.block_m) * math.ceil(n / e.tile.block_n) / machine.n_pes)
             * program_cycles(e.tile, k, dtype_bytes=dtype_bytes, passes=passes, int8=int8,
                              split_parts=split_parts, machine=machine) for e in out}
    return sorted(out, key=lambda e: (e.cycles, waves[e.tile]))


def footprint(tile: Tile, *, dtype_bytes: int, split_parts: int, epilogue: int = 0) -> int:
    """Local-memory bytes of a program counted by hand: its operand blocks for each stage, their bf16 parts, the
    accumulator and ``epilogue`` output-sized blocks (a lower bound: see the module's docstring)."""
    elements = tile.block_m * tile.block_k + tile.block_k * tile.block_n
    return (tile.num_stages * elements * dtype_bytes + split_parts * elements * 2
            + tile.block_m * tile.block_n * (4 + epilogue * dtype_bytes))


def choose_tile(m: int, n: int, k: int, *, dtype_bytes: int, batch: int = 1, passes: int = 1, int8: bool = False,
                split_parts: int = 0, dtype: Optional[str] = None, epilogue: int = 0, dot_type: str = "",
                input_precision: str = "ieee") -> Optional[Tile]:
    """The default mode's tile for the GEMM: the fastest estimate among the tiles that fit a PE's local memory
    (None when none does).  With the operands' ``dtype`` (as torch names it, ``"bfloat16"``) the compiler decides
    the fit (:func:`.gemm_fit.fits`, the template's kernel with ``epilogue`` output-sized blocks added before the
    store, its dot on ``dot_type`` operands at ``input_precision``); without it, the count by hand."""
    ranked = rank(m, n, k, dtype_bytes=dtype_bytes, batch=batch, passes=passes, int8=int8,
                  split_parts=split_parts, epilogue=epilogue)
    if dtype is None:
        return ranked[0].tile if ranked else None
    from mtiacc.torch_backend.gemm_fit import fits
    for e in ranked:
        if fits(e.tile, m, n, k, dtype=dtype, epilogue=epilogue, batch=batch, dot_type=dot_type,
                input_precision=input_precision):
            return e.tile
    return None
