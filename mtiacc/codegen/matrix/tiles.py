"""A 2-D ``[M, K] @ [K, N]`` on the engine as commands: the geometry of the tiles, and the loops that emit them.

``b`` is the weight operand, in tiles of at most 32 x 32 (``ldw``; ``w_trans`` when ``b`` is stored as its
``[N, K]`` transpose); ``a``'s rows stream (``mm``, all the rows of a chunk per command); the result is
``ceil(N / 32)`` column groups of accumulator rows.  Work goes group by group (the tile width, ``cfg n``, changes
only at the last, ragged group), and within a group K tile by K tile.

When ``a`` is the transpose of a block stored ``[K, M]`` (``panels``), it streams from *K panels*: the MLU
transposes the source's rows ``k0 .. k0 + kk`` (a dense ``kk x M`` block) into panel ``[M, kk]`` of a scratch
block (panel ``k0`` at ``k0 * M`` elements; ``x_stride`` ``kk`` elements), K tile by K tile
(:func:`panel_products`), so that each transpose overlaps the engine's streaming of the command before it.

Everything here works on one matrix at addresses that are integers (blocks have static local-memory offsets)
or registers (inside the batch loop of a 3-D dot).
"""
from __future__ import annotations

import dataclasses
from contextlib import contextmanager
from typing import Iterator, List, Optional, Sequence, Tuple

from mtiacc.codegen.context import Lowering
from mtiacc.codegen.matrix import engine as E
from mtiacc.codegen.matrix.engine import Addr, TILE

ACC_BYTES = 4   # accumulator elements: fp32 or int32


@dataclasses.dataclass(frozen=True)
class Geometry:
    M: int
    N: int
    K: int
    esize: int          # operand element bytes
    trans: bool         # b is stored as [N, K] (w_trans)
    type_code: int
    panels: bool = False  # a streams from K panels [M, kk] (the MLU transposes a's [K, M] source into them)

    @property
    def groups(self) -> List[Tuple[int, int]]:
        """Column groups: (first column, width)."""
        return [(n0, min(TILE, self.N - n0)) for n0 in range(0, self.N, TILE)]

    @property
    def ktiles(self) -> List[Tuple[int, int]]:
        return [(k0, min(TILE, self.K - k0)) for k0 in range(0, self.K, TILE)]

    def w_offset(self, k0: int, n0: int) -> int:
        return ((n0 * self.K + k0) if self.trans else (k0 * self.N + n0)) * self.esize

    def x_offset(self, m0: int, k0: int) -> int:
        if self.panels:
            return (k0 * self.M + m0 * min(TILE, self.K - k0)) * self.esize
        return (m0 * self.K + k0) * self.esize

    def x_stride(self, k0: int) -> int:
        """Bytes between the streamed rows of K tile ``k0``."""
        return (min(TILE, self.K - k0) if self.panels else self.K) * self.esize

    def acc_offset(self, m0: int, n0: int, esize: int = ACC_BYTES) -> int:
        return (m0 * self.N + n0) * esize

    @property
    def rows(self) -> int:
        """Accumulator rows for the whole result."""
        return self.M * len(self.groups)

    # bytes of one matrix of each operand (the batch strides)
    @property
    def a_bytes(self) -> int:
        return self.M * self.K * self.esize

    @property
    def b_bytes(self) -> int:
        return self.K * self.N * self.esize

    @property
    def acc_bytes(self) -> int:
        return self.M * self.N * ACC_BYTES


def configure(lw: Lowering, g: Geometry) -> None:
    """The configuration every command of this dot assumes (the tile width is set per group)."""
    E.config(lw, E.TYPE, g.type_code)
    E.config(lw, E.W_STRIDE, (g.K if g.trans else g.N) * g.esize)
    E.config(lw, E.X_STRIDE, g.x_stride(0))
    E.config(lw, E.ACC_STRIDE, g.N * ACC_BYTES)
    E.config(lw, E.W_TRANS, int(g.trans))


def products(lw: Lowering, g: Geometry, passes: Sequence[Tuple[Addr, Addr]], rows: Addr, rows_off: int,
             m0: int, mc: int, n0: int, width: int) -> None:
    """``acc[rows + i] += a[m0 + i, :] @ b[:, n0 : n0 + width]`` for ``i < mc``, summed over ``passes``
    (pairs of ``a``, ``b`` addresses: one, or three for the split float32 operands)."""
    E.config(lw, E.N, width)
    for a, b in passes:
        for k0, kk in g.ktiles:
            E.config(lw, E.X_STRIDE, g.x_stride(k0))
            E.ldw(lw, b, kk, g.w_offset(k0, n0))
            E.mm(lw, rows, a, mc, g.x_offset(m0, k0), rows_off)


def transpose_panel(lw: Lowering, g: Geometry, src: Addr, panels: Addr, k0: int) -> None:
    """The MLU transposes rows ``k0 .. k0 + kk`` of ``a``'s ``[K, M]`` source into K panel ``k0``."""
    kk = min(TILE, g.K - k0)
    off = k0 * g.M * g.esize
    lw.b(f"mtia.mlu.trans.e{8 * g.esize}", E.reg_of(lw.b, panels, off), E.reg_of(lw.b, src, off),
         lw.b.li((kk << 16) | g.M, "shape"), comment=f"K panel {k0}: {kk} x {g.M} -> {g.M} x {kk}")
    lw.engine.busy = True


def panel_products(lw: Lowering, g: Geometry, src: Addr, panels: Addr, b: Addr, rows: Addr) -> None:
    """``acc[rows + j * M + i] += a[i, :] @ b[:, group j]`` for every group, K tile by K tile: each K panel is
    transposed right before the first product that streams it, after that product's weight load, so that the
    transpose and the weight load both overlap the streaming of the previous product (an engine command starts
    once the transposes issued before it are done).  Per accumulator element the K tiles add in the same order
    as :func:`products`' (the same result, bit for bit)."""
    for k0, kk in g.ktiles:
        E.config(lw, E.X_STRIDE, g.x_stride(k0))
        for j, (n0, width) in enumerate(g.groups):
            E.config(lw, E.N, width)
            E.ldw(lw, b, kk, g.w_offset(k0, n0))
            if j == 0:
                transpose_panel(lw, g, src, panels, k0)
            E.mm(lw, rows, panels, g.M, g.x_offset(0, k0), j * g.M)


def init_rows(lw: Lowering, g: Geometry, acc: Optional[Addr], rows: Addr, rows_off: int, m0: int, mc: int,
              n0: int, width: int) -> None:
    """Clear the rows (``acc`` None) or load them from the fp32 / int32 matrix at ``acc``."""
    if acc is None:
        E.zero(lw, rows, mc, rows_off)
        return
    E.config(lw, E.ACC_STRIDE, g.N * ACC_BYTES)
    E.config(lw, E.N, width)
    E.acc_load(lw, rows, acc, mc, g.acc_offset(m0, n0), rows_off)


def out_bytes(read_back) -> int:
    """Bytes per element ``acc.st`` writes: 4 (fp32 / int32), 2 with ``read_back`` f16 / bf16."""
    return ACC_BYTES if read_back is None else 2


def store_rows(lw: Lowering, g: Geometry, out: Addr, rows: Addr, rows_off: int, m0: int, mc: int,
               n0: int, width: int, read_back=None) -> None:
    """``acc.st`` of the rows into the ``M x N`` matrix at ``out``: fp32 / int32, or with ``read_back``
    (``"f16"`` / ``"bf16"``) that type, the engine rounding (``out_type``); the other configuration is the
    dot's (:func:`configure`) but ``acc_stride``, which follows the element size."""
    code = 0 if read_back is None else E.OUT_CODES[read_back]
    E.config(lw, E.OUT_TYPE, code)
    E.config(lw, E.ACC_STRIDE, g.N * out_bytes(read_back))
    E.config(lw, E.N, width)
    E.acc_store(lw, out, rows, mc, g.acc_offset(m0, n0, out_bytes(read_back)), rows_off)


# --------------------------------------------------------------------------- run-time loops

@contextmanager
def counted(lw: Lowering, count: int, ptrs: Sequence[Tuple[Addr, int]]) -> Iterator[List[Addr]]:
    """A run-time loop of ``count`` iterations; yields registers starting at each ``ptrs`` address and advancing
    by its step per iteration.  A single iteration is straight-line code (the addresses stay as they are).
    The engine configuration known at the loop's top is restored at its bottom."""
    if count == 1:
        yield [p for p, _ in ptrs]
        return
    b = lw.b
    regs = []
    for p, _ in ptrs:
        r = b.x("ptr")
        if isinstance(p, int):
            b("li", r, p)
        else:
            b("mv", r, p)
        regs.append(r)
    n = b.li(count, "batch")
    top = b.new_label("batch")
    b.label(top)
    cfg = dict(lw.engine.cfg)
    yield regs
    for reg, value in sorted(cfg.items()):
        if lw.engine.cfg.get(reg) != value:
            b("mtia.dpe.cfg", b.li(value), reg, comment=f"{E.CFG_NAMES[reg]} = {value}, as the loop's top assumes")
    lw.engine.cfg = cfg
    for r, (_, step) in zip(regs, ptrs):
        if -2048 <= step < 2048:
            b("addi", r, r, step)
        else:
            b("add", r, r, b.li(step))
    b("addi", n, n, -1)
    b("bnez", n, top)


__all__ = ["Geometry", "configure", "products", "transpose_panel", "panel_products", "init_rows", "store_rows", "out_bytes", "counted", "ACC_BYTES"]
