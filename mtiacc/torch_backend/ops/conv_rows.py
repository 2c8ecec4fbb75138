"""2-D convolutions whose loads move in rows: the taps outside the K loop, a tile of whole output rows.

The implicit GEMM of :mod:`.conv` folds the taps into K: the input block a K step reads is the im2col matrix's,
each column's input positions a different shift of the output positions, its mask a different halo of the
padding.  Its index is ``//`` and ``%`` of an ``arange`` in both dimensions and its mask no box, so the access
plan moves it, and the weight block beside it, one element at a time (``gather``): 4,096 transfers for a 64 x 64
block.  This template reads the same products in an order whose blocks are tiles:

- a program computes ``BLOCK_N`` output channels of one group at ``BLOCK_H x BLOCK_W`` output positions of one
  image (``pid 0`` = image, tile row, tile column; ``pid 1`` = the channel block; ``pid 2`` = the group): the
  accumulator is ``BLOCK_N x (BLOCK_H * BLOCK_W)``, as NCHW lays the output out;
- it loops over the kernel's taps, and inside over the group's input channels, ``BLOCK_K`` at a time.  For one
  tap ``(t0, t1)`` the input block is ``x[n, c, o0 * stride + t0 * dilation - padding, o1 * stride + ...]`` for
  ``BLOCK_K`` channels and the tile's positions: a 3-D block affine in ``(c, o0, o1)``, whose mask (the
  channels inside the group; the output rows and columns whose input for this tap lies inside the image, a
  range ``lo <= o < hi`` computed once per tap, and inside the output) is a range box.  The access plan moves it
  as ``tiles``: one 2-D DMA per channel (rows of the tile, clipped to the box; a stride above 1 reads rows of
  one element), and the padding is the ``other`` fill.  Merging its last two dimensions (``tl.reshape``) keeps
  its layout, and it is the dot's ``b``, ``BLOCK_K x positions``;
- the weight block, ``w[group's channel, c, t0, t1]`` for ``BLOCK_N`` output and ``BLOCK_K`` input channels, is
  affine too (``tiles``, one 2-D DMA of one-element rows per channel: a channel's taps lie between);
- the output is stored as a 3-D ``BLOCK_N x BLOCK_H x BLOCK_W`` tile (``tiles``: one 2-D DMA per channel for
  NCHW), its mask a prefix box, through Inductor's ``store_output`` so that epilogues fuse as before.

It takes 2-D and 3-D convolutions (a 1-D one is viewed as 2-D by :mod:`.conv`): a 3-D one's program is one
output depth, its depth taps a loop over those whose input depth lies inside the input (bounds computed once, no
mask), each a 2-D rows step as above.  Transposed ones take :mod:`.conv_transposed`'s variant.  With few input
channels a group, a K block of one tap is mostly padding of the engine's K; :mod:`.conv_cost` weighs that against
the folded template's gathers and the vector unit's template.

A convolution with at most two input channels a group (a depthwise one, with a channel multiplier or not, or groups
of two) that the cost model puts on the vector unit is the same loop without the engine (:func:`depthwise_source`):
a program sums the taps (and the group's input channels) of one output channel of ``BLOCK_C`` groups at ``BLOCK_H x
BLOCK_W`` output positions, each tap's input the same range-boxed 3-D tile (``tiles``) and its weights a ``BLOCK_C
x 1 x 1`` column (one 2-D DMA), multiplied and added in fp32; the channels it reads and writes are the groups'
input and output channel counts apart, affine.
"""
from __future__ import annotations

import functools
from typing import Sequence, Tuple


def takes(ndim: int, transposed: bool, group_in_channels: int) -> bool:
    """Whether a rows template can compute this convolution (see the module's docstring): any 2-D or 3-D one,
    transposed or not, with any number of channels a group (whether it does is :mod:`.conv_cost`'s)."""
    return ndim in (2, 3)


def _pow2_at_least(n: int) -> int:
    return 1 << max(0, n - 1).bit_length()


def blocks(out_hw: Sequence[int], block_positions: int, group_in_channels: int, block_k: int) -> Tuple[int, int, int]:
    """``(BLOCK_H, BLOCK_W, BLOCK_K)``: the cost model's ``block_positions`` output positions as whole rows of
    the output, as far as its width allows (``BLOCK_W`` its width rounded up to a power of two, at most the
    block), ``BLOCK_H`` rows of them but no more than the output has, unless the tile would hold fewer than the 16
    positions ``tl.dot`` needs (the rows past the output are masked); ``BLOCK_K`` no wider than the group's
    channels (rounded up to a power of two, at least 16)."""
    h, w = out_hw
    bw = min(_pow2_at_least(w), block_positions)
    bh = max(1, min(block_positions // bw, _pow2_at_least(h)), 16 // bw)   # tl.dot's N is at least 16
    bk = min(block_k, max(16, _pow2_at_least(group_in_channels)))
    return bh, bw, bk


def _grid(*args, cdiv):
    """The grid from the output's sizes (batch, channels, [depth,] rows, columns) and the config."""
    n, c, *outer, h, w, meta = args
    for d in outer:
        n = n * d
    return (n * cdiv(h, meta["BLOCK_H"]) * cdiv(w, meta["BLOCK_W"]), cdiv(c // meta["GROUPS"], meta["BLOCK_N"]),
            meta["GROUPS"])


def _in_range(d: int, indent: str = "        ") -> list:
    """The output indices ``o{d}`` of the tile whose input for tap ``t{d}`` lies inside the image: ``lo{d} <= o{d}
    < hi{d}`` with ``o * STRIDE + s{d}`` in ``[0, IN)`` and ``o < OUT``; without padding every output index's is,
    and only ``o < OUT`` is checked."""
    return [
        '{% if PADDING_' + str(d) + ' > 0 %}',
        f'{indent}lo{d} = (tl.maximum(-s{d}, 0) + STRIDE_{d} - 1) // STRIDE_{d}',
        f'{indent}hi{d} = tl.minimum((tl.maximum(IN_{d} - s{d}, 0) + STRIDE_{d} - 1) // STRIDE_{d}, OUT_{d})',
        f'{indent}in{d} = (o{d} >= lo{d}) & (o{d} < hi{d})',
        '{% else %}',
        f'{indent}in{d} = o{d} < OUT_{d}',
        '{% endif %}']


def _store(channel_ok: str, channel: str, block_c: str, ndim: int = 2) -> list:
    """The templates' last lines: the ``[channels, rows, columns]`` tile of ``acc`` stored through Inductor's
    ``store_output`` (epilogues fuse there), masked to the channels and the output's rows and columns (a 3-D
    convolution's output depth ``o0`` is the program's one)."""
    h, w = ndim - 2, ndim - 1
    names = ['"idx_n"', '"idx_c"'] + [f'"idx_{d}"' for d in range(ndim)]
    return ([f'    mask = {channel_ok}[:, None, None] & (o{h} < OUT_{h})[None, :, None]'
             f' & (o{w} < OUT_{w})[None, None, :]',
             f'    idx_c = {channel}[:, None, None]']
            + ['    idx_0 = o0'] * (ndim == 3)
            + [f'    idx_{h} = o{h}[None, :, None]',
               f'    idx_{w} = o{w}[None, None, :]',
               f'    {{{{store_output(({", ".join(names)}), "acc", "mask",'
               f' val_shape=("{block_c}", "BLOCK_H", "BLOCK_W"))}}}}'])


def _register(name: str, grid, source: str):
    """Inductor's template ``name`` (registered once a process: Inductor keeps its templates by name)."""
    from torch._inductor.select_algorithm import SymbolicGridFn, TritonTemplate
    existing = TritonTemplate.all_templates.get(name)
    return existing or TritonTemplate(name=name, grid=SymbolicGridFn(grid), source=source,
                                      cache_codegen_enabled_for_template=True)


def header(ndim: int) -> list:
    """The templates' first lines: the input's and the output's sizes and strides, the weight's strides."""
    lines = ['{{def_kernel("X", "W")}}',
             '    IN_C = {{size("X", 1)}}',
             '    OUT_C = {{size(None, 1)}}',
             '    stride_xn = {{stride("X", 0)}}',
             '    stride_xc = {{stride("X", 1)}}',
             '    stride_w0 = {{stride("W", 0)}}',
             '    stride_w1 = {{stride("W", 1)}}']
    for d in range(ndim):
        lines += [f'    IN_{d} = {{{{size("X", {d + 2})}}}}',
                  f'    OUT_{d} = {{{{size(None, {d + 2})}}}}',
                  f'    stride_x{d} = {{{{stride("X", {d + 2})}}}}',
                  f'    stride_k{d} = {{{{stride("W", {d + 2})}}}}']
    return lines + ['    GROUP_IN_C = IN_C // GROUPS',
                    '    GROUP_OUT_C = OUT_C // GROUPS']


def k_loop(indent: str, x_tap: str, w_tap: str, w_k: str) -> list:
    """The K loop of one tap: ``BLOCK_K`` of the group's input channels, the input a ``BLOCK_K x BLOCK_H x
    BLOCK_W`` tile, the weights ``BLOCK_N x BLOCK_K`` (``w_k`` the weight's stride along the input channels)."""
    i = indent
    return [f'{i}for k in range(0, GROUP_IN_C, BLOCK_K):',
            f'{i}    rk = k + tl.arange(0, BLOCK_K)',
            f'{i}    k_ok = rk < GROUP_IN_C',
            f'{i}    a = tl.load({x_tap} + (rk * stride_xc)[:, None, None], mask=k_ok[:, None, None] & x_ok,'
            ' other=0.0)',
            f'{i}    b = tl.load(W + ({w_tap}[:, None] + (rk * {w_k})[None, :]),'
            ' mask=col_ok[:, None] & k_ok[None, :], other=0.0)',
            f'{i}    acc += tl.dot(b.to(DOT_TYPE), tl.reshape(a, (BLOCK_K, BLOCK_H * BLOCK_W)).to(DOT_TYPE),'
            ' input_precision=INPUT_PRECISION)']


def source(ndim: int = 2) -> str:
    """The template's source (Inductor's template language) for a 2-D or a 3-D convolution: a 3-D one's program
    is one output depth ``o0``, its depth taps a loop outside the 2-D taps' over those whose input depth lies
    inside the input (``range(lo, hi)``: no mask), each a 2-D rows step."""
    h, w = ndim - 2, ndim - 1
    depth = ndim == 3
    lines = header(ndim)
    lines += [f'    TILES_{h} = (OUT_{h} + BLOCK_H - 1) // BLOCK_H',
              f'    TILES_{w} = (OUT_{w} + BLOCK_W - 1) // BLOCK_W',
              '    pid = tl.program_id(0).to(INDEX_DTYPE)']
    if depth:
        lines += [f'    idx_n = pid // (OUT_0 * TILES_{h} * TILES_{w})',
                  f'    o0 = pid // (TILES_{h} * TILES_{w}) % OUT_0']
    else:
        lines.append(f'    idx_n = pid // (TILES_{h} * TILES_{w})')
    lines += [f'    o{h} = (pid // TILES_{w}) % TILES_{h} * BLOCK_H + tl.arange(0, BLOCK_H)',
              f'    o{w} = pid % TILES_{w} * BLOCK_W + tl.arange(0, BLOCK_W)',
              '    group = tl.program_id(2).to(INDEX_DTYPE)',
              '    rn = tl.program_id(1).to(INDEX_DTYPE) * BLOCK_N + tl.arange(0, BLOCK_N)',
              '    col_ok = rn < GROUP_OUT_C',
              '    x_base = X + (idx_n * stride_xn + group * GROUP_IN_C * stride_xc)',
              '    w_rows = (group * GROUP_OUT_C + rn) * stride_w0',
              '    acc = tl.zeros((BLOCK_N, BLOCK_H * BLOCK_W), dtype=tl.float32)']
    x_base, w_rows, i = 'x_base', 'w_rows', '        '
    if depth:   # the depth taps whose input depth o0 * STRIDE_0 + t0 * DILATION_0 - PADDING_0 is in [0, IN_0)
        lines += ['    s0 = o0 * STRIDE_0 - PADDING_0',
                  '    for t0 in range((tl.maximum(-s0, 0) + DILATION_0 - 1) // DILATION_0,',
                  '                    tl.minimum((tl.maximum(IN_0 - s0, 0) + DILATION_0 - 1) // DILATION_0,'
                  ' KERNEL_0)):',
                  '        x_depth = x_base + (s0 + t0 * DILATION_0) * stride_x0',
                  '        w_depth = w_rows + t0 * stride_k0']
        x_base, w_rows, i = 'x_depth', 'w_depth', '            '
    lines += [f'{i[4:]}for tap in range({"KERNEL_1 * KERNEL_2" if depth else "TAPS"}):',
              f'{i}t{h} = tap // KERNEL_{w}',
              f'{i}t{w} = tap % KERNEL_{w}']
    for d in (h, w):   # the input index of output index o is o * STRIDE + s
        lines.append(f'{i}s{d} = t{d} * DILATION_{d} - PADDING_{d}')
    for d in (h, w):
        lines += _in_range(d, i)
    lines += [f'{i}x_tap = {x_base} + ((o{h} * STRIDE_{h} + s{h}) * stride_x{h})[None, :, None] + '
              f'((o{w} * STRIDE_{w} + s{w}) * stride_x{w})[None, None, :]',
              f'{i}x_ok = in{h}[None, :, None] & in{w}[None, None, :]',
              f'{i}w_tap = {w_rows} + t{h} * stride_k{h} + t{w} * stride_k{w}']
    lines += k_loop(i, 'x_tap', 'w_tap', 'stride_w1')
    lines.append('    acc = tl.reshape(acc, (BLOCK_N, BLOCK_H, BLOCK_W))')
    return "\n".join(lines + _store("col_ok", "(group * GROUP_OUT_C + rn)", "BLOCK_N", ndim)) + "\n"


@functools.lru_cache(maxsize=None)
def template(ndim: int = 2):
    """The rows template for ``ndim`` (2 or 3) spatial dimensions."""
    return _register(f"mtia_conv{ndim}d_rows", _grid, source(ndim))


# ---------------------------------------------------------------------------------------------- depthwise

# input channels a group may have for the vector unit's template (each a multiply-add a tap and an output)
MAX_VECTOR_GROUP_CHANNELS = 2


def takes_depthwise(ndim: int, groups: int, in_channels: int, out_channels: int) -> bool:
    """Whether the vector unit's template computes this convolution: 2-D, at most
    :data:`MAX_VECTOR_GROUP_CHANNELS` input channels a group (a depthwise convolution, with a channel multiplier
    or not, or groups of two channels), any number of output channels a group."""
    return ndim == 2 and in_channels <= MAX_VECTOR_GROUP_CHANNELS * groups and out_channels % groups == 0


# a depthwise program's block: at most this many outputs, and no fewer than MIN_DEPTHWISE_BLOCK while halving
# it still leaves PEs idle
MAX_DEPTHWISE_BLOCK = 4096
MIN_DEPTHWISE_BLOCK = 256


def depthwise_blocks(batch: int, channels: int, out_hw: Sequence[int], pes: int,
                     group_out_channels: int = 1) -> Tuple[int, int, int]:
    """``(BLOCK_C, BLOCK_H, BLOCK_W)``: whole output rows (``BLOCK_W`` the width rounded up to a power of two, at
    most 64), as many rows and groups (``channels`` of them, each ``group_out_channels`` programs) as
    :data:`MAX_DEPTHWISE_BLOCK` outputs hold; then halved, groups first, while the grid has fewer programs than
    ``pes`` and the block more than :data:`MIN_DEPTHWISE_BLOCK` outputs."""
    h, w = out_hw
    bw = min(_pow2_at_least(w), 64)
    bh = min(_pow2_at_least(h), max(1, 512 // bw))
    bc = min(_pow2_at_least(channels), max(1, MAX_DEPTHWISE_BLOCK // (bh * bw)))

    def programs(bc, bh):
        return batch * -(-channels // bc) * group_out_channels * -(-h // bh) * -(-w // bw)
    while programs(bc, bh) < pes and bc * bh * bw > MIN_DEPTHWISE_BLOCK and (bc > 1 or bh > 1):
        if bc > 1:
            bc //= 2
        else:
            bh //= 2
    return bc, bh, bw


def _depthwise_grid(*args, cdiv):
    n, c, h, w, meta = args
    return (n * cdiv(h, meta["BLOCK_H"]) * cdiv(w, meta["BLOCK_W"]),
            cdiv(meta["GROUPS"], meta["BLOCK_C"]) * meta["VEC_OUT"], 1)


def depthwise_source() -> str:
    """The vector unit's template's source (see the module's docstring).  A program sums ``BLOCK_C`` groups'
    output channel ``j`` (``VEC_OUT`` of them a group: a channel multiplier) over the taps and the group's
    ``VEC_IN`` input channels; the channels it reads and writes are ``VEC_IN`` and ``VEC_OUT`` apart, affine."""
    lines = ['{{def_kernel("X", "W")}}',
             '    C = {{size(None, 1)}}',
             '    stride_xn = {{stride("X", 0)}}',
             '    stride_xc = {{stride("X", 1)}}',
             '    stride_w0 = {{stride("W", 0)}}',
             '{% if VEC_IN > 1 %}',
             '    stride_w1 = {{stride("W", 1)}}',
             '{% endif %}']
    for d in range(2):
        lines += [f'    IN_{d} = {{{{size("X", {d + 2})}}}}',
                  f'    OUT_{d} = {{{{size(None, {d + 2})}}}}',
                  f'    stride_x{d} = {{{{stride("X", {d + 2})}}}}',
                  f'    stride_k{d} = {{{{stride("W", {d + 2})}}}}']
    lines += ['    TILES_0 = (OUT_0 + BLOCK_H - 1) // BLOCK_H',
              '    TILES_1 = (OUT_1 + BLOCK_W - 1) // BLOCK_W',
              '    pid = tl.program_id(0).to(INDEX_DTYPE)',
              '    idx_n = pid // (TILES_0 * TILES_1)',
              '    o0 = (pid // TILES_1) % TILES_0 * BLOCK_H + tl.arange(0, BLOCK_H)',
              '    o1 = pid % TILES_1 * BLOCK_W + tl.arange(0, BLOCK_W)',
              '{% if VEC_OUT > 1 or VEC_IN > 1 %}',
              '    j = tl.program_id(1).to(INDEX_DTYPE) % VEC_OUT',
              '    rc = tl.program_id(1).to(INDEX_DTYPE) // VEC_OUT * BLOCK_C + tl.arange(0, BLOCK_C)',
              '    c_ok = rc < GROUPS',
              '    oc = rc * VEC_OUT + j',
              '    x_base = X + idx_n * stride_xn + (rc * (VEC_IN * stride_xc))[:, None, None]',
              '    w_base = W + (oc * stride_w0)[:, None, None]',
              '{% else %}',
              '    rc = tl.program_id(1).to(INDEX_DTYPE) * BLOCK_C + tl.arange(0, BLOCK_C)',
              '    c_ok = rc < C',
              '    x_base = X + idx_n * stride_xn + (rc * stride_xc)[:, None, None]',
              '    w_base = W + (rc * stride_w0)[:, None, None]',
              '{% endif %}',
              '    acc = tl.zeros((BLOCK_C, BLOCK_H, BLOCK_W), dtype=tl.float32)',
              '    for tap in range(TAPS):',
              '        t0 = tap // KERNEL_1',
              '        t1 = tap % KERNEL_1']
    for d in range(2):
        lines.append(f'        s{d} = t{d} * DILATION_{d} - PADDING_{d}')
    for d in range(2):
        lines += _in_range(d)
    x = ('x_base + ((o0 * STRIDE_0 + s0) * stride_x0)[None, :, None]'
         ' + ((o1 * STRIDE_1 + s1) * stride_x1)[None, None, :]')
    x_mask = 'c_ok[:, None, None] & in0[None, :, None] & in1[None, None, :]'
    lines += ['{% if VEC_IN > 1 %}',
              f'        x_tap = {x}',
              '        x_ok = ' + x_mask,
              '        w_tap = w_base + (t0 * stride_k0 + t1 * stride_k1)',
              '        for ci in tl.static_range(VEC_IN):',
              '            x = tl.load(x_tap + ci * stride_xc, mask=x_ok, other=0.0)',
              '            w = tl.load(w_tap + ci * stride_w1, mask=c_ok[:, None, None], other=0.0)',
              '            acc += x.to(tl.float32) * w.to(tl.float32)',
              '{% else %}',
              f'        x = tl.load({x},',
              f'                    mask={x_mask}, other=0.0)',
              '        w = tl.load(w_base + (t0 * stride_k0 + t1 * stride_k1), mask=c_ok[:, None, None], other=0.0)',
              '        acc += x.to(tl.float32) * w.to(tl.float32)',
              '{% endif %}']
    store = _store("c_ok", "rc", "BLOCK_C")
    return "\n".join(lines + ['{% if VEC_OUT > 1 or VEC_IN > 1 %}', store[0], store[1].replace("rc[", "oc["),
                              '{% else %}', *store[:2], '{% endif %}', *store[2:]]) + "\n"


@functools.lru_cache(maxsize=None)
def depthwise_template():
    """The vector unit's template."""
    return _register("mtia_conv2d_depthwise_rows", _depthwise_grid, depthwise_source())
