"""The RV64F and RV64D rows, generated from one list of floating-point operations, are the table as written
out row by row before: mnemonic, encoding (match / mask), operands, timing class and semantics, in order."""
from mtiacc.asm import isa

# extension, mnemonic, match, mask, operand kinds, timing class, semantics family and op (frozen from the
# hand-written table the generator replaced)
FROZEN = [
    "F flw        00002007 0000707f fd,mem             Load  fload w",
    "F fsw        00002027 0000707f fs2,smem           Store fstore w",
    "F fadd.s     00000053 fe00007f fd,fs1,fs2,rm      FPU   fpu add",
    "F fsub.s     08000053 fe00007f fd,fs1,fs2,rm      FPU   fpu sub",
    "F fmul.s     10000053 fe00007f fd,fs1,fs2,rm      FPU   fpu mul",
    "F fdiv.s     18000053 fe00007f fd,fs1,fs2,rm      FDiv  fpu div",
    "F fsqrt.s    58000053 fff0007f fd,fs1,rm          FDiv  fsqrt sqrt",
    "F fsgnj.s    20000053 fe00707f fd,fs1,fs2         FPU   fpu sgnj",
    "F fsgnjn.s   20001053 fe00707f fd,fs1,fs2         FPU   fpu sgnjn",
    "F fsgnjx.s   20002053 fe00707f fd,fs1,fs2         FPU   fpu sgnjx",
    "F fmin.s     28000053 fe00707f fd,fs1,fs2         FPU   fpu min",
    "F fmax.s     28001053 fe00707f fd,fs1,fs2         FPU   fpu max",
    "F feq.s      a0002053 fe00707f xd,fs1,fs2         FPU   fcmp eq",
    "F flt.s      a0001053 fe00707f xd,fs1,fs2         FPU   fcmp lt",
    "F fle.s      a0000053 fe00707f xd,fs1,fs2         FPU   fcmp le",
    "F fcvt.w.s   c0000053 fff0007f xd,fs1,rm          FCvt  fcvt w.s",
    "F fcvt.wu.s  c0100053 fff0007f xd,fs1,rm          FCvt  fcvt wu.s",
    "F fcvt.l.s   c0200053 fff0007f xd,fs1,rm          FCvt  fcvt l.s",
    "F fcvt.lu.s  c0300053 fff0007f xd,fs1,rm          FCvt  fcvt lu.s",
    "F fcvt.s.w   d0000053 fff0007f fd,xs1,rm          FCvt  fcvt s.w",
    "F fcvt.s.wu  d0100053 fff0007f fd,xs1,rm          FCvt  fcvt s.wu",
    "F fcvt.s.l   d0200053 fff0007f fd,xs1,rm          FCvt  fcvt s.l",
    "F fcvt.s.lu  d0300053 fff0007f fd,xs1,rm          FCvt  fcvt s.lu",
    "F fmv.x.w    e0000053 fff0707f xd,fs1             FCvt  fmv x.w",
    "F fmv.w.x    f0000053 fff0707f fd,xs1             FCvt  fmv w.x",
    "F fmadd.s    00000043 0600007f fd,fs1,fs2,fs3,rm  FPU   fma madd",
    "F fmsub.s    00000047 0600007f fd,fs1,fs2,fs3,rm  FPU   fma msub",
    "F fnmsub.s   0000004b 0600007f fd,fs1,fs2,fs3,rm  FPU   fma nmsub",
    "F fnmadd.s   0000004f 0600007f fd,fs1,fs2,fs3,rm  FPU   fma nmadd",
    "D fld        00003007 0000707f fd,mem             Load  fload d",
    "D fsd        00003027 0000707f fs2,smem           Store fstore d",
    "D fadd.d     02000053 fe00007f fd,fs1,fs2,rm      DPU   dpu add",
    "D fsub.d     0a000053 fe00007f fd,fs1,fs2,rm      DPU   dpu sub",
    "D fmul.d     12000053 fe00007f fd,fs1,fs2,rm      DPU   dpu mul",
    "D fdiv.d     1a000053 fe00007f fd,fs1,fs2,rm      DDiv  dpu div",
    "D fsqrt.d    5a000053 fff0007f fd,fs1,rm          DDiv  dsqrt sqrt",
    "D fsgnj.d    22000053 fe00707f fd,fs1,fs2         DPU   dpu sgnj",
    "D fsgnjn.d   22001053 fe00707f fd,fs1,fs2         DPU   dpu sgnjn",
    "D fsgnjx.d   22002053 fe00707f fd,fs1,fs2         DPU   dpu sgnjx",
    "D fmin.d     2a000053 fe00707f fd,fs1,fs2         DPU   dpu min",
    "D fmax.d     2a001053 fe00707f fd,fs1,fs2         DPU   dpu max",
    "D feq.d      a2002053 fe00707f xd,fs1,fs2         DPU   dcmp eq",
    "D flt.d      a2001053 fe00707f xd,fs1,fs2         DPU   dcmp lt",
    "D fle.d      a2000053 fe00707f xd,fs1,fs2         DPU   dcmp le",
    "D fclass.d   e2001053 fff0707f xd,fs1             DPU   fclass d",
    "D fcvt.s.d   40100053 fff0007f fd,fs1,rm          FCvt  dcvt s.d",
    "D fcvt.d.s   42000053 fff0707f fd,fs1             FCvt  dcvt d.s",
    "D fcvt.w.d   c2000053 fff0007f xd,fs1,rm          FCvt  dcvt w.d",
    "D fcvt.wu.d  c2100053 fff0007f xd,fs1,rm          FCvt  dcvt wu.d",
    "D fcvt.l.d   c2200053 fff0007f xd,fs1,rm          FCvt  dcvt l.d",
    "D fcvt.lu.d  c2300053 fff0007f xd,fs1,rm          FCvt  dcvt lu.d",
    "D fcvt.d.w   d2000053 fff0707f fd,xs1             FCvt  dcvt d.w",
    "D fcvt.d.wu  d2100053 fff0707f fd,xs1             FCvt  dcvt d.wu",
    "D fcvt.d.l   d2200053 fff0007f fd,xs1,rm          FCvt  dcvt d.l",
    "D fcvt.d.lu  d2300053 fff0007f fd,xs1,rm          FCvt  dcvt d.lu",
    "D fmv.x.d    e2000053 fff0707f xd,fs1             FCvt  dmv x.d",
    "D fmv.d.x    f2000053 fff0707f fd,xs1             FCvt  dmv d.x",
    "D fmadd.d    02000043 0600007f fd,fs1,fs2,fs3,rm  DPU   dfma madd",
    "D fmsub.d    02000047 0600007f fd,fs1,fs2,fs3,rm  DPU   dfma msub",
    "D fnmsub.d   0200004b 0600007f fd,fs1,fs2,fs3,rm  DPU   dfma nmsub",
    "D fnmadd.d   0200004f 0600007f fd,fs1,fs2,fs3,rm  DPU   dfma nmadd",
]


def _row(s):
    return f"{s.extension} {s.name:<10} {s.match:08x} {s.mask:08x} {','.join(s.operand_names):<18} {s.timing:<5} " \
        f"{s.sem_family} {s.sem_op}"


def test_generated_float_rows_equal_the_frozen_table():
    assert [_row(s) for s in isa.INSTRUCTIONS if s.extension in ("F", "D")] == FROZEN


def _double_name(single: str) -> str:
    odd = {"flw": "fld", "fsw": "fsd", "fmv.x.w": "fmv.x.d", "fmv.w.x": "fmv.d.x"}
    return odd.get(single) or ".".join("d" if t == "s" else t for t in single.split("."))


def test_each_double_row_is_its_single_row_with_fmt_01():
    """Where both formats have an operation, the D encoding is the S one with fmt (funct7[1:0], or bits 26:25
    of the fused multiply-adds) = 01; loads and stores have width 011 for 010."""
    for single in isa.INSTRUCTIONS:
        if single.extension != "F":
            continue
        double = isa.BY_NAME[_double_name(single.name)]
        if single.opcode in (isa.LOAD_FP, isa.STORE_FP):
            assert double.match == single.match | (1 << 12), single.name
        elif single.name in ("fcvt.s.w", "fcvt.s.wu"):
            assert double.match == single.match | (1 << 25) and "rm" not in double.operand_names  # exact
        else:
            assert (double.match, double.mask) == (single.match | (1 << 25), single.mask), single.name


def test_exact_conversions_have_no_rounding_mode():
    exact = {s.name for s in isa.INSTRUCTIONS if s.name.startswith("fcvt.") and "rm" not in s.operand_names}
    assert exact == {"fcvt.d.s", "fcvt.d.w", "fcvt.d.wu"}

