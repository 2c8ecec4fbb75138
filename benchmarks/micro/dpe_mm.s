# Matrix-engine loop on data already in local memory: two weight tiles (32 x 32) alternate, each followed by 1024
# rows streamed through it (mtia.dpe.ldw fills the idle array while the other streams).
# Parameters: TYPE (0 fp16, 1 bf16, 2 int8, 3 uint8), TRIPS (two tiles a trip).
kernel:
    ld      a7, 0(zero)
    ld      s1, 8(zero)
    mtia.dpe.cfg a7, 0
    li      t0, 64
    mtia.dpe.cfg t0, 1          # weight rows 64 bytes apart
    mtia.dpe.cfg t0, 2          # streamed rows 64 bytes apart
    li      a0, 4096            # weight tile A
    li      a5, 8192            # weight tile B
    li      a1, 32              # K
    li      a2, 0               # accumulator rows 0 .. 1023
    li      a3, 16384           # the streamed rows
    li      a4, 1024
loop:
    mtia.dpe.ldw a0, a1
    mtia.dpe.mm  a2, a3, a4
    mtia.dpe.ldw a5, a1
    mtia.dpe.mm  a2, a3, a4
    addi    s1, s1, -1
    bnez    s1, loop
    mtia.dpe.wait
    ret
