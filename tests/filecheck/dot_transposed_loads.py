# transposed-loads: tutorial 03's GEMM with a and b both arriving transposed (A^T x B^T: stride_am and stride_bk
# are 1, compiled as constants as Triton specializes an argument equal to 1).  Each operand tile is loaded as
# its row-major transpose (the pointer and the mask through tt.trans, one 2-D DMA per run: `wrapped-tiles`),
# and transposed back for the dot: b's tt.trans is the engine's weight path (w_trans = 1), a's is the MLU, one
# K panel of 32 rows right before the first mm that streams it (x_stride 32 elements).
# A load whose tile is also read by something other than a dot is left as it is (NOT).  One program per launch
# slot (persistent-programs off: dot_next_program.py shows the slot loop around such a kernel).
# RUN: mtiacc %s -n matmul_tt --emit=ir -O3 --disable-pass=persistent-programs -D BM=64 -D BN=64 -D BK=64 -D stride_am=1 -D stride_bk=1 \
# RUN:   --signature '*bf16,*bf16,*fp32,i32,i32,i32,i32,i32,i32' | filecheck %s --check-prefix=IR
# RUN: mtiacc %s -n matmul_tt --emit=asm --asm-syntax=mtia -O3 --disable-pass=persistent-programs -D BM=64 -D BN=64 -D BK=64 -D stride_am=1 \
# RUN:   -D stride_bk=1 --signature '*bf16,*bf16,*fp32,i32,i32,i32,i32,i32,i32' | filecheck %s --check-prefix=ASM
# RUN: mtiacc %s -n not_only_dots --emit=ir -O3 --signature '*bf16,*bf16,*fp32,*fp32,i32' \
# RUN:   | filecheck %s --check-prefix=NOT
import triton
import triton.language as tl


@triton.jit
def matmul_tt(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm,
              BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    offs_am = (tl.program_id(0) * BM + tl.arange(0, BM)) % M
    offs_bn = (tl.program_id(1) * BN + tl.arange(0, BN)) % N
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BK, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK * stride_ak
        b_ptrs += BK * stride_bk
    offs_cm = tl.program_id(0) * BM + tl.arange(0, BM)
    offs_cn = tl.program_id(1) * BN + tl.arange(0, BN)
    tl.store(c_ptr + stride_cm * offs_cm[:, None] + offs_cn[None, :], acc)


@triton.jit
def not_only_dots(a_ptr, b_ptr, c_ptr, s_ptr, M):
    rm = tl.arange(0, 32)
    rk = tl.arange(0, 32)
    a = tl.load(a_ptr + rm[:, None] + rk[None, :] * M)      # column-major, also summed
    b = tl.load(b_ptr + rk[:, None] * 32 + rm[None, :])
    tl.store(c_ptr + rm[:, None] * 32 + rm[None, :], tl.dot(a, b))
    tl.store(s_ptr + rm, tl.sum(a.to(tl.float32), axis=1))

# IR-LABEL: sym_name = "matmul_tt"
# The first trip's first-stage tiles (pipeline-dots loads them before the loop): the transposed pointer and mask
# blocks, the load, and the loop carries the loaded tile; inside, the tt.trans of the carried tile feeds the dot.
# IR: [[PA:%[0-9]+]] = "tt.trans"(%{{[0-9]+}}) {order = [1, 0]} : (tensor<64x64x!tt.ptr<bf16>>)
# IR-NEXT: [[MA:%[0-9]+]] = "tt.trans"(%{{[0-9]+}}) {order = [1, 0]} : (tensor<64x64xi1>)
# IR: [[A0:%[0-9]+]] = "tt.load"([[PA]], [[MA]], %{{[0-9]+}}, %{{[0-9]+}}) {access = "wrapped-tiles"
# IR: [[PB:%[0-9]+]] = "tt.trans"(%{{[0-9]+}}) {order = [1, 0]} : (tensor<64x64x!tt.ptr<bf16>>)
# IR-NEXT: [[MB:%[0-9]+]] = "tt.trans"(%{{[0-9]+}}) {order = [1, 0]} : (tensor<64x64xi1>)
# IR: [[B0:%[0-9]+]] = "tt.load"([[PB]], [[MB]], %{{[0-9]+}}, %{{[0-9]+}}) {access = "wrapped-tiles"
# IR: "scf.for"({{.*}}, [[A0]], [[B0]]) {pipeline_stages = 4, pipeline = 2
# IR-NEXT: ^bb0({{.*}}, %a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>):
# IR-NEXT: [[A:%[0-9]+]] = "tt.trans"(%a) {order = [1, 0]} : (tensor<64x64xbf16>) -> tensor<64x64xbf16>
# IR-NEXT: [[B:%[0-9]+]] = "tt.trans"(%b) {order = [1, 0]} : (tensor<64x64xbf16>) -> tensor<64x64xbf16>
# The second stage's tiles load the same way (prefetched before the first stage's dot).
# IR: [[PA1:%[0-9]+]] = "tt.trans"(%{{[0-9]+}}) {order = [1, 0]} : (tensor<64x64x!tt.ptr<bf16>>)
# IR-NEXT: [[MA1:%[0-9]+]] = "tt.trans"(%{{[0-9]+}}) {order = [1, 0]} : (tensor<64x64xi1>)
# IR-NEXT: "tt.load"([[PA1]], [[MA1]], %{{[0-9]+}}) {prefetch = true, access = "wrapped-tiles"
# IR: "tt.dot"([[A]], [[B]], %{{[0-9]+}}) {accumulator = "engine"}

# ASM-LABEL: matmul_tt:
# ASM: mtia.dpe.cfg {{.*}}# w_trans = 1{{$}}
# ASM: .Lfor
# ASM-NOT: mtia.dpe.mm
# ASM: mtia.dpe.cfg {{.*}}# x_stride = 64{{$}}
# ASM: mtia.dpe.ldw
# ASM-NOT: mtia.dpe.mm
# ASM: mtia.mlu.trans.e16 {{.*}}# K panel 0: 32 x 64 -> 64 x 32
# ASM-NOT: mtia.dpe.ldw
# ASM: mtia.dpe.mm
# ASM: mtia.dpe.ldw
# ASM: mtia.dpe.mm
# ASM: mtia.dpe.ldw
# ASM-NOT: mtia.dpe.mm
# ASM: mtia.mlu.trans.e16 {{.*}}# K panel 32: 32 x 64 -> 64 x 32
# ASM-NOT: mtia.dpe.ldw
# ASM: mtia.dpe.mm

# NOT-LABEL: sym_name = "not_only_dots"
# NOT-NOT: "tt.trans"
# NOT: %a = "tt.load"
# NOT-NOT: "tt.trans"
# NOT: "tt.dot"
