# canonicalize: the extremes of an index range are scalar ops on its start.  tl.min(u) of the u32 offsets
# s + arange(0, 1024) (Inductor's rand4x) is s, or 0 where s + 1023 wraps past 2^32 - 1; tl.max of the i32
# offsets is s + 1023, or INT_MAX where it wraps past it.  No block, no reduction.
# RUN: mtiacc-ir %s --passes=canonicalize,dce --signature='*i32,*u32,i32' | filecheck %s
import triton
import triton.language as tl


@triton.jit
def k(A, B, s):
    offs = s + tl.arange(0, 1024)
    tl.store(B, tl.min(offs.to(tl.uint32), 0))
    tl.store(A, tl.max(offs, 0))

# CHECK: %[[U:[0-9]+]] = "tt.bitcast"(%s) : (i32) -> u32
# CHECK-NEXT: %[[K:[0-9]+]] = "arith.constant"() {value = 1023} : () -> u32
# CHECK-NEXT: %[[LAST:[0-9]+]] = "arith.addi"(%[[U]], %[[K]])
# CHECK-NEXT: %[[W:[0-9]+]] = "arith.cmpi"(%[[LAST]], %[[U]]) {predicate = "ult"}
# CHECK-NEXT: %[[Z:[0-9]+]] = "arith.constant"() {value = 0} : () -> u32
# CHECK-NEXT: "arith.select"(%[[W]], %[[Z]], %[[U]])
# CHECK: %[[L2:[0-9]+]] = "arith.addi"(%s,
# CHECK-NEXT: %[[W2:[0-9]+]] = "arith.cmpi"(%[[L2]], %s) {predicate = "slt"}
# CHECK-NEXT: %[[M:[0-9]+]] = "arith.constant"() {value = 2147483647} : () -> i32
# CHECK-NEXT: "arith.select"(%[[W2]], %[[M]], %[[L2]])
# CHECK-NOT: tt.reduce
