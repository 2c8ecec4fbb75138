"""Scalar RV64IM semantics, differential against Python integer arithmetic, one program per operand pair."""
import numpy as np
import pytest

from tests.sim.helpers import P, run_asm, run_per_element

M64 = (1 << 64) - 1
MIN64, MAX64 = -(1 << 63), (1 << 63) - 1


def s64(v):
    v &= M64
    return v - (1 << 64) if v >> 63 else v


def s32(v):
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >> 31 else v


def u64(v):
    return v & M64


def tdiv(a, b):
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def rv_div(a, b, bits=64):
    if b == 0:
        return -1
    if a == -(1 << (bits - 1)) and b == -1:
        return a
    return tdiv(a, b)


def rv_rem(a, b, bits=64):
    if b == 0:
        return a
    if a == -(1 << (bits - 1)) and b == -1:
        return 0
    return a - tdiv(a, b) * b


REF = {
    "add": lambda a, b: s64(a + b), "sub": lambda a, b: s64(a - b), "sll": lambda a, b: s64(a << (b & 63)),
    "slt": lambda a, b: int(a < b), "sltu": lambda a, b: int(u64(a) < u64(b)), "xor": lambda a, b: a ^ b,
    "srl": lambda a, b: s64(u64(a) >> (b & 63)), "sra": lambda a, b: a >> (b & 63), "or": lambda a, b: a | b,
    "and": lambda a, b: a & b, "mul": lambda a, b: s64(a * b), "mulh": lambda a, b: s64((a * b) >> 64),
    "mulhsu": lambda a, b: s64((a * u64(b)) >> 64), "mulhu": lambda a, b: s64((u64(a) * u64(b)) >> 64),
    "div": lambda a, b: s64(rv_div(a, b)), "divu": lambda a, b: s64(u64(a) // u64(b)) if b else -1,
    "rem": lambda a, b: s64(rv_rem(a, b)), "remu": lambda a, b: s64(u64(a) % u64(b)) if b else a,
    "addw": lambda a, b: s32(a + b), "subw": lambda a, b: s32(a - b), "sllw": lambda a, b: s32(a << (b & 31)),
    "srlw": lambda a, b: s32((a & 0xFFFFFFFF) >> (b & 31)), "sraw": lambda a, b: s32(a) >> (b & 31),
    "mulw": lambda a, b: s32(a * b), "divw": lambda a, b: s32(rv_div(s32(a), s32(b), 32)),
    "divuw": lambda a, b: s32((a & 0xFFFFFFFF) // (b & 0xFFFFFFFF)) if b & 0xFFFFFFFF else -1,
    "remw": lambda a, b: s32(rv_rem(s32(a), s32(b), 32)),
    "remuw": lambda a, b: s32((a & 0xFFFFFFFF) % (b & 0xFFFFFFFF)) if b & 0xFFFFFFFF else s32(a),
}

EDGE = [0, 1, -1, 2, -2, 7, 63, 64, MIN64, MAX64, 1 << 31, -(1 << 31), (1 << 31) - 1, (1 << 32) - 1, 12345, -98765]


def operands(seed, n=96):
    rng = np.random.default_rng(seed)
    a = [x for x in EDGE for _ in EDGE] + [int(v) for v in rng.integers(MIN64, MAX64, n, dtype=np.int64)]
    b = [y for _ in EDGE for y in EDGE] + [int(v) for v in rng.integers(-200, 200, n // 2)] + \
        [int(v) for v in rng.integers(MIN64, MAX64, n - n // 2, dtype=np.int64)]
    return np.array(a, np.int64), np.array(b, np.int64)


def run_elementwise(body, a, b):
    r = run_per_element(body, ["ld a0, 1024(zero)", "ld a1, 1032(zero)"], a, b)
    return r.outputs["C"], r


@pytest.mark.parametrize("op", sorted(REF))
def test_register_register_ops_match_python(op):
    a, b = operands(seed=len(op))
    got, _ = run_elementwise(f"{op} a2, a0, a1", a, b)
    exp = [REF[op](int(x), int(y)) for x, y in zip(a, b)]
    assert [int(v) for v in got] == exp


IMM_REF = {
    "addi": ("add", [0, 1, -1, 2047, -2048]), "slti": ("slt", [0, 5, -5]), "sltiu": ("sltu", [0, 1, -1]),
    "xori": ("xor", [-1, 0x55]), "ori": ("or", [0x7F0, -16]), "andi": ("and", [0xFF, -2048]),
    "slli": ("sll", [0, 1, 31, 63]), "srli": ("srl", [0, 1, 33, 63]), "srai": ("sra", [0, 4, 63]),
    "addiw": ("addw", [1, -1, 2047]), "slliw": ("sllw", [0, 5, 31]), "srliw": ("srlw", [0, 3, 31]),
    "sraiw": ("sraw", [0, 7, 31]),
}


@pytest.mark.parametrize("op", sorted(IMM_REF))
def test_immediate_ops_match_python(op):
    ref, imms = IMM_REF[op]
    a, b = operands(seed=3)
    for imm in imms:
        got, _ = run_elementwise(f"{op} a2, a0, {imm}", a, b)
        exp = [REF[ref](int(x), imm) for x in a]
        assert [int(v) for v in got] == exp, (op, imm)


def test_lui_auipc_and_x0_stays_zero():
    a, b = operands(seed=4, n=2)
    body = """lui a2, 0x80000
    auipc t6, 0
    addi zero, zero, 5
    add a2, a2, zero
    lui a3, 0x12345
    add a2, a2, a3
    add a2, a2, t6"""
    got, _ = run_elementwise(body, a[:4], b[:4])
    auipc_pc = 4 * 17  # the auipc is the 18th instruction of the kernel
    assert int(got[0]) == s64(-(1 << 31) + 0x12345000 + auipc_pc)


def test_loads_and_stores_of_every_width():
    asm = """
    kernel:
        ld s0, 0(zero)
        li s1, 1024
        li t1, 64
        mtia.dma.in s1, s0, t1
        mtia.dma.wait
        lb a0, 0(s1)
        lbu a1, 0(s1)
        lh a2, 0(s1)
        lhu a3, 0(s1)
        lw a4, 0(s1)
        lwu a5, 0(s1)
        ld a6, 0(s1)
        sd a0, 64(s1)
        sd a1, 72(s1)
        sd a2, 80(s1)
        sd a3, 88(s1)
        sd a4, 96(s1)
        sd a5, 104(s1)
        sd a6, 112(s1)
        li t2, -1
        sd zero, 120(s1)
        sb t2, 120(s1)
        sh t2, 122(s1)
        sw t2, 124(s1)
        addi t0, s1, 64
        mtia.dma.out s0, t0, t1
        mtia.dma.wait
        ret
    """
    buf = np.zeros(8, np.int64)
    buf[0] = np.array([0xF1, 0x82, 0x93, 0xA4, 0xB5, 0xC6, 0xD7, 0x88], np.uint8).view(np.int64)[0]
    out = [int(v) for v in run_asm(asm, {"M": buf}, params=[P("M", "*i64")]).outputs["M"]]
    raw = int(buf[0]) & M64
    assert out[0] == 0xF1 - 256
    assert out[1] == 0xF1
    assert out[2] == 0x82F1 - 0x10000
    assert out[3] == 0x82F1
    assert out[4] == s32(0xA49382F1)
    assert out[5] == 0xA49382F1
    assert out[6] == s64(raw)
    assert out[7] & M64 == 0xFFFFFFFF_FFFF_00FF


BRANCHES = {"beq": lambda a, b: a == b, "bne": lambda a, b: a != b, "blt": lambda a, b: a < b,
            "bge": lambda a, b: a >= b, "bltu": lambda a, b: u64(a) < u64(b),
            "bgeu": lambda a, b: u64(a) >= u64(b)}


@pytest.mark.parametrize("op", sorted(BRANCHES))
def test_branches_diverge_per_program(op):
    body = f"""li a2, 1
    {op} a0, a1, taken
    li a2, 2
taken:
    addi a2, a2, 10"""
    a, b = operands(seed=5, n=32)
    got, _ = run_elementwise(body, a, b)
    exp = [11 if BRANCHES[op](int(x), int(y)) else 12 for x, y in zip(a, b)]
    assert [int(v) for v in got] == exp


def test_loop_with_a_different_trip_count_per_program_and_calls():
    """Lockstep with divergence: program i loops a[i] times calling a function; min-pc scheduling reconverges."""
    body = """li a2, 0
    mv s4, a0
    beqz s4, done
again:
    jal ra_helper_call
    addi s4, s4, -1
    bnez s4, again
done:
    j over
ra_helper_call:
    addi a2, a2, 3
    ret
over:
    nop"""
    # `jal label` links in ra; save/restore the halt address around it
    body = "mv s5, ra\n    " + body.replace("jal ra_helper_call", "jal ra, ra_helper_call") + "\n    mv ra, s5"
    a = np.array([0, 1, 5, 2, 17, 3, 0, 9] * 5, np.int64)
    got, r = run_elementwise(body, a, a)
    assert [int(v) for v in got] == [3 * int(x) for x in a]
    # every program retires its own count: loop of 5 instructions per trip
    assert r.stats.programs == len(a)


def test_jalr_computed_targets_diverge():
    body = """la_base:
    auipc t6, 0
    andi a3, a0, 1
    slli a3, a3, 3
    add t6, t6, a3
    jalr zero, 20(t6)
    li a2, 100
    j joined
    li a2, 200
joined:
    nop"""
    a = np.arange(8, dtype=np.int64)
    got, _ = run_elementwise(body, a, a)
    assert [int(v) for v in got] == [100 if x % 2 == 0 else 200 for x in range(8)]
