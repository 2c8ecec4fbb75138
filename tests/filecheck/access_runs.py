# access-plan `runs`: Inductor's indices split with `%` and `//` of the flat index move one run of
# contiguous elements at a time (a bias `x0 = x % C`, a row-strided destination `x0 + 2*C*x1`), and
# so do constant strides other than 1; the plain `xindex` load stays `contiguous`.
# RUN: mtiacc %s --emit=ir -O2 -D C=24 -D XBLOCK=128 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def bias_add(in_ptr0, in_ptr1, out_ptr0, xnumel, C: tl.constexpr, XBLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = xindex % C
    x1 = xindex // C
    tmp0 = tl.load(in_ptr0 + (xindex), xmask)
    tmp1 = tl.load(in_ptr1 + (x0), xmask, eviction_policy='evict_last')
    tmp2 = tl.load(in_ptr0 + (3 * xindex), xmask)
    tl.store(out_ptr0 + (x0 + 2 * C * x1), tmp0 + tmp1 + tmp2, xmask)

# CHECK-LABEL: sym_name = "bias_add"
# CHECK: %tmp0 = "tt.load"(%{{.+}}, %xmask) {access = "contiguous"
# CHECK: %tmp1 = "tt.load"(%{{.+}}, %xmask) {access = "runs"
# CHECK: %tmp2 = "tt.load"(%{{.+}}, %xmask) {access = "runs"
# CHECK: "tt.store"(%{{.+}}, %xmask) {access = "runs"
