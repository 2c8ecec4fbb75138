# Register allocation: linear scan over live intervals; with more values live at once than the 24
# allocatable integer registers, the intervals that end last are spilled to stack slots (`sd` after the
# definition, `ld` before each use, through the scratch registers t4-t6) and the kernel carves its
# spill area from the stack.
# RUN: mtiacc %s --emit=asm -O1 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def many(Out, p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13, p14, p15, p16, p17, p18, p19, p20, p21, p22, p23, p24, p25, p26, p27, p28, p29):
    t0 = p0 * 3
    t1 = p1 * 4
    t2 = p2 * 5
    t3 = p3 * 6
    t4 = p4 * 7
    t5 = p5 * 8
    t6 = p6 * 9
    t7 = p7 * 10
    t8 = p8 * 11
    t9 = p9 * 12
    t10 = p10 * 13
    t11 = p11 * 14
    t12 = p12 * 15
    t13 = p13 * 16
    t14 = p14 * 17
    t15 = p15 * 18
    t16 = p16 * 19
    t17 = p17 * 20
    t18 = p18 * 21
    t19 = p19 * 22
    t20 = p20 * 23
    t21 = p21 * 24
    t22 = p22 * 25
    t23 = p23 * 26
    t24 = p24 * 27
    t25 = p25 * 28
    t26 = p26 * 29
    t27 = p27 * 30
    t28 = p28 * 31
    t29 = p29 * 32
    tl.store(Out, t29 + t28 + t27 + t26 + t25 + t24 + t23 + t22 + t21 + t20 + t19 + t18 + t17 + t16 + t15 + t14 + t13 + t12 + t11 + t10 + t9 + t8 + t7 + t6 + t5 + t4 + t3 + t2 + t1 + t0)

# CHECK-LABEL: many:
# CHECK: addi sp, sp, -{{[0-9]+}}
# CHECK: sd {{t[456]}}, {{[0-9]+}}(sp) # spill
# CHECK: ld {{t[456]}}, {{[0-9]+}}(sp) # reload
# CHECK: addi sp, sp, {{[0-9]+}}
# CHECK-NEXT: ret
