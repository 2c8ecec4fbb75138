# tl.atomic_*: one tt.atomic_rmw / tt.atomic_cas per call with Triton's defaults (sem "acq_rel", scope "gpu"),
# the kind by element type (unsigned max -> umax, float add -> fadd), the value broadcast to the pointer's
# shape and converted to its element type; a float atomic_max is Triton's pair of integer atomics on the
# bits (signed max where the value's sign bit is clear, unsigned min where it is set).  tl.debug_barrier is
# tt.barrier; tl.load(volatile=True) is marked.  Atomics with unused results, and two identical ones, survive
# CSE, DCE and LICM, and every -O2 pass (11 tt.atomic_rmw, one tt.atomic_cas).
# RUN: mtiacc-ir %s --passes=canonicalize,cse,dce,licm --signature=*fp32,*u32,*i64,*fp16,i32 | filecheck %s
# RUN: mtiacc-ir %s -O2 --signature=*fp32,*u32,*i64,*fp16,i32 | filecheck %s --check-prefix=O2
import triton
import triton.language as tl


@triton.jit
def atomics(F, U, L, H, n):
    offs = tl.arange(0, 8)
    tl.atomic_add(F + offs, 1.0, mask=offs < n)
    tl.atomic_max(U + offs, 7, sem="relaxed")
    tl.atomic_min(L, n, sem="release", scope="cta")
    tl.atomic_add(H, 1.5, sem="acquire", scope="sys")
    tl.atomic_and(U, 3)
    tl.atomic_and(U, 3)
    tl.atomic_or(U, 3)
    tl.atomic_xor(L, n)
    old = tl.atomic_xchg(F, 2.0)
    tl.debug_barrier()
    c = tl.atomic_cas(U + offs, 0, 1)
    m = tl.atomic_max(F + offs, tl.load(F + offs + 8))
    while tl.load(U, volatile=True) == 0:
        pass
    tl.store(F + offs + 16, m + old + c.to(tl.float32))

# CHECK-LABEL: sym_name = "atomics"
# CHECK: "tt.atomic_rmw"(%{{.+}}, %{{.+}}, %{{.+}}) {kind = "fadd", sem = "acq_rel", scope = "gpu", operandSegmentSizes = [1, 1, 1]} : (tensor<8x!tt.ptr<f32>>, tensor<8xf32>, tensor<8xi1>) -> tensor<8xf32>
# CHECK: "tt.atomic_rmw"(%{{.+}}, %{{.+}}) {kind = "umax", sem = "relaxed", scope = "gpu", operandSegmentSizes = [1, 1, 0]} : (tensor<8x!tt.ptr<u32>>, tensor<8xu32>) -> tensor<8xu32>
# CHECK: "tt.atomic_rmw"(%L, %{{.+}}) {kind = "min", sem = "release", scope = "cta", operandSegmentSizes = [1, 1, 0]} : (!tt.ptr<i64>, i64) -> i64
# CHECK: "tt.atomic_rmw"(%H, %{{.+}}) {kind = "fadd", sem = "acquire", scope = "sys", operandSegmentSizes = [1, 1, 0]} : (!tt.ptr<f16>, f16) -> f16
# CHECK: "tt.atomic_rmw"(%U, %{{.+}}) {kind = "and", sem = "acq_rel", scope = "gpu", {{.+}}} : (!tt.ptr<u32>, u32) -> u32
# CHECK-NEXT: "tt.atomic_rmw"(%U, %{{.+}}) {kind = "and", sem = "acq_rel", scope = "gpu", {{.+}}} : (!tt.ptr<u32>, u32) -> u32
# CHECK: "tt.atomic_rmw"(%U, %{{.+}}) {kind = "or", {{.+}}} : (!tt.ptr<u32>, u32) -> u32
# CHECK: "tt.atomic_rmw"(%L, %{{.+}}) {kind = "xor", {{.+}}} : (!tt.ptr<i64>, i64) -> i64
# CHECK: %old = "tt.atomic_rmw"(%F, %{{.+}}) {kind = "xchg", {{.+}}} : (!tt.ptr<f32>, f32) -> f32
# CHECK: "tt.barrier"() : () -> ()
# CHECK: %c = "tt.atomic_cas"(%{{.+}}, %{{.+}}, %{{.+}}) {sem = "acq_rel", scope = "gpu"} : (tensor<8x!tt.ptr<u32>>, tensor<8xu32>, tensor<8xu32>) -> tensor<8xu32>
# CHECK: %[[BITS:.+]] = "tt.bitcast"(%{{.+}}) : (tensor<8xf32>) -> tensor<8xi32>
# CHECK: %[[NEG:.+]] = "arith.cmpi"(%[[BITS]], %{{.+}}) {predicate = "slt"}
# CHECK: %[[POS:.+]] = "arith.xori"(%[[NEG]], %{{.+}})
# CHECK: %[[SMAX:.+]] = "tt.atomic_rmw"(%{{.+}}, %[[BITS]], %[[POS]]) {kind = "max", {{.+}}} : (tensor<8x!tt.ptr<i32>>, tensor<8xi32>, tensor<8xi1>) -> tensor<8xi32>
# CHECK: %[[UMIN:.+]] = "tt.atomic_rmw"(%{{.+}}, %{{.+}}, %[[NEG]]) {kind = "umin", {{.+}}} : (tensor<8x!tt.ptr<u32>>, tensor<8xu32>, tensor<8xi1>) -> tensor<8xu32>
# CHECK: "arith.select"(%[[POS]], %[[SMAX]], %{{.+}})
# CHECK: "scf.while"
# CHECK-NEXT: "tt.load"(%U) {volatile = true, operandSegmentSizes = [1, 0, 0]} : (!tt.ptr<u32>) -> u32

# O2-LABEL: sym_name = "atomics"
# O2-COUNT-9: "tt.atomic_rmw"
# O2: "tt.barrier"
# O2: "tt.atomic_cas"
# O2-COUNT-2: "tt.atomic_rmw"
# O2: "tt.load"(%U) {volatile = true
