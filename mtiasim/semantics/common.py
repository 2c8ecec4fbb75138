"""Helpers shared by the semantics families: operand register files, local-memory checks, integer arithmetic."""
from __future__ import annotations

import numpy as np

from ..faults import SimFault, first_slot

M64 = (1 << 64) - 1
ALL = slice(None)

# Families whose ``rs1`` operand (the scalar of a .vf form) is an f register.
_F_RS1_FAMILIES = {"vfalu", "vfma", "vfcmp"}


def sext(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def has(d, name: str) -> bool:
    """Whether the decoded row has operand ``name`` (by the row's attribute list)."""
    attrs = getattr(d.spec, "attrs", None)
    if attrs is not None:
        return name in attrs
    return getattr(d, name, None) is not None


def vm_of(d) -> int:
    """1 when the instruction is unmasked (also when the row has no ``vm`` operand), 0 when masked by v0."""
    v = getattr(d, "vm", None)
    return 1 if v is None else int(v)


def rs1_is_f(d) -> bool:
    """Whether operand ``rs1`` names an f register (vfadd.vf, vfmerge.vfm, vfmv.v.f, vfmv.s.f, fadd.s ...)."""
    names = getattr(d.spec, "operand_names", None)
    if names is not None:
        return "fs1" in names
    fam, op = d.spec.sem_family, d.spec.sem_op
    return (fam in _F_RS1_FAMILIES or (fam == "vmerge" and op == "fmerge") or (fam == "vmv" and op == "f")
            or (fam == "vmv_scalar" and op == "s.f"))


def reg_deps(d):
    """(sources, destinations) as lists of ``(file, reg)``, file 'x', 'f' or 'v' (a vector register group), from
    the ISA table's access column (``mtia.dma.*`` read rd, ``vfmacc`` & co. read and write vd); v0 is a source
    of a masked instruction."""
    src, dst = [], []
    for file, attr, access in d.spec.register_operands:
        reg = 0 if attr is None else getattr(d, attr)
        if "w" in access:
            dst.append((file, reg))
        if "r" in access:
            src.append((file, reg))
    if vm_of(d) == 0 and ("v", 0) not in src:
        src.append(("v", 0))
    dst = [(f, n) for f, n in dst if not (f == "x" and n == 0)]
    return src, dst


# ------------------------------------------------------------------------------------------------------------
# Local memory checks
# ------------------------------------------------------------------------------------------------------------
def lm_fault(m, g, addr: np.ndarray, size: int, what: str):
    """Raise the fault for the first program of ``g`` whose access of ``size`` bytes at ``addr`` is bad."""
    a = np.asarray(addr).astype(np.int64)
    if a.ndim == 1:
        a = a[:, None]
    oob = (a < 0) | (a > m.lmb - size)
    if oob.any():
        slot = first_slot(g, m.P, oob)
        row = int(np.flatnonzero(oob.any(axis=1))[0])
        bad = int(a[row][oob[row]][0])
        raise SimFault(f"out-of-bounds {what} of {size} bytes at local address 0x{bad % (1 << 64):x} "
                       f"(local memory is 0x0..0x{m.lmb:x})", slot)
    mis = (a & (size - 1)) != 0
    slot = first_slot(g, m.P, mis)
    row = int(np.flatnonzero(mis.any(axis=1))[0]) if mis.any() else 0
    bad = int(a[row][mis[row]][0]) if mis.any() else int(a.flat[0])
    raise SimFault(f"misaligned {what} of {size} bytes at local address 0x{bad:x} "
                   f"(must be a multiple of {size})", slot)


# ------------------------------------------------------------------------------------------------------------
# Integer arithmetic with RISC-V semantics (vectorized)
# ------------------------------------------------------------------------------------------------------------
def mulhu64(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """High 64 bits of the unsigned 128-bit product of uint64 arrays."""
    a = a.astype(np.uint64, copy=False)
    b = b.astype(np.uint64, copy=False)
    m32 = np.uint64(0xFFFFFFFF)
    s32 = np.uint64(32)
    al, ah, bl, bh = a & m32, a >> s32, b & m32, b >> s32
    p0, p1, p2, p3 = al * bl, al * bh, ah * bl, ah * bh
    mid = (p0 >> s32) + (p1 & m32) + (p2 & m32)
    return p3 + (p1 >> s32) + (p2 >> s32) + (mid >> s32)


def mulh_signed(a: np.ndarray, b: np.ndarray, bits: int, a_signed=True, b_signed=True) -> np.ndarray:
    """High ``bits`` of the product of two ``bits``-wide integer arrays (results as the unsigned dtype)."""
    ut = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}[bits]
    if bits < 64:
        # exact in int64 (for bits=32 the signed x unsigned product still fits in 64 bits... when signed)
        ai = a.astype(np.int64) if a_signed else a.astype(ut).astype(np.int64)
        bi = b.astype(np.int64) if b_signed else b.astype(ut).astype(np.int64)
        if bits == 32 and not (a_signed and b_signed):
            # unsigned 32 x 32 may overflow int64: go through uint64 with a sign fix-up
            ua, ub = ai.astype(np.uint64), bi.astype(np.uint64)
            p = ua * ub  # mod 2^64 is enough: we need bits 32..63
            return (p >> np.uint64(32)).astype(ut)
        return (ai * bi >> bits).astype(ut)
    ua, ub = a.view(np.uint64) if a.dtype.itemsize == 8 else a.astype(np.uint64), \
        b.view(np.uint64) if b.dtype.itemsize == 8 else b.astype(np.uint64)
    hi = mulhu64(ua, ub)
    if a_signed:
        hi = hi - np.where(ua >> np.uint64(63) != 0, ub, np.uint64(0))
    if b_signed:
        hi = hi - np.where(ub >> np.uint64(63) != 0, ua, np.uint64(0))
    return hi


def div_signed(a: np.ndarray, b: np.ndarray, rem: bool) -> np.ndarray:
    """RISC-V signed division/remainder (truncating; /0 -> -1, %0 -> a; MIN/-1 -> MIN, MIN%-1 -> 0)."""
    info = np.iinfo(a.dtype)
    zero = b == 0
    ovf = (a == info.min) & (b == -1)
    bs = np.where(zero | ovf, np.array(1, a.dtype), b).astype(a.dtype)
    r = np.fmod(a, bs)
    if rem:
        return np.where(zero, a, r).astype(a.dtype)
    q = (a - r) // bs
    return np.where(zero, np.array(-1, a.dtype), q).astype(a.dtype)


def div_unsigned(a: np.ndarray, b: np.ndarray, rem: bool) -> np.ndarray:
    """RISC-V unsigned division/remainder (/0 -> all ones, %0 -> a)."""
    zero = b == 0
    bs = np.where(zero, np.array(1, b.dtype), b).astype(b.dtype)
    if rem:
        return np.where(zero, a, a % bs).astype(a.dtype)
    return np.where(zero, np.array(np.iinfo(a.dtype).max, a.dtype), a // bs).astype(a.dtype)
