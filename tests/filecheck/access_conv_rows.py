# access-plan of the convolution templates of mtiacc/torch_backend/ops/conv_rows.py, as Inductor renders them
# (tests/torch/test_conv_rows.py checks that these are still the templates' kernels, for F.conv2d(x, w, stride=2,
# padding=1) of x 1 x 16 x 14 x 14, w 32 x 16 x 3 x 3 and F.conv2d(x, w, padding=1, groups=16), fp32).
# The taps are outside the K loop: each tap's input block is 3-D, channels x output rows x output columns, affine
# with a range-box mask (the channels of the group, the output rows and columns whose input is inside the image
# for that tap), so it is `tiles` (a 2-D DMA per channel, the padding the `other` fill), not the im2col gather of
# the folded template (mtia_conv2d); the weight block and the 3-D output tile are `tiles` too; nothing gathers.
# RUN: mtiacc %s --emit=ir -n conv_rows --signature '*fp32,*fp32,*fp32' | filecheck %s --check-prefix=ROWS
# RUN: mtiacc %s --emit=ir -n conv_rows --signature '*fp32,*fp32,*fp32' | filecheck %s --check-prefix=NONE
# A depthwise convolution on the vector unit: per tap the same 3-D input tile and a channels x 1 x 1 column of
# weights, both `tiles`.
# RUN: mtiacc %s --emit=ir -n conv_depthwise_rows --signature '*fp32,*fp32,*fp32' | filecheck %s --check-prefix=DW
# RUN: mtiacc %s --emit=ir -n conv_depthwise_rows --signature '*fp32,*fp32,*fp32' | filecheck %s --check-prefix=NONE
import triton
import triton.language as tl


@triton.jit
def conv_rows(arg_X, arg_W, out_ptr0):
    BLOCK_N : tl.constexpr = 16
    BLOCK_H : tl.constexpr = 2
    BLOCK_W : tl.constexpr = 8
    BLOCK_K : tl.constexpr = 16
    GROUPS : tl.constexpr = 1
    TAPS : tl.constexpr = 9
    INPUT_PRECISION : tl.constexpr = 'bf16x6'
    DOT_TYPE : tl.constexpr = tl.float32
    KERNEL_0 : tl.constexpr = 3
    STRIDE_0 : tl.constexpr = 2
    PADDING_0 : tl.constexpr = 1
    DILATION_0 : tl.constexpr = 1
    KERNEL_1 : tl.constexpr = 3
    STRIDE_1 : tl.constexpr = 2
    PADDING_1 : tl.constexpr = 1
    DILATION_1 : tl.constexpr = 1
    INDEX_DTYPE : tl.constexpr = tl.int32
    X = arg_X
    W = arg_W
    IN_C = 16
    OUT_C = 32
    stride_xn = 3136
    stride_xc = 196
    stride_w0 = 144
    stride_w1 = 9
    IN_0 = 14
    OUT_0 = 7
    stride_x0 = 14
    stride_k0 = 3
    IN_1 = 14
    OUT_1 = 7
    stride_x1 = 1
    stride_k1 = 1
    GROUP_IN_C = IN_C // GROUPS
    GROUP_OUT_C = OUT_C // GROUPS
    TILES_0 = (OUT_0 + BLOCK_H - 1) // BLOCK_H
    TILES_1 = (OUT_1 + BLOCK_W - 1) // BLOCK_W
    pid = tl.program_id(0).to(INDEX_DTYPE)
    idx_n = pid // (TILES_0 * TILES_1)
    o0 = (pid // TILES_1) % TILES_0 * BLOCK_H + tl.arange(0, BLOCK_H)
    o1 = pid % TILES_1 * BLOCK_W + tl.arange(0, BLOCK_W)
    group = tl.program_id(2).to(INDEX_DTYPE)
    rn = tl.program_id(1).to(INDEX_DTYPE) * BLOCK_N + tl.arange(0, BLOCK_N)
    col_ok = rn < GROUP_OUT_C
    x_base = X + (idx_n * stride_xn + group * GROUP_IN_C * stride_xc)
    w_rows = (group * GROUP_OUT_C + rn) * stride_w0
    acc = tl.zeros((BLOCK_N, BLOCK_H * BLOCK_W), dtype=tl.float32)
    for tap in range(TAPS):
        t0 = tap // KERNEL_1
        t1 = tap % KERNEL_1
        s0 = t0 * DILATION_0 - PADDING_0
        s1 = t1 * DILATION_1 - PADDING_1
        lo0 = (tl.maximum(-s0, 0) + STRIDE_0 - 1) // STRIDE_0
        hi0 = tl.minimum((tl.maximum(IN_0 - s0, 0) + STRIDE_0 - 1) // STRIDE_0, OUT_0)
        in0 = (o0 >= lo0) & (o0 < hi0)
        lo1 = (tl.maximum(-s1, 0) + STRIDE_1 - 1) // STRIDE_1
        hi1 = tl.minimum((tl.maximum(IN_1 - s1, 0) + STRIDE_1 - 1) // STRIDE_1, OUT_1)
        in1 = (o1 >= lo1) & (o1 < hi1)
        x_tap = x_base + ((o0 * STRIDE_0 + s0) * stride_x0)[None, :, None] + ((o1 * STRIDE_1 + s1) * stride_x1)[None, None, :]
        x_ok = in0[None, :, None] & in1[None, None, :]
        w_tap = w_rows + t0 * stride_k0 + t1 * stride_k1
        for k in range(0, GROUP_IN_C, BLOCK_K):
            rk = k + tl.arange(0, BLOCK_K)
            k_ok = rk < GROUP_IN_C
            a = tl.load(x_tap + (rk * stride_xc)[:, None, None], mask=k_ok[:, None, None] & x_ok, other=0.0)
            b = tl.load(W + (w_tap[:, None] + (rk * stride_w1)[None, :]), mask=col_ok[:, None] & k_ok[None, :], other=0.0)
            acc += tl.dot(b.to(DOT_TYPE), tl.reshape(a, (BLOCK_K, BLOCK_H * BLOCK_W)).to(DOT_TYPE), input_precision=INPUT_PRECISION)
    acc = tl.reshape(acc, (BLOCK_N, BLOCK_H, BLOCK_W))
    mask = col_ok[:, None, None] & (o0 < OUT_0)[None, :, None] & (o1 < OUT_1)[None, None, :]
    idx_c = (group * GROUP_OUT_C + rn)[:, None, None]
    idx_0 = o0[None, :, None]
    idx_1 = o1[None, None, :]
    xindex = idx_1 + 7*idx_0 + 49*idx_c + 1568*idx_n
    tl.store(out_ptr0 + (tl.broadcast_to(idx_1 + 7*idx_0 + 49*idx_c, [BLOCK_N, BLOCK_H, BLOCK_W])), acc, mask)


@triton.jit
def conv_depthwise_rows(arg_X, arg_W, out_ptr0):
    BLOCK_C : tl.constexpr = 1
    BLOCK_H : tl.constexpr = 16
    BLOCK_W : tl.constexpr = 16
    VEC_IN : tl.constexpr = 1
    VEC_OUT : tl.constexpr = 1
    GROUPS : tl.constexpr = 16
    TAPS : tl.constexpr = 9
    INPUT_PRECISION : tl.constexpr = 'bf16x6'
    DOT_TYPE : tl.constexpr = tl.float32
    KERNEL_0 : tl.constexpr = 3
    STRIDE_0 : tl.constexpr = 1
    PADDING_0 : tl.constexpr = 1
    DILATION_0 : tl.constexpr = 1
    KERNEL_1 : tl.constexpr = 3
    STRIDE_1 : tl.constexpr = 1
    PADDING_1 : tl.constexpr = 1
    DILATION_1 : tl.constexpr = 1
    INDEX_DTYPE : tl.constexpr = tl.int32
    X = arg_X
    W = arg_W
    C = 16
    stride_xn = 3136
    stride_xc = 196
    stride_w0 = 9
    IN_0 = 14
    OUT_0 = 14
    stride_x0 = 14
    stride_k0 = 3
    IN_1 = 14
    OUT_1 = 14
    stride_x1 = 1
    stride_k1 = 1
    TILES_0 = (OUT_0 + BLOCK_H - 1) // BLOCK_H
    TILES_1 = (OUT_1 + BLOCK_W - 1) // BLOCK_W
    pid = tl.program_id(0).to(INDEX_DTYPE)
    idx_n = pid // (TILES_0 * TILES_1)
    o0 = (pid // TILES_1) % TILES_0 * BLOCK_H + tl.arange(0, BLOCK_H)
    o1 = pid % TILES_1 * BLOCK_W + tl.arange(0, BLOCK_W)
    rc = tl.program_id(1).to(INDEX_DTYPE) * BLOCK_C + tl.arange(0, BLOCK_C)
    c_ok = rc < C
    x_base = X + idx_n * stride_xn + (rc * stride_xc)[:, None, None]
    w_base = W + (rc * stride_w0)[:, None, None]
    acc = tl.zeros((BLOCK_C, BLOCK_H, BLOCK_W), dtype=tl.float32)
    for tap in range(TAPS):
        t0 = tap // KERNEL_1
        t1 = tap % KERNEL_1
        s0 = t0 * DILATION_0 - PADDING_0
        s1 = t1 * DILATION_1 - PADDING_1
        lo0 = (tl.maximum(-s0, 0) + STRIDE_0 - 1) // STRIDE_0
        hi0 = tl.minimum((tl.maximum(IN_0 - s0, 0) + STRIDE_0 - 1) // STRIDE_0, OUT_0)
        in0 = (o0 >= lo0) & (o0 < hi0)
        lo1 = (tl.maximum(-s1, 0) + STRIDE_1 - 1) // STRIDE_1
        hi1 = tl.minimum((tl.maximum(IN_1 - s1, 0) + STRIDE_1 - 1) // STRIDE_1, OUT_1)
        in1 = (o1 >= lo1) & (o1 < hi1)
        x = tl.load(x_base + ((o0 * STRIDE_0 + s0) * stride_x0)[None, :, None] + ((o1 * STRIDE_1 + s1) * stride_x1)[None, None, :],
                    mask=c_ok[:, None, None] & in0[None, :, None] & in1[None, None, :], other=0.0)
        w = tl.load(w_base + (t0 * stride_k0 + t1 * stride_k1), mask=c_ok[:, None, None], other=0.0)
        acc += x.to(tl.float32) * w.to(tl.float32)
    mask = c_ok[:, None, None] & (o0 < OUT_0)[None, :, None] & (o1 < OUT_1)[None, None, :]
    idx_c = rc[:, None, None]
    idx_0 = o0[None, :, None]
    idx_1 = o1[None, None, :]
    xindex = idx_1 + 14*idx_0 + 196*idx_c + 3136*idx_n
    tl.store(out_ptr0 + (tl.broadcast_to(idx_1 + 14*idx_0 + 196*idx_c, [BLOCK_C, BLOCK_H, BLOCK_W])), acc, mask)

# ROWS-LABEL: sym_name = "conv_rows"
# ROWS: %a = "tt.load"({{.+}}) {access = "tiles"{{.+}}(tensor<16x2x8x!tt.ptr<f32>>, tensor<16x2x8xi1>
# ROWS: %b = "tt.load"({{.+}}) {access = "tiles"{{.+}}(tensor<16x16x!tt.ptr<f32>>, tensor<16x16xi1>
# ROWS: "tt.reshape"(%a) : (tensor<16x2x8xf32>) -> tensor<16x16xf32>
# ROWS: "tt.dot"(%b, %{{.+}}, %acc)
# ROWS: "tt.store"({{.+}}) {access = "tiles"{{.+}}(tensor<16x2x8x!tt.ptr<f32>>, tensor<16x2x8xf32>, tensor<16x2x8xi1>)

# NONE-NOT: access = "gather"
# NONE-NOT: access = "scatter"
# NONE-NOT: access = "elements"

# DW-LABEL: sym_name = "conv_depthwise_rows"
# DW: "tt.load"({{.+}}) {access = "tiles"{{.+}}(tensor<1x16x16x!tt.ptr<f32>>, tensor<1x16x16xi1>
# DW: "tt.load"(%w_base, {{.+}}) {access = "tiles"{{.+}}(tensor<1x1x1x!tt.ptr<f32>>
# DW: "tt.store"({{.+}}) {access = "tiles"{{.+}}(tensor<1x16x16x!tt.ptr<f32>>, tensor<1x16x16xf32>, tensor<1x16x16xi1>)
