# The K loop's fp32 accumulator cast to bf16 (tutorial 03's tail): dot-accumulators (read-back, on by default)
# has the loop's last resident dot record {read_back = "bf16"}, and the engine's accumulator store writes bf16
# (configuration register 6, out_type = 2; acc_stride follows the 2-byte elements): no vector conversion.
# With dot-accumulators{read-back=false} nothing is fused.
# RUN: mtiacc %s --emit=ir --signature '*bf16,*bf16,*bf16,i32' --passes 'inline,carry-pointer-offsets,canonicalize,sccp,loop-unroll,canonicalize,cse,licm,canonicalize,pipeline-dots,fuse-elementwise,dce,dot-accumulators{read-back=true},access-plan,legalize-fp8' | filecheck %s --check-prefix=IR
# RUN: mtiacc %s --emit=asm --signature '*bf16,*bf16,*bf16,i32' --passes 'inline,carry-pointer-offsets,canonicalize,sccp,loop-unroll,canonicalize,cse,licm,canonicalize,pipeline-dots,fuse-elementwise,dce,dot-accumulators{read-back=true},access-plan,legalize-fp8' | filecheck %s --check-prefix=ASM
# RUN: mtiacc %s --emit=ir -O2 --signature '*bf16,*bf16,*bf16,i32' | filecheck %s --check-prefix=DEFAULT
# RUN: mtiacc %s --emit=ir --signature '*bf16,*bf16,*bf16,i32' --passes 'inline,carry-pointer-offsets,canonicalize,sccp,loop-unroll,canonicalize,cse,licm,canonicalize,pipeline-dots,fuse-elementwise,dce,dot-accumulators{read-back=false},access-plan,legalize-fp8' | filecheck %s --check-prefix=OFF
import triton
import triton.language as tl


@triton.jit
def k_loop_cast(A, B, C, K):
    rm = tl.arange(0, 64)
    rn = tl.arange(0, 64)
    rk = tl.arange(0, 32)
    acc = tl.zeros((64, 64), dtype=tl.float32)
    for k in range(0, K, 32):
        a = tl.load(A + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(B + (k + rk)[:, None] * 64 + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(C + rm[:, None] * 64 + rn[None, :], acc.to(tl.bfloat16))

# IR: "scf.for"{{.*}}pipeline_stages = 4
# IR-NOT: read_back =
# IR: "scf.yield"
# IR: %[[L:[0-9]+]] = "scf.for"
# IR: "tt.dot"({{.*}}) {accumulator = "engine", read_back = "bf16"}
# IR: "arith.truncf"(%[[L]]) : (tensor<64x64xf32>) -> tensor<64x64xbf16>

# ASM-LABEL: k_loop_cast:
# ASM: mtia.dpe.cfg {{.*}}, 6 {{.*}}# out_type = 2
# ASM-NEXT: li
# ASM-NEXT: mtia.dpe.cfg {{.*}}, 3 {{.*}}# acc_stride = 128
# ASM: mtia.dpe.acc.st
# ASM-NOT: vnsrl
# ASM-NOT: vfncvt
# ASM-NOT: tt.dot: convert
# ASM: mtia.dma.out
# ASM: ret

# DEFAULT: read_back = "bf16"

# OFF-NOT: read_back =
