# access-plan of the convolution templates beyond 2-D ones on the engine, as Inductor renders them
# (tests/torch/test_conv_nd.py checks that these are still the templates' kernels, fp32):
# - conv1d_rows: F.conv1d(x, w, stride=2, padding=1), x 1 x 16 x 20, w 32 x 16 x 3: a 2-D convolution of one row
#   (mtiacc/torch_backend/ops/conv.py views it so), the rows template (ops/conv_rows.py): each tap's input block
#   channels x 1 x columns, `tiles` (a 2-D DMA per channel), the weights and the output tiles too;
# - conv3d_rows: F.conv3d(x, w, padding=1), x 1 x 16 x 4 x 6 x 6, w 32 x 16 x 3 x 3 x 3: a program one output
#   depth, its depth taps a loop bounded to the input (no mask), each a 2-D rows step: the same `tiles`;
# - conv_transposed_rows: F.conv_transpose2d(x, w, stride=2, padding=1, output_padding=1), x 1 x 16 x 5 x 5,
#   w 16 x 32 x 3 x 3: a program one stride phase of the output (ops/conv_transposed.py), its taps the phase's
#   (scf.for from f0, step 2), the input block at q + c: `tiles`, and the output stored 2 apart: `tiles`;
# - conv_vector_multiplier: F.conv2d(x, w, padding=1, groups=16), x 1 x 16 x 14 x 14, w 32 x 1 x 3 x 3 (a channel
#   multiplier of 2) and conv_vector_pairs: F.conv2d(x, w, padding=1, groups=8), w 8 x 2 x 3 x 3 (two input
#   channels a group) on the vector unit (ops/conv_rows.py's depthwise template): a tap's input a range-boxed 3-D
#   tile, its weights a column, the output channels VEC_OUT apart: all `tiles`.
# None of them gathers (the folded template's im2col blocks, `gather`, are what these replace).
# RUN: mtiacc %s --emit=ir -n conv1d_rows --signature '*fp32,*fp32,*fp32' | filecheck %s --check-prefix=C1
# RUN: mtiacc %s --emit=ir -n conv1d_rows --signature '*fp32,*fp32,*fp32' | filecheck %s --check-prefix=NONE
# RUN: mtiacc %s --emit=ir -n conv3d_rows --signature '*fp32,*fp32,*fp32' | filecheck %s --check-prefix=C3
# RUN: mtiacc %s --emit=ir -n conv3d_rows --signature '*fp32,*fp32,*fp32' | filecheck %s --check-prefix=NONE
# RUN: mtiacc %s --emit=ir -n conv_transposed_rows --signature '*fp32,*fp32,*fp32' | filecheck %s --check-prefix=T
# RUN: mtiacc %s --emit=ir -n conv_transposed_rows --signature '*fp32,*fp32,*fp32' | filecheck %s --check-prefix=NONE
# RUN: mtiacc %s --emit=ir -n conv_vector_multiplier --signature '*fp32,*fp32,*fp32' | filecheck %s --check-prefix=VM
# RUN: mtiacc %s --emit=ir -n conv_vector_multiplier --signature '*fp32,*fp32,*fp32' | filecheck %s --check-prefix=NONE
# RUN: mtiacc %s --emit=ir -n conv_vector_pairs --signature '*fp32,*fp32,*fp32' | filecheck %s --check-prefix=VP
# RUN: mtiacc %s --emit=ir -n conv_vector_pairs --signature '*fp32,*fp32,*fp32' | filecheck %s --check-prefix=NONE
import triton
import triton.language as tl


@triton.jit
def conv1d_rows(arg_X, arg_W, out_ptr0):
    BLOCK_N : tl.constexpr = 16
    BLOCK_H : tl.constexpr = 1
    BLOCK_W : tl.constexpr = 16
    BLOCK_K : tl.constexpr = 16
    GROUPS : tl.constexpr = 1
    TAPS : tl.constexpr = 3
    INPUT_PRECISION : tl.constexpr = 'bf16x6'
    DOT_TYPE : tl.constexpr = tl.float32
    KERNEL_0 : tl.constexpr = 1
    STRIDE_0 : tl.constexpr = 1
    PADDING_0 : tl.constexpr = 0
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
    stride_xn = 320
    stride_xc = 20
    stride_w0 = 48
    stride_w1 = 3
    IN_0 = 1
    OUT_0 = 1
    stride_x0 = 20
    stride_k0 = 3
    IN_1 = 20
    OUT_1 = 10
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
        in0 = o0 < OUT_0
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
    xindex = idx_1 + 10*idx_0 + 10*idx_c + 320*idx_n
    tl.store(out_ptr0 + (tl.broadcast_to(idx_1 + 10*idx_c, [BLOCK_N, BLOCK_H, BLOCK_W])), acc, mask)


@triton.jit
def conv3d_rows(arg_X, arg_W, out_ptr0):
    BLOCK_N : tl.constexpr = 16
    BLOCK_H : tl.constexpr = 2
    BLOCK_W : tl.constexpr = 8
    BLOCK_K : tl.constexpr = 16
    GROUPS : tl.constexpr = 1
    TAPS : tl.constexpr = 27
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
    KERNEL_2 : tl.constexpr = 3
    STRIDE_2 : tl.constexpr = 1
    PADDING_2 : tl.constexpr = 1
    DILATION_2 : tl.constexpr = 1
    INDEX_DTYPE : tl.constexpr = tl.int32
    X = arg_X
    W = arg_W
    IN_C = 16
    OUT_C = 32
    stride_xn = 2304
    stride_xc = 144
    stride_w0 = 432
    stride_w1 = 27
    IN_0 = 4
    OUT_0 = 4
    stride_x0 = 36
    stride_k0 = 9
    IN_1 = 6
    OUT_1 = 6
    stride_x1 = 6
    stride_k1 = 3
    IN_2 = 6
    OUT_2 = 6
    stride_x2 = 1
    stride_k2 = 1
    GROUP_IN_C = IN_C // GROUPS
    GROUP_OUT_C = OUT_C // GROUPS
    TILES_1 = (OUT_1 + BLOCK_H - 1) // BLOCK_H
    TILES_2 = (OUT_2 + BLOCK_W - 1) // BLOCK_W
    pid = tl.program_id(0).to(INDEX_DTYPE)
    idx_n = pid // (OUT_0 * TILES_1 * TILES_2)
    o0 = pid // (TILES_1 * TILES_2) % OUT_0
    o1 = (pid // TILES_2) % TILES_1 * BLOCK_H + tl.arange(0, BLOCK_H)
    o2 = pid % TILES_2 * BLOCK_W + tl.arange(0, BLOCK_W)
    group = tl.program_id(2).to(INDEX_DTYPE)
    rn = tl.program_id(1).to(INDEX_DTYPE) * BLOCK_N + tl.arange(0, BLOCK_N)
    col_ok = rn < GROUP_OUT_C
    x_base = X + (idx_n * stride_xn + group * GROUP_IN_C * stride_xc)
    w_rows = (group * GROUP_OUT_C + rn) * stride_w0
    acc = tl.zeros((BLOCK_N, BLOCK_H * BLOCK_W), dtype=tl.float32)
    s0 = o0 * STRIDE_0 - PADDING_0
    for t0 in range((tl.maximum(-s0, 0) + DILATION_0 - 1) // DILATION_0,
                    tl.minimum((tl.maximum(IN_0 - s0, 0) + DILATION_0 - 1) // DILATION_0, KERNEL_0)):
        x_depth = x_base + (s0 + t0 * DILATION_0) * stride_x0
        w_depth = w_rows + t0 * stride_k0
        for tap in range(KERNEL_1 * KERNEL_2):
            t1 = tap // KERNEL_2
            t2 = tap % KERNEL_2
            s1 = t1 * DILATION_1 - PADDING_1
            s2 = t2 * DILATION_2 - PADDING_2
            lo1 = (tl.maximum(-s1, 0) + STRIDE_1 - 1) // STRIDE_1
            hi1 = tl.minimum((tl.maximum(IN_1 - s1, 0) + STRIDE_1 - 1) // STRIDE_1, OUT_1)
            in1 = (o1 >= lo1) & (o1 < hi1)
            lo2 = (tl.maximum(-s2, 0) + STRIDE_2 - 1) // STRIDE_2
            hi2 = tl.minimum((tl.maximum(IN_2 - s2, 0) + STRIDE_2 - 1) // STRIDE_2, OUT_2)
            in2 = (o2 >= lo2) & (o2 < hi2)
            x_tap = x_depth + ((o1 * STRIDE_1 + s1) * stride_x1)[None, :, None] + ((o2 * STRIDE_2 + s2) * stride_x2)[None, None, :]
            x_ok = in1[None, :, None] & in2[None, None, :]
            w_tap = w_depth + t1 * stride_k1 + t2 * stride_k2
            for k in range(0, GROUP_IN_C, BLOCK_K):
                rk = k + tl.arange(0, BLOCK_K)
                k_ok = rk < GROUP_IN_C
                a = tl.load(x_tap + (rk * stride_xc)[:, None, None], mask=k_ok[:, None, None] & x_ok, other=0.0)
                b = tl.load(W + (w_tap[:, None] + (rk * stride_w1)[None, :]), mask=col_ok[:, None] & k_ok[None, :], other=0.0)
                acc += tl.dot(b.to(DOT_TYPE), tl.reshape(a, (BLOCK_K, BLOCK_H * BLOCK_W)).to(DOT_TYPE), input_precision=INPUT_PRECISION)
    acc = tl.reshape(acc, (BLOCK_N, BLOCK_H, BLOCK_W))
    mask = col_ok[:, None, None] & (o1 < OUT_1)[None, :, None] & (o2 < OUT_2)[None, None, :]
    idx_c = (group * GROUP_OUT_C + rn)[:, None, None]
    idx_0 = o0
    idx_1 = o1[None, :, None]
    idx_2 = o2[None, None, :]
    xindex = idx_2 + 6*idx_1 + 36*idx_0 + 144*idx_c + 4608*idx_n
    tl.store(out_ptr0 + (tl.broadcast_to(idx_2 + 6*idx_1 + 36*idx_0 + 144*idx_c, [BLOCK_N, BLOCK_H, BLOCK_W])), acc, mask)


@triton.jit
def conv_transposed_rows(arg_X, arg_W, out_ptr0):
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
    STEP_0 : tl.constexpr = 2
    G_0 : tl.constexpr = 1
    INV_0 : tl.constexpr = 1
    STEP_1 : tl.constexpr = 2
    G_1 : tl.constexpr = 1
    INV_1 : tl.constexpr = 1
    INDEX_DTYPE : tl.constexpr = tl.int32
    X = arg_X
    W = arg_W
    IN_C = 16
    OUT_C = 32
    stride_xn = 400
    stride_xc = 25
    stride_w0 = 288
    stride_w1 = 9
    IN_0 = 5
    OUT_0 = 10
    stride_x0 = 5
    stride_k0 = 3
    IN_1 = 5
    OUT_1 = 10
    stride_x1 = 1
    stride_k1 = 1
    GROUP_IN_C = IN_C // GROUPS
    GROUP_OUT_C = OUT_C // GROUPS
    PHASE_0 = (OUT_0 + STRIDE_0 - 1) // STRIDE_0
    PHASE_1 = (OUT_1 + STRIDE_1 - 1) // STRIDE_1
    TILES_0 = (PHASE_0 + BLOCK_H - 1) // BLOCK_H
    TILES_1 = (PHASE_1 + BLOCK_W - 1) // BLOCK_W
    rest = tl.program_id(0).to(INDEX_DTYPE)
    q1 = rest % TILES_1 * BLOCK_W + tl.arange(0, BLOCK_W)
    rest = rest // TILES_1
    q0 = rest % TILES_0 * BLOCK_H + tl.arange(0, BLOCK_H)
    rest = rest // TILES_0
    r1 = rest % STRIDE_1
    rest = rest // STRIDE_1
    r0 = rest % STRIDE_0
    rest = rest // STRIDE_0
    idx_n = rest
    o0 = q0 * STRIDE_0 + r0
    o1 = q1 * STRIDE_1 + r1
    qout0 = (OUT_0 - r0 + STRIDE_0 - 1) // STRIDE_0
    qout1 = (OUT_1 - r1 + STRIDE_1 - 1) // STRIDE_1
    group = tl.program_id(2).to(INDEX_DTYPE)
    rn = tl.program_id(1).to(INDEX_DTYPE) * BLOCK_N + tl.arange(0, BLOCK_N)
    col_ok = rn < GROUP_OUT_C
    x_base = X + (idx_n * stride_xn + group * GROUP_IN_C * stride_xc)
    w_rows = rn * stride_w1 + group * GROUP_IN_C * stride_w0
    acc = tl.zeros((BLOCK_N, BLOCK_H * BLOCK_W), dtype=tl.float32)
    f0 = ((r0 + PADDING_0) // G_0 * INV_0) % STEP_0
    e0 = KERNEL_0
    for t0 in range(f0, e0, STEP_0):
        c0 = (r0 + PADDING_0 - t0 * DILATION_0) // STRIDE_0
        in0 = (q0 >= tl.maximum(-c0, 0)) & (q0 < tl.minimum(IN_0 - c0, qout0))
        f1 = ((r1 + PADDING_1) // G_1 * INV_1) % STEP_1
        e1 = KERNEL_1
        for t1 in range(f1, e1, STEP_1):
            c1 = (r1 + PADDING_1 - t1 * DILATION_1) // STRIDE_1
            in1 = (q1 >= tl.maximum(-c1, 0)) & (q1 < tl.minimum(IN_1 - c1, qout1))
            x_tap = x_base + ((q0 + c0) * stride_x0)[None, :, None] + ((q1 + c1) * stride_x1)[None, None, :]
            x_ok = in0[None, :, None] & in1[None, None, :]
            w_tap = w_rows + t0 * stride_k0 + t1 * stride_k1
            for k in range(0, GROUP_IN_C, BLOCK_K):
                rk = k + tl.arange(0, BLOCK_K)
                k_ok = rk < GROUP_IN_C
                a = tl.load(x_tap + (rk * stride_xc)[:, None, None], mask=k_ok[:, None, None] & x_ok, other=0.0)
                b = tl.load(W + (w_tap[:, None] + (rk * stride_w0)[None, :]), mask=col_ok[:, None] & k_ok[None, :], other=0.0)
                acc += tl.dot(b.to(DOT_TYPE), tl.reshape(a, (BLOCK_K, BLOCK_H * BLOCK_W)).to(DOT_TYPE), input_precision=INPUT_PRECISION)
    acc = tl.reshape(acc, (BLOCK_N, BLOCK_H, BLOCK_W))
    mask = col_ok[:, None, None] & (o0 < OUT_0)[None, :, None] & (o1 < OUT_1)[None, None, :]
    idx_c = (group * GROUP_OUT_C + rn)[:, None, None]
    idx_0 = o0[None, :, None]
    idx_1 = o1[None, None, :]
    xindex = idx_1 + 10*idx_0 + 100*idx_c + 3200*idx_n
    tl.store(out_ptr0 + (tl.broadcast_to(idx_1 + 10*idx_0 + 100*idx_c, [BLOCK_N, BLOCK_H, BLOCK_W])), acc, mask)


@triton.jit
def conv_vector_multiplier(arg_X, arg_W, out_ptr0):
    BLOCK_C : tl.constexpr = 1
    BLOCK_H : tl.constexpr = 16
    BLOCK_W : tl.constexpr = 16
    VEC_IN : tl.constexpr = 1
    VEC_OUT : tl.constexpr = 2
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
    C = 32
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
    j = tl.program_id(1).to(INDEX_DTYPE) % VEC_OUT
    rc = tl.program_id(1).to(INDEX_DTYPE) // VEC_OUT * BLOCK_C + tl.arange(0, BLOCK_C)
    c_ok = rc < GROUPS
    oc = rc * VEC_OUT + j
    x_base = X + idx_n * stride_xn + (rc * (VEC_IN * stride_xc))[:, None, None]
    w_base = W + (oc * stride_w0)[:, None, None]
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
    idx_c = oc[:, None, None]
    idx_0 = o0[None, :, None]
    idx_1 = o1[None, None, :]
    xindex = idx_1 + 14*idx_0 + 196*idx_c + 6272*idx_n
    tl.store(out_ptr0 + (tl.broadcast_to(idx_1 + 14*idx_0 + 196*idx_c, [BLOCK_C, BLOCK_H, BLOCK_W])), acc, mask)


@triton.jit
def conv_vector_pairs(arg_X, arg_W, out_ptr0):
    BLOCK_C : tl.constexpr = 1
    BLOCK_H : tl.constexpr = 16
    BLOCK_W : tl.constexpr = 16
    VEC_IN : tl.constexpr = 2
    VEC_OUT : tl.constexpr = 1
    GROUPS : tl.constexpr = 8
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
    C = 8
    stride_xn = 3136
    stride_xc = 196
    stride_w0 = 18
    stride_w1 = 9
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
    j = tl.program_id(1).to(INDEX_DTYPE) % VEC_OUT
    rc = tl.program_id(1).to(INDEX_DTYPE) // VEC_OUT * BLOCK_C + tl.arange(0, BLOCK_C)
    c_ok = rc < GROUPS
    oc = rc * VEC_OUT + j
    x_base = X + idx_n * stride_xn + (rc * (VEC_IN * stride_xc))[:, None, None]
    w_base = W + (oc * stride_w0)[:, None, None]
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
        x_tap = x_base + ((o0 * STRIDE_0 + s0) * stride_x0)[None, :, None] + ((o1 * STRIDE_1 + s1) * stride_x1)[None, None, :]
        x_ok = c_ok[:, None, None] & in0[None, :, None] & in1[None, None, :]
        w_tap = w_base + (t0 * stride_k0 + t1 * stride_k1)
        for ci in tl.static_range(VEC_IN):
            x = tl.load(x_tap + ci * stride_xc, mask=x_ok, other=0.0)
            w = tl.load(w_tap + ci * stride_w1, mask=c_ok[:, None, None], other=0.0)
            acc += x.to(tl.float32) * w.to(tl.float32)
    mask = c_ok[:, None, None] & (o0 < OUT_0)[None, :, None] & (o1 < OUT_1)[None, None, :]
    idx_c = oc[:, None, None]
    idx_0 = o0[None, :, None]
    idx_1 = o1[None, None, :]
    xindex = idx_1 + 14*idx_0 + 196*idx_c + 1568*idx_n
    tl.store(out_ptr0 + (tl.broadcast_to(idx_1 + 14*idx_0 + 196*idx_c, [BLOCK_C, BLOCK_H, BLOCK_W])), acc, mask)

# C1-LABEL: sym_name = "conv1d_rows"
# C1: %a = "tt.load"({{.+}}) {access = "tiles"{{.+}}(tensor<16x1x16x!tt.ptr<f32>>, tensor<16x1x16xi1>
# C1: %b = "tt.load"({{.+}}) {access = "tiles"{{.+}}(tensor<16x16x!tt.ptr<f32>>, tensor<16x16xi1>
# C1: "tt.reshape"(%a) : (tensor<16x1x16xf32>) -> tensor<16x16xf32>
# C1: "tt.store"({{.+}}) {access = "tiles"{{.+}}(tensor<16x1x16x!tt.ptr<f32>>, tensor<16x1x16xf32>, tensor<16x1x16xi1>)

# C3-LABEL: sym_name = "conv3d_rows"
# C3: "scf.for"
# C3: %a = "tt.load"({{.+}}) {access = "tiles"{{.+}}(tensor<16x2x8x!tt.ptr<f32>>, tensor<16x2x8xi1>
# C3: %b = "tt.load"({{.+}}) {access = "tiles"{{.+}}(tensor<16x16x!tt.ptr<f32>>, tensor<16x16xi1>
# C3: "tt.store"({{.+}}) {access = "tiles"{{.+}}(tensor<16x2x8x!tt.ptr<f32>>, tensor<16x2x8xf32>, tensor<16x2x8xi1>)

# T-LABEL: sym_name = "conv_transposed_rows"
# T: "scf.for"(%f0,
# T: "scf.for"(%f1,
# T: %a = "tt.load"({{.+}}) {access = "tiles"{{.+}}(tensor<16x2x8x!tt.ptr<f32>>, tensor<16x2x8xi1>
# T: %b = "tt.load"({{.+}}) {access = "tiles"{{.+}}(tensor<16x16x!tt.ptr<f32>>, tensor<16x16xi1>
# T: "tt.store"({{.+}}) {access = "tiles"{{.+}}(tensor<16x2x8x!tt.ptr<f32>>, tensor<16x2x8xf32>, tensor<16x2x8xi1>)

# VM-LABEL: sym_name = "conv_vector_multiplier"
# VM: "tt.load"({{.+}}) {access = "tiles"{{.+}}(tensor<1x16x16x!tt.ptr<f32>>, tensor<1x16x16xi1>
# VM: "tt.load"(%w_base, {{.+}}) {access = "tiles"{{.+}}(tensor<1x1x1x!tt.ptr<f32>>
# VM: "tt.store"({{.+}}) {access = "tiles"{{.+}}(tensor<1x16x16x!tt.ptr<f32>>, tensor<1x16x16xf32>, tensor<1x16x16xi1>)

# VP-LABEL: sym_name = "conv_vector_pairs"
# VP: "tt.load"(%x_tap, %x_ok, {{.+}}) {access = "tiles"{{.+}}(tensor<1x16x16x!tt.ptr<f32>>, tensor<1x16x16xi1>
# VP: "tt.load"(%w_base, {{.+}}) {access = "tiles"{{.+}}(tensor<1x1x1x!tt.ptr<f32>>
# VP: "tt.load"({{.+}}, %x_ok, {{.+}}) {access = "tiles"{{.+}}(tensor<1x16x16x!tt.ptr<f32>>, tensor<1x16x16xi1>
# VP: "tt.store"({{.+}}) {access = "tiles"{{.+}}(tensor<1x16x16x!tt.ptr<f32>>, tensor<1x16x16xf32>, tensor<1x16x16xi1>)

# NONE-NOT: access = "gather"
# NONE-NOT: access = "scatter"
# NONE-NOT: access = "elements"
