# A long fused chain (here Inductor's dropout: Philox's rounds, the keep decision, the scaled sum) runs two chunks
# an iteration at LMUL 2, in register groups of their own (v2-v14 and v16-v28), emitted op by op so that each
# chunk's dependent steps have the other's between them; a compare into v0 and its reader stay together per
# chunk.  The offsets are vid + add per chunk (no block in local memory), the keep decision an unsigned compare
# inverted into v0, and keep.to(f32) * x a multiply by 0.0 under that mask.
# RUN: mtiacc %s --emit=asm -O3 --signature='*i64,*fp32,*fp32,i32' | filecheck %s
# RUN: mtiacc %s --emit=asm -O3 --signature='*i64,*fp32,*fp32,i32' | filecheck %s --check-prefix=REGS
import triton
import triton.language as tl


@triton.jit
def drop(S, X, Y, N):
    offs = tl.program_id(0) * 1024 + tl.arange(0, 1024)
    m = offs < N
    seed = tl.load(S)
    keep = tl.rand(seed, offs.to(tl.uint32)) > 0.1
    x = tl.load(X + offs, m)
    tl.store(Y + offs, keep.to(tl.float32) * x * 1.1111111111111112, m)

# CHECK-LABEL: drop:
# CHECK: fmv.w.x [[FZ:f[a-z0-9]+]], zero
# CHECK: two chunks an iteration
# CHECK: .Lfused
# CHECK: vsetvli {{[a-z0-9]+}}, {{[a-z0-9]+}}, e32, m2, ta, mu
# CHECK-DAG: vid.v [[A:v([2-9]|1[0-4])]]
# CHECK-DAG: vid.v [[B:v(1[6-9]|2[0-8])]]
# CHECK: vmulhu.vx
# CHECK: vmsleu.vx v0, {{v([2-9]|1[0-4])}}
# CHECK: vfmul.vf [[XA:v[0-9]+]], [[XA]], [[FZ]], v0.t
# CHECK: vmsleu.vx v0, {{v(1[6-9]|2[0-8])}}
# CHECK: vfmul.vf [[XB:v[0-9]+]], [[XB]], [[FZ]], v0.t
# CHECK-NOT: vmerge
# CHECK: bnez

# Registers (machine/regalloc.py, spill weights): Philox's two multipliers (0xD2511F53, 0xCD9E8D57), read at
# every multiply, stay in registers through the loop (no li rebuilding them at their uses); the keys, read twice
# an iteration, are what is reloaded.
# REGS: two chunks an iteration
# REGS: .Lfused
# REGS-NOT: {{li.*, -(766435501|845247145)}}
# REGS: vmulhu.vx
# REGS-NOT: {{li.*, -(766435501|845247145)}}
# REGS: # reload
# REGS-NOT: {{li.*, -(766435501|845247145)}}
# REGS: bnez
