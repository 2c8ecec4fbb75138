"""TorchInductor's random-number helpers (``triton_helpers.rand4x`` ...), written for mtiacc from their
documented behaviour; Triton source read by mtiacc (see runtime.py), never imported.

All of them draw from Philox-4x32 (``tl.philox`` / ``tl.randint4x``): one call yields four 32-bit words,
so the 4x helpers spend all four instead of one per element.
"""
import triton
import triton.language as tl


@triton.jit
def rand_eager_kernel(seed, offset_blocks, tid, VEC: tl.constexpr):
    # torch's eager uniform stream, element `tid` of a launch whose threads make VEC values each:
    # Philox keyed by `seed` on the counter (offset_blocks + group of four, thread), both as
    # (low, high) words; lane tid % 4 of the four words; mapped to (0, 1] as 1 - (r + 1/2) / 2**32
    t = tid.to(tl.uint64)
    thread = t // VEC
    block = offset_blocks.to(tl.uint64) + (t % VEC) // 4
    lane = t % 4
    w0, w1, w2, w3 = tl.philox(seed, (block & 0xFFFFFFFF).to(tl.uint32), (block >> 32).to(tl.uint32),
                               (thread & 0xFFFFFFFF).to(tl.uint32), (thread >> 32).to(tl.uint32))
    word = tl.where(lane < 2, tl.where(lane == 0, w0, w1), tl.where(lane == 2, w2, w3))
    scale: tl.constexpr = 2.3283064365386963e-10       # 2**-32
    return 1.0 - (word.to(tl.float32) * scale + scale * 0.5)


@triton.jit
def _random_4x_to_block(r0, r1, r2, r3):
    # four blocks of N values as one of 4N: element 4i + k is rk[i]
    N: tl.constexpr = r0.numel
    return tl.reshape(tl.join(tl.join(r0, r2), tl.join(r1, r3)), [4 * N])


@triton.jit
def rand4x(seed, offsets, BLOCK: tl.constexpr):
    # uniform [0, 1) values for a block of consecutive offsets, four per Philox call: offset o gets
    # word o % 4 of the call for o // 4 (counted from the block's smallest offset rounded down to 4)
    offsets = offsets.to(tl.uint32)
    key = tl.max(tl.broadcast_to(seed, offsets.shape), 0)
    if BLOCK >= 4 and BLOCK % 4 == 0:
        first = tl.min(offsets, 0) // 4
        r0, r1, r2, r3 = tl.rand4x(key, first + tl.arange(0, BLOCK // 4))
        return _random_4x_to_block(r0, r1, r2, r3)
    return tl.rand(key, offsets)


@triton.jit
def randn4x(seed, offsets, BLOCK: tl.constexpr):
    # as rand4x, normal N(0, 1) values
    offsets = offsets.to(tl.uint32)
    key = tl.max(tl.broadcast_to(seed, offsets.shape), 0)
    if BLOCK >= 4 and BLOCK % 4 == 0:
        first = tl.min(offsets, 0) // 4
        r0, r1, r2, r3 = tl.randn4x(key, first + tl.arange(0, BLOCK // 4))
        return _random_4x_to_block(r0, r1, r2, r3)
    return tl.randn(key, offsets)


@triton.jit
def randint64(seed, offset, low, high):
    # an int64 in [low, high): the first two Philox words as one 64-bit number, modulo high - low
    w0, w1, _, _ = tl.randint4x(seed, offset)
    r = w0.to(tl.uint64) | (w1.to(tl.uint64) << 32)
    size = (high - low) + tl.zeros([], tl.int64)     # a run-time int64 whether the bounds are or not
    r = r % size.to(tl.uint64)
    return r.to(tl.int64) + low
