# The instruction each atomic becomes: amo<op>.w for 32-bit integers, .d for 64-bit ones, amomaxu/amominu for
# unsigned max/min, amoswap for xchg (float bits through fmv.x.w / fmv.d.x), amocas with the expected value
# in rd (amocas.h for 16-bit elements), MTIA's mtia.amofadd.h/.bf/.s/.d for float adds; the ordering suffix
# is the sem: none for "relaxed", .aq "acquire", .rl "release", .aqrl "acq_rel" (the default).  A block
# atomic is a loop with one AMO per active element (the mask byte skips it).  tl.debug_barrier is fence.
# RUN: mtiacc %s --emit=asm --signature=*i32,*u32,*i64,*u64,*fp16,*bf16,*fp32,*fp64,*i16 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def amos(I, U, L, UL, H, B, F, D, S):
    tl.atomic_add(I, 1, sem="acq_rel")
    tl.atomic_add(L, 1, sem="relaxed")
    tl.atomic_max(U, 5, sem="acquire")
    tl.atomic_min(UL, 5, sem="release")
    tl.atomic_min(I, -5)
    tl.atomic_and(I, 6, sem="relaxed")
    tl.atomic_or(L, 6, sem="relaxed")
    tl.atomic_xor(U, 6, sem="relaxed")
    tl.atomic_add(H, 1.0, sem="relaxed")
    tl.atomic_add(B, 1.0, sem="relaxed")
    tl.atomic_add(F, 1.0, sem="relaxed")
    tl.atomic_add(D, 1.0, sem="relaxed")
    tl.debug_barrier()
    old = tl.atomic_xchg(D, 2.0, sem="relaxed")
    c = tl.atomic_cas(S, 1, 2, sem="acquire")
    offs = tl.arange(0, 16)
    tl.atomic_add(F + offs, 1.0, mask=offs < 10, sem="release")
    tl.store(D + 1, old + c.to(tl.float64))

# CHECK-LABEL: amos:
# CHECK: amoadd.w.aqrl
# CHECK: amoadd.d {{.+}}, ({{.+}})
# CHECK: amomaxu.w.aq
# CHECK: amominu.d.rl
# CHECK: amomin.w.aqrl
# CHECK: amoand.w {{.+}}
# CHECK: amoor.d {{.+}}
# CHECK: amoxor.w {{.+}}
# CHECK: mtia.amofadd.h {{.+}}
# CHECK: mtia.amofadd.bf {{.+}}
# CHECK: mtia.amofadd.s {{.+}}
# CHECK: mtia.amofadd.d {{.+}}
# CHECK: fence
# CHECK: amoswap.d [[OLD:[a-z0-9]+]], {{.+}}, ({{.+}})
# CHECK: fmv.d.x {{.+}}, [[OLD]]
# CHECK: amocas.h.aq {{[a-z0-9]+}}, {{[a-z0-9]+}}, ({{[a-z0-9]+}})
# CHECK: .Lamo[[LOOP:[0-9]+]]:
# CHECK-NEXT: lbu [[M:[a-z0-9]+]], 0(
# CHECK-NEXT: beqz [[M]], .Lamonext
# CHECK-NEXT: ld [[ADDR:[a-z0-9]+]], 0(
# CHECK: mtia.amofadd.s.rl {{.+}}, {{.+}}, ([[ADDR]])
# CHECK: blt {{.+}}, .Lamo[[LOOP]]
