# fuse-elementwise: the chain y = exp(x * s + 1) * x becomes one tt.fused_elementwise whose region
# runs the ops on scalars; the splat of s enters as the scalar s, the block constant 1.0 as a scalar
# constant; `t` is used outside the chain (stored) and is a result too.  The offsets and the mask
# (read structurally by loads and stores) stay outside.
# RUN: mtiacc-ir %s --passes=canonicalize,fuse-elementwise,dce -D BLOCK=64 --signature='*fp32,*fp32,*fp32,i32,fp32' | filecheck %s
# RUN: mtiacc %s --emit=asm -O2 -D BLOCK=64 --signature='*fp32,*fp32,*fp32,i32,fp32' | filecheck %s --check-prefix=ASM
import triton
import triton.language as tl


@triton.jit
def chain(X, Y, T, N, s, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    x = tl.load(X + offs, mask=m)
    t = x * s + 1.0
    tl.store(T + offs, t, mask=m)
    tl.store(Y + offs, tl.exp(t) * x, mask=m)

# CHECK: %offs = "arith.addi"
# CHECK: %m = "arith.cmpi"(%offs
# CHECK: %x = "tt.load"
# CHECK: %t, %[[Y:[0-9]+]] = "tt.fused_elementwise"(%x, %s) {operandSegmentSizes = [2]} ({
# CHECK-NEXT: ^bb0(%[[A:[0-9]+]]: f32, %[[S:[0-9]+]]: f32):
# CHECK-NEXT: %[[ONE:[0-9]+]] = "arith.constant"() {value = 1.0} : () -> f32
# CHECK-NEXT: %[[MUL:[0-9]+]] = "arith.mulf"(%[[A]], %[[S]]) : (f32, f32) -> f32
# CHECK-NEXT: %[[T:[0-9]+]] = "arith.addf"(%[[MUL]], %[[ONE]]) : (f32, f32) -> f32
# CHECK-NEXT: %[[E:[0-9]+]] = "math.exp"(%[[T]]) {approx = true} : (f32) -> f32
# CHECK-NEXT: %[[R:[0-9]+]] = "arith.mulf"(%[[E]], %[[A]]) : (f32, f32) -> f32
# CHECK-NEXT: "tt.fused_yield"(%[[T]], %[[R]])
# CHECK-NEXT: }) : (tensor<64xf32>, f32) -> (tensor<64xf32>, tensor<64xf32>)
# CHECK-NOT: "arith.mulf"
# CHECK: "tt.store"({{.*}}, %t, %m)
# CHECK: "tt.store"({{.*}}, %[[Y]], %m)

# One loop: x loaded once per chunk, t and the result stored, nothing else through local memory.  A compile
# contracts x * s + 1.0 first (contract-fma): three ops, the multiply-add one vfmacc.vf into 1.0's broadcast.
# ASM: # tt.fused_elementwise (3 ops)
# ASM: .Lfused{{[0-9]+}}:
# ASM-NEXT: vsetvli {{.*}}, e32, m4, ta, ma
# ASM-NOT: vsetvli {{.*}}, m8
# ASM: vle32.v
# ASM-NOT: vle32.v
# ASM: vfmacc.vf
# ASM-NOT: vle32.v
# ASM: vse32.v
# ASM-NOT: vle32.v
# ASM: vse32.v
# ASM-NOT: vle32.v
# ASM: bnez {{.*}}, .Lfused
