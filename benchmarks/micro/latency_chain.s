# Dependent-latency chain: every instruction needs the previous one's result (IntMul: its latency is the time
# per link); the loop overhead is independent and hides under the chain.
    .equ TRIPS, 500
kernel:
    li      a0, 3
    li      s1, TRIPS
loop:
    mul     a0, a0, a0
    mul     a0, a0, a0
    mul     a0, a0, a0
    mul     a0, a0, a0
    addi    s1, s1, -1
    bnez    s1, loop
    ret
