# DMA stream: every program copies its slice of buffer A (COUNT transfers of CHUNK bytes) into local memory,
# issuing back to back: the PE's DMA queue stays full (issue stalls while max_outstanding transfers are in
# flight), one wait at the end.  Run on all PEs with A in DRAM (placement "dram") or in SRAM ("sram").
    .equ CHUNK, 16384
kernel:
    ld      s0, 0(zero)            # A
    mtia.pid t0, 0
    lw      s1, 8(zero)            # COUNT
    slli    t1, s1, 14             # this program's bytes: COUNT * CHUNK
    mul     t2, t0, t1
    add     s0, s0, t2             # this program's slice
    li      t1, CHUNK
    li      a1, 4096               # local buffer
loop:
    mtia.dma.in a1, s0, t1
    add     s0, s0, t1
    addi    s1, s1, -1
    bnez    s1, loop
    mtia.dma.wait
    ret
