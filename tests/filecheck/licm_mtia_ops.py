# licm leaves every load in a loop that holds an MTIA memory op (mtia.async_copy, mtia.wait, mtia.local_load):
# those write memory the pointer-parameter rule does not track, so the scale S stays read in each iteration, while
# the same load in a loop without them leaves it.  (mtia.local_alloc only reserves a buffer: not a writer.)
# RUN: mtiacc %s --emit=ir -O2 -D BLOCK=64 --signature=*fp32,*fp32,*fp32,i32 | filecheck %s
import triton
import triton.language as tl
from triton.language.extra import mtia


@triton.jit
def copied(X, Y, S, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    buf = mtia.local_buffer((BLOCK,), tl.float32, num=1)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(0, 4):
        s = tl.load(S)
        tok = mtia.async_copy(buf.index(0), X + i * BLOCK + offs, mask=offs < n)
        mtia.wait(tok)
        acc += mtia.load(buf.index(0)) * s
    for i in range(0, 4):
        acc += tl.load(X + i * BLOCK + offs) * tl.load(S + 1)
    tl.store(Y + offs, acc)

# CHECK-LABEL: "tt.func"
# CHECK: "scf.for"
# CHECK-NEXT: ^bb0
# CHECK-NEXT: %s = "tt.load"(%S)
# CHECK: "mtia.async_copy"
# CHECK: "scf.yield"
# CHECK: "tt.load"(%{{.+}}) {access = "scalar"
# CHECK: "scf.for"
