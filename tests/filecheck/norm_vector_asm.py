# What layer norm's loops cost on the vector unit (mtiacc/codegen): a kept slot is read where it is ("read the
# slot where it is", no copy loop); a float scalar is the f register of a `.vf` op or of `vfmerge.vfm` (no
# broadcast group); the loop is versioned on whether the chunk is whole, and in the partial chunk's version
# the mask `cols < N` is computed per chunk in the fused loop (the scalar core subtracts the
# chunk's start from N, then vid.v, vmslt.vx) and never materialized; the variance is computed into the carried block's home (no copy at the yield); the rows'
# stores wait for each other as they issue, not at the end of each iteration, and the stored block alternates
# between two buffers (the xor of the register pointing at it).
# (prefetch-rows, off here, changes where the rows come from and go to: tests/filecheck/prefetch_rows.py.)
# RUN: mtiacc %s --emit=asm --asm-syntax=mtia -O3 -D BLOCK=256 --disable-pass=prefetch-rows | filecheck %s
import triton
import triton.language as tl


@triton.jit
def norm(X, Y, W, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    X += row * N
    Y += row * N
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(X + cols, mask=cols < N, other=0.)
    mean = tl.sum(acc, axis=0) / N
    var = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(X + cols, mask=cols < N, other=0.)
        x = tl.where(cols < N, x - mean, 0.)
        var += x * x
    rstd = 1 / tl.sqrt(tl.sum(var, axis=0) / N + 1e-5)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        w = tl.load(W + cols, mask=cols < N)
        x = tl.load(X + cols, mask=cols < N, other=0.)
        tl.store(Y + cols, (x - mean) * rstd * w, mask=cols < N)

# The variance loop: X from its slot, the mask per chunk, x - mean as vfsub.vf, where(.., 0.) as vfmerge.vfm, the sum
# into the carried block's home (the loop reads and writes one address, and no copy follows).
# CHECK: read the slot where it is
# CHECK: this branch's loads complete before the branches join
# CHECK-NEXT: .Lendif
# CHECK-NOT: tt.make_range
# the chunk is whole (N - off >= 256): the loop without its mask, `where` taking x - mean as is
# CHECK: li [[N:[a-z0-9]+]], 256
# CHECK-NEXT: blt {{[a-z0-9]+}}, [[N]], [[PARTIAL:.Lpartial[0-9]+]]
# (the sum and the square one fused multiply-add: contract-fma)
# CHECK-NEXT: tt.fused_elementwise (3 ops), its masks whole
# CHECK-NEXT: mv
# CHECK-NEXT: li [[ACC:[a-z0-9]+]], [[HOME:[0-9]+]]
# CHECK-NEXT: li [[OUT:[a-z0-9]+]], [[HOME]]
# CHECK: .Lfused{{[0-9]+}}:
# CHECK: mtia.se.fsub.vf [[D:v[0-9]+]]
# CHECK: vle32.v [[S:v[0-9]+]], ([[ACC]])
# CHECK: vfmacc.vv [[S]], [[D]], [[D]]
# CHECK: vse32.v [[S]], ([[OUT]])
# CHECK: bnez
# CHECK-NEXT: j [[WHOLE:.Lwhole[0-9]+]]
# the last, partial chunk: the mask computed per chunk
# CHECK-NEXT: [[PARTIAL]]:
# CHECK-NEXT: tt.fused_elementwise (3 ops)
# CHECK-NEXT: mv
# CHECK-NEXT: li [[ACC:[a-z0-9]+]], [[HOME:[0-9]+]]
# CHECK-NEXT: li [[OUT:[a-z0-9]+]], [[HOME]]
# CHECK: .Lfused{{[0-9]+}}:
# CHECK-DAG: mtia.se.fsub.vf
# CHECK-DAG: vid.v
# CHECK-NOT: vadd.vx
# CHECK: vmslt.vx
# CHECK: vmnand.mm v0
# CHECK: vfmerge.vfm
# CHECK: vle32.v {{v[0-9]+}}, ([[ACC]])
# CHECK: vfmacc.vv
# CHECK: vse32.v {{v[0-9]+}}, ([[OUT]])
# CHECK: bnez
# CHECK-NEXT: [[WHOLE]]:
# CHECK-NOT: # fill
# CHECK: .Lendfor
# The normalization loop (the version reading W's slot): the store waits for the previous one as it issues, the
# stored block alternates between two buffers, and the iteration does not wait at its end.
# CHECK: read the slot where it is
# CHECK: tt.fused_elementwise
# CHECK: mtia.se.fsub.vf
# CHECK: mtia.se.fmul.vf
# CHECK: the store before completes
# CHECK-NOT: this iteration's stores complete
# CHECK: mtia.dma.out
# CHECK-NOT: this iteration's stores complete
# CHECK: xor {{.*}} # the other buffer of the stored block
# CHECK-NOT: mtia.dma.wait
# CHECK: blt {{.*}}, .Lfor
