"""Which template computes a convolution: each one's cycles estimated from the chip's description, no benchmark.

A convolution has three templates (:mod:`.conv`): the folded implicit GEMM (the taps folded into K), the rows
templates (:mod:`.conv_rows`, :mod:`.conv_transposed`: the taps outside the K loop) and the vector unit's
(:mod:`.conv_rows`'s depthwise one, at most two input channels a group).  Their programs differ in what they
move, so the estimate counts each K step's DMA transfers as the access plans move them, beside its matrix-engine
and vector work (the terms of :mod:`..gemm_cost`, whose engine and fp32-split model this reuses):

- **folded**: ``M x N x K`` GEMMs, ``K`` the group's channels times the taps; its input block is the im2col
  matrix's, ``//`` and ``%`` of an ``arange`` with a mask that is no box, moved an element at a time
  (``gather``: one transfer an element), and so is its weight block when the kernel has more than one tap;
- **rows**: per tap and ``BLOCK_K`` channels, one 2-D transfer a channel of the group for the input tile and
  one for the weights (the channels past the group's are masked off and not moved); its K block is at least 16
  wide, so a group of one or two channels pads the engine's K (the engine's time counts the padding), and each
  element of its 3-D input block takes :data:`ROWS_ELEMENT_OPS` vector operations (mask, fill, conversion);
- **vector**: :func:`.conv_direct.direct_cycles`, a multiply-add an output, tap and input channel.

Each transfer costs the DMA's setup (``memory.dma.setup_cycles``) and its bytes at the PE's port: a K step costs
the largest of the engine, the vector unit and the DMA, plus the loop's bookkeeping, as in :mod:`..gemm_cost`.
"""
from __future__ import annotations

import math
from typing import Sequence

from mtiacc.torch_backend import gemm_cost
from mtiacc.torch_backend.gemm_search import chip


# vector operations an element of the rows template's 3-D input block takes beside the fp32 split: its mask (the
# channels' and the tap's ranges, and-ed), the fill of the masked-off elements with ``other`` and the conversion;
# fitted to the simulator on a depthwise 3 x 3 with a channel multiplier of 2 on 32 x 28 x 28 computed by the rows
# template (``bench_conv.py``'s ``dwm2`` with the vector unit's template set aside): bf16 32,166 cycles measured,
# 38,160 estimated (5,900 without the term); fp32 146,728 measured, 116,752 estimated
ROWS_ELEMENT_OPS = 4


def _step(bm: int, bn: int, bk: int, transfers: int, elements: int, *, dtype_bytes: int, passes: int,
          split_parts: int, machine, block_ops: int = 0) -> float:
    """One K step of a ``bm x bn`` tile, ``bk`` wide: the engine's ``bn x bk`` weight tiles streaming ``bm`` rows,
    the fp32 split of both blocks (and ``block_ops`` vector operations an element of the ``bm x bk`` block),
    ``transfers`` DMA transfers of ``elements`` elements in all."""
    d = machine.dpe
    engine = passes * math.ceil(bn / gemm_cost.ARRAY) * math.ceil(bk / gemm_cost.ARRAY) * max(
        float(bm), float(d.weight_load_cycles))
    vector = ((gemm_cost.SPLIT_OPS.get(split_parts, 0) * (bm * bk + bk * bn) + block_ops * bm * bk)
              * 32 / machine.datapath_bits)
    dma = transfers * machine.dma_setup_cycles + elements * dtype_bytes / machine.dma_pe_bytes_per_cycle
    return max(engine, vector, dma) + gemm_cost.LOOP_CYCLES


def _total(programs: int, steps: int, step: float, bm: int, bn: int, *, dtype_bytes: int, machine) -> float:
    store = bm * bn * 4 / machine.dpe.acc_bytes_per_cycle + bm * bn * dtype_bytes / machine.dma_pe_bytes_per_cycle
    one = steps * step + store + machine.dpe.latency_cycles
    return math.ceil(programs / machine.n_pes) * one


def folded_cycles(m: int, n: int, k: int, groups: int, taps: int, tile, *, dtype_bytes: int, passes: int = 1,
                  split_parts: int = 0) -> float:
    """The folded template's estimated cycles with the GEMM ``tile`` (see the module's docstring)."""
    machine = chip()
    bm, bn, bk = tile.block_m, tile.block_n, tile.block_k
    gathered = bm * bk + (bk * bn if taps > 1 else 0)
    transfers = gathered + (0 if taps > 1 else 1)
    step = _step(bm, bn, bk, transfers, bm * bk + bk * bn, dtype_bytes=dtype_bytes, passes=passes,
                 split_parts=split_parts, machine=machine)
    programs = groups * math.ceil(m / bm) * math.ceil(n / bn)
    return _total(programs, math.ceil(k / bk), step, bm, bn, dtype_bytes=dtype_bytes, machine=machine)


def rows_cycles(batch: int, out_size: Sequence[int], group_in: int, group_out: int, groups: int, taps: int,
                blocks: Sequence[int], block_n: int, *, dtype_bytes: int, passes: int = 1, split_parts: int = 0,
                phases: int = 1) -> float:
    """The rows template's estimated cycles: ``out_size`` the output's spatial sizes (a transposed
    convolution's per stride phase, ``phases`` of them, each with ``taps`` its share of the kernel's taps),
    ``blocks`` its ``(BLOCK_H, BLOCK_W, BLOCK_K)``."""
    machine = chip()
    bh, bw, bk = blocks
    *outer, h, w = out_size
    programs = (batch * math.prod(outer) * phases * math.ceil(h / bh) * math.ceil(w / bw) * groups
                * math.ceil(group_out / block_n))
    active = min(bk, group_in)
    positions = bh * bw
    step = _step(positions, block_n, bk, 2 * active, active * (positions + block_n), dtype_bytes=dtype_bytes,
                 passes=passes, split_parts=split_parts, machine=machine, block_ops=ROWS_ELEMENT_OPS)
    return _total(programs, taps * math.ceil(group_in / bk), step, positions, block_n, dtype_bytes=dtype_bytes,
                  machine=machine)


def engine_cycles(m: int, n: int, k: int, x_size: Sequence[int], out_size: Sequence[int], w_size: Sequence[int],
                  groups: int, stride: Sequence[int], transposed: bool, tile, *, dtype_bytes: int, passes: int = 1,
                  split_parts: int = 0) -> dict:
    """The engine's templates that take the convolution, each with its estimated cycles with the cost model's GEMM
    ``tile`` (its ``BLOCK_M`` output positions as the rows template's blocks): ``{"folded": ..., "rows": ...}``.
    A transposed convolution's rows template computes ``prod(stride[-2:])`` phases, each over its share of the
    output and of the taps."""
    from mtiacc.torch_backend.ops import conv_rows
    ndim = len(w_size) - 2
    taps = math.prod(w_size[2:])
    group_in, group_out = x_size[1] // groups, out_size[1] // groups
    out = {"folded": folded_cycles(m, n, k, groups, taps, tile, dtype_bytes=dtype_bytes, passes=passes,
                                   split_parts=split_parts)}
    if conv_rows.takes(ndim, transposed, group_in):
        sizes, phases, share = list(out_size[2:]), 1, taps
        if transposed:
            sizes[-2:] = [-(-o // s) for o, s in zip(sizes[-2:], stride[-2:])]
            phases, share = math.prod(stride[-2:]), -(-taps // math.prod(stride))
        blocks = conv_rows.blocks(sizes[-2:], tile.block_m, group_in, tile.block_k)
        out["rows"] = rows_cycles(out_size[0], sizes, group_in, group_out, groups, share, blocks, tile.block_n,
                                  dtype_bytes=dtype_bytes, passes=passes, split_parts=split_parts, phases=phases)
    return out
