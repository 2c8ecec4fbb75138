# insert-waits on straight-line code (-O0: no prefetch): the two loads' transfers are plain ones, so their
# zero-byte skips stay, and the one wait before the add reads them waits for every transfer (no count); the
# store's transfer is waited for once, before the program ends.
# RUN: mtiacc %s --emit=asm --asm-syntax=mtia -O0 -D BLOCK_SIZE=256 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def add_kernel(A_ptr, B_ptr, C_ptr, N, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < N
    a = tl.load(A_ptr + offsets, mask=mask)
    b = tl.load(B_ptr + offsets, mask=mask)
    tl.store(C_ptr + offsets, a + b, mask=mask)

# CHECK-NOT: mtia.dma.wait
# CHECK: beqz [[NA:[a-z0-9]+]], [[SA:.Lnodma[0-9]+]]
# CHECK-NEXT: mtia.dma.in {{.*}}, [[NA]]
# CHECK-NEXT: [[SA]]:
# CHECK-NOT: mtia.dma.wait
# CHECK: beqz [[NB:[a-z0-9]+]], [[SB:.Lnodma[0-9]+]]
# CHECK-NEXT: mtia.dma.in {{.*}}, [[NB]]
# CHECK-NEXT: [[SB]]:
# CHECK-NOT: mtia.dma.{{in|out}}
# CHECK: mtia.dma.wait{{[[:space:]]+}}# loads above complete before their data is read
# CHECK: vle32.v
# CHECK: vfadd.vv
# CHECK-NOT: mtia.dma.wait
# CHECK: mtia.dma.out
# CHECK-NOT: mtia.dma.{{in|out}}
# CHECK: mtia.dma.wait{{[[:space:]]+}}# stores complete before the program ends
# CHECK-NOT: mtia.dma
# CHECK: ret
