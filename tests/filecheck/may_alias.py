# A launch that passes memory two pointer parameters share (`kernel[grid](a, a, z)` through mtiacc.load, or
# `--may-alias X,Y`) compiles a variant that knows it: the kernel's `may_alias` names the group, and no pass holds X
# and Y apart (mtiacc/ir/analysis/pointers.py, may_share).  The load of X after the store to Y then reads what the
# store wrote: it waits for the store (`after_store`), and persistent-programs does not fetch it a program ahead,
# above the store, as it does when X and Y are apart (the second run line: the house's assumption on distinct
# parameters).  Z, in no group, stays apart from both.
# RUN: mtiacc %s --emit=ir -O3 -D BLOCK=16 -s '*fp32,*fp32,*fp32' --may-alias X,Y | filecheck %s
# RUN: mtiacc %s --emit=ir -O3 -D BLOCK=16 -s '*fp32,*fp32,*fp32' | filecheck %s --check-prefix=APART
# RUN: mtiacc %s --emit=asm --asm-syntax=mtia -O3 -D BLOCK=16 -s '*fp32,*fp32,*fp32' --may-alias X,Y | filecheck %s --check-prefix=ASM
# RUN: not mtiacc %s --emit=ir -D BLOCK=16 -s '*fp32,*fp32,*fp32' --may-alias X,BLOCK 2>&1 | filecheck %s --check-prefix=ERR
import triton
import triton.language as tl


@triton.jit
def store_then_load(X, Y, Z, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(Y + offs, tl.load(Z + offs) + 1)
    x = tl.load(X + offs)
    tl.store(Z + offs, x * 2)

# CHECK-LABEL: sym_name = "store_then_load"
# CHECK-SAME: arg_names = ["X", "Y", "Z"], may_alias = ["X Y"]
# CHECK-NOT: scf.for
# CHECK: "tt.store"
# CHECK-SAME: loc("{{.*}}":18:5)
# CHECK: %x = "tt.load"({{.*}}after_store = "tl.store at line 18: parameters the launch passes shared memory for (may_alias)"
# CHECK-SAME: loc("{{.*}}":19:9)
# CHECK-NOT: after_store
# CHECK: "tt.store"
# CHECK-SAME: loc("{{.*}}":20:5)

# APART-LABEL: sym_name = "store_then_load"
# APART-NOT: may_alias =
# APART: "tt.load"{{.*}}loc("{{.*}}":19:9)
# APART-NOT: "tt.store"
# APART: "scf.for"{{.*}}persistent = 64
# APART: %x = "tt.load"({{.*}}prefetch = true
# APART-SAME: loc("{{.*}}":19:9)
# APART: "tt.store"
# APART-SAME: loc("{{.*}}":18:5)

# ASM-LABEL: store_then_load:
# ASM: mtia.dma.out
# ASM-NOT: mtia.dma.in
# ASM: mtia.dma.wait # a store in flight may write what the load reads (tl.store at line 18: parameters the launch passes shared memory for (may_alias))
# ASM-NOT: mtia.dma.{{out|wait}}
# ASM: mtia.dma.in

# ERR: error: --may-alias: 'BLOCK' is not a pointer parameter of 'store_then_load' (pointer parameters: X, Y, Z)
