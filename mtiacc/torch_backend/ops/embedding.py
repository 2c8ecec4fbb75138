"""Embedding bags on the chip: a Triton kernel gathering each bag's rows and reducing them.

Inductor leaves ``aten._embedding_bag`` to aten (a fallback: on the host).  While a graph is compiled for the chip
(:mod:`..overrides`) it is lowered here to the template ``mtia_embedding_bag``, for every mode aten has:

- a program reduces one bag (its indices ``offsets[b]`` up to ``offsets[b + 1]``, the last bag up to the end of
  ``indices`` unless ``include_last_offset``) over ``BLOCK_D`` columns of the table: ``BLOCK_J`` indices at a
  time, it loads them, gathers their rows' ``BLOCK_D`` columns (an index equal to ``padding_idx`` is skipped),
  scales each row by its ``per_sample_weights`` if given, and adds them up (``sum``; ``mean`` divides by the
  bag's count of indices not skipped) or keeps their largest (``max``); an empty bag is zeros;
- it accumulates in fp32 and stores in the table's dtype.

Aten's embedding bag has three more outputs (the bag of each index, each bag's size, the index of each maximum),
which only its backward reads: a graph that uses them (a training step's forward) gets them from
:mod:`.embedding_grad`, on the chip too; ``MODE == 3`` of the template gives a ``max`` bag's index of each
column's maximum.  ``BLOCK_D`` and ``BLOCK_J`` come from a cost model of the chip (:func:`choose_blocks`), in
both modes (one config: nothing to benchmark).
"""
from __future__ import annotations

import functools
import math
import operator
from typing import List, NamedTuple

from mtiacc.torch_backend.gemm_search import chip

MODES = ("sum", "mean", "max")
BLOCK_DS = (16, 32, 64, 128, 256)
BLOCK_JS = (4, 8, 16, 32, 64)
LOOP_CYCLES = 40.0       # a loop step's bookkeeping on the scalar core (addresses, DMA commands, the branch)


class Blocks(NamedTuple):
    block_d: int
    block_j: int


def _pow2_at_least(x: int) -> int:
    return 1 << max(0, int(x) - 1).bit_length()


def _cycles(bags: int, d: int, length: int, blocks: Blocks, *, dtype_bytes: int, index_bytes: int,
            weighted: bool, machine):
    """(the programs' cycles on the PEs, the cycles DRAM needs for the kernel's traffic)."""
    bd, bj = blocks
    programs = bags * math.ceil(d / bd)
    waves = math.ceil(programs / machine.n_pes)
    per_bag = length / max(bags, 1)
    steps = max(1, math.ceil(per_bag / bj))
    dma_bytes = bj * index_bytes + bj * bd * dtype_bytes + (bj * dtype_bytes if weighted else 0)
    transfers = 1 + bj + (1 if weighted else 0)
    dma = dma_bytes / machine.dma_pe_bytes_per_cycle + transfers * machine.dma_setup_cycles
    lanes = machine.vlen_bits // 32
    vector = 2 * bj * bd / lanes
    one = steps * (max(dma, vector) + LOOP_CYCLES) + bd * dtype_bytes / machine.dma_pe_bytes_per_cycle
    traffic = length * (index_bytes + min(bd, d) * dtype_bytes) * math.ceil(d / bd) + bags * d * dtype_bytes
    return waves * one, traffic / (machine.dram_bw_bytes_per_s / machine.clock_hz)


def estimate(bags: int, d: int, length: int, blocks: Blocks, *, dtype_bytes: int, index_bytes: int,
             weighted: bool, machine=None) -> float:
    """The kernel's estimated cycles with ``blocks`` for ``bags`` bags of ``length`` indices in all over ``d``
    columns: waves of programs, each a loop over its bag's indices; each step's DMA (the indices, one transfer
    per gathered row, the weights) and vector work (the rows' reduction), and no faster than DRAM allows."""
    pes, dram = _cycles(bags, d, length, blocks, dtype_bytes=dtype_bytes, index_bytes=index_bytes,
                        weighted=weighted, machine=machine or chip())
    return max(pes, dram)


def choose_blocks(bags: int, d: int, length: int, *, dtype_bytes: int, index_bytes: int = 8,
                  weighted: bool = False) -> Blocks:
    """The blocks with the smallest estimate (:func:`estimate`) among those clamped to the problem (``BLOCK_D``
    at most the next power of two of ``d``, ``BLOCK_J`` of the average bag) and fitting a PE's local memory;
    between blocks DRAM's bandwidth makes equal, the one whose programs take the fewest cycles, then the
    smaller blocks."""
    machine = chip()
    d_hi = max(_pow2_at_least(d), BLOCK_DS[0])
    j_hi = max(_pow2_at_least(math.ceil(length / max(bags, 1))), BLOCK_JS[0])
    seen: List[Blocks] = []
    for bd in BLOCK_DS:
        for bj in BLOCK_JS:
            b = Blocks(min(bd, d_hi), min(bj, j_hi))
            if b in seen or b.block_j * b.block_d * 4 * 2 > machine.local_memory_bytes:
                continue
            seen.append(b)

    def key(b: Blocks):
        pes, dram = _cycles(bags, d, length, b, dtype_bytes=dtype_bytes, index_bytes=index_bytes,
                            weighted=weighted, machine=machine)
        return max(pes, dram), pes
    return min(seen, key=key)


def _grid(bags, d, meta, *, cdiv):
    return bags, cdiv(d, meta["BLOCK_D"]), 1


def _source(weighted: bool) -> str:
    inputs = '"W", "I", "OFF"' + (', "PSW"' if weighted else '')
    return r"""
{{def_kernel(%s)}}
    NUM_BAGS = {{size(None, 0)}}
    D = {{size(None, 1)}}
    L = {{size("I", 0)}}
    stride_wr = {{stride("W", 0)}}
    stride_wd = {{stride("W", 1)}}
    bag = tl.program_id(0).to(INDEX_DTYPE)
    rd = tl.program_id(1).to(INDEX_DTYPE) * BLOCK_D + tl.arange(0, BLOCK_D)
    d_ok = rd < D
    start = tl.load(OFF + bag).to(INDEX_DTYPE)
{%% if LAST_OFFSET %%}
    end = tl.load(OFF + bag + 1).to(INDEX_DTYPE)
{%% else %%}
    end = tl.where(bag + 1 < NUM_BAGS, tl.load(OFF + tl.minimum(bag + 1, NUM_BAGS - 1)).to(INDEX_DTYPE), L)
{%% endif %%}
{%% if MODE >= 2 %%}
    acc = tl.full((BLOCK_D,), float("-inf"), tl.float32)
{%% else %%}
    acc = tl.zeros((BLOCK_D,), dtype=tl.float32)
{%% endif %%}
    count = 0
{%% if MODE == 3 %%}
    arg = tl.zeros((BLOCK_D,), dtype=INDEX_DTYPE)
{%% endif %%}
    for j in range(start, end, BLOCK_J):
        rj = j + tl.arange(0, BLOCK_J)
        j_ok = rj < end
        idx = tl.load(I + rj, mask=j_ok, other=0).to(INDEX_DTYPE)
{%% if PADDING_IDX >= 0 %%}
        j_ok = j_ok & (idx != PADDING_IDX)
{%% endif %%}
        ok = j_ok[:, None] & d_ok[None, :]
        rows = tl.load(W + (idx[:, None] * stride_wr + rd[None, :] * stride_wd), mask=ok, other=0.0)
        rows = rows.to(tl.float32)
{%% if WEIGHTED %%}
        rows = rows * tl.load(PSW + rj, mask=j_ok, other=0.0).to(tl.float32)[:, None]
{%% endif %%}
{%% if MODE == 2 %%}
        acc = tl.maximum(acc, tl.max(tl.where(ok, rows, float("-inf")), axis=0))
{%% elif MODE == 3 %%}
        vals = tl.where(ok, rows, float("-inf"))
        top = tl.max(vals, axis=0)
        # the first index of the block reaching its maximum, kept only if strictly above the bag's so far
        first = tl.min(tl.where(ok & (vals == top[None, :]), rj[:, None], end), axis=0)
        word = tl.sum(tl.where(rj[:, None] == first[None, :], idx[:, None], 0), axis=0)
        take = (first < end) & ((top > acc) | (count == 0))
        acc = tl.where(take, top, acc)
        arg = tl.where(take, word, arg)
{%% else %%}
        acc += tl.sum(rows, axis=0)
{%% endif %%}
        count += tl.sum(j_ok.to(tl.int32), axis=0)
{%% if MODE == 1 %%}
    acc = acc / tl.maximum(count, 1).to(tl.float32)
{%% elif MODE == 2 %%}
    acc = tl.where(count > 0, acc, 0.0)
{%% endif %%}
{%% if MODE == 3 %%}
    acc = arg
{%% endif %%}
    idx_b = bag + tl.zeros((BLOCK_D,), dtype=INDEX_DTYPE)
    idx_d = rd
    {{store_output(("idx_b", "idx_d"), "acc", "d_ok", val_shape=("BLOCK_D",))}}
""" % inputs


@functools.lru_cache(maxsize=None)
def template(weighted: bool):
    """The chip's embedding-bag template (one per process: Inductor's templates are registered by name)."""
    from torch._inductor.select_algorithm import SymbolicGridFn, TritonTemplate
    name = "mtia_embedding_bag" + ("_weighted" if weighted else "")
    existing = TritonTemplate.all_templates.get(name)
    return existing or TritonTemplate(name=name, grid=SymbolicGridFn(_grid), source=_source(weighted),
                                      cache_codegen_enabled_for_template=True)


def _only_first_output_used() -> bool:
    """Whether the graph reads the embedding bag's first output only (its others are its backward's)."""
    from torch._inductor.virtualized import V
    node = getattr(V.graph, "current_node", None)
    if node is None:
        return False
    return all(u.op == "call_function" and u.target is operator.getitem and u.args[1] == 0 for u in node.users)


def kernel(weight, indices, offsets, per_sample_weights, *, mode: int, padding_idx: int,
           include_last_offset: bool, layout):
    """The chip's embedding-bag template on these (realized) inputs into ``layout`` (``[bags, D]``): the bags'
    reductions (``mode`` 0, 1, 2: sum, mean, max), or with ``mode`` 3 the table row of each column's maximum
    (the first index reaching it; 0 in an empty bag), as aten's ``max_indices``.  None if the template gives no
    choice."""
    import torch
    from torch._inductor.select_algorithm import autotune_select_algorithm
    from torch._inductor.virtualized import V
    sizevars = V.graph.sizevars
    bags, d = layout.size
    hints = [int(sizevars.optimization_hint(s)) for s in (bags, d, indices.get_size()[0])]
    inputs = [weight, indices, offsets] + ([per_sample_weights] if per_sample_weights is not None else [])
    for t in inputs:
        t.realize()
    blocks = choose_blocks(*hints, dtype_bytes=weight.get_dtype().itemsize,
                           index_bytes=indices.get_dtype().itemsize, weighted=per_sample_weights is not None)
    choices: list = []
    # the indices of MODE 3 are integers (Inductor takes a template's value for fp32 unless told)
    extra = {"ACC_TYPE": "tl.int64" if layout.dtype == torch.int64 else "tl.int32"} if mode == 3 else {}
    template(per_sample_weights is not None).maybe_append_choice(
        choices, input_nodes=tuple(inputs), layout=layout, num_stages=1, num_warps=1,
        BLOCK_D=blocks.block_d, BLOCK_J=blocks.block_j, MODE=int(mode), PADDING_IDX=padding_idx,
        LAST_OFFSET=bool(include_last_offset), WEIGHTED=per_sample_weights is not None, **extra)
    if not choices:
        return None
    out, _ = autotune_select_algorithm("embedding_bag", choices, inputs, layout)
    return out


def lowering(original, training=None):
    """Inductor's lowering of ``aten._embedding_bag`` (and ``_forward_only``) for graphs compiled for the chip:
    the chip's kernel, or ``original`` for what it does not take (see the module's docstring).  ``training``
    (:func:`.embedding_grad.forward`) computes all four outputs where the graph reads more than the first."""
    import torch
    from torch._inductor import ir
    from torch._inductor.lowering import lowerings as L
    from torch._inductor.virtualized import V
    aten = torch.ops.aten

    def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                      per_sample_weights=None, include_last_offset=False, padding_idx=-1):
        args = (weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
                include_last_offset, padding_idx)
        dtype = weight.get_dtype()
        if (str(dtype) not in ("torch.float32", "torch.float16", "torch.bfloat16")
                or len(weight.get_size()) != 2 or len(indices.get_size()) != 1 or len(offsets.get_size()) != 1
                or ir.get_device_type(weight) != "cpu" or mode not in (0, 1, 2)):
            return original(*args)
        if per_sample_weights is not None and (mode != 0 or per_sample_weights.get_dtype() != dtype):
            return original(*args)
        sizevars = V.graph.sizevars
        rows, d = weight.get_size()
        bags = offsets.get_size()[0] - (1 if include_last_offset else 0)
        hints = [int(sizevars.optimization_hint(s)) for s in (bags, d, indices.get_size()[0])]
        if 0 in hints:
            return original(*args)
        padding = int(padding_idx) if padding_idx is not None else -1
        if not _only_first_output_used():
            if training is None:
                return original(*args)
            # a training step's forward: the other outputs too (ops/embedding_grad.py)
            out = training(weight, indices, offsets, per_sample_weights, mode=int(mode),
                           padding_idx=padding, include_last_offset=bool(include_last_offset))
            return out if out is not None else original(*args)
        layout = ir.FixedLayout(weight.get_device_or_error(), dtype, [bags, d], [d, 1])
        out = kernel(weight, indices, offsets, per_sample_weights, mode=int(mode), padding_idx=padding,
                     include_last_offset=bool(include_last_offset), layout=layout)
        if out is None:
            return original(*args)
        # the other outputs are not read (_only_first_output_used): empty placeholders, never computed
        index_dtype = indices.get_dtype()
        device = weight.get_device_or_error()
        empty = [L[aten.full.default]([0], 0, dtype=index_dtype, device=device) for _ in range(3)]
        return (out, *empty)

    return embedding_bag
