# The MTIA extensions in the IR: a local buffer is one mtia.local_alloc at the top level (slots first); an
# async copy is mtia.async_copy into a slot, planned like a tt.load (its prefix mask kept whole: one DMA,
# "contiguous"), returning the token a loop carries; mtia.wait and mtia.local_load follow it; the barrier is
# an acq_rel atomic add of 1 and a loop polling with an acquire add of 0; an atomic_add in SRAM records its
# memory and buffer.  At -O2 none of them is removed or merged.
# RUN: mtiacc %s --emit=ir -O2 -D BLOCK=64 --signature=*fp32,*fp32,*i32,i32 | filecheck %s
import triton
import triton.language as tl
from triton.language.extra import mtia


@triton.jit
def ext(X, Y, C, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    buf = mtia.local_buffer((BLOCK,), tl.float32, num=2)
    tok = mtia.async_copy(buf.index(0), X + offs, mask=offs < n)
    for t in range(0, 4, 2):
        for s in tl.static_range(2):
            mtia.wait(tok)
            tok = mtia.async_copy(buf.index(1 - s), X + (t + s + 1) * BLOCK + offs, mask=offs < n)
            tl.store(Y + (t + s) * BLOCK + offs, mtia.load(buf.index(s)))
    mtia.barrier(C)
    mtia.atomic_add(C + 1, 1, scope="sram")

# CHECK: %[[BUF:[0-9a-z_]+]] = "mtia.local_alloc"() : () -> tensor<2x64xf32>
# CHECK: %[[T0:[0-9]+]] = "mtia.async_copy"(%[[BUF]], %{{[0-9]+}}, %{{[0-9]+}}) {slot = 0, access = "contiguous"
# CHECK: "scf.for"({{.*}}%[[T0]])
# CHECK: "mtia.wait"(
# CHECK: "mtia.async_copy"(%[[BUF]], {{.*}}{slot = 1, access = "contiguous"
# CHECK: "mtia.local_load"(%[[BUF]]) {slot = 0} : (tensor<2x64xf32>) -> tensor<64xf32>
# CHECK: "mtia.wait"(
# CHECK: "mtia.async_copy"(%[[BUF]], {{.*}}{slot = 0, access = "contiguous"
# CHECK: "mtia.local_load"(%[[BUF]]) {slot = 1}
# CHECK: "scf.yield"(
# CHECK: "tt.atomic_rmw"({{.*}}) {kind = "add", sem = "acq_rel", scope = "gpu"
# CHECK: "scf.while"()
# CHECK: "tt.atomic_rmw"({{.*}}) {kind = "add", sem = "acquire", scope = "gpu"
# CHECK: "arith.cmpi"({{.*}}) {predicate = "slt"}
# CHECK: "scf.condition"(
# CHECK: "tt.atomic_rmw"({{.*}}) {kind = "add", sem = "acq_rel", scope = "gpu", {{.*}}memory = "sram", buffer = "C"
