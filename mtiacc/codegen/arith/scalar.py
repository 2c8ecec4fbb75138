"""Instruction selection for scalar ops: RV64IMFD over virtual registers.

f32 scalars live NaN-boxed in f registers and use the ``.s`` rows; f64 use the ``.d`` rows (same table
entries with the suffix swapped; the tables are in ``scalar_tables.py``).  Copies between f registers
are ``fmv.d``: it moves all 64 bits.

Integers of 32 bits or fewer live sign-extended in 64-bit registers (the RV64 convention) and
use the ``*w`` instructions, so they wrap at 32 bits as Triton's i32 does.
"""
from __future__ import annotations

from mtiacc.codegen.arith import scalar_narrow
from mtiacc.codegen.arith.casts import lower_scalar_fp8
from mtiacc.codegen.arith.scalar_tables import FLOAT_BINARY, INT_BINARY, MINMAX, cmpf, fmn
from mtiacc.codegen.machine.mir import MBuilder, VReg
from mtiacc.diagnostics import CompileError
from mtiacc.ir import ops as O
from mtiacc.ir.types import FloatType, IntType, PointerType, Type


def reg_class(t: Type) -> str:
    return "f" if t.is_float() else "x"


def check_scalar_type(t: Type, what) -> None:
    if isinstance(t, FloatType) and t.kind not in ("f32", "f64"):
        raise CompileError(f"scalar {t} arithmetic is not supported yet")
    if isinstance(t, IntType) and t.width not in (1, 32, 64):
        raise CompileError(f"scalar {t} arithmetic is not supported yet")


def _bits32(t: Type) -> bool:
    return isinstance(t, IntType) and t.width <= 32


def _mulhiu(b: MBuilder, op, get) -> VReg:
    """The high half of the unsigned product: ``mulhu`` at 64 bits; at 32 bits the operands shifted to the top
    of the register make ``mulhu`` the whole 64-bit product, whose top half is the result (sign-extended, as
    32-bit values live in registers)."""
    t = op.result.type
    check_scalar_type(t, op)
    r = b.x()
    if not _bits32(t):
        b("mulhu", r, get(op.lhs), get(op.rhs))
        return r
    x, y = b.x(), b.x()
    b("slli", x, get(op.lhs), 32)
    b("slli", y, get(op.rhs), 32)
    b("mulhu", r, x, y)
    b("srai", r, r, 32)
    return r


def _pow2_shift(op):
    """``k`` when ``op`` (a signed ``/`` or ``%`` of 32 or 64 bits) divides by the constant ``2**k``, ``k >= 1``."""
    t, c = op.result.type, O.const_value(op.rhs)
    if not isinstance(t, IntType) or t.width not in (32, 64) or not isinstance(c, int) or isinstance(c, bool):
        return None
    k = c.bit_length() - 1
    return k if c > 1 and c == 1 << k and k < t.width - 1 else None


def _div_rem_pow2(b: MBuilder, op, get) -> VReg:
    """``x / 2**k`` and ``x % 2**k`` rounded toward zero (C's, as ``arith.divsi`` / ``remsi``) with shifts, not
    the divider (``IntDiv``: 20 cycles of latency): a negative ``x`` is biased by ``2**k - 1`` first
    (``(x >> (W-1)) >>> (W-k)``), then ``q = (x + bias) >> k`` and ``r = x - ((x + bias) & -2**k)``."""
    k = _pow2_shift(op)
    w32 = op.result.type.width == 32
    width = 32 if w32 else 64
    sfx = "w" if w32 else ""
    x = get(op.lhs)
    sign, bias, biased = b.x(), b.x(), b.x()
    b("srai" + sfx, sign, x, width - 1, comment=f"signed {'/' if isinstance(op, O.DivSIOp) else '%'} {1 << k}: shifts")
    b("srli" + sfx, bias, sign, width - k)
    b("add" + sfx, biased, x, bias)
    out = b.x()
    if isinstance(op, O.DivSIOp):
        b("srai" + sfx, out, biased, k)
        return out
    low = b.x()
    if k <= 11:
        b("andi", low, biased, -(1 << k))
    else:
        b("and", low, biased, b.li(-(1 << k)))
    b("sub" + sfx, out, x, low)
    return out


def f32_bits(x: float) -> int:
    """The f32 bit pattern of ``x`` rounded to nearest even; beyond the f32 range that is an infinity,
    as Triton converts ``x_f32 * 1e39`` (the literal does not take part in the promotion)."""
    import struct
    try:
        return struct.unpack("<I", struct.pack("<f", x))[0]
    except OverflowError:  # rounds to an infinity
        return 0x7F800000 if x > 0 else 0xFF800000


def half_bits(value: float, kind: str) -> int:
    """The 16-bit pattern of ``value`` as f16 or bf16 (round to nearest even).  With ``struct`` rather than numpy,
    whose import would cost a compile ~0.1 s: the conversions are IEEE's, and numpy's results are kept where
    ``struct`` differs (a value beyond f16's range is its infinity, as the frontend warned; a NaN keeps its sign and
    the top bits of its payload)."""
    import struct
    if kind == "f16":
        x = float(value)
        if x != x:
            bits = struct.unpack("<Q", struct.pack("<d", x))[0]
            payload = 0x7C00 + ((bits & 0xFFFFFFFFFFFFF) >> 42)
            return (bits >> 48 & 0x8000) | (payload if payload != 0x7C00 else 0x7C01)
        try:
            return struct.unpack("<H", struct.pack("<e", x))[0]
        except OverflowError:
            return 0x7C00 if x > 0 else 0xFC00
    if value != value:
        return 0x7FC0
    u = f32_bits(value)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF


def constant(b: MBuilder, value, t: Type) -> VReg:
    if t.is_float() and t.kind in ("f16", "bf16"):  # NaN-boxed in an f register, as Zfh keeps halves
        r = b.f("c")
        b("fmv.w.x", r, b.li(0xFFFF0000 | half_bits(value, t.kind)))
        return r
    if t.is_float() and t.kind == "f64":
        import struct
        r = b.f("c")
        b("fmv.d.x", r, b.li(struct.unpack("<q", struct.pack("<d", float(value)))[0]))
        return r
    if t.is_float():
        check_scalar_type(t, "constant")
        bits = b.li(f32_bits(value))
        r = b.f("c")
        b("fmv.w.x", r, bits)
        return r
    v = int(value)
    if isinstance(t, IntType) and t.width in (32, 64):    # u32 as the RV64 convention holds it: sign-extended
        half = 1 << (t.width - 1)
        v = (v + half) % (2 * half) - half
    return b.li(v)


def lower_scalar(b: MBuilder, op, get) -> VReg:
    """Emit `op` (whose result is a scalar); `get(value)` gives an operand's register."""
    t = op.result.type
    if isinstance(op, O.ConstantOp):
        return constant(b, op.value, t)
    if isinstance(op, O.FloatCastOp) and op.fp8 is not None:  # a conversion with an fp8 end (u8 bytes)
        return lower_scalar_fp8(b, op, get)
    if scalar_narrow.handles(op):  # i8/i16/u8/u16 and f16/bf16 scalars
        return scalar_narrow.lower(b, op, get)
    if isinstance(op, O.GetProgramIdOp):
        r = b.x("pid")
        b("mtia.nprogs" if isinstance(op, O.GetNumProgramsOp) else "mtia.pid", r, op.axis)
        return r
    if type(op) in (O.DivSIOp, O.RemSIOp) and _pow2_shift(op) is not None:
        return _div_rem_pow2(b, op, get)
    if isinstance(op, O.MulHiUIOp):
        return _mulhiu(b, op, get)
    if type(op) in INT_BINARY:
        check_scalar_type(t, op)
        mn = INT_BINARY[type(op)][0 if _bits32(t) else 1]
        r = b.x()
        b(mn, r, get(op.lhs), get(op.rhs))
        return r
    if type(op) in FLOAT_BINARY:
        check_scalar_type(t, op)
        r = b.f()
        b(fmn(FLOAT_BINARY[type(op)], t), r, get(op.lhs), get(op.rhs))
        return r
    if type(op) in MINMAX:
        br, _ = MINMAX[type(op)]
        a, c = get(op.lhs), get(op.rhs)
        r = b.x()
        done = b.new_label("minmax")
        b("mv", r, a)
        b(br, a, c, done)
        b("mv", r, c)
        b.label(done)
        return r
    if isinstance(op, O.NegFOp):
        r = b.f()
        b(fmn("fneg.s", t), r, get(op.operand_))
        return r
    if isinstance(op, O.CmpFOp):
        return cmpf(b, op.predicate, get(op.lhs), get(op.rhs), op.lhs.type)
    if isinstance(op, O.CmpIOp):
        return _cmpi(b, op.predicate, get(op.lhs), get(op.rhs))
    if isinstance(op, O.SelectOp):
        cls = reg_class(t)
        r = b.f() if cls == "f" else b.x()
        mv = "fmv.d" if cls == "f" else "mv"
        done = b.new_label("select")
        b(mv, r, get(op.true_value))
        b("bnez", get(op.cond), done)
        b(mv, r, get(op.false_value))
        b.label(done)
        return r
    if isinstance(op, O.AddPtrOp):
        size = _pointee_bytes(op.ptr.type)
        off = get(op.offset)
        r = b.x("ptr")
        if size > 1:
            scaled = b.x()
            b("slli", scaled, off, size.bit_length() - 1)
            off = scaled
        b("add", r, get(op.ptr), off)
        return r
    if isinstance(op, O.CastOp):
        return _cast(b, op, get(op.src))
    raise CompileError(f"'{op.name}' on scalars is not supported yet")


def _pointee_bytes(t: Type) -> int:
    p = t.element_type
    assert isinstance(p, PointerType)
    e = p.pointee
    return max(getattr(e, "width", 8) // 8, 1)


def _cmpi(b: MBuilder, pred: str, a: VReg, c: VReg) -> VReg:
    r = b.x("cmp")
    unsigned = pred.startswith("u")
    slt = "sltu" if unsigned else "slt"
    if pred in ("eq", "ne"):
        d = b.x()
        b("xor", d, a, c)
        b("seqz" if pred == "eq" else "snez", r, d)
    elif pred in ("slt", "ult"):
        b(slt, r, a, c)
    elif pred in ("sgt", "ugt"):
        b(slt, r, c, a)
    elif pred in ("sle", "ule"):
        b(slt, r, c, a)
        b("xori", r, r, 1)
    elif pred in ("sge", "uge"):
        b(slt, r, a, c)
        b("xori", r, r, 1)
    else:
        raise CompileError(f"integer predicate '{pred}' is not supported")
    return r


F64 = FloatType("f64")


def _cast_f64(b: MBuilder, op, src: VReg) -> VReg:
    """Casts with an f64 end whose other end is i1, i32, i64, u32, u64 or f32."""
    s, d = op.src.type, op.result.type
    if isinstance(op, O.BitcastOp):
        r = b.f() if d.is_float() else b.x()
        b("fmv.d.x" if d.is_float() else "fmv.x.d", r, src)
        return r
    if s == F64 and d == F64:
        return src
    if s == F64 and isinstance(d, FloatType):      # f64 -> f32 (nearest even)
        r = b.f()
        b("fcvt.s.d", r, src)
        return r
    if isinstance(s, FloatType) and d == F64:      # f32 -> f64 (exact)
        r = b.f()
        b("fcvt.d.s", r, src)
        return r
    if isinstance(d, FloatType):                   # int -> f64: w for <= 32 bits (held sign-extended)
        r = b.f()
        wide = s.width == 64
        b("fcvt.d." + ("l" if wide else "w") + ("" if isinstance(op, O.SIToFPOp) and s.width > 1 else "u"),
          r, src, *(("rne",) if wide else ()))
        return r
    r = b.x()                                      # f64 -> int, toward zero
    wide = d.width == 64
    b("fcvt." + ("l" if wide else "w") + ("u" if isinstance(op, O.FPToUIOp) else "") + ".d", r, src, "rtz")
    if d.width == 1:
        b("andi", r, r, 1)
    return r


def _cast(b: MBuilder, op, src: VReg) -> VReg:
    s, d = op.src.type, op.result.type
    if F64 in (s, d):
        return _cast_f64(b, op, src)
    if isinstance(op, (O.SIToFPOp, O.UIToFPOp)) and d == FloatType("f32"):
        r = b.f()
        signed = isinstance(op, O.SIToFPOp)
        wide = isinstance(s, IntType) and s.width == 64
        b("fcvt.s." + ("l" if wide else "w") + ("" if signed else "u"), r, src)
        return r
    if isinstance(op, (O.FPToSIOp, O.FPToUIOp)) and s == FloatType("f32"):
        r = b.x()
        wide = isinstance(d, IntType) and d.width == 64
        b("fcvt." + ("l" if wide else "w") + ("" if isinstance(op, O.FPToSIOp) else "u") + ".s",
          r, src, "rtz")
        return r
    if isinstance(op, (O.ExtSIOp, O.ExtUIOp, O.TruncIOp)) and s.is_int() and d.is_int():
        r = b.x()
        sw, dw = s.element_type.width, d.element_type.width
        if isinstance(op, O.TruncIOp):
            if dw == 1:
                b("andi", r, src, 1)
            elif dw == 32:
                b("sext.w", r, src)
            else:
                raise CompileError(f"truncation to {d} is not supported yet")
        elif isinstance(op, O.ExtUIOp) and sw == 32:
            b("slli", r, src, 32)
            b("srli", r, r, 32)
        else:
            b("mv", r, src)  # sign-extended already; i1 is 0 or 1
        return r
    if isinstance(op, O.BitcastOp) and s.is_float() != d.is_float():
        r = b.f() if d.is_float() else b.x()
        b("fmv.w.x" if d.is_float() else "fmv.x.w", r, src)
        return r
    if isinstance(op, O.BitcastOp) and not s.is_float() and not d.is_float():
        r = b.x()   # pointers, or integers of one width (held alike): the same bits
        b("mv", r, src)
        return r
    raise CompileError(f"cast from {s} to {d} is not supported yet")
