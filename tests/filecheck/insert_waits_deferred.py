# insert-waits in a loop whose stores wait for each other (-O0: control.py ``deferred_store``): each trip's store
# is left in flight under the next trip's compute.  When the stored block alternates between two buffers (one
# store, one use), the op computing it again writes the other buffer: the store's transfer is tagged
# ``alternates``, and the wait before that op, asked for where the block's store may be in flight, goes (SWAP).
# When the block has another reader it keeps one buffer, and the wait stays, before the op computing it (ONE).
# RUN: mtiacc %s --emit=asm --asm-syntax=mtia -O0 -D BLOCK=64 --kernel=scale_rows | filecheck %s --check-prefix=SWAP
# RUN: mtiacc %s --emit=asm --asm-syntax=mtia -O0 -D BLOCK=64 --kernel=scale_rows_sum | filecheck %s --check-prefix=ONE
import triton
import triton.language as tl


@triton.jit
def scale_rows(X, Y, N, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    for i in range(0, N):
        tl.store(Y + i * BLOCK + offs, x * i)


@triton.jit
def scale_rows_sum(X, Y, Z, N, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in range(0, N):
        y = x * i
        tl.store(Y + i * BLOCK + offs, y)
        acc += y
    tl.store(Z + offs, acc)

# SWAP: .Lfor{{[0-9]+}}:
# SWAP-NOT: mtia.dma
# SWAP: vfmul.vf
# SWAP-NOT: mtia.dma.{{in|out}}
# SWAP: mtia.dma.wait{{[[:space:]]+}}# the store before completes (it ran under the compute since)
# SWAP-NOT: mtia.dma.wait
# SWAP: mtia.dma.out
# SWAP: xor {{.*}} # the other buffer of the stored block
# SWAP-NOT: mtia.dma
# SWAP: blt {{.*}}, .Lfor{{[0-9]+}}

# ONE: .Lfor{{[0-9]+}}:
# ONE-NOT: mtia.dma.{{in|out}}
# ONE: mtia.dma.wait{{[[:space:]]+}}# the store of this block's last value completes before it is written
# ONE-NOT: mtia.dma
# ONE: vfmul.vf
# ONE-NOT: mtia.dma.wait
# ONE: mtia.dma.out
# ONE-NOT: mtia.dma
# ONE: blt {{.*}}, .Lfor{{[0-9]+}}
