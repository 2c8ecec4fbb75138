"""Convolutions on the chip: one Triton template for every convolution, its tile from the cost model.

Inductor's own Triton convolution templates cover 2-D and 3-D convolutions without dilation, not transposed,
and it uses them only when autotuning; a CPU tensor's convolution (the chip's, to Inductor) is otherwise aten's,
on the host.  While a graph is compiled for the chip (:mod:`..overrides`), ``aten.convolution`` is lowered here
instead, to the chip's template ``mtia_conv{1,2,3}d``: an implicit GEMM, for 1-D, 2-D and 3-D convolutions,
grouped and depthwise, strided, padded and dilated, and transposed (with ``output_padding``):

- a program computes a ``BLOCK_M x BLOCK_N`` tile of one group's output: ``M`` runs over the batch and the
  output positions, ``N`` over the group's output channels; the grid's third dimension is the group;
- its K loop runs over the group's input channels times the kernel's taps (``K = C_in / groups * taps``, the
  channels fastest), ``BLOCK_K`` at a time: each step loads the input block as the im2col matrix would hold
  it (the input position of each output position and tap, masked where it falls in the padding) and the
  weight block, and multiplies them on the matrix engine (``tl.dot``, fp32 as ``torch.set_float32_matmul_
  precision`` says, :mod:`..precision`).  Folding the taps into K keeps the engine's K blocks full when a
  group has few channels (a network's first layer, a depthwise convolution: ``K`` = the taps);
- a transposed convolution reads, for output position ``o`` and tap ``t``, the input at ``(o + pad - t *
  dilation) / stride`` where that divides exactly and falls inside the input (its weight is ``C_in x C_out /
  groups x taps``);
- a bias is peeled off into an add after the template, which Inductor fuses as the template's epilogue;
- a depthwise convolution (one input channel per group) is summed over its taps on the vector unit instead
  when the cost model says that is faster (:mod:`.conv_direct`).

That template's input and weight blocks are ``//`` and ``%`` of an ``arange`` with a mask that is no box, which
the access plan moves an element at a time (``gather``).  The rows templates compute the same products in an order
whose blocks are tiles: :mod:`.conv_rows`'s for 2-D and 3-D convolutions (the taps outside the K loop, a tile of
output rows; a 3-D one's program one output depth), :mod:`.conv_transposed`'s for transposed ones (the output in
stride phases, each a convolution of the input over its own taps); a 1-D convolution is a 2-D one of one row (the
input and the weight viewed with a dimension of one).  The vector unit's template (:mod:`.conv_rows`) takes a 2-D
convolution with one or two input channels a group (a depthwise one, with a channel multiplier or not).  Which
template computes a convolution is a cost (:mod:`.conv_cost`): each one's estimated cycles with the cost model's
tile, its DMA transfers counted as its access plans move them; the folded template stays for what no other takes.

The tile is the GEMM cost model's (:mod:`..gemm_cost`) for that ``M x N x K`` GEMM, ``groups`` of them, in the
default mode; with ``mode="max-autotune"`` the candidates are the GEMM search space's
(:func:`..gemm_search.chip_configs`) and Inductor benchmarks them on the simulated clock.  A convolution the
template does not take (an integer or fp64 one, a zero-sized one) keeps Inductor's lowering.
"""
from __future__ import annotations

import functools
import math
from typing import List, Sequence

from mtiacc.torch_backend.gemm_search import CHIP_CONFIGS, Tile, chip, chip_configs

DTYPES = ("torch.float32", "torch.float16", "torch.bfloat16")


def _grid(*args, cdiv):
    """The template's grid from the output's sizes (batch, channels, positions...) and the config."""
    *sizes, meta = args
    m = sizes[0]
    for s in sizes[2:]:
        m = m * s
    return cdiv(m, meta["BLOCK_M"]), cdiv(sizes[1] // meta["GROUPS"], meta["BLOCK_N"]), meta["GROUPS"]


def _source(ndim: int, transposed: bool) -> str:
    """The template's source for ``ndim`` spatial dimensions (Inductor's template language: ``def_kernel``,
    ``size``, ``stride``, ``store_output``)."""
    dims = range(ndim)
    lines = ['{{def_kernel("X", "W")}}',
             '    BATCH = {{size("X", 0)}}',
             '    IN_C = {{size("X", 1)}}',
             '    OUT_C = {{size(None, 1)}}',
             '    stride_xn = {{stride("X", 0)}}',
             '    stride_xc = {{stride("X", 1)}}',
             '    stride_w0 = {{stride("W", 0)}}',
             '    stride_w1 = {{stride("W", 1)}}']
    for d in dims:
        lines += [f'    IN_{d} = {{{{size("X", {d + 2})}}}}',
                  f'    OUT_{d} = {{{{size(None, {d + 2})}}}}',
                  f'    stride_x{d} = {{{{stride("X", {d + 2})}}}}',
                  f'    stride_k{d} = {{{{stride("W", {d + 2})}}}}']
    lines += ['    GROUP_IN_C = IN_C // GROUPS',
              '    GROUP_OUT_C = OUT_C // GROUPS',
              '    M = BATCH' + "".join(f" * OUT_{d}" for d in dims),
              '    K = GROUP_IN_C * TAPS',
              '    group = tl.program_id(2).to(INDEX_DTYPE)',
              '    rm = tl.program_id(0).to(INDEX_DTYPE) * BLOCK_M + tl.arange(0, BLOCK_M)',
              '    rn = tl.program_id(1).to(INDEX_DTYPE) * BLOCK_N + tl.arange(0, BLOCK_N)',
              '    rest = rm']
    for d in reversed(dims):           # the output position of each row, the last dimension fastest
        lines += [f'    o{d} = rest % OUT_{d}', f'    rest = rest // OUT_{d}']
    lines += ['    idx_n = rest',
              '    x_rows = idx_n * stride_xn + group * GROUP_IN_C * stride_xc',
              '    row_ok = rm < M',
              '    col_ok = rn < GROUP_OUT_C']
    if transposed:      # weight: C_in x C_out/groups x taps
        lines.append('    w_cols = rn * stride_w1')
    else:               # weight: C_out x C_in/groups x taps
        lines.append('    w_cols = (group * GROUP_OUT_C + rn) * stride_w0')
    lines += ['    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)',
              '    for k in range(0, K, BLOCK_K):',
              '        rk = k + tl.arange(0, BLOCK_K)',
              '        k_ok = rk < K',
              '{% if TAPS == 1 %}',
              '        c = rk',
              '{% else %}',
              '        c = rk % GROUP_IN_C',
              '        tap = rk // GROUP_IN_C']
    for d in reversed(dims):
        lines += [f'        t{d} = tap % KERNEL_{d}', f'        tap = tap // KERNEL_{d}']
    lines.append('{% endif %}')
    x_off, mask = ['x_rows[:, None]', '(c * stride_xc)[None, :]'], 'row_ok[:, None] & k_ok[None, :]'
    for d in dims:
        # specialized where the configuration allows: no tap terms for a 1 x 1 kernel, no bounds checks
        # without padding (every tap of an output position then falls inside the input), no divisibility check
        # for a transposed convolution of stride 1
        tap = f'{{% if TAPS > 1 %}} - (t{d} * DILATION_{d})[None, :]{{% endif %}}'
        if transposed:
            lines += [f'        j{d} = (o{d} + PADDING_{d})[:, None]{tap}',
                      f'        i{d} = j{d}{{% if STRIDE_{d} > 1 %}} // STRIDE_{d}{{% endif %}}']
            mask += f' & (j{d} >= 0){{% if STRIDE_{d} > 1 %}} & (j{d} % STRIDE_{d} == 0){{% endif %}} & (i{d} < IN_{d})'
        else:
            lines.append(f'        i{d} = (o{d} * STRIDE_{d} - PADDING_{d})[:, None]{tap.replace(" - ", " + ")}')
            mask += f'{{% if PADDING_{d} > 0 %}} & (i{d} >= 0) & (i{d} < IN_{d}){{% endif %}}'
        x_off.append(f'i{d} * stride_x{d}')
    taps = "{% if TAPS > 1 %} + " + " + ".join(f"t{d} * stride_k{d}" for d in dims) + "{% endif %}"
    if transposed:
        w_rows = f'(group * GROUP_IN_C + c) * stride_w0{taps}'
    else:
        w_rows = f'c * stride_w1{taps}'
    lines += ['        mask_x = ' + mask,
              '        a = tl.load(X + (' + " + ".join(x_off) + '), mask=mask_x, other=0.0)',
              f'        w_rows = {w_rows}',
              '        b = tl.load(W + (w_rows[:, None] + w_cols[None, :]), mask=k_ok[:, None] & col_ok[None, :],'
              ' other=0.0)',
              '        acc += tl.dot(a.to(DOT_TYPE), b.to(DOT_TYPE), input_precision=INPUT_PRECISION)',
              '    mask = row_ok[:, None] & col_ok[None, :]',
              '    idx_n = idx_n[:, None]',
              '    idx_c = (group * GROUP_OUT_C + rn)[None, :]']
    lines += [f'    idx_{d} = o{d}[:, None]' for d in dims]
    names = ", ".join(['"idx_n"', '"idx_c"'] + [f'"idx_{d}"' for d in dims])
    lines.append(f'    {{{{store_output(({names}), "acc", "mask", val_shape=("BLOCK_M", "BLOCK_N"))}}}}')
    return "\n".join(lines) + "\n"


@functools.lru_cache(maxsize=None)
def template(ndim: int, transposed: bool):
    """The chip's convolution template for ``ndim`` spatial dimensions (one per process: Inductor's templates
    are registered by name)."""
    from torch._inductor.select_algorithm import SymbolicGridFn, TritonTemplate
    name = f"mtia_conv{ndim}d" + ("_transposed" if transposed else "")
    existing = TritonTemplate.all_templates.get(name)
    return existing or TritonTemplate(name=name, grid=SymbolicGridFn(_grid), source=_source(ndim, transposed),
                                      cache_codegen_enabled_for_template=True)


def gemm_shape(x_size: Sequence[int], out_size: Sequence[int], w_size: Sequence[int], groups: int,
               transposed: bool):
    """The convolution as ``groups`` GEMMs of ``M x N x K``: (batch x output positions) x (a group's output
    channels) x (a group's input channels x taps)."""
    taps = math.prod(w_size[2:])
    m = out_size[0] * math.prod(out_size[2:])
    n = out_size[1] // groups
    k = (x_size[1] // groups) * taps
    return m, n, k


def tiles(m: int, n: int, k: int, groups: int, dtype, autotune: bool) -> List[Tile]:
    """The template's configs: the cost model's one tile (default mode) or the search space's candidates."""
    from torch._inductor import config
    from mtiacc.torch_backend import gemm_cost, precision
    dtype_bytes = dtype.itemsize
    if autotune:
        return chip_configs(m, n, k, CHIP_CONFIGS, dtype_bytes=dtype_bytes, batch=groups,
                            prune_idle=config.max_autotune_gemm_search_space != "EXHAUSTIVE")
    p = precision.engine_passes(dtype)
    tile = gemm_cost.choose_tile(m, n, k, dtype_bytes=dtype_bytes, batch=groups, passes=p.passes,
                                 split_parts=p.split_parts)
    return [tile] if tile else []


def _hints(xs) -> List[int]:
    from torch._inductor.virtualized import V
    return [int(V.graph.sizevars.optimization_hint(s)) for s in xs]


def lowering(original, autotune: bool):
    """Inductor's ``aten.convolution`` lowering for graphs compiled for the chip: the chip's template, or
    ``original`` for what it does not take (see the module's docstring)."""
    import torch
    from torch._inductor import ir
    from torch._inductor.kernel.conv import conv_layout
    from torch._inductor.lowering import lowerings as L
    from torch._inductor.select_algorithm import autotune_select_algorithm
    from torch._inductor.utils import pad_listlike
    from torch._inductor.virtualized import V
    from mtiacc.torch_backend import precision
    from mtiacc.torch_backend.ops import conv_cost, conv_direct, conv_rows, conv_transposed
    aten = torch.ops.aten

    def convolution(x, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
        args = (x, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
        sizevars = V.graph.sizevars
        if not isinstance(groups, int):
            groups = sizevars.guard_int(groups)
        if (str(x.get_dtype()) not in DTYPES or weight.get_dtype() != x.get_dtype()
                or ir.get_device_type(x) != "cpu"):
            return original(*args)
        if len(x.get_size()) == len(weight.get_size()) - 1:      # unbatched: a batch of one
            out = convolution(L[aten.expand](x, [1, *x.get_size()]), weight, bias, stride, padding, dilation,
                              transposed, output_padding, groups)
            return L[aten.squeeze](out, dim=0)
        w_size = sizevars.guard_int_seq(weight.get_size())
        ndim = len(w_size) - 2
        if not 1 <= ndim <= 3:
            return original(*args)
        stride, padding, dilation, output_padding = (tuple(sizevars.guard_int_seq(pad_listlike(tuple(v), ndim)))
                                                     for v in (stride, padding, dilation, output_padding))
        if ndim == 1:   # a 2-D convolution of rows of one: the 2-D templates take it (the rows template's tiles)
            out = convolution(L[aten.unsqueeze](x, 2), L[aten.unsqueeze](weight, 2), bias, (1, *stride),
                              (0, *padding), (1, *dilation), transposed, (0, *output_padding), groups)
            return L[aten.squeeze](out, dim=2)
        if bias is not None:
            out = convolution(x, weight, None, stride, padding, dilation, transposed, output_padding, groups)
            return L[aten.add](out, L[aten.view](bias, [out.get_size()[1]] + [1] * ndim))
        kwargs = dict(stride=stride, padding=padding, dilation=dilation, transposed=transposed,
                      output_padding=output_padding, groups=groups)
        # the template reads any strides: a view (a permute, a slice) is read where it lies, not copied
        x, weight = ir.ExternKernel.realize_input(x), ir.ExternKernel.realize_input(weight)
        layout = conv_layout(x, weight, None, **kwargs)
        out_size, x_size = _hints(layout.size), _hints(x.get_size())
        if 0 in out_size or 0 in x_size:
            return original(*args)
        m, n, k = gemm_shape(x_size, out_size, w_size, groups, transposed)
        taps = math.prod(w_size[2:])
        choices: list = []
        consts = dict(GROUPS=groups, TAPS=math.prod(w_size[2:]), **precision.template_kwargs(x.get_dtype()))
        for d in range(ndim):
            consts.update({f"KERNEL_{d}": w_size[2 + d], f"STRIDE_{d}": stride[d], f"PADDING_{d}": padding[d],
                           f"DILATION_{d}": dilation[d]})
        # the engine's templates by their estimated cycles with the cost model's tile (conv_cost.py), against the
        # vector unit's for a depthwise or nearly depthwise convolution
        p = precision.engine_passes(x.get_dtype())
        tile = tiles(m, n, k, groups, x.get_dtype(), autotune=False)
        costs = conv_cost.engine_cycles(m, n, k, x_size, out_size, w_size, groups, stride, bool(transposed),
                                        tile[0], dtype_bytes=x.get_dtype().itemsize, passes=p.passes,
                                        split_parts=p.split_parts) if tile else {}
        vector = not transposed and conv_rows.takes_depthwise(ndim, groups, x_size[1], out_size[1])
        if conv_direct.prefer_direct(m, n, k, groups, taps, dtype=x.get_dtype(), transposed=bool(transposed),
                                     looped=vector, engine=min(costs.values()) if costs else None):
            if not vector:      # a 3-D depthwise convolution: the pointwise form
                return conv_direct.lower(x, weight, layout.size, w_size, stride, padding, dilation, groups)
            bc, bh, bw = conv_rows.depthwise_blocks(out_size[0], groups, out_size[2:], chip().n_pes, n)
            conv_rows.depthwise_template().maybe_append_choice(
                choices, input_nodes=(x, weight), layout=layout, num_stages=1, num_warps=1,
                BLOCK_C=bc, BLOCK_H=bh, BLOCK_W=bw, VEC_IN=x_size[1] // groups, VEC_OUT=n, **consts)
            node, _ = autotune_select_algorithm("convolution", choices, [x, weight], layout)
            return node
        rows = "rows" in costs and costs["rows"] <= costs["folded"]
        if rows and transposed:     # the output in stride phases (conv_transposed.py)
            consts.update(conv_transposed.phase_consts(stride, dilation))
            rows_hw = [-(-o // s) for o, s in zip(out_size[-2:], stride[-2:])]
            rows_template = conv_transposed.template(ndim)
        elif rows:
            rows_hw, rows_template = out_size[-2:], conv_rows.template(ndim)
        for t in tiles(m, n, k, groups, x.get_dtype(), autotune):
            warps = max(1, min(4, t.block_m * t.block_n // 256))
            if rows:    # the taps outside the K loop: every load a tile (conv_rows.py)
                bh, bw, bk = conv_rows.blocks(rows_hw, t.block_m, x_size[1] // groups, t.block_k)
                rows_template.maybe_append_choice(
                    choices, input_nodes=(x, weight), layout=layout, num_stages=t.num_stages, num_warps=warps,
                    BLOCK_N=t.block_n, BLOCK_H=bh, BLOCK_W=bw, BLOCK_K=bk, **consts)
                continue
            template(ndim, bool(transposed)).maybe_append_choice(
                choices, input_nodes=(x, weight), layout=layout, num_stages=t.num_stages, num_warps=warps,
                BLOCK_M=t.block_m, BLOCK_N=t.block_n, BLOCK_K=t.block_k, **consts)
        if not choices:
            return original(*args)
        node, _ = autotune_select_algorithm("convolution", choices, [x, weight], layout)
        return node

    return convolution
