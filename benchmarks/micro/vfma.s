# Vector FMA loop: two independent accumulators (so the FMA latency hides behind the other's occupancy),
# fp32, LMUL=8, vl = VLMAX = 128 elements: each vfmacc keeps the vector unit busy 128 * 32 / datapath cycles.
    .equ TRIPS, 2000
kernel:
    li      t0, 128
    vsetvli t1, t0, e32, m8, ta, ma
    li      s1, TRIPS
loop:
    vfmacc.vv v8, v24, v24
    vfmacc.vv v16, v24, v24
    addi    s1, s1, -1
    bnez    s1, loop
    ret
