"""Convolutions' gradients on the chip: ``aten.convolution_backward`` as the chip's Triton templates.

While a graph is compiled for the chip (:mod:`..overrides`), a convolution's backward is lowered here:

- **the input's gradient** is itself a convolution of the output's gradient with the same weight, the other way
  round: a transposed convolution for a convolution (its ``output_padding`` the rows the forward's stride left
  over), a convolution for a transposed one; it takes the chip's convolution template
  (:mod:`.conv`);
- **the weight's gradient** is the template ``mtia_conv{1,2,3}d_weight_grad``, an implicit GEMM per group: its
  rows the channels of the operand read along its positions ``R`` (the output's gradient; the input, for a
  transposed convolution), its columns the other operand's channels times the taps, its K the batch times
  ``R``'s positions ``p``; the other operand ``G`` (the input; the output's gradient) is gathered at ``p *
  stride - padding + tap * dilation``, masked where that falls in the padding;
- **the bias's gradient** is a sum of the output's gradient (Inductor's reduction kernel).

Each template's tile is the GEMM cost model's (:mod:`..gemm_cost`) in the default mode, the search space's
candidates under ``mode="max-autotune"``, as for the forward.  What the templates do not take (an integer or
fp64 convolution, a zero size) keeps Inductor's lowering.
"""
from __future__ import annotations

import functools
import math

from mtiacc.torch_backend.ops.conv import DTYPES, tiles


def _grid(*args, cdiv):
    """The weight gradient's grid from its sizes (R's channels, G's channels per group, taps...)."""
    *sizes, meta = args
    cols = sizes[1]
    for s in sizes[2:]:
        cols = cols * s
    return cdiv(sizes[0] // meta["GROUPS"], meta["BLOCK_M"]), cdiv(cols, meta["BLOCK_N"]), meta["GROUPS"]


def _source(ndim: int) -> str:
    dims = range(ndim)
    lines = ['{{def_kernel("R", "G")}}',
             '    BATCH = {{size("R", 0)}}',
             '    R_C = {{size("R", 1)}}',
             '    G_C = {{size("G", 1)}}',
             '    stride_rn = {{stride("R", 0)}}',
             '    stride_rc = {{stride("R", 1)}}',
             '    stride_gn = {{stride("G", 0)}}',
             '    stride_gc = {{stride("G", 1)}}']
    for d in dims:
        lines += [f'    R_{d} = {{{{size("R", {d + 2})}}}}',
                  f'    G_{d} = {{{{size("G", {d + 2})}}}}',
                  f'    stride_r{d} = {{{{stride("R", {d + 2})}}}}',
                  f'    stride_g{d} = {{{{stride("G", {d + 2})}}}}']
    lines += ['    GROUP_R_C = R_C // GROUPS',
              '    GROUP_G_C = G_C // GROUPS',
              '    COLS = GROUP_G_C * TAPS',
              '    K = BATCH' + "".join(f" * R_{d}" for d in dims),
              '    group = tl.program_id(2).to(INDEX_DTYPE)',
              '    rm = tl.program_id(0).to(INDEX_DTYPE) * BLOCK_M + tl.arange(0, BLOCK_M)',
              '    rn = tl.program_id(1).to(INDEX_DTYPE) * BLOCK_N + tl.arange(0, BLOCK_N)',
              '    row_ok = rm < GROUP_R_C',
              '    col_ok = rn < COLS',
              '    c = rn % GROUP_G_C',
              '    tap = rn // GROUP_G_C']
    for d in reversed(dims):
        lines += [f'    t{d} = tap % KERNEL_{d}', f'    tap = tap // KERNEL_{d}']
    lines += ['    r_rows = (group * GROUP_R_C + rm) * stride_rc',
              '    g_cols = (group * GROUP_G_C + c) * stride_gc',
              '    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)',
              '    for k in range(0, K, BLOCK_K):',
              '        rk = k + tl.arange(0, BLOCK_K)',
              '        k_ok = rk < K',
              '        rest = rk']
    for d in reversed(dims):
        lines += [f'        p{d} = rest % R_{d}', f'        rest = rest // R_{d}']
    r_off = " + ".join(['rest * stride_rn'] + [f'p{d} * stride_r{d}' for d in dims])
    lines += [f'        a = tl.load(R + (r_rows[:, None] + ({r_off})[None, :]), mask=row_ok[:, None] & k_ok[None, :],'
              ' other=0.0)']
    mask, g_off = 'k_ok[:, None] & col_ok[None, :]', ['(rest * stride_gn)[:, None]', 'g_cols[None, :]']
    for d in dims:
        lines.append(f'        i{d} = (p{d} * STRIDE_{d} - PADDING_{d})[:, None] + (t{d} * DILATION_{d})[None, :]')
        mask += f'{{% if PADDING_{d} > 0 %}} & (i{d} >= 0) & (i{d} < G_{d}){{% endif %}}'
        g_off.append(f'i{d} * stride_g{d}')
    lines += [f'        b = tl.load(G + ({" + ".join(g_off)}), mask={mask}, other=0.0)',
              '        acc += tl.dot(a.to(DOT_TYPE), b.to(DOT_TYPE), input_precision=INPUT_PRECISION)',
              '    mask = row_ok[:, None] & col_ok[None, :]',
              '    idx_r = (group * GROUP_R_C + rm)[:, None]',
              '    idx_c = c[None, :]']
    lines += [f'    idx_t{d} = t{d}[None, :]' for d in dims]
    names = ", ".join(['"idx_r"', '"idx_c"'] + [f'"idx_t{d}"' for d in dims])
    lines.append(f'    {{{{store_output(({names}), "acc", "mask", val_shape=("BLOCK_M", "BLOCK_N"))}}}}')
    return "\n".join(lines) + "\n"


@functools.lru_cache(maxsize=None)
def weight_grad_template(ndim: int):
    """The chip's weight-gradient template for ``ndim`` spatial dimensions (one per process)."""
    from torch._inductor.select_algorithm import SymbolicGridFn, TritonTemplate
    name = f"mtia_conv{ndim}d_weight_grad"
    existing = TritonTemplate.all_templates.get(name)
    return existing or TritonTemplate(name=name, grid=SymbolicGridFn(_grid), source=_source(ndim),
                                      cache_codegen_enabled_for_template=True)


def lowering(original, convolution, autotune: bool):
    """Inductor's ``aten.convolution_backward`` lowering for graphs compiled for the chip (see the module's
    docstring); ``convolution`` is the chip's forward lowering, ``original`` Inductor's backward."""
    import torch
    from torch._inductor import ir
    from torch._inductor.lowering import lowerings as L
    from torch._inductor.select_algorithm import autotune_select_algorithm
    from torch._inductor.utils import pad_listlike
    from torch._inductor.virtualized import V
    from mtiacc.torch_backend import precision
    aten = torch.ops.aten

    def weight_grad(grad_out, x, w_size, stride, padding, dilation, transposed, groups, dtype, w_stride):
        ndim = len(w_size) - 2
        r, g = (x, grad_out) if transposed else (grad_out, x)
        r, g = ir.ExternKernel.realize_input(r), ir.ExternKernel.realize_input(g)
        layout = ir.FixedLayout(x.get_device_or_error(), dtype, list(w_size), list(w_stride))
        hints = [int(V.graph.sizevars.optimization_hint(s)) for s in r.get_size()]
        m, n, k = w_size[0] // groups, math.prod(w_size[1:]), hints[0] * math.prod(hints[2:])
        consts = dict(GROUPS=groups, TAPS=math.prod(w_size[2:]), **precision.template_kwargs(dtype))
        for d in range(ndim):
            consts.update({f"KERNEL_{d}": w_size[2 + d], f"STRIDE_{d}": stride[d], f"PADDING_{d}": padding[d],
                           f"DILATION_{d}": dilation[d]})
        choices: list = []
        for t in tiles(m, n, k, groups, dtype, autotune):
            weight_grad_template(ndim).maybe_append_choice(
                choices, input_nodes=(r, g), layout=layout, num_stages=t.num_stages,
                num_warps=max(1, min(4, t.block_m * t.block_n // 256)),
                BLOCK_M=t.block_m, BLOCK_N=t.block_n, BLOCK_K=t.block_k, **consts)
        if not choices:
            return None
        node, _ = autotune_select_algorithm("convolution_weight_grad", choices, [r, g], layout)
        return node

    def convolution_backward(grad_out, x, weight, bias_sizes, stride, padding, dilation, transposed,
                             output_padding, groups, output_mask):
        args = (grad_out, x, weight, bias_sizes, stride, padding, dilation, transposed, output_padding, groups,
                output_mask)
        sizevars = V.graph.sizevars
        if not isinstance(groups, int):
            groups = sizevars.guard_int(groups)
        dtype = x.get_dtype()
        w_size = sizevars.guard_int_seq(weight.get_size())
        ndim = len(w_size) - 2
        if (str(dtype) not in DTYPES or grad_out.get_dtype() != dtype or weight.get_dtype() != dtype
                or ir.get_device_type(x) != "cpu" or not 1 <= ndim <= 3 or len(x.get_size()) != ndim + 2):
            return original(*args)
        x_size = [int(sizevars.optimization_hint(s)) for s in x.get_size()]
        o_size = [int(sizevars.optimization_hint(s)) for s in grad_out.get_size()]
        if 0 in x_size or 0 in o_size:
            return original(*args)
        stride, padding, dilation, output_padding = (tuple(sizevars.guard_int_seq(pad_listlike(tuple(v), ndim)))
                                                     for v in (stride, padding, dilation, output_padding))
        node = V.graph.current_node
        vals = node.meta.get("val") if node is not None else None
        dx = dw = db = None
        if output_mask[1]:
            w_stride = list(vals[1].stride()) if vals is not None and vals[1] is not None else \
                list(ir.FlexibleLayout.contiguous_strides(w_size))
            dw = weight_grad(grad_out, x, w_size, stride, padding, dilation, transposed, groups, dtype, w_stride)
            if dw is None:
                return original(*args)
        if output_mask[0]:
            if transposed:      # the gradient of a transposed convolution: a convolution
                back_padding = (0,) * ndim
            else:               # of a convolution: a transposed one, the rows its stride left over padded back
                back_padding = tuple(
                    x_size[2 + d] - ((o_size[2 + d] - 1) * stride[d] - 2 * padding[d]
                                     + dilation[d] * (w_size[2 + d] - 1) + 1) for d in range(ndim))
            dx = convolution(grad_out, weight, None, stride, padding, dilation, not transposed, back_padding, groups)
        if output_mask[2] and bias_sizes is not None:
            db = L[aten.sum](grad_out, axis=[0] + list(range(2, ndim + 2)))
        return dx, dw, db

    return convolution_backward
