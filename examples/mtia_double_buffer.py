"""SiLU over a long vector, y = x * sigmoid(x), each program walking TILES tiles of BLOCK elements:
plainly (``silu_plain``: load a tile, compute, store) and double-buffered by hand with the MTIA
extensions (``silu_double_buffer``: the copy of the next tile runs while this one is computed).

    mkdir -p build
    mtiacc examples/mtia_double_buffer.py --kernel silu_plain -o build/plain.bin -D TILES=4 -D BLOCK=1024 \\
        --signature '*fp32,*fp32,i32' --disable-pass pipeline-loads      # the loop as written: no copy ahead
    mtiacc examples/mtia_double_buffer.py --kernel silu_double_buffer -o build/db.bin -D TILES=4 -D BLOCK=1024 \\
        --signature '*fp32,*fp32,i32'
    python examples/inputs.py mtia_double_buffer build/data.npz     # x: 64 x 4 x 1024 values, y: zeros, n
    mtiasim run build/plain.bin --inputs build/data.npz --grid 64 --stats-json build/plain.json -o build/plain.npz
    mtiasim run build/db.bin --inputs build/data.npz --grid 64 --stats-json build/db.json -o build/db.npz
    python examples/inputs.py mtia_double_buffer --check build/data.npz build/plain.npz
    python examples/inputs.py mtia_double_buffer --check build/data.npz build/db.npz

64 programs, one per PE, each of 4 tiles of 1024 fp32 (``"cycles"`` in the two JSON files, or ``--stats``): the
plain loop takes 21,101 cycles, the double-buffered one 17,621 (-16 %): with every PE reading at once, DRAM is the
bottleneck and the copies' latency is worth hiding.  With a few programs it is not (4 programs of 4 tiles of 256:
3,793 against 3,986), and the slot copy of ``mtia.load`` costs more than the overlap saves.  By default (without
``--disable-pass pipeline-loads``) the compiler double-buffers the plain loop itself (docs/passes.md) and it takes
16,846 cycles: the extension is for loops the compiler leaves alone (a store into the buffer being read, gathers,
atomics).

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

