"""SiLU over a long vector, y = x * sigmoid(x), each program walking TILES tiles of BLOCK elements:
plainly (``silu_plain``: load a tile, compute, store) and double-buffered by hand with the MTIA
extensions (``silu_double_buffer``: the copy of the next tile runs while this one is computed).

    mtiacc examples/mtia_double_buffer.py --kernel silu_plain -o plain.bin -D TILES=4 -D BLOCK=256 \\
        --signature '*fp32,*fp32,i32'
    mtiacc examples/mtia_double_buffer.py --kernel silu_double_buffer -o db.bin -D TILES=4 -D BLOCK=256 \\
        --signature '*fp32,*fp32,i32'
    python examples/inputs.py mtia_double_buffer data.npz     # x: 4 x 4 x 256 values, y: zeros, n
    mtiasim run plain.bin --inputs data.npz --grid 4 --stats -o plain.npz
    mtiasim run db.bin --inputs data.npz --grid 4 --stats -o db.npz
    python examples/inputs.py mtia_double_buffer --check data.npz plain.npz
    python examples/inputs.py mtia_double_buffer --check data.npz db.npz

(docs/language.md measures the full chip: 64 programs of TILES=8 tiles of BLOCK=1024.)

A local buffer of two slots holds the tile being computed and the next one.  Slots are named by
compile-time indices, so the loop body handles two tiles (``tl.static_range(2)``), one per slot.
``mtia.wait`` waits for every transfer issued so far (the DMA engine has one completion barrier), so the
next copy is started right after the wait, and runs during the tile's computation.  TILES must be even.
"""
import sys

import triton
import triton.language as tl
try:
    from triton.language.extra import mtia
except ImportError:   # Triton has no MTIA module (mtiacc resolves the name itself); run as a script
    import mtiacc.language as mtia


@triton.jit
def silu_plain(x_ptr, y_ptr, n, TILES: tl.constexpr, BLOCK: tl.constexpr):
    base = tl.program_id(0) * TILES * BLOCK
    offs = tl.arange(0, BLOCK)
    for t in range(TILES):
        start = base + t * BLOCK
        x = tl.load(x_ptr + start + offs, mask=start + offs < n)
        y = x / (1.0 + tl.exp(-x))
        tl.store(y_ptr + start + offs, y, mask=start + offs < n)


@triton.jit
def silu_double_buffer(x_ptr, y_ptr, n, TILES: tl.constexpr, BLOCK: tl.constexpr):
    base = tl.program_id(0) * TILES * BLOCK
    end = tl.minimum(n, base + TILES * BLOCK)     # this program's last element + 1
    offs = tl.arange(0, BLOCK)
    buf = mtia.local_buffer((BLOCK,), tl.float32, num=2)
    tok = mtia.async_copy(buf.index(0), x_ptr + base + offs, mask=base + offs < end)
    for t in range(0, TILES, 2):
        for s in tl.static_range(2):
            start = base + (t + s) * BLOCK
            mtia.wait(tok)                        # tile t + s is in slot s
            nxt = start + BLOCK                   # start copying the next tile into the other slot
            tok = mtia.async_copy(buf.index(1 - s), x_ptr + nxt + offs, mask=nxt + offs < end)
            x = mtia.load(buf.index(s))
            y = x / (1.0 + tl.exp(-x))
            tl.store(y_ptr + start + offs, y, mask=start + offs < n)

