"""RV64I/M semantics families: integer ALU, upper immediates, jumps, branches, loads/stores, system.

Each family function takes ``(d, m, pc)`` -- the decoded instruction, the machine, its address -- and returns an
executor ``ex(g)`` over a group ``g`` of programs (a slice or an index array).  An executor returns ``None`` to
fall through, an ``int`` for a pc every program of the group takes, or an array of per-program pcs.
"""
from __future__ import annotations

import numpy as np

from ..faults import SimFault
from .common import M64, div_signed, div_unsigned, lm_fault, mulh_signed, sext

U64 = np.uint64


def _nop(g):
    return None


def _sh(b, mask):
    return b & mask


_ALU = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "sll": lambda a, b: a << (b & 63),
    "slt": lambda a, b: (a < b).astype(np.int64),
    "sltu": lambda a, b: (a.view(U64) < b.view(U64)).astype(np.int64),
    "xor": np.bitwise_xor,
    "srl": lambda a, b: (a.view(U64) >> (b & 63).view(U64)).view(np.int64),
    "sra": lambda a, b: a >> (b & 63),
    "or": np.bitwise_or,
    "and": np.bitwise_and,
    "mul": lambda a, b: a * b,
    "mulh": lambda a, b: mulh_signed(a, b, 64).view(np.int64),
    "mulhsu": lambda a, b: mulh_signed(a, b, 64, True, False).view(np.int64),
    "mulhu": lambda a, b: mulh_signed(a, b, 64, False, False).view(np.int64),
    "div": lambda a, b: div_signed(a, b, False),
    "divu": lambda a, b: div_unsigned(a.view(U64), b.view(U64), False).view(np.int64),
    "rem": lambda a, b: div_signed(a, b, True),
    "remu": lambda a, b: div_unsigned(a.view(U64), b.view(U64), True).view(np.int64),
}

_ALU_W = {  # on int32 operands; the int32 result is sign-extended when stored
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "sll": lambda a, b: a << (b & 31),
    "srl": lambda a, b: (a.view(np.uint32) >> (b & 31).view(np.uint32)).view(np.int32),
    "sra": lambda a, b: a >> (b & 31),
    "mul": lambda a, b: a * b,
    "div": lambda a, b: div_signed(a, b, False),
    "divu": lambda a, b: div_unsigned(a.view(np.uint32), b.view(np.uint32), False).view(np.int32),
    "rem": lambda a, b: div_signed(a, b, True),
    "remu": lambda a, b: div_unsigned(a.view(np.uint32), b.view(np.uint32), True).view(np.int32),
}


def alu(d, m, pc):
    op = d.spec.sem_op
    f = _ALU[op]
    X, rd, r1, r2 = m.X, d.rd, d.rs1, d.rs2
    if rd == 0:
        return _nop
    if op == "add":
        def ex(g):
            X[rd, g] = X[r1, g] + X[r2, g]
    else:
        def ex(g):
            X[rd, g] = f(X[r1, g], X[r2, g])
    return ex


def alu_w(d, m, pc):
    f = _ALU_W[d.spec.sem_op]
    X, rd, r1, r2 = m.X, d.rd, d.rs1, d.rs2
    if rd == 0:
        return _nop

    def ex(g):
        X[rd, g] = f(X[r1, g].astype(np.int32), X[r2, g].astype(np.int32))
    return ex


def _shamt(d):
    s = getattr(d, "shamt", None)
    return int(d.imm if s is None else s)


def alu_imm(d, m, pc):
    op = d.spec.sem_op
    X, rd, r1 = m.X, d.rd, d.rs1
    if rd == 0:
        return _nop
    if op in ("sll", "srl", "sra"):
        sh = _shamt(d) & 63
        if op == "sll":
            def ex(g):
                X[rd, g] = X[r1, g] << sh
        elif op == "sra":
            def ex(g):
                X[rd, g] = X[r1, g] >> sh
        else:
            ush = U64(sh)

            def ex(g):
                X[rd, g] = (X[r1, g].view(U64) >> ush).view(np.int64)
        return ex
    imm = int(d.imm)
    if op == "add":
        if r1 == 0:
            def ex(g):
                X[rd, g] = imm
        else:
            def ex(g):
                X[rd, g] = X[r1, g] + imm
    elif op == "slt":
        def ex(g):
            X[rd, g] = X[r1, g] < imm
    elif op == "sltu":
        uimm = U64(imm & M64)

        def ex(g):
            X[rd, g] = X[r1, g].view(U64) < uimm
    else:
        f = {"xor": np.bitwise_xor, "or": np.bitwise_or, "and": np.bitwise_and}[op]
        simm = np.int64(imm)

        def ex(g):
            X[rd, g] = f(X[r1, g], simm)
    return ex


def alu_imm_w(d, m, pc):
    op = d.spec.sem_op
    X, rd, r1 = m.X, d.rd, d.rs1
    if rd == 0:
        return _nop
    if op == "add":
        imm = np.int32(sext(int(d.imm), 32))

        def ex(g):
            X[rd, g] = X[r1, g].astype(np.int32) + imm
        return ex
    sh = _shamt(d) & 31
    if op == "sll":
        def ex(g):
            X[rd, g] = X[r1, g].astype(np.int32) << np.int32(sh)
    elif op == "sra":
        def ex(g):
            X[rd, g] = X[r1, g].astype(np.int32) >> np.int32(sh)
    elif op == "srl":
        def ex(g):
            X[rd, g] = (X[r1, g].astype(np.uint32) >> np.uint32(sh)).view(np.int32)
    else:
        raise KeyError(op)
    return ex


def lui(d, m, pc):
    X, rd, v = m.X, d.rd, sext(int(d.imm), 32)
    if rd == 0:
        return _nop

    def ex(g):
        X[rd, g] = v
    return ex


def auipc(d, m, pc):
    X, rd, v = m.X, d.rd, sext(pc + sext(int(d.imm), 32), 64)
    if rd == 0:
        return _nop

    def ex(g):
        X[rd, g] = v
    return ex


def jal(d, m, pc):
    X, rd, target, link = m.X, d.rd, pc + int(d.imm), pc + 4
    if rd == 0:
        def ex(g):
            return target
    else:
        def ex(g):
            X[rd, g] = link
            return target
    return ex


def jalr(d, m, pc):
    X, rd, r1, imm, link = m.X, d.rd, d.rs1, int(d.imm), pc + 4

    def ex(g):
        t = (X[r1, g] + imm) & ~1
        if rd:
            X[rd, g] = link
        t0 = int(t[0])
        if (t == t0).all():
            return t0
        return t
    return ex


_BRANCH = {
    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "ge": np.greater_equal,
    "ltu": lambda a, b: a.view(U64) < b.view(U64), "geu": lambda a, b: a.view(U64) >= b.view(U64),
}


def branch(d, m, pc):
    f = _BRANCH[d.spec.sem_op]
    X, r1, r2, target, nxt = m.X, d.rs1, d.rs2, pc + int(d.imm), pc + 4

    def ex(g):
        c = f(X[r1, g], X[r2, g])
        if c.all():
            return target
        if not c.any():
            return None
        return np.where(c, target, nxt)
    return ex


_LOAD = {"b": "i8", "h": "i16", "w": "i32", "d": "i64", "bu": "u8", "hu": "u16", "wu": "u32"}
_STORE = {"b": "u8", "h": "u16", "w": "u32", "d": "i64"}


def _mem_common(d, m, dt):
    view = m.LMv[dt]
    size = view.dtype.itemsize
    return view, size, size.bit_length() - 1, m.lmb - size, size - 1


def load(d, m, pc):
    view, size, sh, lim, amask = _mem_common(d, m, _LOAD[d.spec.sem_op])
    X, rd, r1, imm, rows = m.X, d.rd, d.rs1, int(d.imm), m.rows

    def ex(g):
        a = X[r1, g] + imm
        if int(a.view(U64).max()) > lim or (amask and (a & amask).any()):
            lm_fault(m, g, a, size, "load")
        v = view[rows[g], a >> sh]
        if rd:
            X[rd, g] = v
    return ex


def store(d, m, pc):
    view, size, sh, lim, amask = _mem_common(d, m, _STORE[d.spec.sem_op])
    X, r2, r1, imm, rows = m.X, d.rs2, d.rs1, int(d.imm), m.rows

    def ex(g):
        a = X[r1, g] + imm
        if int(a.view(U64).max()) > lim or (amask and (a & amask).any()):
            lm_fault(m, g, a, size, "store")
        view[rows[g], a >> sh] = X[r2, g]
    return ex


def system(d, m, pc):
    op = d.spec.sem_op
    if op == "ebreak":
        def ex(g):
            raise SimFault("kernel trap (ebreak)")
    elif op == "ecall":
        def ex(g):
            raise SimFault("environment call (ecall): the simulator provides no environment to call")
    else:
        raise KeyError(op)
    return ex


FAMILIES = {
    "alu": alu, "alu_w": alu_w, "alu_imm": alu_imm, "alu_imm_w": alu_imm_w, "lui": lui, "auipc": auipc,
    "jal": jal, "jalr": jalr, "branch": branch, "load": load, "store": store, "system": system,
}
OPS = {
    "alu": set(_ALU), "alu_w": set(_ALU_W), "alu_imm": {"add", "slt", "sltu", "xor", "or", "and", "sll", "srl", "sra"},
    "alu_imm_w": {"add", "sll", "srl", "sra"}, "branch": set(_BRANCH), "load": set(_LOAD), "store": set(_STORE),
    "system": {"ecall", "ebreak"},
}
