"""TorchInductor's helpers for programs that cooperate through memory: the scan across programs
(decoupled look-back) and the grid barrier, written for mtiacc from their documented behaviour; Triton
source read by mtiacc (see runtime.py), never imported.

Both wait for other programs with atomics.  On this machine a program may wait for a program of its
own wave or of an earlier one (mtiasim runs them together, docs/architecture.md "Programs that
cooperate"): the look-back only ever waits for programs with a smaller index, so any grid works; the
barrier needs every program along axis 0 in the same wave (at most one program per PE), else the
simulator stops with a deadlock error naming the waiting programs.
"""
import triton
import triton.language as tl


@triton.jit
def pack_value_flag(value, flag, DTYPE_VALUE_AS_UINT: tl.constexpr, DTYPE_PACK: tl.constexpr):
    # one word of DTYPE_PACK: value's bits above, flag in the low DTYPE_VALUE_AS_UINT bits
    W: tl.constexpr = DTYPE_VALUE_AS_UINT.primitive_bitwidth
    high = value.to(DTYPE_VALUE_AS_UINT, bitcast=True).to(DTYPE_PACK)
    return (high << W) | flag.to(DTYPE_PACK)


@triton.jit
def unpack_value(pack, DTYPE_VALUE, DTYPE_VALUE_AS_UINT):
    # the value pack_value_flag packed
    W: tl.constexpr = DTYPE_VALUE_AS_UINT.primitive_bitwidth
    return (pack >> W).to(DTYPE_VALUE_AS_UINT).to(DTYPE_VALUE, bitcast=True)


@triton.jit
def unpack_flag(pack, DTYPE_FLAG):
    # the flag pack_value_flag packed (the low bits)
    return pack.to(DTYPE_FLAG)


@triton.jit
def exclusive_scan_decoupled_lookback(scratch_base, block_value, index, combine_fn,
                                      DTYPE_VALUE_AS_UINT: tl.constexpr, DTYPE_PACK: tl.constexpr):
    # The combination (by combine_fn) of the block values of programs 0 .. index - 1, for a value of at
    # most 32 bits.  scratch_base[i] holds program i's (value, flag) packed in one word: flag 0 nothing
    # yet, 1 its own block value, 2 its inclusive prefix.  Each program publishes its block value, walks
    # back over its predecessors until one has published an inclusive prefix, then publishes its own.
    # Program 0 returns zero.
    if index > 0:
        own = pack_value_flag(block_value, tl.full(block_value.shape, 1, DTYPE_VALUE_AS_UINT),
                              DTYPE_VALUE_AS_UINT, DTYPE_PACK)
        tl.atomic_xchg(scratch_base + index, own, sem="relaxed")
    prefix = tl.zeros([], block_value.dtype)
    have = False
    target = index - 1
    while target >= 0:
        word = tl.atomic_add(scratch_base + target, 0, sem="relaxed")
        flag = unpack_flag(word, DTYPE_VALUE_AS_UINT)
        while flag == 0:
            word = tl.atomic_add(scratch_base + target, 0, sem="relaxed")
            flag = unpack_flag(word, DTYPE_VALUE_AS_UINT)
        value = unpack_value(word, block_value.dtype, DTYPE_VALUE_AS_UINT)
        if have:
            prefix = combine_fn(value, prefix)
        else:
            prefix = value
        have = True
        if flag == 2:
            target = -1
        else:
            target = target - 1
    if have:
        inclusive = combine_fn(prefix, block_value)
    else:
        inclusive = block_value
    done = pack_value_flag(inclusive, tl.full([], 2, DTYPE_VALUE_AS_UINT), DTYPE_VALUE_AS_UINT, DTYPE_PACK)
    tl.atomic_xchg(scratch_base + index, done, sem="relaxed")
    return prefix


@triton.jit
def exclusive_scan_decoupled_lookback_64(scratch_base, block_value, index, combine_fn):
    # As exclusive_scan_decoupled_lookback, for 64-bit values: program i owns three uint64 words at
    # scratch_base + 3 * i: the flag (0, 1 or 2), its block value, its inclusive prefix.  A value is
    # stored, then its flag raised with release semantics; a reader reads the flag with acquire
    # semantics, then word `flag` of the three.
    if index > 0:
        tl.store(scratch_base + 3 * index + 1, block_value.to(tl.uint64, bitcast=True))
        tl.debug_barrier()
        tl.atomic_xchg(scratch_base + 3 * index, tl.full([], 1, tl.uint64), sem="release")
    prefix = tl.zeros([], block_value.dtype)
    have = False
    target = index - 1
    while target >= 0:
        flag = tl.atomic_add(scratch_base + 3 * target, 0, sem="acquire")
        while flag == 0:
            flag = tl.atomic_add(scratch_base + 3 * target, 0, sem="acquire")
        value = tl.load(scratch_base + 3 * target + flag.to(tl.int32)).to(block_value.dtype, bitcast=True)
        if have:
            prefix = combine_fn(value, prefix)
        else:
            prefix = value
        have = True
        if flag == 2:
            target = tl.full([], -1, index.dtype)
        else:
            target = target - 1
    if have:
        inclusive = combine_fn(prefix, block_value)
    else:
        inclusive = block_value
    tl.store(scratch_base + 3 * index + 2, inclusive.to(tl.uint64, bitcast=True))
    tl.debug_barrier()
    tl.atomic_xchg(scratch_base + 3 * index, tl.full([], 2, tl.uint64), sem="release")
    return prefix


@triton.jit
def x_grid_barrier(sem):
    # Waits until every program with this program's axis-1 and axis-2 ids has arrived.  `sem` is a
    # uint32 of their own, 0 or 0x80000000 before the first use.  The arrivals add up to exactly
    # 0x80000000 (program 0 adds 0x80000000 - (n - 1), the n - 1 others 1 each), so the top bit flips
    # when the last one arrives, and the word is ready for the next use.
    tl.debug_barrier()
    n = tl.num_programs(0).to(tl.uint32)
    one = tl.full([], 1, tl.uint32)
    if tl.program_id(0) == 0:
        add = 0x80000000 - (n - one)
    else:
        add = one
    before = tl.atomic_add(sem, add, sem="release")
    now = tl.atomic_add(sem, 0, sem="acquire")
    while ((before ^ now) & 0x80000000) == 0:
        now = tl.atomic_add(sem, 0, sem="acquire")
    tl.debug_barrier()
