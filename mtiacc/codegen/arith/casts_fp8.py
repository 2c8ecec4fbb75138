"""fp8 in codegen: bytes everywhere, decoded and encoded with integer and f32 vector code.

The chip has no fp8 arithmetic, and Triton computes nothing in fp8 (the frontend rejects it), so fp8
values only move (loads, stores, ``tl.where``, shape ops, constants, bitcasts) or convert.  Before
instruction selection the ``legalize-fp8`` pass (``mtiacc/opt/legalize_fp8.py``) retypes every fp8 value
as ``u8`` (pointers to fp8 as pointers to ``u8``; constants become their byte), so codegen sees 1-byte
integers, and names the format of each conversion's fp8 end in its ``fp8`` attribute (``arith.extf``
decodes, ``arith.truncf`` encodes).  Those conversions run here, as the two pseudo steps of the
conversion plans (``conversions.py``; ``casts.py`` runs the plans):

* decode (fp8 byte -> f32, exact): zero-extend to 32 bits, shift the exponent and mantissa bits
  into f32's fields and multiply by ``2**(127 - bias)`` (exact; the f32 multiply also normalizes the
  subnormals), put the sign back, then the format's specials: NaN codes -> 0x7FC00000, e5's
  0x7C/0xFC -> +-inf.  Other float types follow through casts.py's plans (f32 -> f16/bf16/f64 is exact).
* encode (f32 -> fp8 byte): on the magnitude bits ``a``, the normal range rounds the bit pattern at
  the fp8 mantissa's last place (nearest even: add ``0x7FF.. + lsb``; fp8e4b15: add half, i.e. away
  from zero) and rebiases the exponent; below the smallest normal the value is scaled by
  ``2**(bias + mbits - 1)`` (exact) and rounded to an integer by ``vfcvt.x.f.v`` (nearest even); an
  unsigned minimum saturates (infinities too), then NaN (and for fnuz infinities) becomes the NaN
  code and the sign is or-ed in (not onto fnuz zeros).  Sources other than f32 get there first:
  f16/bf16 exactly, f64 by rounding to odd (so the fp8 rounding is the only one).

Register use: the plans run with 32-bit elements at LMUL 4 (``widest`` reports 64 for the pseudo
steps), so besides the loop's groups ``v8``/``v16``/``v24`` the LMUL-4 groups ``v4``, ``v12``, ``v20``
and ``v28`` are free for temporaries.  Scalars run the same plan on one element (``vl = 1``).
"""
from __future__ import annotations

import struct
from typing import Dict, List, Tuple

from mtiacc.codegen.arith.conversions import DECODE, PSEUDO
from mtiacc.codegen.machine.mir import MBuilder, VReg
from mtiacc.codegen.vector.vloop import VLoop
from mtiacc.ir import fp8 as F8
from mtiacc.ir.types import FloatType, IntType

U8, U16, U32 = IntType(8, False), IntType(16, False), IntType(32, False)
F32 = FloatType("f32")
TEMPS = ("v4", "v12", "v20", "v28")


def _f32_bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def _constants(mnemonic: str, f: F8.Fp8Format) -> Dict[str, Tuple[str, object]]:
    """The scalar operands a pseudo step needs: name -> ("x", int) or ("f", float)."""
    if mnemonic == DECODE:
        return {"m7f": ("x", 0x7F), "scale": ("f", 2.0 ** (127 - f.bias)), "inf": ("x", 0x7F800000),
                "x7c": ("x", 0x7C), "x80": ("x", 0x80), "nan": ("x", 0x7FC00000)}
    sh = 23 - f.mbits
    return {"abs": ("x", 0x7FFFFFFF), "rnd": ("x", (1 << (sh - 1)) - (f.rounding == "rne")),
            "rebias": ("x", (127 - f.bias) << f.mbits), "sub": ("f", 2.0 ** (f.bias + f.mbits - 1)),
            "half": ("f", 0.5), "minnorm": ("x", _f32_bits(2.0 ** f.emin)), "sat": ("x", F8.encode(f.sat, f.kind)),
            "special": ("x", 0x7F7FFFFF if f.specials == "fnuz" else 0x7F800000), "nan": ("x", f.nan_code)}


def _materialize(b: MBuilder, mnemonic: str, f: F8.Fp8Format) -> Dict[str, VReg]:
    regs = {}
    for name, (cls, value) in _constants(mnemonic, f).items():
        if cls == "x":
            regs[name] = b.li(value, name)
        else:
            regs[name] = b.f(name)
            b("fmv.w.x", regs[name], b.li(_f32_bits(value)))
    return regs


def hoist(b: MBuilder, steps: list) -> list:
    """``steps`` with the pseudo steps' constants in registers set now, before the loop, not per strip."""
    return [(e, mn, (arg, _materialize(b, mn, arg)) if mn in PSEUDO else arg) for e, mn, arg in steps]


def _decode(b: MBuilder, loop: VLoop, f: F8.Fp8Format, c: Dict[str, VReg], x: str, free: List[str]) -> str:
    w, out = free[0], free[1]
    k, s = TEMPS[0], TEMPS[1]
    loop.ensure(U32)
    b("vzext.vf4", w, x)                             # the byte, zero-extended
    b("vand.vx", k, w, c["m7f"])                     # magnitude code
    b("vsll.vi", out, k, 23 - f.mbits)               # exponent and mantissa in f32's fields
    loop.ensure(F32)
    b("vfmul.vf", out, out, c["scale"])              # rebias (exact; normalizes subnormals)
    loop.ensure(U32)
    if f.specials == "ieee":
        b("vmseq.vx", "v0", k, c["x7c"])
        b("vmerge.vxm", out, out, c["inf"], "v0")   # +-inf (the sign follows)
    b("vsrl.vi", s, w, 7)
    b("vsll.vi", s, s, 31)
    b("vor.vv", out, out, s)
    if f.specials == "ieee":
        b("vmsgtu.vx", "v0", k, c["x7c"])
    elif f.specials == "fn":
        b("vmseq.vx", "v0", k, c["m7f"])
    elif f.specials == "fnuz":
        b("vmseq.vx", "v0", w, c["x80"])
    else:
        return out
    b("vmerge.vxm", out, out, c["nan"], "v0")
    return out


def _encode(b: MBuilder, loop: VLoop, f: F8.Fp8Format, c: Dict[str, VReg], x: str, free: List[str]) -> str:
    a, t, u, s = TEMPS
    sh = 23 - f.mbits
    loop.ensure(U32)
    b("vand.vx", a, x, c["abs"])                     # |x| bits
    if f.rounding == "rne":                          # normal range: round the bit pattern, nearest even
        b("vsrl.vi", t, a, sh)
        b("vand.vi", t, t, 1)
        b("vadd.vv", t, t, a)
        b("vadd.vx", t, t, c["rnd"])
    else:                                            # fp8e4b15: half away from zero
        b("vadd.vx", t, a, c["rnd"])
    b("vsrl.vi", t, t, sh)
    b("vsub.vx", t, t, c["rebias"])
    loop.ensure(F32)                                 # below the smallest normal: scale, round to an integer
    b("vfmul.vf", u, a, c["sub"])
    if f.rounding == "rne":
        b("vfcvt.x.f.v", u, u)
    else:
        b("vfadd.vf", u, u, c["half"])
        b("vfcvt.rtz.xu.f.v", u, u)
    loop.ensure(U32)
    b("vmsltu.vx", "v0", a, c["minnorm"])
    b("vmerge.vvm", t, t, u, "v0")
    b("vminu.vx", t, t, c["sat"])                    # saturate (infinities too)
    b("vsrl.vi", s, x, 31)                           # the sign, at bit 7
    b("vsll.vi", s, s, 7)
    if f.specials == "fnuz":                         # no negative zero
        b("vmseq.vi", "v0", t, 0)
        b("vmerge.vim", s, s, 0, "v0")
    b("vor.vv", t, t, s)
    if f.specials != "none":                         # NaN (fnuz: infinities too)
        b("vmsgtu.vx", "v0", a, c["special"])
        b("vmerge.vxm", t, t, c["nan"], "v0")
    loop.ensure(U16)
    b("vnsrl.wi", free[0], t, 0)
    loop.ensure(U8)
    b("vnsrl.wi", free[1], free[0], 0)
    return free[1]


def run(b: MBuilder, loop: VLoop, mnemonic: str, arg, x: str, free: List[str]) -> str:
    """One pseudo step on the elements in group ``x``; returns the group holding the result.  ``arg`` is the
    format, or (format, constant registers) after :func:`hoist`."""
    f, c = arg if isinstance(arg, tuple) else (arg, _materialize(b, mnemonic, arg))
    return (_decode if mnemonic == DECODE else _encode)(b, loop, f, c, x, free)


__all__ = ["hoist", "run"]
