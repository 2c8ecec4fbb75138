# An fp32 tl.dot on the matrix engine: each operand is split into bf16 parts by one strip-mined loop per operand
# (LMUL 8: 128 elements a trip, the f32 block read once), each part rounded to nearest by integer arithmetic on
# the bits (+0x8000; & 0xFFFF0000 is the part as an f32, subtracted on the SE's ALU) at e32, then every part
# narrowed (>> 16) and stored at e16: two vtype changes a trip.  bf16x6's third part is the rest itself (exact:
# no rounding), bf16x3 rounds its second.  Then the passes, the smallest first.
# RUN: mtiacc %s --emit=asm --asm-syntax=mtia -n dot6 --signature '*fp32,*fp32,*fp32' | filecheck %s --check-prefix=SIX
# RUN: mtiacc %s --emit=asm --asm-syntax=mtia -n dot3 --signature '*fp32,*fp32,*fp32' | filecheck %s --check-prefix=THREE
import triton
import triton.language as tl


@triton.jit
def dot6(A, B, C):
    rm = tl.arange(0, 32)
    rn = tl.arange(0, 32)
    rk = tl.arange(0, 64)
    a = tl.load(A + rm[:, None] * 64 + rk[None, :])
    b = tl.load(B + rk[:, None] * 32 + rn[None, :])
    tl.store(C + rm[:, None] * 32 + rn[None, :], tl.dot(a, b, input_precision="bf16x6"))


@triton.jit
def dot3(A, B, C):
    rm = tl.arange(0, 32)
    rn = tl.arange(0, 32)
    rk = tl.arange(0, 64)
    a = tl.load(A + rm[:, None] * 64 + rk[None, :])
    b = tl.load(B + rk[:, None] * 32 + rn[None, :])
    tl.store(C + rm[:, None] * 32 + rn[None, :], tl.dot(a, b, input_precision="bf16x3"))

# SIX-LABEL: dot6:
# SIX: li [[N:[a-z0-9]+]], 2048 {{.*}}# tt.dot: bf16 split
# SIX: li [[HALF:[a-z0-9]+]], 32768
# SIX: li [[HIGH:[a-z0-9]+]], -65536
# SIX: [[TOP:.Lvsplit[0-9]+]]:
# SIX-NEXT: vsetvli [[VL:[a-z0-9]+]], [[N]], e32, m8, ta, ma
# SIX-NEXT: vle32.v v8,
# SIX-NOT: vle
# SIX: vadd.vx v16, v8, [[HALF]]
# SIX: vand.vx v24, v16, [[HIGH]]
# SIX-NEXT: mtia.se.fsub.vv v8, v8, v24
# SIX-NEXT: vadd.vx v24, v8, [[HALF]]
# SIX-NEXT: vand.vx v0, v24, [[HIGH]]
# SIX-NEXT: mtia.se.fsub.vv v8, v8, v0
# SIX-NEXT: vsetvli zero, [[VL]], e16, m4, ta, ma
# SIX-NEXT: vnsrl.wi v0, v16, 16
# SIX-NEXT: vnsrl.wi v4, v24, 16
# SIX-DAG: vnsrl.wi v16, v8, 16
# SIX-DAG: vse16.v v0,
# SIX-DAG: vse16.v v4,
# SIX: vse16.v v16,
# SIX-NOT: vsetvli
# SIX: bnez [[N]], [[TOP]]
# SIX: # tt.dot: bf16 split
# SIX: .Lvsplit{{[0-9]+}}:
# SIX-NOT: tt.dot: bf16 split
# SIX-COUNT-12: mtia.dpe.mm
# SIX-NOT: mtia.dpe.mm
# SIX: mtia.dpe.acc.st

# THREE-LABEL: dot3:
# THREE: # tt.dot: bf16 split
# THREE: [[TOP:.Lvsplit[0-9]+]]:
# THREE-NEXT: vsetvli [[VL:[a-z0-9]+]], {{.*}}, e32, m8, ta, ma
# THREE-NEXT: vle32.v v8,
# THREE: vadd.vx v16, v8,
# THREE: vand.vx v24, v16,
# THREE-NEXT: mtia.se.fsub.vv v8, v8, v24
# THREE-NEXT: vadd.vx v24, v8,
# THREE-NEXT: vsetvli zero, [[VL]], e16, m4, ta, ma
# THREE-NEXT: vnsrl.wi v0, v16, 16
# THREE-NEXT: vnsrl.wi v4, v24, 16
# THREE-NOT: vand.vx
# THREE: bnez {{.*}}, [[TOP]]
# THREE: # tt.dot: bf16 split
# THREE-NOT: tt.dot: bf16 split
# THREE-COUNT-6: mtia.dpe.mm
# THREE-NOT: mtia.dpe.mm
# THREE: mtia.dpe.acc.st
