# reuse-loads on RMSNorm as TorchInductor writes it: a looped reduction over one row (XBLOCK = 1), the
# row read as `in_ptr0 + (r0_1 + r0_numel*x0)` with x0 of shape [1, 1].  At -O2 the loops stay: the first
# keeps its tiles (4 slots of [1, 64]) and the second reads them, once a run-time check finds that the
# stores to out_ptr1 do not touch the row: their tile form takes the row term `r0_numel*x0` (broadcast
# from [1, 1], its one element taken as `item()` does: reshape, max).  At -O3 loop-unroll has made both
# loops straight-line code: each load of the second loop takes the first loop's value for the same tile
# (`scf.if` on the check of the stores before it; the load on the other path).
# RUN: mtiacc %s --emit=ir -O2 -D r0_numel=256 -D R0_BLOCK=64 | filecheck %s --check-prefix=LOOPS
# RUN: mtiacc %s --emit=ir -O3 --disable-pass=persistent-programs --disable-pass=pipeline-loads -D r0_numel=256 -D R0_BLOCK=64 | filecheck %s --check-prefix=UNROLLED
import triton
import triton.language as tl


@triton.jit
def rms(in_ptr0, in_ptr1, out_ptr1, r0_numel: tl.constexpr, R0_BLOCK: tl.constexpr):
    xnumel = 512
    XBLOCK: tl.constexpr = 1
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_base = tl.arange(0, R0_BLOCK)[None, :]
    x0 = xindex
    _tmp3 = tl.full([XBLOCK, R0_BLOCK], 0, tl.float32)
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        r0_1 = r0_index
        tmp0 = tl.load(in_ptr0 + (r0_1 + r0_numel*x0), r0_mask & xmask, other=0.0)
        tmp4 = _tmp3 + tmp0 * tmp0
        _tmp3 = tl.where(r0_mask & xmask, tmp4, _tmp3)
    tmp3 = tl.sum(_tmp3, 1)[:, None]
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        r0_1 = r0_index
        tmp5 = tl.load(in_ptr0 + (r0_1 + r0_numel*x0), r0_mask & xmask, other=0.0)
        tmp13 = tl.load(in_ptr1 + (r0_1), r0_mask, other=0.0)
        tmp10 = libdevice_rsqrt = 1.0 / tl.sqrt(tmp3 / r0_numel + 1e-06)
        tl.store(out_ptr1 + (r0_1 + r0_numel*x0), tmp5 * tmp10 * tmp13, r0_mask & xmask)

# LOOPS-LABEL: sym_name = "rms"
# LOOPS: %kept0 = "mtia.local_alloc"() : () -> tensor<4x1x64xf32>
# LOOPS: "scf.for"
# LOOPS: %tmp0 = "tt.load"
# LOOPS: "mtia.slot_store"(%kept0, {{%[0-9]+}}, %tmp0)
# LOOPS: [[ROW:%[0-9]+]] = "tt.reshape"({{%[0-9]+}}) : (tensor<1x1xi32>) -> tensor<1xi32>
# LOOPS-NEXT: [[ROW1:%[0-9]+]] = "tt.reduce"([[ROW]]) {axis = 0, kind = "max"} : (tensor<1xi32>) -> i32
# LOOPS-NEXT: [[Q:%[0-9]+]] = "tt.addptr"(%in_ptr0, [[ROW1]])
# LOOPS: "tt.ptr_to_int"
# LOOPS: "tt.addptr"(%out_ptr1,
# LOOPS: "tt.ptr_to_int"
# LOOPS: [[OK:%[0-9]+]] = "arith.ori"
# LOOPS: "scf.for"
# LOOPS: "scf.if"([[OK]]) ({
# LOOPS-NEXT: "mtia.slot_load"(%kept0,
# LOOPS: }, {
# LOOPS-NEXT: %tmp5 = "tt.load"

# UNROLLED-LABEL: sym_name = "rms"
# UNROLLED-NOT: mtia.local_alloc
# UNROLLED: %tmp0 = "tt.load"([[P0:%[0-9]+]], [[M0:%[0-9]+]],
# UNROLLED: [[T1:%[0-9]+]] = "tt.load"([[P1:%[0-9]+]], [[M1:%[0-9]+]],
# UNROLLED: "tt.reduce"({{.*}}) {axis = 1, kind = "sum"}
# the first tile: no store before it, no check
# UNROLLED-NOT: "tt.load"([[P0]]
# UNROLLED: "tt.store"
# the second tile: the store of the first before it, checked
# UNROLLED: [[OK:%[0-9]+]] = "arith.ori"
# UNROLLED-NEXT: {{%[0-9]+}} = "scf.if"([[OK]]) ({
# UNROLLED-NEXT: "scf.yield"([[T1]])
# UNROLLED-NEXT: }, {
# UNROLLED-NEXT: {{%[0-9]+}} = "tt.load"([[P1]], [[M1]],
