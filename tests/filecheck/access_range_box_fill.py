# A range-box tile load (a block pointer's or descriptor's boundary check with a padding) fills the tile with its
# padding only when the run-time clipping leaves part of it out: each clipped axis' count is compared with its
# size and a tile in range branches around the fill (tutorial 06's K and V tiles: every one in range). The padding's
# register is made before the branch, on both paths. A tile under 2 KiB (16 x 16 f32) is filled without a check.
# RUN: mtiacc %s --emit=asm --asm-syntax=mtia -O2 --kernel=ragged_2d -D B=32 --signature '*fp32,*fp32,i32,i32,i32,i32' | filecheck %s --check-prefix=TWO
# RUN: mtiacc %s --emit=asm --asm-syntax=mtia -O2 --kernel=ragged_2d -D B=16 --signature '*fp32,*fp32,i32,i32,i32,i32' | filecheck %s --check-prefix=SMALL
# RUN: mtiacc %s --emit=asm --asm-syntax=mtia -O2 --kernel=ragged_rows -D B=16 --signature '*fp16,*fp16,i32,i32' | filecheck %s --check-prefix=ONE
import triton
import triton.language as tl


@triton.jit
def ragged_2d(X, Y, M, N, om, on, B: tl.constexpr):
    p = tl.make_block_ptr(X, (M, N), (N, 1), (om, on), (B, B), (1, 0))
    q = tl.make_block_ptr(Y, (M, N), (N, 1), (om, on), (B, B), (1, 0))
    tl.store(q, tl.load(p, boundary_check=(0, 1), padding_option="nan"), boundary_check=(0, 1))


@triton.jit
def ragged_rows(X, Y, M, om, B: tl.constexpr):
    p = tl.make_tensor_descriptor(X, shape=[M, 64], strides=[64, 1], block_shape=[B, 64])
    q = tl.make_tensor_descriptor(Y, shape=[M, 64], strides=[64, 1], block_shape=[B, 64])
    q.store([om, 0], p.load([om, 0]))

# TWO-LABEL: ragged_2d:
# TWO: fmv.w.x [[NAN:f[a-z0-9]+]]
# TWO: bne {{[a-z0-9]+}}, {{[a-z0-9]+}}, [[PARTIAL:.Lpartial[0-9]+]] # an index out of range: fill
# TWO: beq {{[a-z0-9]+}}, {{[a-z0-9]+}}, [[WHOLE:.Lwhole[0-9]+]] # every index of the tile in range: no fill
# TWO-NEXT: [[PARTIAL]]:
# TWO: vfmv.v.f {{v[0-9]+}}, [[NAN]]
# TWO: vse32.v
# TWO: [[WHOLE]]:
# TWO-NOT: vse32.v
# TWO: mtia.dma.in2d
# TWO: ret

# SMALL-LABEL: ragged_2d:
# SMALL-NOT: no fill
# SMALL: # fill
# SMALL: mtia.dma.in2d

# ONE-LABEL: ragged_rows:
# ONE: beq {{[a-z0-9]+}}, {{[a-z0-9]+}}, [[WHOLE:.Lwhole[0-9]+]] # every index of the tile in range: no fill
# ONE-NEXT: li {{[a-z0-9]+}}, 1024 # fill
# ONE: vse16.v
# ONE: [[WHOLE]]:
# ONE-NOT: vse16.v
# ONE: mtia.dma.in2d
