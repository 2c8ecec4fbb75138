"""Scaled dot-product attention on the chip: Inductor's SDPA operations lowered to flash-attention kernels.

On CPU tensors, ``F.scaled_dot_product_attention`` reaches Inductor as
``aten._scaled_dot_product_flash_attention_for_cpu`` (its backward as ``..._for_cpu_backward``), whatever asked
for it: the model's call, or Inductor's own pattern replacement of attention written as matmul / softmax /
matmul (``fx_passes/fuse_attention.py``).  Inductor leaves both to aten (a fallback: the host).  While
:func:`chip_attention` is active (every graph compiled for the chip, :mod:`.backend`), their lowerings are
replaced by ones that launch the Triton kernels of :mod:`.attention_kernels` as user-defined Triton kernels of the
graph (Inductor's ``UserDefinedTritonKernel``: the wrapper defines and launches them like its own), which mtiacc
compiles for the matrix engine:

- the forward: one kernel, writing the output and each row's log-sum-exp;
- the backward: ``delta = rowsum(O * dO)``, ``dK`` / ``dV`` and ``dQ``: three kernels;
- causal (top-left, as PyTorch aligns it), an additive mask (a boolean one arrives as the additive mask
  PyTorch makes of it) broadcast by its strides, GQA / MQA (fewer key/value heads), any ``scale``;
- the block sizes come from a cost model (:func:`choose_blocks`), with no benchmark, in every mode;
- fp32 dots follow ``torch.set_float32_matmul_precision`` as the GEMMs do (:mod:`.precision`).

What stays on the host (aten's kernel, the coverage report says why): dropout > 0 inside the fused operation
(PyTorch's CPU dispatch does not pick the fused operation with dropout: ``dropout_p > 0`` takes the math path,
which Inductor decomposes into batched GEMMs, softmax and dropout kernels, all on the chip), a head dimension
above 256, dtypes other than fp32 / fp16 / bf16, and a mask of another dtype.
"""
from __future__ import annotations

import contextlib
import math
from typing import Iterator, NamedTuple, Optional

MAX_HEAD_DIM = 256
LOOP_CYCLES = 60.0      # a key block's bookkeeping on the scalar core (addresses, DMA commands, the branch)
SOFTMAX_OPS = 12        # vector operations per score of the online softmax (scale, mask, max, exp2, sum, cast)


class Blocks(NamedTuple):
    block_m: int
    block_n: int


def _pow2(x: int) -> int:
    return 1 << max(0, int(x) - 1).bit_length()


def _footprint(bm: int, bn: int, bd: int, dtype_bytes: int, split_parts: int = 0) -> int:
    """Local-memory bytes of a program, conservatively (the backward's are the larger): eight fp32 blocks the
    size of the scores live at once (scores, probabilities, their masks and gradients), the query-side blocks
    (Q, dO in the operands' type; the accumulator, its rescaled copy and the output in fp32), two stages of the
    key and value blocks, and the bf16 parts of fp32 operands split for the matrix engine."""
    scores = 8 * bm * bn * 4
    rows = bm * bd * (2 * dtype_bytes + 3 * 4)
    keys = 2 * 2 * bn * bd * dtype_bytes + 2 * bn * bd * 4
    split = split_parts * 2 * (bm * bd + bn * bd + bm * bn)
    return scores + rows + keys + split


def estimate(batch_heads: int, l: int, s: int, d: int, blocks: Blocks, *, dtype_bytes: int, passes: int = 1,
             causal: bool = False, machine=None) -> float:
    """The forward's estimated cycles with ``blocks``: waves of programs, each a loop over key blocks of two
    dots on the matrix engine (``max(BM, weight load)`` cycles per 32 x 32 weight tile, ``passes`` bf16
    products each), the online softmax on the vector unit and the key and value blocks' DMA; the largest of the
    three per key block (the loop is pipelined), plus its bookkeeping."""
    from mtiacc.torch_backend.gemm_search import chip
    machine = machine or chip()
    wl = float(machine.dpe.weight_load_cycles)
    bm, bn = blocks
    bd = max(16, _pow2(d))
    programs = batch_heads * math.ceil(l / bm)
    waves = math.ceil(programs / machine.n_pes)
    tiles = math.ceil(bn / 32) * math.ceil(bd / 32)
    engine = passes * 2 * tiles * max(bm, wl)
    vector = SOFTMAX_OPS * bm * bn / (machine.vlen_bits // 32)
    dma = 2 * bn * bd * dtype_bytes / machine.dma_pe_bytes_per_cycle + 2 * machine.dma_setup_cycles
    k_blocks = math.ceil(s / bn)
    if causal:      # a program sees the keys up to its last row: about half of them on average
        k_blocks = max(1, math.ceil(min(s, l) / bn / 2 + bm / bn / 2))
    one = k_blocks * (max(engine, vector, dma) + LOOP_CYCLES) + bm * bd * dtype_bytes / machine.dma_pe_bytes_per_cycle
    return waves * one


CANDIDATES = (16, 32, 64, 128)


def choose_blocks(batch_heads: int, l: int, s: int, d: int, *, dtype_bytes: int, passes: int = 1,
                  split_parts: int = 0, causal: bool = False) -> Blocks:
    """The block sizes for an attention of ``batch_heads`` (batch x heads) of ``l`` queries, ``s`` keys and head
    dimension ``d``: the candidates clamped to the problem (at most the next power of two of ``l`` and ``s``,
    at least 16) that fit a PE's local memory, the one of smallest :func:`estimate` (ties: the smaller)."""
    from mtiacc.torch_backend.gemm_search import chip
    machine = chip()
    bd = max(16, _pow2(d))
    best: Optional[tuple] = None
    for bm in sorted({min(c, max(16, _pow2(l))) for c in CANDIDATES}):
        for bn in sorted({min(c, max(16, _pow2(s))) for c in CANDIDATES}):
            if _footprint(bm, bn, bd, dtype_bytes, split_parts) > machine.local_memory_bytes:
                continue
            cost = estimate(batch_heads, l, s, d, Blocks(bm, bn), dtype_bytes=dtype_bytes, passes=passes,
                            causal=causal, machine=machine)
            if best is None or cost < best[0]:
                best = (cost, Blocks(bm, bn))
    return best[1] if best else Blocks(16, 16)


# ------------------------------------------------------------------------------------------ Inductor lowerings

def unsupported(query, key, value, dropout_p: float, attn_mask) -> Optional[str]:
    """Why the kernels cannot take this attention (None when they can)."""
    import torch
    dtypes = (torch.float32, torch.float16, torch.bfloat16)
    if dropout_p:
        return "dropout inside the fused attention"
    if any(len(x.get_size()) != 4 for x in (query, key, value)):
        return "not a 4-D (batch, heads, sequence, head dim) attention"
    if any(x.get_dtype() not in dtypes for x in (query, key, value)) or \
            len({x.get_dtype() for x in (query, key, value)}) != 1:
        return "a dtype other than fp32, fp16 or bf16"
    if attn_mask is not None and (attn_mask.get_dtype() not in dtypes or len(attn_mask.get_size()) > 4):
        return "a mask of another dtype or rank"
    d, dv = query.get_size()[-1], value.get_size()[-1]
    from torch._inductor.virtualized import V
    if not V.graph.sizevars.statically_known_equals(d, dv) or \
            not V.graph.sizevars.statically_known_leq(d, MAX_HEAD_DIM):
        return f"a head dimension above {MAX_HEAD_DIM} or values of another head dimension"
    return None


def _fixed(x):
    """``x`` realized with its strides frozen, as a TensorBox the kernel can take."""
    from torch._inductor import ir
    x = ir.ExternKernel.realize_input(x)
    x = ir.ExternKernel.require_stride_order(x, ir.get_stride_order(x.get_stride()))
    return x if isinstance(x, ir.TensorBox) else ir.TensorBox(x)


def _empty(like, dtype, device):
    """A buffer for an output of the operation, with the strides of its fake value ``like`` (a graph output in
    other strides would be copied into them), or contiguous of the size ``like``."""
    from torch._inductor import ir
    from torch._inductor.lowering import empty_strided

    def expr(x):
        return x.node.expr if hasattr(x, "node") else x
    if isinstance(like, (list, tuple)):
        size = list(like)
        return empty_strided(size, ir.FlexibleLayout.contiguous_strides(size), dtype=dtype, device=device)
    return empty_strided([expr(x) for x in like.shape], [expr(x) for x in like.stride()], dtype=dtype,
                         device=device)


def _fake_outputs():
    from torch._inductor.virtualized import V
    return V.graph.current_node.meta["val"]


def _mask_strides(mask, size):
    """The mask's strides broadcast to (batch, heads, L, S): 0 on a dimension it broadcasts along."""
    msize, mstride = list(mask.get_size()), list(mask.get_stride())
    msize, mstride = [1] * (4 - len(msize)) + msize, [0] * (4 - len(mstride)) + mstride
    from torch._inductor.virtualized import V
    return [0 if V.graph.sizevars.statically_known_equals(ms, 1) and not
            V.graph.sizevars.statically_known_equals(n, 1) else st
            for ms, st, n in zip(msize, mstride, size)]


def _launch(kernel, grid, args):
    from torch._higher_order_ops.triton_kernel_wrap import kernel_side_table
    from torch._inductor import ir
    ir.UserDefinedTritonKernel(kernel_idx=kernel_side_table.add_kernel(kernel), grid=[grid],
                               tma_descriptor_metadata={}, kernel_args=args)


def _common(query, key, value, attn_mask, scale, is_causal):
    """The kernels' shared arguments and constants, and the block sizes."""
    from torch._inductor.virtualized import V
    from mtiacc.torch_backend import precision
    b, h, l, d = query.get_size()
    h_kv, s = key.get_size()[1], key.get_size()[2]
    hint = V.graph.sizevars.optimization_hint
    dtype = query.get_dtype()
    p = precision.engine_passes(dtype)
    blocks = choose_blocks(int(hint(b * h)), int(hint(l)), int(hint(s)), int(hint(d)),
                           dtype_bytes=dtype.itemsize, passes=p.passes, split_parts=p.split_parts,
                           causal=is_causal)
    mask = attn_mask if attn_mask is not None else query
    mstride = _mask_strides(attn_mask, (b, h, l, s)) if attn_mask is not None else [0, 0, 0, 0]
    sm_scale = float(scale) if scale is not None else 1.0 / math.sqrt(int(hint(d)))
    strides = {}
    for prefix, x in (("sq", query), ("sk", key), ("sv", value)):
        strides.update(zip([prefix + c for c in "zhmd"] if prefix == "sq" else [prefix + c for c in "zhnd"],
                           x.get_stride()))
    strides.update(zip(("smz", "smh", "smm", "smn"), mstride))
    consts = dict(H=h, H_KV=h_kv, L=l, S=s, D=d, HAS_MASK=attn_mask is not None, IS_CAUSAL=bool(is_causal),
                  BLOCK_D=max(16, _pow2(int(hint(d)))), DOT_BF16=p.bf16_operands,
                  INPUT_PRECISION=p.input_precision if dtype.itemsize == 4 else "ieee")
    return mask, strides, consts, blocks, sm_scale


def _inputs(query, key, value, attn_mask):
    query, key, value = (_fixed(x) for x in (query, key, value))
    return query, key, value, (_fixed(attn_mask) if attn_mask is not None else None)


def lower_forward(original):
    """The lowering of ``_scaled_dot_product_flash_attention_for_cpu``: (output, log-sum-exp)."""
    def lowering(query, key, value, dropout_p=0.0, is_causal=False, *, attn_mask=None, scale=None):
        if unsupported(query, key, value, dropout_p, attn_mask):
            return original(query, key, value, dropout_p, is_causal, attn_mask=attn_mask, scale=scale)
        import torch
        from torch._inductor.utils import ceildiv
        from mtiacc.torch_backend import attention_kernels as K
        query, key, value, attn_mask = _inputs(query, key, value, attn_mask)
        mask, strides, consts, blocks, sm_scale = _common(query, key, value, attn_mask, scale, is_causal)
        b, h, l, d = query.get_size()
        fake = _fake_outputs()
        out = _empty(fake[0], query.get_dtype(), query.get_device())
        lse = _empty(fake[1], torch.float32, query.get_device())
        args = dict(Q=query, K=key, V=value, Mask=mask, Out=out, Lse=lse, sm_scale=sm_scale, **strides)
        args.update(zip(("soz", "soh", "som", "sod"), out.get_stride()))
        args.update(zip(("slz", "slh", "slm"), lse.get_stride()))
        args.update(consts, BLOCK_M=blocks.block_m, BLOCK_N=blocks.block_n)
        _launch(K.sdpa_fwd_kernel, (ceildiv(l, blocks.block_m), b * h, 1), args)
        return out, lse
    return lowering


def lower_backward(original):
    """The lowering of ``_scaled_dot_product_flash_attention_for_cpu_backward``: (dQ, dK, dV)."""
    def lowering(grad_out, query, key, value, out, logsumexp, dropout_p, is_causal, *, attn_mask=None,
                 scale=None):
        if unsupported(query, key, value, dropout_p, attn_mask):
            return original(grad_out, query, key, value, out, logsumexp, dropout_p, is_causal,
                            attn_mask=attn_mask, scale=scale)
        import torch
        from torch._inductor.utils import ceildiv
        from mtiacc.torch_backend import attention_kernels as K
        query, key, value, attn_mask = _inputs(query, key, value, attn_mask)
        grad_out, out, logsumexp = _fixed(grad_out), _fixed(out), _fixed(logsumexp)
        mask, strides, consts, blocks, sm_scale = _common(query, key, value, attn_mask, scale, is_causal)
        b, h, l, d = query.get_size()
        h_kv, s = key.get_size()[1], key.get_size()[2]
        device = query.get_device()
        fake = _fake_outputs()
        delta = _empty((b, h, l), torch.float32, device)
        _launch(K.sdpa_bwd_delta_kernel, (ceildiv(l, blocks.block_m), b * h, 1), dict(
            Out=out, DO=grad_out, Delta=delta, **dict(zip(("soz", "soh", "som", "sod"), out.get_stride())),
            **dict(zip(("sdz", "sdh", "sdm", "sdd"), grad_out.get_stride())), H=h, L=l, D=d,
            BLOCK_M=blocks.block_m, BLOCK_D=consts["BLOCK_D"]))
        dq = _empty(fake[0], query.get_dtype(), device)
        dk = _empty(fake[1], key.get_dtype(), device)
        dv = _empty(fake[1], value.get_dtype(), device)
        common = dict(Q=query, K=key, V=value, Mask=mask, DO=grad_out, Lse=logsumexp, Delta=delta,
                      sm_scale=sm_scale, **strides)
        common.update(zip(("sdz", "sdh", "sdm", "sdd"), grad_out.get_stride()))
        common.update(zip(("slz", "slh", "slm"), logsumexp.get_stride()))
        common.update(consts, BLOCK_M=blocks.block_m, BLOCK_N=blocks.block_n)
        _launch(K.sdpa_bwd_dkdv_kernel, (ceildiv(s, blocks.block_n), b * h_kv, 1),
                dict(common, DK=dk, DV=dv, **dict(zip(("sgz", "sgh", "sgn", "sgd"), dk.get_stride()))))
        _launch(K.sdpa_bwd_dq_kernel, (ceildiv(l, blocks.block_m), b * h, 1),
                dict(common, DQ=dq, **dict(zip(("sgz", "sgh", "sgm", "sgd"), dq.get_stride()))))
        return dq, dk, dv
    return lowering


def _forward_operands(args, kwargs):
    dropout = args[3] if len(args) > 3 else kwargs.get("dropout_p", 0.0)
    return (*args[:3], dropout, kwargs.get("attn_mask"))


def _backward_operands(args, kwargs):
    return (*args[1:4], args[6], kwargs.get("attn_mask"))


def _layout_constraint(original, operands):
    """Inductor's layout constraint for the operation (its inputs' last dimension made dense, and
    the log-sum-exp copied contiguous) only where aten runs it: the kernels take any strides."""
    def constraint(fx_node, *args, **kwargs):
        if original is not None and unsupported(*operands(args, kwargs)):
            return original(fx_node, *args, **kwargs)
        return args, kwargs
    return constraint


@contextlib.contextmanager
def chip_attention() -> Iterator[None]:
    """Inductor's lowerings of the CPU SDPA operations (and their layout constraints) replaced by the chip's
    while the block runs."""
    import torch
    from torch._inductor import lowering as L
    aten = torch.ops.aten
    ops = {aten._scaled_dot_product_flash_attention_for_cpu.default: (lower_forward, _forward_operands),
           aten._scaled_dot_product_flash_attention_for_cpu_backward.default: (lower_backward, _backward_operands)}
    saved = {op: (L.lowerings[op], L._maybe_layout_constraints.get(op)) for op in ops}
    for op, (make, operands) in ops.items():
        L.lowerings[op] = make(saved[op][0])
        L._maybe_layout_constraints[op] = _layout_constraint(saved[op][1], operands)
    try:
        yield
    finally:
        for op, (lowering, constraint) in saved.items():
            L.lowerings[op] = lowering
            if constraint is None:
                L._maybe_layout_constraints.pop(op, None)
            else:
                L._maybe_layout_constraints[op] = constraint
