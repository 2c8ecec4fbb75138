# The machine code of the MTIA extensions: an async copy is the load's DMA (mtia.dma.in into the slot's
# address) with no wait after it; the next op that reads local memory does not wait for it either, mtia.wait
# is mtia.dma.wait; mtia.local_load is a vector copy (a fill loop) out of the slot's address.
# RUN: mtiacc %s --emit=asm -D BLOCK=64 --signature=*fp32,*fp32 | filecheck %s
import triton
import triton.language as tl
from triton.language.extra import mtia


@triton.jit
def ext(X, Y, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    buf = mtia.local_buffer((BLOCK,), tl.float32, num=2)
    tok = mtia.async_copy(buf.index(1), X + offs)
    y = offs.to(tl.float32) * 2.0
    mtia.wait(tok)
    tl.store(Y + offs, mtia.load(buf.index(1)) + y)

# CHECK: mtia_extensions_asm.py:14: tok = mtia.async_copy(buf.index(1), X + offs)
# CHECK: li [[SLOT:[a-z0-9]+]], [[ADDR:[1-9][0-9]+]]
# CHECK-NEXT: li [[BYTES:[a-z0-9]+]], 256
# CHECK-NEXT: mtia.dma.in [[SLOT]], {{[a-z0-9]+}}, [[BYTES]]
# CHECK-NOT: mtia.dma.wait
# CHECK: mtia_extensions_asm.py:16: mtia.wait(tok)
# CHECK-NEXT: mtia.dma.wait {{.*}}# mtia.wait: the copies issued so far have landed
# CHECK: mtia_extensions_asm.py:17: tl.store(Y + offs, mtia.load(buf.index(1)) + y)
# CHECK-NEXT: li {{[a-z0-9]+}}, 64 {{.*}}# fill
# CHECK-NEXT: li {{[a-z0-9]+}}, [[ADDR]]
# CHECK: vle32.v
