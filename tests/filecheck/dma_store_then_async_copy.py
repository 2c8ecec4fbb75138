# An `mtia.async_copy` of bytes an earlier store writes waits for the stores in flight before its transfer, as a
# `tt.load` does (tests/filecheck/dma_store_then_load.py): access-plan writes why on the copy (`after_store`).
# RUN: mtiacc %s --emit=ir -O2 -D BLOCK=16 -s '*fp32,*fp32' | filecheck %s
# RUN: mtiacc %s --emit=asm --asm-syntax=mtia -O2 -D BLOCK=16 -s '*fp32,*fp32' | filecheck %s --check-prefix=ASM
import triton
import triton.language as tl
import mtiacc.language as mtia


@triton.jit
def copy_after_store(X, Y, BLOCK: tl.constexpr):
    buf = mtia.local_buffer((BLOCK,), tl.float32, num=1)
    offs = tl.arange(0, BLOCK)
    tl.store(Y + offs, tl.load(X + offs) + 1)
    tok = mtia.async_copy(buf, Y + offs)
    mtia.wait(tok)
    tl.store(X + offs, mtia.load(buf) * 2)

# CHECK: "mtia.async_copy"({{.*}}after_store = "tl.store at line 14: the same parameter, at overlapping offsets"

# ASM: mtia.dma.out
# ASM-NOT: mtia.dma.in
# ASM: mtia.dma.wait # a store in flight may write what the load reads (tl.store at line 14: the same parameter, at overlapping offsets)
# ASM-NOT: mtia.dma.{{out|wait}}
# ASM: mtia.dma.in
# ASM: mtia.dma.wait # mtia.wait: the copies issued so far have landed
