# A comparison folds when the value ranges of its operands decide it: a range of tt.make_range seen
# through shape ops (expand_dims, reshape) and through a sum that cannot wrap.  Inductor's
# `r0_index < r0_numel` in a looped reduction, unrolled: `1024 + arange(0, 1024)[None, :] < 4096` is
# always true, so the mask is `xmask` alone.  A sum whose range straddles the bound, or wraps, stays.
# RUN: mtiacc-ir %s -O1 --signature=*fp32,i32 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def fold_ranges(Out, pid):
    r0_base = tl.arange(0, 1024)[None, :]
    xmask = (pid + tl.arange(0, 1)[:, None]) < 4096
    r0_index = 1024 + r0_base
    tl.store(Out + r0_index, r0_index.to(tl.float32), (r0_index < 4096) & xmask)
    tl.store(Out + r0_index, r0_index.to(tl.float32), (3072 + r0_base < 4000) & xmask)
    tl.store(Out + r0_index, r0_index.to(tl.float32), (2147483000 + r0_base > 0) & xmask)

# CHECK-LABEL: "tt.func"() {sym_name = "fold_ranges"
# CHECK: %xmask = "arith.cmpi"
# CHECK: [[MASK:%[0-9]+]] = "tt.broadcast"(%xmask)
# CHECK-NOT: "arith.cmpi"
# CHECK: "tt.store"({{%[0-9]+}}, {{%[0-9]+}}, [[MASK]])
# CHECK: "arith.cmpi"({{.*}}) {predicate = "slt"}
# CHECK: "tt.store"
# CHECK: "arith.cmpi"({{.*}}) {predicate = "sgt"}
# CHECK: "tt.store"
