# `and` / `or` on run-time booleans, as Triton's code generator reads them: every run-time operand is
# evaluated and they are combined with `&` / `|` (right to left: a and (b and c)); a compile-time operand
# that decides the result ends it there, one that does not is dropped.
# RUN: mtiacc %s --emit=ir -O0 --signature '*i32,i32' -D FLAG=1 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def logical(X, n, FLAG: tl.constexpr):
    pid = tl.program_id(0)
    a = pid < n
    b = pid > 2
    c = pid != 5
    if a and b and c:
        tl.store(X + pid, 1)
    if FLAG and (a or b):
        tl.store(X + pid, 2)
    if FLAG or a:
        tl.store(X + pid, 3)
    offs = tl.arange(0, 4)
    tl.store(X + offs, 4, mask=(offs < n) and (offs != pid))
    tl.store(X + pid, 5) if a else tl.store(X + pid, 6)

# CHECK-LABEL: sym_name = "logical"
# CHECK: %[[BC:.+]] = "arith.andi"(%b, %c) : (i1, i1) -> i1
# CHECK: %[[ABC:.+]] = "arith.andi"(%a, %[[BC]]) : (i1, i1) -> i1
# CHECK: "scf.if"(%[[ABC]])
# CHECK: %[[AB:.+]] = "arith.ori"(%a, %b) : (i1, i1) -> i1
# CHECK: "scf.if"(%[[AB]])
# CHECK-NOT: "scf.if"
# CHECK: "arith.constant"() {value = 3}
# CHECK: "arith.andi"(%{{.+}}, %{{.+}}) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
# CHECK: "scf.if"(%a)
