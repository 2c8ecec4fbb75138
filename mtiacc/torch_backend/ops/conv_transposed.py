"""Transposed convolutions whose loads move in rows: the output in stride phases, each a convolution of the input.

A transposed convolution of stride ``s`` adds ``x[i] * w[t]`` into the output at ``o = i * s - padding + t *
dilation``.  Read from the output's side (the gradient form, :mod:`.conv`'s folded template), output ``o`` and tap
``t`` read the input at ``(o + padding - t * dilation) / s`` where that divides exactly: a mask of ``%`` that is
no box, and an index of ``//``, so the access plan gathers.  Splitting the output by its phase ``r = o mod s``
(``o = q * s + r``) makes every load affine: for one phase only the taps with ``(r + padding - t * dilation) mod s
== 0`` contribute, and for each the input index is ``q + c`` with ``c = (r + padding - t * dilation) / s`` exact
and the same for the whole tile.  So a phase is an ordinary stride-1 convolution of the input over its taps,
and this template is :mod:`.conv_rows`'s with a phase per program:

- ``pid 0`` enumerates the image, (a 3-D convolution's output depth,) the phase ``(r_h, r_w)`` and a tile of
  ``BLOCK_H x BLOCK_W`` of the phase's output positions ``q``; ``pid 1`` the block of output channels, ``pid 2``
  the group;
- a dimension's taps of phase ``r`` are ``t = f, f + STEP, ...``: with ``g = gcd(s, dilation)``, ``STEP = s /
  g`` and ``f = ((r + padding) / g) * INV mod STEP`` (``INV`` the inverse of ``dilation / g`` mod ``STEP``), none
  where ``g`` does not divide ``r + padding``; the loop visits only those (``range(f, KERNEL, STEP)``);
- each tap's input block is ``x[n, c, q_h + c_h, q_w + c_w]``, a 3-D tile with a range-box mask (the ``q`` whose
  input lies inside the image and which are output positions of the phase), a 2-D DMA a channel (``tiles``); the
  weight block ``w[c, n, t_h, t_w]`` (the weight is ``C_in x C_out / groups x taps``) a tile too;
- the output tile is stored at ``o = q * s + r``: affine, its rows' elements ``s`` apart (``tiles``);
- a 3-D convolution's depth is the program's one output depth: its taps are a loop whose bounds select the taps
  whose input depth divides exactly and lies inside the input.

The phases of a stride-1 convolution are one (``s = 1``): then it is the rows template with the kernel flipped.
Output padding only adds output positions, which the tiles' masks cover; a position no tap reaches is zero.
"""
from __future__ import annotations

import functools
import math
from typing import Dict, Sequence

from mtiacc.torch_backend.ops.conv_rows import _register, _store, header, k_loop


def phase_consts(stride: Sequence[int], dilation: Sequence[int]) -> Dict[str, int]:
    """Each dimension's ``STEP_d``, ``G_d`` and ``INV_d`` (see the module's docstring)."""
    out = {}
    for d, (s, dil) in enumerate(zip(stride, dilation)):
        g = math.gcd(s, dil)
        step = s // g
        out.update({f"STEP_{d}": step, f"G_{d}": g, f"INV_{d}": pow(dil // g, -1, step) if step > 1 else 0})
    return out


def _grid(*args, cdiv):
    """The grid from the output's sizes (batch, channels, [depth,] rows, columns) and the config."""
    n, c, *outer, h, w, meta = args
    for d in outer:
        n = n * d
    nd = len(outer) + 2
    sh, sw = meta[f"STRIDE_{nd - 2}"], meta[f"STRIDE_{nd - 1}"]
    return (n * sh * sw * cdiv(cdiv(h, sh), meta["BLOCK_H"]) * cdiv(cdiv(w, sw), meta["BLOCK_W"]),
            cdiv(c // meta["GROUPS"], meta["BLOCK_N"]), meta["GROUPS"])


def _phase_taps(d: int, r: str, indent: str) -> list:
    """The loop over dimension ``d``'s taps of phase ``r`` (a scalar): ``for t{d} in range(f{d}, e{d}, STEP_d)``."""
    i = indent
    return [f'{i}f{d} = (({r} + PADDING_{d}) // G_{d} * INV_{d}) % STEP_{d}',
            '{% if G_' + str(d) + ' > 1 %}',
            f'{i}e{d} = tl.where(({r} + PADDING_{d}) % G_{d} == 0, KERNEL_{d}, 0)',
            '{% else %}',
            f'{i}e{d} = KERNEL_{d}',
            '{% endif %}',
            f'{i}for t{d} in range(f{d}, e{d}, STEP_{d}):']


def source(ndim: int) -> str:
    """The template's source (Inductor's template language) for a 2-D or a 3-D transposed convolution."""
    h, w = ndim - 2, ndim - 1
    depth = ndim == 3
    lines = header(ndim)
    lines += [f'    PHASE_{h} = (OUT_{h} + STRIDE_{h} - 1) // STRIDE_{h}',
              f'    PHASE_{w} = (OUT_{w} + STRIDE_{w} - 1) // STRIDE_{w}',
              f'    TILES_{h} = (PHASE_{h} + BLOCK_H - 1) // BLOCK_H',
              f'    TILES_{w} = (PHASE_{w} + BLOCK_W - 1) // BLOCK_W',
              '    rest = tl.program_id(0).to(INDEX_DTYPE)',
              f'    q{w} = rest % TILES_{w} * BLOCK_W + tl.arange(0, BLOCK_W)',
              f'    rest = rest // TILES_{w}',
              f'    q{h} = rest % TILES_{h} * BLOCK_H + tl.arange(0, BLOCK_H)',
              f'    rest = rest // TILES_{h}',
              f'    r{w} = rest % STRIDE_{w}',
              f'    rest = rest // STRIDE_{w}',
              f'    r{h} = rest % STRIDE_{h}',
              f'    rest = rest // STRIDE_{h}']
    if depth:
        lines += ['    o0 = rest % OUT_0', '    rest = rest // OUT_0']
    lines += ['    idx_n = rest',
              f'    o{h} = q{h} * STRIDE_{h} + r{h}',
              f'    o{w} = q{w} * STRIDE_{w} + r{w}',
              # the phase's output positions: q < QOUT
              f'    qout{h} = (OUT_{h} - r{h} + STRIDE_{h} - 1) // STRIDE_{h}',
              f'    qout{w} = (OUT_{w} - r{w} + STRIDE_{w} - 1) // STRIDE_{w}',
              '    group = tl.program_id(2).to(INDEX_DTYPE)',
              '    rn = tl.program_id(1).to(INDEX_DTYPE) * BLOCK_N + tl.arange(0, BLOCK_N)',
              '    col_ok = rn < GROUP_OUT_C',
              '    x_base = X + (idx_n * stride_xn + group * GROUP_IN_C * stride_xc)',
              '    w_rows = rn * stride_w1 + group * GROUP_IN_C * stride_w0',
              '    acc = tl.zeros((BLOCK_N, BLOCK_H * BLOCK_W), dtype=tl.float32)']
    x_base, w_rows, i = 'x_base', 'w_rows', '    '
    if depth:   # the depth taps t0 = f0 + k * STEP_0 with input depth (j0 - t0 * DILATION_0) / STRIDE_0 in [0, IN_0)
        lines += ['    j0 = o0 + PADDING_0',
                  '    f0 = (j0 // G_0 * INV_0) % STEP_0',
                  '    lo0 = (tl.maximum(j0 - STRIDE_0 * (IN_0 - 1), 0) + DILATION_0 - 1) // DILATION_0',
                  '    first0 = f0 + (tl.maximum(lo0 - f0, 0) + STEP_0 - 1) // STEP_0 * STEP_0',
                  '{% if G_0 > 1 %}',
                  '    e0 = tl.where(j0 % G_0 == 0, tl.minimum(j0 // DILATION_0 + 1, KERNEL_0), 0)',
                  '{% else %}',
                  '    e0 = tl.minimum(j0 // DILATION_0 + 1, KERNEL_0)',
                  '{% endif %}',
                  '    for t0 in range(first0, e0, STEP_0):',
                  '        x_depth = x_base + (j0 - t0 * DILATION_0) // STRIDE_0 * stride_x0',
                  '        w_depth = w_rows + t0 * stride_k0']
        x_base, w_rows, i = 'x_depth', 'w_depth', '        '
    lines += _phase_taps(h, f'r{h}', i)
    lines += [f'{i}    c{h} = (r{h} + PADDING_{h} - t{h} * DILATION_{h}) // STRIDE_{h}',
              f'{i}    in{h} = (q{h} >= tl.maximum(-c{h}, 0)) & (q{h} < tl.minimum(IN_{h} - c{h}, qout{h}))']
    lines += _phase_taps(w, f'r{w}', i + '    ')
    i2 = i + '        '
    lines += [f'{i2}c{w} = (r{w} + PADDING_{w} - t{w} * DILATION_{w}) // STRIDE_{w}',
              f'{i2}in{w} = (q{w} >= tl.maximum(-c{w}, 0)) & (q{w} < tl.minimum(IN_{w} - c{w}, qout{w}))',
              f'{i2}x_tap = {x_base} + ((q{h} + c{h}) * stride_x{h})[None, :, None] + '
              f'((q{w} + c{w}) * stride_x{w})[None, None, :]',
              f'{i2}x_ok = in{h}[None, :, None] & in{w}[None, None, :]',
              f'{i2}w_tap = {w_rows} + t{h} * stride_k{h} + t{w} * stride_k{w}']
    lines += k_loop(i2, 'x_tap', 'w_tap', 'stride_w0')
    lines.append('    acc = tl.reshape(acc, (BLOCK_N, BLOCK_H, BLOCK_W))')
    return "\n".join(lines + _store("col_ok", "(group * GROUP_OUT_C + rn)", "BLOCK_N", ndim)) + "\n"


@functools.lru_cache(maxsize=None)
def template(ndim: int):
    """The transposed rows template for ``ndim`` (2 or 3) spatial dimensions."""
    return _register(f"mtia_conv{ndim}d_transposed_rows", _grid, source(ndim))
