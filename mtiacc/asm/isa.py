"""The ISA table: the single source of truth for every instruction mtiacc emits and mtiasim runs.

One row per instruction: mnemonic, format, operands (assembly order, by operand-kind name from
:mod:`mtiacc.asm.operands`), timing class (keys of ``timing:`` in ``mtiacc/machine/mtia2i.yaml``), semantics
``"family op"`` (mtiasim has one function per family; the op selects the operation) and the fixed fields.
A format supplies default fixed fields (the vector ones fix opcode and funct3) and the unit.

Two more columns say what an instruction reads and writes, for the register allocator, the scheduler and
mtiasim's timing model: the **access** of each operand (``r``, ``w``, ``rw``; by default the operand kind's: ``xd``
is written, ``xs1`` and a memory operand's base are read; a row states an exception after a colon, ``"xd:r"``), and
its **effects** on state no operand names (:data:`EFFECTS`: memory, DMA, vl/vtype, control flow, output; by default
from the timing class and unit, a row adds the rest with ``effects=``).

Everything else is derived: ``match``/``mask`` (from the fixed fields), the encoder and decoder
(:mod:`mtiacc.asm.encoding`), the assembler and disassembler, ``docs/isa.md`` and mtiasim's dispatch.
:func:`check_table` verifies that every row covers its 32 bits exactly once with fixed fields and operand fields and
that no two rows overlap unless both name each other in ``overlaps``; tests/asm/test_isa_table.py runs it (not every
import: it would cost every compile and every simulation its time, on a table that changes only with this file).

Vector rows are written one line per operation with its forms (``.vv .vx .vi`` ...), and the F and D rows come
from one list of floating-point operations expanded per format (:func:`_float_rows`), like TableGen multiclasses.
"""
from __future__ import annotations

import dataclasses
import functools
from typing import Dict, FrozenSet, List, Optional, Sequence, Tuple

from .operands import KINDS, Kind

# --------------------------------------------------------------------------------------------------------------
# Fixed fields and formats
# --------------------------------------------------------------------------------------------------------------
FIXED_FIELDS: Dict[str, Tuple[int, int]] = {
    "opcode": (6, 0), "rd": (11, 7), "funct3": (14, 12), "width": (14, 12), "rs1": (19, 15), "vs1": (19, 15),
    "rs2": (24, 20), "vs2": (24, 20), "umop": (24, 20), "vm": (25, 25), "fmt": (26, 25), "mop": (27, 26),
    "mew": (28, 28), "nf": (31, 29), "funct7": (31, 25), "funct6": (31, 26), "imm12": (31, 20),
    "bit31": (31, 31), "bits31_30": (31, 30), "funct5": (31, 27), "aq": (26, 26), "rl": (25, 25),
}

LOAD, LOAD_FP, CUSTOM_0, OP_IMM, AUIPC, OP_IMM_32 = 0b0000011, 0b0000111, 0b0001011, 0b0010011, 0b0010111, 0b0011011
STORE, STORE_FP, CUSTOM_1, OP, LUI, OP_32 = 0b0100011, 0b0100111, 0b0101011, 0b0110011, 0b0110111, 0b0111011
MADD, MSUB, NMSUB, NMADD, OP_FP, OP_V = 0b1000011, 0b1000111, 0b1001011, 0b1001111, 0b1010011, 0b1010111
BRANCH, JALR, JAL, SYSTEM = 0b1100011, 0b1100111, 0b1101111, 0b1110011
MISC_MEM, AMO = 0b0001111, 0b0101111
CUSTOM_2 = 0b1011011

OPCODE_NAMES = {LOAD: "LOAD", LOAD_FP: "LOAD-FP", CUSTOM_0: "custom-0", CUSTOM_1: "custom-1", OP_IMM: "OP-IMM",
                AUIPC: "AUIPC",
                OP_IMM_32: "OP-IMM-32", STORE: "STORE", STORE_FP: "STORE-FP", OP: "OP", LUI: "LUI", OP_32: "OP-32",
                MADD: "MADD", MSUB: "MSUB", NMSUB: "NMSUB", NMADD: "NMADD", OP_FP: "OP-FP", OP_V: "OP-V",
                BRANCH: "BRANCH", JALR: "JALR", JAL: "JAL", SYSTEM: "SYSTEM",
                MISC_MEM: "MISC-MEM", AMO: "AMO", CUSTOM_2: "custom-2"}
# The names GNU as gives the major opcodes in `.insn` directives (binutils 2.40 has none for OP-V: a number).
GNU_OPCODE_NAMES = {code: name.upper().replace("-", "_") for code, name in OPCODE_NAMES.items() if code != OP_V}

# format -> (default fixed fields, default unit)
FORMATS: Dict[str, Tuple[Dict[str, int], str]] = {
    **{f: ({}, "scalar") for f in ("R", "I", "S", "B", "U", "J", "R4")},
    "OPIVV": ({"opcode": OP_V, "funct3": 0b000}, "vector"), "OPFVV": ({"opcode": OP_V, "funct3": 0b001}, "vector"),
    "OPMVV": ({"opcode": OP_V, "funct3": 0b010}, "vector"), "OPIVI": ({"opcode": OP_V, "funct3": 0b011}, "vector"),
    "OPIVX": ({"opcode": OP_V, "funct3": 0b100}, "vector"), "OPFVF": ({"opcode": OP_V, "funct3": 0b101}, "vector"),
    "OPMVX": ({"opcode": OP_V, "funct3": 0b110}, "vector"), "OPCFG": ({"opcode": OP_V, "funct3": 0b111}, "vector"),
    # vector loads/stores: unit-stride (umop=0), strided (mop=2), indexed-unordered (mop=1); nf=0, mew=0
    "VL": ({"opcode": LOAD_FP, "nf": 0, "mew": 0, "mop": 0, "umop": 0}, "vector"),
    "VLS": ({"opcode": LOAD_FP, "nf": 0, "mew": 0, "mop": 2}, "vector"),
    "VLX": ({"opcode": LOAD_FP, "nf": 0, "mew": 0, "mop": 1}, "vector"),
    "VS": ({"opcode": STORE_FP, "nf": 0, "mew": 0, "mop": 0, "umop": 0}, "vector"),
    "VSS": ({"opcode": STORE_FP, "nf": 0, "mew": 0, "mop": 2}, "vector"),
    "VSX": ({"opcode": STORE_FP, "nf": 0, "mew": 0, "mop": 1}, "vector"),
    # the SIMD engine (custom-2): the OP-V layout (funct6, vm, vs2, vs1, funct3, vd), vs1 selects the function
    "SE": ({"opcode": CUSTOM_2, "funct3": 0b000, "funct6": 0b000000}, "se"),
    # the SIMD engine's floating-point ALUs (custom-2): the OP-V layout, funct6 the operation (RVV's codes),
    # funct3 the second operand's kind as in OP-V (001: vs1, a vector; 101: rs1, an f register)
    "SEVV": ({"opcode": CUSTOM_2, "funct3": 0b001}, "se"), "SEVF": ({"opcode": CUSTOM_2, "funct3": 0b101}, "se"),
    # the SE's own loads (010) and stores (011): the vector loads' layout, funct6 the width (SE_MEM_EEW), umop 0
    "SEL": ({"opcode": CUSTOM_2, "funct3": 0b010, "umop": 0}, "se"), "SES": ({"opcode": CUSTOM_2, "funct3": 0b011,
                                                                             "umop": 0}, "se"),
}

TIMING_CLASSES = ("IntALU", "IntMul", "IntDiv", "Branch", "Jump", "Load", "Store", "FPU", "FDiv", "FCvt", "System",
                  "DPU", "DDiv",
                  "VSet", "VALU", "VMul", "VDiv", "VFALU", "VFDiv", "VMask", "VPerm", "VRed", "VLoad", "VStore",
                  "Custom", "DMA", "DPE", "DPEWait", "Atomic", "Fence", "SE", "SEALU", "SEMem")
UNITS = ("scalar", "vector", "dma", "custom", "dpe", "atomic", "se", "mlu")
ACCESS = ("", "r", "w", "rw")

# Effects beyond the operands (LLVM's mayLoad, mayStore, hasSideEffects, Uses = [VL, VTYPE] ...).
EFFECTS = {
    "load": "reads local memory",
    "store": "writes local memory",
    "dma": "issues DMA transfers or waits for them (kept in order with each other and with memory accesses)",
    "io": "prints, or stops the run (debugging)",
    "vtype": "reads vl and vtype",
    "setvl": "writes vl and vtype",
    "branch": "jumps to its target when the condition holds",
    "jump": "jumps",
    "trap": "enters the environment",
    "engine": "commands the matrix engine (DPE) or waits for it (kept in order with each other and with memory "
              "accesses)",
    "atomic": "reads and writes memory indivisibly where its address lives (DRAM, SRAM or local memory), or orders "
              "memory operations (kept in order with every memory access, DMA transfer and engine command)",
}
# the effects a timing class implies; every vector-unit and SE instruction but vsetvli also reads vl and vtype
_TIMING_EFFECTS = {"Load": "load", "VLoad": "load", "Store": "store", "VStore": "store", "Branch": "branch",
                   "Jump": "jump", "VSet": "setvl", "System": "trap"}

# The A extension's atomic memory operations mtiacc uses (funct5), with Zacas's amocas and Zabha's halfword forms
AMO_OPS = {"add": 0b00000, "swap": 0b00001, "xor": 0b00100, "cas": 0b00101, "or": 0b01000, "and": 0b01100,
           "min": 0b10000, "max": 0b10100, "minu": 0b11000, "maxu": 0b11100}
AMO_WIDTHS = {op: ("w", "d") if op not in ("swap", "cas") else ("h", "w", "d") for op in AMO_OPS}
AMO_WIDTH_FUNCT3 = {"h": 0b001, "w": 0b010, "d": 0b011}
# MTIA's floating-point atomic add (custom-0): the format in funct7[3:2]; bf = bfloat16
AMO_FLOATS = {"h": 0, "bf": 1, "s": 2, "d": 3}
AMO_ORDERINGS = {"": (0, 0), ".aq": (1, 0), ".rl": (0, 1), ".aqrl": (1, 1)}
# The SIMD engine's functions (mtia.se.<function>.v), by their code in the vs1 field
# The SIMD engine's floating-point ALU operations (mtia.se.f<op>.vv / .vf), by their funct6 (RVV's vf<op> codes)
# and the forms each has (rsub only with a scalar, as vfrsub)
SE_ALU = {"add": (0b000000, "vv vf"), "sub": (0b000010, "vv vf"), "rsub": (0b100111, "vf"),
          "mul": (0b100100, "vv vf"), "min": (0b000100, "vv vf"), "max": (0b000110, "vv vf")}
SE_MEM_EEW = {16: 0b000001, 32: 0b000010}
SE_FUNCTIONS = {"exp": 0, "exp2": 1, "log": 2, "log2": 3, "sigmoid": 4, "tanh": 5, "erf": 6, "recip": 7,
                "rsqrt": 8, "sqrt": 9, "sin": 10, "cos": 11}

# family -> its ops (the simulator implements one function per family)
SEM_FAMILIES: Dict[str, Tuple[str, ...]] = {
    "alu": ("add", "sub", "sll", "slt", "sltu", "xor", "srl", "sra", "or", "and",
            "mul", "mulh", "mulhsu", "mulhu", "div", "divu", "rem", "remu"),
    "alu_w": ("add", "sub", "sll", "srl", "sra", "mul", "div", "divu", "rem", "remu"),
    "alu_imm": ("add", "slt", "sltu", "xor", "or", "and", "sll", "srl", "sra"),
    "alu_imm_w": ("add", "sll", "srl", "sra"),
    "lui": ("lui",), "auipc": ("auipc",), "jal": ("jal",), "jalr": ("jalr",),
    "branch": ("eq", "ne", "lt", "ge", "ltu", "geu"),
    "load": ("b", "h", "w", "d", "bu", "hu", "wu"), "store": ("b", "h", "w", "d"),
    "fload": ("w", "d"), "fstore": ("w", "d"),
    "fpu": ("add", "sub", "mul", "div", "min", "max", "sgnj", "sgnjn", "sgnjx"),
    "fsqrt": ("sqrt",), "fcmp": ("eq", "lt", "le"),
    "fcvt": ("w.s", "wu.s", "l.s", "lu.s", "s.w", "s.wu", "s.l", "s.lu"),
    "fmv": ("x.w", "w.x"), "fma": ("madd", "msub", "nmsub", "nmadd"),
    # RV64D (mtiasim/semantics/fp.py: the same functions, at double precision)
    "dpu": ("add", "sub", "mul", "div", "min", "max", "sgnj", "sgnjn", "sgnjx"),
    "dsqrt": ("sqrt",), "dcmp": ("eq", "lt", "le"),
    "dcvt": ("w.d", "wu.d", "l.d", "lu.d", "d.w", "d.wu", "d.l", "d.lu", "s.d", "d.s"),
    "dmv": ("x.d", "d.x"), "dfma": ("madd", "msub", "nmsub", "nmadd"), "fclass": ("d",),
    "system": ("ecall", "ebreak"),
    "vsetvli": ("vsetvli", "vsetivli"),
    "vload": ("8", "16", "32", "64"), "vstore": ("8", "16", "32", "64"),
    "vload_strided": ("8", "16", "32", "64"), "vstore_strided": ("8", "16", "32", "64"),
    "vload_indexed": ("8", "16", "32", "64"), "vstore_indexed": ("8", "16", "32", "64"),
    "valu": ("add", "sub", "rsub", "mul", "mulh", "div", "divu", "rem", "remu", "and", "or", "xor",
             "sll", "srl", "sra", "min", "minu", "max", "maxu"),
    "vfalu": ("add", "sub", "rsub", "mul", "div", "rdiv", "min", "max", "sgnj", "sgnjn", "sgnjx"),
    "vfma": ("macc", "nmacc", "msac", "nmsac", "madd", "nmadd", "msub", "nmsub"),
    "vcmp": ("eq", "ne", "lt", "ltu", "le", "leu", "gt", "gtu"),
    "vfcmp": ("eq", "ne", "lt", "le", "gt", "ge"),
    "vmerge": ("vmerge", "fmerge"), "vslide": ("down",), "vmv": ("v", "x", "i", "f"),
    "vmv_scalar": ("x.s", "s.x", "f.s", "s.f"),
    "vid": ("vid",), "vcvt": ("f.x", "f.xu", "x.f", "xu.f", "rtz.x.f", "rtz.xu.f"), "vfunary": ("sqrt",),
    "vmask": ("and", "or", "xor", "nand", "andn", "orn", "nor", "xnor"),
    "vred": ("sum", "max", "maxu", "min", "minu", "and", "or", "xor"), "vfred": ("usum", "osum", "max", "min"),
    "dma": ("in", "out", "in2d", "out2d"), "dma_cfg": ("cfg",), "dma_wait": ("wait", "waitin"),
    # the matrix engine (mtiasim/semantics/dpe.py)
    "dpe": ("cfg", "ldw", "mm", "zero", "accld", "accst", "mlutrans"), "dpe_wait": ("wait",),
    # the SIMD engine's table-based functions (mtiasim/semantics/se.py, the numbers in mtiasim/se/)
    "se": tuple(SE_FUNCTIONS),
    # the SIMD engine's floating-point ALUs (mtiasim/semantics/se.py: IEEE, as the vector unit's vfalu)
    "se_alu": tuple(SE_ALU), "se_cvt": ("ncvt",),    # (se_cvt: fp32 -> fp16, as the vector unit's vfncvt.f.f.w)
    # atomics and the fence (mtiasim/semantics/atomic.py): "<operation>.<width>"
    "amo": tuple(f"{op}.{w}" for op in AMO_OPS for w in AMO_WIDTHS[op]) + tuple(f"fadd.{w}" for w in AMO_FLOATS),
    "fence": ("fence",),
    "pid": ("pid",), "nprogs": ("nprogs",),
    # widening / narrowing conversions and the high multiplies (mtiasim/semantics/convert_debug.py)
    "vext": ("z2", "s2", "z4", "s4", "z8", "s8"), "vnarrow": ("srl", "sra"), "vmulhx": ("mulhu", "mulhsu"),
    "vfwcvt": ("f.f", "f.x", "f.xu", "x.f", "xu.f", "rtz.x.f", "rtz.xu.f"),
    "vfncvt": ("f.f", "rod.f.f", "f.x", "f.xu", "x.f", "xu.f", "rtz.x.f", "rtz.xu.f"),
    # debugging (mtiasim/semantics/convert_debug.py)
    "debug": ("print", "assert", "flush"),
}


# --------------------------------------------------------------------------------------------------------------
# Rows
# --------------------------------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Row:
    name: str
    fmt: str
    operands: str
    timing: str
    sem: str
    fixed: Tuple[Tuple[str, int], ...]
    unit: Optional[str] = None
    overlaps: Tuple[str, ...] = ()
    effects: str = ""        # effects beyond those of the timing class and unit, space-separated


def _(name, fmt, operands, timing, sem, /, unit=None, overlaps=(), effects="", **fixed) -> Row:
    return Row(name, fmt, operands, timing, sem, tuple(fixed.items()), unit, tuple(overlaps), effects)


RV64I = [
    _("lui", "U", "xd, imm20", "IntALU", "lui lui", opcode=LUI),
    _("auipc", "U", "xd, imm20", "IntALU", "auipc auipc", opcode=AUIPC),
    _("jal", "J", "xd, jtarget", "Jump", "jal jal", opcode=JAL),
    _("jalr", "I", "xd, mem", "Jump", "jalr jalr", opcode=JALR, funct3=0),
    _("beq", "B", "xs1, xs2, btarget", "Branch", "branch eq", opcode=BRANCH, funct3=0b000),
    _("bne", "B", "xs1, xs2, btarget", "Branch", "branch ne", opcode=BRANCH, funct3=0b001),
    _("blt", "B", "xs1, xs2, btarget", "Branch", "branch lt", opcode=BRANCH, funct3=0b100),
    _("bge", "B", "xs1, xs2, btarget", "Branch", "branch ge", opcode=BRANCH, funct3=0b101),
    _("bltu", "B", "xs1, xs2, btarget", "Branch", "branch ltu", opcode=BRANCH, funct3=0b110),
    _("bgeu", "B", "xs1, xs2, btarget", "Branch", "branch geu", opcode=BRANCH, funct3=0b111),
    _("lb", "I", "xd, mem", "Load", "load b", opcode=LOAD, funct3=0b000),
    _("lh", "I", "xd, mem", "Load", "load h", opcode=LOAD, funct3=0b001),
    _("lw", "I", "xd, mem", "Load", "load w", opcode=LOAD, funct3=0b010),
    _("ld", "I", "xd, mem", "Load", "load d", opcode=LOAD, funct3=0b011),
    _("lbu", "I", "xd, mem", "Load", "load bu", opcode=LOAD, funct3=0b100),
    _("lhu", "I", "xd, mem", "Load", "load hu", opcode=LOAD, funct3=0b101),
    _("lwu", "I", "xd, mem", "Load", "load wu", opcode=LOAD, funct3=0b110),
    _("sb", "S", "xs2, smem", "Store", "store b", opcode=STORE, funct3=0b000),
    _("sh", "S", "xs2, smem", "Store", "store h", opcode=STORE, funct3=0b001),
    _("sw", "S", "xs2, smem", "Store", "store w", opcode=STORE, funct3=0b010),
    _("sd", "S", "xs2, smem", "Store", "store d", opcode=STORE, funct3=0b011),
    _("addi", "I", "xd, xs1, simm12", "IntALU", "alu_imm add", opcode=OP_IMM, funct3=0b000),
    _("slti", "I", "xd, xs1, simm12", "IntALU", "alu_imm slt", opcode=OP_IMM, funct3=0b010),
    _("sltiu", "I", "xd, xs1, simm12", "IntALU", "alu_imm sltu", opcode=OP_IMM, funct3=0b011),
    _("xori", "I", "xd, xs1, simm12", "IntALU", "alu_imm xor", opcode=OP_IMM, funct3=0b100),
    _("ori", "I", "xd, xs1, simm12", "IntALU", "alu_imm or", opcode=OP_IMM, funct3=0b110),
    _("andi", "I", "xd, xs1, simm12", "IntALU", "alu_imm and", opcode=OP_IMM, funct3=0b111),
    _("slli", "I", "xd, xs1, shamt6", "IntALU", "alu_imm sll", opcode=OP_IMM, funct3=0b001, funct6=0b000000),
    _("srli", "I", "xd, xs1, shamt6", "IntALU", "alu_imm srl", opcode=OP_IMM, funct3=0b101, funct6=0b000000),
    _("srai", "I", "xd, xs1, shamt6", "IntALU", "alu_imm sra", opcode=OP_IMM, funct3=0b101, funct6=0b010000),
    _("add", "R", "xd, xs1, xs2", "IntALU", "alu add", opcode=OP, funct3=0b000, funct7=0b0000000),
    _("sub", "R", "xd, xs1, xs2", "IntALU", "alu sub", opcode=OP, funct3=0b000, funct7=0b0100000),
    _("sll", "R", "xd, xs1, xs2", "IntALU", "alu sll", opcode=OP, funct3=0b001, funct7=0b0000000),
    _("slt", "R", "xd, xs1, xs2", "IntALU", "alu slt", opcode=OP, funct3=0b010, funct7=0b0000000),
    _("sltu", "R", "xd, xs1, xs2", "IntALU", "alu sltu", opcode=OP, funct3=0b011, funct7=0b0000000),
    _("xor", "R", "xd, xs1, xs2", "IntALU", "alu xor", opcode=OP, funct3=0b100, funct7=0b0000000),
    _("srl", "R", "xd, xs1, xs2", "IntALU", "alu srl", opcode=OP, funct3=0b101, funct7=0b0000000),
    _("sra", "R", "xd, xs1, xs2", "IntALU", "alu sra", opcode=OP, funct3=0b101, funct7=0b0100000),
    _("or", "R", "xd, xs1, xs2", "IntALU", "alu or", opcode=OP, funct3=0b110, funct7=0b0000000),
    _("and", "R", "xd, xs1, xs2", "IntALU", "alu and", opcode=OP, funct3=0b111, funct7=0b0000000),
    _("addiw", "I", "xd, xs1, simm12", "IntALU", "alu_imm_w add", opcode=OP_IMM_32, funct3=0b000),
    _("slliw", "I", "xd, xs1, shamt5", "IntALU", "alu_imm_w sll", opcode=OP_IMM_32, funct3=0b001, funct7=0),
    _("srliw", "I", "xd, xs1, shamt5", "IntALU", "alu_imm_w srl", opcode=OP_IMM_32, funct3=0b101, funct7=0),
    _("sraiw", "I", "xd, xs1, shamt5", "IntALU", "alu_imm_w sra", opcode=OP_IMM_32, funct3=0b101,
      funct7=0b0100000),
    _("addw", "R", "xd, xs1, xs2", "IntALU", "alu_w add", opcode=OP_32, funct3=0b000, funct7=0b0000000),
    _("subw", "R", "xd, xs1, xs2", "IntALU", "alu_w sub", opcode=OP_32, funct3=0b000, funct7=0b0100000),
    _("sllw", "R", "xd, xs1, xs2", "IntALU", "alu_w sll", opcode=OP_32, funct3=0b001, funct7=0b0000000),
    _("srlw", "R", "xd, xs1, xs2", "IntALU", "alu_w srl", opcode=OP_32, funct3=0b101, funct7=0b0000000),
    _("sraw", "R", "xd, xs1, xs2", "IntALU", "alu_w sra", opcode=OP_32, funct3=0b101, funct7=0b0100000),
    _("ecall", "I", "", "System", "system ecall", opcode=SYSTEM, funct3=0, rd=0, rs1=0, imm12=0),
    _("ebreak", "I", "", "System", "system ebreak", opcode=SYSTEM, funct3=0, rd=0, rs1=0, imm12=1),
]

RV64M = [
    _(name, "R", "xd, xs1, xs2", timing, f"{fam} {op}", opcode=opc, funct3=f3, funct7=0b0000001)
    for name, opc, f3, timing, fam, op in [
        ("mul", OP, 0, "IntMul", "alu", "mul"), ("mulh", OP, 1, "IntMul", "alu", "mulh"),
        ("mulhsu", OP, 2, "IntMul", "alu", "mulhsu"), ("mulhu", OP, 3, "IntMul", "alu", "mulhu"),
        ("div", OP, 4, "IntDiv", "alu", "div"), ("divu", OP, 5, "IntDiv", "alu", "divu"),
        ("rem", OP, 6, "IntDiv", "alu", "rem"), ("remu", OP, 7, "IntDiv", "alu", "remu"),
        ("mulw", OP_32, 0, "IntMul", "alu_w", "mul"), ("divw", OP_32, 4, "IntDiv", "alu_w", "div"),
        ("divuw", OP_32, 5, "IntDiv", "alu_w", "divu"), ("remw", OP_32, 6, "IntDiv", "alu_w", "rem"),
        ("remuw", OP_32, 7, "IntDiv", "alu_w", "remu"),
    ]
]

# RV64F and RV64D: one list of operations, expanded per format (a TableGen multiclass over the S and D register
# formats; riscv-opcodes' rv_f and rv_d files side by side). Each OP-FP row names its funct7 for fmt=00; the
# format's fmt goes in funct7[1:0] (in bits 26:25 of the fused multiply-adds).
@dataclasses.dataclass(frozen=True)
class FloatFormat:
    letter: str                         # mnemonic suffix: fadd.s / fadd.d
    fmt: int                            # the fmt field
    width: str                          # memory and raw-move width: flw / fld, fmv.x.w / fmv.x.d
    funct3: int                         # the load's and the store's width field
    precision: int                      # significand bits: a conversion from at most this many bits is exact
    timing: Tuple[str, str]             # timing classes of arithmetic, and of divide and square root
    families: Dict[str, str]            # semantics family of each kind of operation (one mtiasim function each)
    narrower: Tuple["FloatFormat", ...] = ()  # formats it converts to and from (fcvt.s.d, fcvt.d.s)
    fclass: bool = False                # has fclass (the subset has fclass.d only)


SINGLE = FloatFormat("s", 0b00, "w", 0b010, 24, ("FPU", "FDiv"),
                     dict(arith="fpu", sqrt="fsqrt", cmp="fcmp", cvt="fcvt", mv="fmv", fma="fma"))
DOUBLE = FloatFormat("d", 0b01, "d", 0b011, 53, ("DPU", "DDiv"),
                     dict(arith="dpu", sqrt="dsqrt", cmp="dcmp", cvt="dcvt", mv="dmv", fma="dfma"),
                     narrower=(SINGLE,), fclass=True)
_INTS = (("w", 32), ("wu", 32), ("l", 64), ("lu", 64))    # the integer side of fcvt, selected by rs2 = 0..3


def _float_rows(f: FloatFormat) -> List[Row]:
    s, w, fam = f.letter, f.width, f.families
    arith, div = f.timing

    def opfp(name, operands, timing, sem, funct7, fmt=f.fmt, **fixed) -> Row:
        return _(name, "R", operands, timing, sem, opcode=OP_FP, funct7=funct7 | fmt, **fixed)

    def cvt(name, operands, exact, funct7, fmt, rs2) -> Row:
        sem = f"{fam['cvt']} {name[len('fcvt.'):]}"
        if exact:     # every source value is representable: no rounding-mode operand (GNU as writes rm = 000)
            return opfp(name, operands, "FCvt", sem, funct7, fmt, rs2=rs2, funct3=0)
        return opfp(name, operands + ", rm", "FCvt", sem, funct7, fmt, rs2=rs2)

    rows = [
        _(f"fl{w}", "I", "fd, mem", "Load", f"fload {w}", opcode=LOAD_FP, funct3=f.funct3),
        _(f"fs{w}", "S", "fs2, smem", "Store", f"fstore {w}", opcode=STORE_FP, funct3=f.funct3),
        *[opfp(f"f{op}.{s}", "fd, fs1, fs2, rm", div if op == "div" else arith, f"{fam['arith']} {op}", funct7)
          for op, funct7 in (("add", 0b0000000), ("sub", 0b0000100), ("mul", 0b0001000), ("div", 0b0001100))],
        opfp(f"fsqrt.{s}", "fd, fs1, rm", div, f"{fam['sqrt']} sqrt", 0b0101100, rs2=0),
        *[opfp(f"f{op}.{s}", "fd, fs1, fs2", arith, f"{fam['arith']} {op}", funct7, funct3=funct3)
          for op, funct7, funct3 in (("sgnj", 0b0010000, 0b000), ("sgnjn", 0b0010000, 0b001),
                                     ("sgnjx", 0b0010000, 0b010), ("min", 0b0010100, 0b000),
                                     ("max", 0b0010100, 0b001))],
        *[opfp(f"f{op}.{s}", "xd, fs1, fs2", arith, f"{fam['cmp']} {op}", 0b1010000, funct3=funct3)
          for op, funct3 in (("eq", 0b010), ("lt", 0b001), ("le", 0b000))],
    ]
    if f.fclass:
        rows.append(opfp(f"fclass.{s}", "xd, fs1", arith, f"fclass {s}", 0b1110000, rs2=0, funct3=0b001))
    for n in f.narrower:     # narrowing rounds, widening is exact
        rows.append(cvt(f"fcvt.{n.letter}.{s}", "fd, fs1", False, 0b0100000, n.fmt, rs2=f.fmt))
        rows.append(cvt(f"fcvt.{s}.{n.letter}", "fd, fs1", True, 0b0100000, f.fmt, rs2=n.fmt))
    rows += [cvt(f"fcvt.{i}.{s}", "xd, fs1", False, 0b1100000, f.fmt, rs2) for rs2, (i, _bits) in enumerate(_INTS)]
    rows += [cvt(f"fcvt.{s}.{i}", "fd, xs1", bits <= f.precision, 0b1101000, f.fmt, rs2)
             for rs2, (i, bits) in enumerate(_INTS)]
    rows += [opfp(f"fmv.x.{w}", "xd, fs1", "FCvt", f"{fam['mv']} x.{w}", 0b1110000, rs2=0, funct3=0),
             opfp(f"fmv.{w}.x", "fd, xs1", "FCvt", f"{fam['mv']} {w}.x", 0b1111000, rs2=0, funct3=0)]
    rows += [_(f"f{op}.{s}", "R4", "fd, fs1, fs2, fs3, rm", arith, f"{fam['fma']} {op}", opcode=opcode, fmt=f.fmt)
             for op, opcode in (("madd", MADD), ("msub", MSUB), ("nmsub", NMSUB), ("nmadd", NMADD))]
    return rows


RV64F = _float_rows(SINGLE)
RV64D = _float_rows(DOUBLE)

# Vector arithmetic "multiclass": form -> (mnemonic suffix, format, operands)
_VFORMS = {
    "ivv": (".vv", "OPIVV", "vd, vs2, vs1, vm"), "ivx": (".vx", "OPIVX", "vd, vs2, xs1, vm"),
    "ivi": (".vi", "OPIVI", "vd, vs2, simm5, vm"), "ivu": (".vi", "OPIVI", "vd, vs2, uimm5, vm"),
    "mvv": (".vv", "OPMVV", "vd, vs2, vs1, vm"), "mvx": (".vx", "OPMVX", "vd, vs2, xs1, vm"),
    "fvv": (".vv", "OPFVV", "vd, vs2, vs1, vm"), "fvf": (".vf", "OPFVF", "vd, vs2, fs1, vm"),
    # the multiply-adds accumulate into vd: it is read as well as written
    "fmavv": (".vv", "OPFVV", "vd:rw, vs1, vs2, vm"), "fmavf": (".vf", "OPFVF", "vd:rw, fs1, vs2, vm"),
    "mvs": (".vs", "OPMVV", "vd, vs2, vs1, vm"), "fvs": (".vs", "OPFVV", "vd, vs2, vs1, vm"),
    "mm": (".mm", "OPMVV", "vd, vs2, vs1"),
}


def _v(name: str, funct6: int, forms: str, timing: str, sem: str, **fixed) -> List[Row]:
    rows = []
    for form in forms.split():
        suffix, fmt, operands = _VFORMS[form]
        rows.append(_(name + suffix, fmt, operands, timing, sem, funct6=funct6, **fixed))
    return rows


_EEW = [(8, 0b000), (16, 0b101), (32, 0b110), (64, 0b111)]

RVV = [
    _("vsetvli", "OPCFG", "xd, xs1, vtypei11", "VSet", "vsetvli vsetvli", bit31=0),
    _("vsetivli", "OPCFG", "xd, uimm5, vtypei10", "VSet", "vsetvli vsetivli", bits31_30=0b11),
    *[_(f"vle{e}.v", "VL", "vd, vmem, vm", "VLoad", f"vload {e}", width=w) for e, w in _EEW],
    *[_(f"vse{e}.v", "VS", "vs3, vmem, vm", "VStore", f"vstore {e}", width=w) for e, w in _EEW],
    *[_(f"vlse{e}.v", "VLS", "vd, vmem, xs2, vm", "VLoad", f"vload_strided {e}", width=w) for e, w in _EEW],
    *[_(f"vsse{e}.v", "VSS", "vs3, vmem, xs2, vm", "VStore", f"vstore_strided {e}", width=w) for e, w in _EEW],
    *[_(f"vluxei{e}.v", "VLX", "vd, vmem, vs2, vm", "VLoad", f"vload_indexed {e}", width=w) for e, w in _EEW],
    *[_(f"vsuxei{e}.v", "VSX", "vs3, vmem, vs2, vm", "VStore", f"vstore_indexed {e}", width=w) for e, w in _EEW],
    # integer arithmetic
    *_v("vadd", 0b000000, "ivv ivx ivi", "VALU", "valu add"),
    *_v("vsub", 0b000010, "ivv ivx", "VALU", "valu sub"),
    *_v("vrsub", 0b000011, "ivx ivi", "VALU", "valu rsub"),
    *_v("vminu", 0b000100, "ivv ivx", "VALU", "valu minu"),
    *_v("vmin", 0b000101, "ivv ivx", "VALU", "valu min"),
    *_v("vmaxu", 0b000110, "ivv ivx", "VALU", "valu maxu"),
    *_v("vmax", 0b000111, "ivv ivx", "VALU", "valu max"),
    *_v("vand", 0b001001, "ivv ivx ivi", "VALU", "valu and"),
    *_v("vor", 0b001010, "ivv ivx ivi", "VALU", "valu or"),
    *_v("vxor", 0b001011, "ivv ivx ivi", "VALU", "valu xor"),
    *_v("vsll", 0b100101, "ivv ivx ivu", "VALU", "valu sll"),
    *_v("vsrl", 0b101000, "ivv ivx ivu", "VALU", "valu srl"),
    *_v("vsra", 0b101001, "ivv ivx ivu", "VALU", "valu sra"),
    *_v("vdivu", 0b100000, "mvv mvx", "VDiv", "valu divu"),
    *_v("vdiv", 0b100001, "mvv mvx", "VDiv", "valu div"),
    *_v("vremu", 0b100010, "mvv mvx", "VDiv", "valu remu"),
    *_v("vrem", 0b100011, "mvv mvx", "VDiv", "valu rem"),
    *_v("vmul", 0b100101, "mvv mvx", "VMul", "valu mul"),
    *_v("vmulh", 0b100111, "mvv mvx", "VMul", "valu mulh"),
    *_v("vmulhu", 0b100100, "mvv mvx", "VMul", "vmulhx mulhu"),
    *_v("vmulhsu", 0b100110, "mvv mvx", "VMul", "vmulhx mulhsu"),
    # integer compares (write a mask)
    *_v("vmseq", 0b011000, "ivv ivx ivi", "VALU", "vcmp eq"),
    *_v("vmsne", 0b011001, "ivv ivx ivi", "VALU", "vcmp ne"),
    *_v("vmsltu", 0b011010, "ivv ivx", "VALU", "vcmp ltu"),
    *_v("vmslt", 0b011011, "ivv ivx", "VALU", "vcmp lt"),
    *_v("vmsleu", 0b011100, "ivv ivx ivi", "VALU", "vcmp leu"),
    *_v("vmsle", 0b011101, "ivv ivx ivi", "VALU", "vcmp le"),
    *_v("vmsgtu", 0b011110, "ivx ivi", "VALU", "vcmp gtu"),
    *_v("vmsgt", 0b011111, "ivx ivi", "VALU", "vcmp gt"),
    # floating point
    *_v("vfadd", 0b000000, "fvv fvf", "VFALU", "vfalu add"),
    *_v("vfsub", 0b000010, "fvv fvf", "VFALU", "vfalu sub"),
    *_v("vfrsub", 0b100111, "fvf", "VFALU", "vfalu rsub"),
    *_v("vfmul", 0b100100, "fvv fvf", "VFALU", "vfalu mul"),
    *_v("vfdiv", 0b100000, "fvv fvf", "VFDiv", "vfalu div"),
    *_v("vfrdiv", 0b100001, "fvf", "VFDiv", "vfalu rdiv"),
    *_v("vfmin", 0b000100, "fvv fvf", "VFALU", "vfalu min"),
    *_v("vfmax", 0b000110, "fvv fvf", "VFALU", "vfalu max"),
    *_v("vfsgnj", 0b001000, "fvv fvf", "VFALU", "vfalu sgnj"),
    *_v("vfsgnjn", 0b001001, "fvv fvf", "VFALU", "vfalu sgnjn"),
    *_v("vfsgnjx", 0b001010, "fvv fvf", "VFALU", "vfalu sgnjx"),
    *_v("vfmadd", 0b101000, "fmavv fmavf", "VFALU", "vfma madd"),
    *_v("vfnmadd", 0b101001, "fmavv fmavf", "VFALU", "vfma nmadd"),
    *_v("vfmsub", 0b101010, "fmavv fmavf", "VFALU", "vfma msub"),
    *_v("vfnmsub", 0b101011, "fmavv fmavf", "VFALU", "vfma nmsub"),
    *_v("vfmacc", 0b101100, "fmavv fmavf", "VFALU", "vfma macc"),
    *_v("vfnmacc", 0b101101, "fmavv fmavf", "VFALU", "vfma nmacc"),
    *_v("vfmsac", 0b101110, "fmavv fmavf", "VFALU", "vfma msac"),
    *_v("vfnmsac", 0b101111, "fmavv fmavf", "VFALU", "vfma nmsac"),
    *_v("vmfeq", 0b011000, "fvv fvf", "VFALU", "vfcmp eq"),
    *_v("vmfle", 0b011001, "fvv fvf", "VFALU", "vfcmp le"),
    *_v("vmflt", 0b011011, "fvv fvf", "VFALU", "vfcmp lt"),
    *_v("vmfne", 0b011100, "fvv fvf", "VFALU", "vfcmp ne"),
    *_v("vmfgt", 0b011101, "fvf", "VFALU", "vfcmp gt"),
    *_v("vmfge", 0b011111, "fvf", "VFALU", "vfcmp ge"),
    # merges and moves (funct6 010111: vm=0 merges under v0, vm=1 with vs2=0 moves)
    _("vmerge.vvm", "OPIVV", "vd, vs2, vs1, v0", "VPerm", "vmerge vmerge", funct6=0b010111, vm=0),
    _("vmerge.vxm", "OPIVX", "vd, vs2, xs1, v0", "VPerm", "vmerge vmerge", funct6=0b010111, vm=0),
    _("vmerge.vim", "OPIVI", "vd, vs2, simm5, v0", "VPerm", "vmerge vmerge", funct6=0b010111, vm=0),
    _("vfmerge.vfm", "OPFVF", "vd, vs2, fs1, v0", "VPerm", "vmerge fmerge", funct6=0b010111, vm=0),
    _("vmv.v.v", "OPIVV", "vd, vs1", "VALU", "vmv v", funct6=0b010111, vm=1, vs2=0),
    _("vmv.v.x", "OPIVX", "vd, xs1", "VALU", "vmv x", funct6=0b010111, vm=1, vs2=0),
    _("vmv.v.i", "OPIVI", "vd, simm5", "VALU", "vmv i", funct6=0b010111, vm=1, vs2=0),
    _("vfmv.v.f", "OPFVF", "vd, fs1", "VALU", "vmv f", funct6=0b010111, vm=1, vs2=0),
    _("vmv.x.s", "OPMVV", "xd, vs2", "VPerm", "vmv_scalar x.s", funct6=0b010000, vm=1, vs1=0),
    _("vmv.s.x", "OPMVX", "vd, xs1", "VPerm", "vmv_scalar s.x", funct6=0b010000, vm=1, vs2=0),
    _("vfmv.f.s", "OPFVV", "fd, vs2", "VPerm", "vmv_scalar f.s", funct6=0b010000, vm=1, vs1=0),
    _("vfmv.s.f", "OPFVF", "vd, fs1", "VPerm", "vmv_scalar s.f", funct6=0b010000, vm=1, vs2=0),
    _("vid.v", "OPMVV", "vd, vm", "VALU", "vid vid", funct6=0b010100, vs2=0, vs1=0b10001),
    # slides (RVV 16.3): vd[i] = vs2[i + uimm] (0 past VLMAX); a row's elements after its first, for a reduction
    # that starts from the first
    _("vslidedown.vi", "OPIVI", "vd, vs2, uimm5, vm", "VPerm", "vslide down", funct6=0b001111),
    # conversions and unary float (the vs1 field selects the operation)
    _("vfcvt.xu.f.v", "OPFVV", "vd, vs2, vm", "VFALU", "vcvt xu.f", funct6=0b010010, vs1=0b00000),
    _("vfcvt.x.f.v", "OPFVV", "vd, vs2, vm", "VFALU", "vcvt x.f", funct6=0b010010, vs1=0b00001),
    _("vfcvt.f.xu.v", "OPFVV", "vd, vs2, vm", "VFALU", "vcvt f.xu", funct6=0b010010, vs1=0b00010),
    _("vfcvt.f.x.v", "OPFVV", "vd, vs2, vm", "VFALU", "vcvt f.x", funct6=0b010010, vs1=0b00011),
    _("vfcvt.rtz.xu.f.v", "OPFVV", "vd, vs2, vm", "VFALU", "vcvt rtz.xu.f", funct6=0b010010, vs1=0b00110),
    _("vfcvt.rtz.x.f.v", "OPFVV", "vd, vs2, vm", "VFALU", "vcvt rtz.x.f", funct6=0b010010, vs1=0b00111),
    _("vfsqrt.v", "OPFVV", "vd, vs2, vm", "VFDiv", "vfunary sqrt", funct6=0b010011, vs1=0b00000),
    # widening and narrowing (RVV 1.0: VXUNARY0 selects by vs1, VFUNARY0 widening 01xxx / narrowing 10xxx)
    *[_(f"v{k}ext.vf{f}", "OPMVV", "vd, vs2, vm", "VALU", f"vext {k[0]}{f}", funct6=0b010010, vs1=code)
      for k, f, code in [("z", 8, 0b00010), ("s", 8, 0b00011), ("z", 4, 0b00100), ("s", 4, 0b00101),
                         ("z", 2, 0b00110), ("s", 2, 0b00111)]],
    _("vnsrl.wv", "OPIVV", "vd, vs2, vs1, vm", "VALU", "vnarrow srl", funct6=0b101100),
    _("vnsrl.wx", "OPIVX", "vd, vs2, xs1, vm", "VALU", "vnarrow srl", funct6=0b101100),
    _("vnsrl.wi", "OPIVI", "vd, vs2, uimm5, vm", "VALU", "vnarrow srl", funct6=0b101100),
    _("vnsra.wv", "OPIVV", "vd, vs2, vs1, vm", "VALU", "vnarrow sra", funct6=0b101101),
    _("vnsra.wx", "OPIVX", "vd, vs2, xs1, vm", "VALU", "vnarrow sra", funct6=0b101101),
    _("vnsra.wi", "OPIVI", "vd, vs2, uimm5, vm", "VALU", "vnarrow sra", funct6=0b101101),
    *[_(f"vfwcvt.{op}.v", "OPFVV", "vd, vs2, vm", "VFALU", f"vfwcvt {op}", funct6=0b010010, vs1=code)
      for op, code in [("xu.f", 0b01000), ("x.f", 0b01001), ("f.xu", 0b01010), ("f.x", 0b01011),
                       ("f.f", 0b01100), ("rtz.xu.f", 0b01110), ("rtz.x.f", 0b01111)]],
    *[_(f"vfncvt.{op}.w", "OPFVV", "vd, vs2, vm", "VFALU", f"vfncvt {op}", funct6=0b010010, vs1=code)
      for op, code in [("xu.f", 0b10000), ("x.f", 0b10001), ("f.xu", 0b10010), ("f.x", 0b10011),
                       ("f.f", 0b10100), ("rod.f.f", 0b10101), ("rtz.xu.f", 0b10110), ("rtz.x.f", 0b10111)]],
    # mask logicals (always unmasked)
    *_v("vmandn", 0b011000, "mm", "VMask", "vmask andn", vm=1),
    *_v("vmand", 0b011001, "mm", "VMask", "vmask and", vm=1),
    *_v("vmor", 0b011010, "mm", "VMask", "vmask or", vm=1),
    *_v("vmxor", 0b011011, "mm", "VMask", "vmask xor", vm=1),
    *_v("vmorn", 0b011100, "mm", "VMask", "vmask orn", vm=1),
    *_v("vmnand", 0b011101, "mm", "VMask", "vmask nand", vm=1),
    *_v("vmnor", 0b011110, "mm", "VMask", "vmask nor", vm=1),
    *_v("vmxnor", 0b011111, "mm", "VMask", "vmask xnor", vm=1),
    # reductions: vd[0] = op(vs1[0], vs2[*])
    *_v("vredsum", 0b000000, "mvs", "VRed", "vred sum"),
    *_v("vredand", 0b000001, "mvs", "VRed", "vred and"),
    *_v("vredor", 0b000010, "mvs", "VRed", "vred or"),
    *_v("vredxor", 0b000011, "mvs", "VRed", "vred xor"),
    *_v("vredminu", 0b000100, "mvs", "VRed", "vred minu"),
    *_v("vredmin", 0b000101, "mvs", "VRed", "vred min"),
    *_v("vredmaxu", 0b000110, "mvs", "VRed", "vred maxu"),
    *_v("vredmax", 0b000111, "mvs", "VRed", "vred max"),
    *_v("vfredusum", 0b000001, "fvs", "VRed", "vfred usum"),
    *_v("vfredosum", 0b000011, "fvs", "VRed", "vfred osum"),
    *_v("vfredmin", 0b000101, "fvs", "VRed", "vfred min"),
    *_v("vfredmax", 0b000111, "fvs", "VRed", "vfred max"),
]

MTIA = [
    # DMA: rd is the destination address, read (not written) like rs1 (source) and rs2 (bytes)
    _("mtia.dma.in", "R", "xd:r, xs1, xs2", "DMA", "dma in", unit="dma", effects="dma store", opcode=CUSTOM_0,
      funct3=0, funct7=0),
    _("mtia.dma.out", "R", "xd:r, xs1, xs2", "DMA", "dma out", unit="dma", effects="dma load", opcode=CUSTOM_0,
      funct3=0, funct7=1),
    # stall until every transfer this PE issued has completed but the `inflight` issued last (omitted: 0, all);
    # a transfer of zero bytes counts, complete at its issue
    _("mtia.dma.wait", "I", "inflight", "DMA", "dma_wait wait", unit="dma", effects="dma", opcode=CUSTOM_0,
      funct3=1, rd=0, rs1=0),
    # the same for the transfers into local memory only (in, in2d): those out of it (out, out2d) may stay in
    # flight; `inflight` counts the transfers of both directions issued last
    _("mtia.dma.wait.in", "I", "inflight", "DMA", "dma_wait waitin", unit="dma", effects="dma", opcode=CUSTOM_0,
      funct3=1, rd=0, rs1=1),
    _("mtia.pid", "I", "xd, axis", "Custom", "pid pid", unit="custom", opcode=CUSTOM_0, funct3=2, rs1=0),
    _("mtia.nprogs", "I", "xd, axis", "Custom", "nprogs nprogs", unit="custom", opcode=CUSTOM_0, funct3=3, rs1=0),
    # debugging: imm indexes meta["strings"]; x[rs1] is the local address of a table of 8-byte value addresses
    _("mtia.print", "I", "xs1, simm12", "Custom", "debug print", unit="custom", effects="io load",
      opcode=CUSTOM_0, funct3=4, rd=0),
    _("mtia.assert", "I", "xs1, simm12", "Custom", "debug assert", unit="custom", effects="io load",
      opcode=CUSTOM_0, funct3=5, rd=0),
    _("mtia.flush", "I", "", "Custom", "debug flush", unit="custom", effects="io", opcode=CUSTOM_0, funct3=6,
      rd=0, rs1=0, imm12=0),
    # 2-D DMA: rows of x[rs2] bytes; the row count and both row strides come from the DMA configuration registers
    # (mtia.dma.cfg: 0 rows, 1 DRAM row stride in bytes, 2 local row stride in bytes), which keep their values
    _("mtia.dma.in2d", "R", "xd:r, xs1, xs2", "DMA", "dma in2d", unit="dma", effects="dma store",
      opcode=CUSTOM_0, funct3=0, funct7=2),
    _("mtia.dma.out2d", "R", "xd:r, xs1, xs2", "DMA", "dma out2d", unit="dma", effects="dma load",
      opcode=CUSTOM_0, funct3=0, funct7=3),
    _("mtia.dma.cfg", "I", "xs1, creg", "Custom", "dma_cfg cfg", unit="dma", effects="dma", opcode=CUSTOM_0,
      funct3=7, rd=0),
]

# The matrix engine (custom-1; docs/matrix-engine.md). Configuration registers (mtia.dpe.cfg xs1, N: register
# N = x[rs1]): 0 the input type (0 fp16, 1 bf16, 2 int8, 3 uint8), 1 the weight tile's row stride in bytes, 2 the
# streamed rows' stride in bytes, 3 the accumulator rows' local-memory stride in bytes (acc.ld / acc.st), 4 the tile
# width N (1..32 columns), 5 transpose the weight tile on its way in (0 / 1), 6 what acc.st writes (0 the fp32 /
# int32 accumulators, 1 fp16, 2 bf16: rounded to nearest even). Accumulator rows are 32 fp32 (int32 for integer
# inputs) values. mtia.dpe.wait: until every command but the `inflight` issued last (omitted: 0) has completed.
DPE = [
    _("mtia.dpe.cfg", "I", "xs1, creg", "DPE", "dpe cfg", unit="dpe", effects="engine", opcode=CUSTOM_1,
      funct3=0, rd=0),
    # cache the weight tile: x[rs2] rows (K, 1..32) of N elements from local memory x[rs1]
    _("mtia.dpe.ldw", "R", "xs1, xs2", "DPE", "dpe ldw", unit="dpe", effects="engine load", opcode=CUSTOM_1,
      funct3=1, funct7=0, rd=0),
    # stream x[rs2] rows of K elements from local memory x[rs1]; accumulator rows x[rd].. += rows @ weight tile
    _("mtia.dpe.mm", "R", "xd:r, xs1, xs2", "DPE", "dpe mm", unit="dpe", effects="engine load", opcode=CUSTOM_1,
      funct3=1, funct7=1),
    # clear accumulator rows x[rs1] .. x[rs1] + x[rs2]
    _("mtia.dpe.zero", "R", "xs1, xs2", "DPE", "dpe zero", unit="dpe", effects="engine", opcode=CUSTOM_1,
      funct3=1, funct7=2, rd=0),
    # accumulator rows from x[rd], x[rs2] of them, from local memory x[rs1] (fp32 / int32)
    _("mtia.dpe.acc.ld", "R", "xd:r, xs1, xs2", "DPE", "dpe accld", unit="dpe", effects="engine load",
      opcode=CUSTOM_1, funct3=1, funct7=3),
    # x[rs2] accumulator rows from x[rs1] to local memory x[rd] (fp32 / int32)
    _("mtia.dpe.acc.st", "R", "xd:r, xs1, xs2", "DPE", "dpe accst", unit="dpe", effects="engine store",
      opcode=CUSTOM_1, funct3=1, funct7=4),
    # the memory layout unit (MLU), behind the engine's command queue: transpose a dense block in local memory,
    # x[rs1] (rows x cols elements of 2^funct7 bytes, x[rs2] = rows << 16 | cols) to x[rd] (cols x rows)
    *[_(f"mtia.mlu.trans.e{8 << k}", "R", "xd:r, xs1, xs2", "DPE", "dpe mlutrans", unit="mlu",
        effects="engine load store", opcode=CUSTOM_1, funct3=3, funct7=k) for k in range(4)],
    _("mtia.dpe.wait", "I", "dpe_inflight", "DPEWait", "dpe_wait wait", unit="dpe", effects="engine", opcode=CUSTOM_1,
      funct3=2, rd=0, rs1=0),
]


def _atomic_rows() -> List[Row]:
    """``amo<op>.<w>[.aq|.rl|.aqrl] rd, rs2, (rs1)``: ``x[rd]`` = the old value at address ``x[rs1]`` (sign-extended),
    memory = old <op> ``x[rs2]``; ``amocas`` compares the old value with ``x[rd]`` (read, then written) and stores
    ``x[rs2]`` when they are equal.  The address is a DRAM / SRAM buffer's or local memory's, naturally aligned."""
    rows = []
    for order, (aq, rl) in AMO_ORDERINGS.items():
        for op, funct5 in AMO_OPS.items():
            for w in AMO_WIDTHS[op]:
                rows.append(_(f"amo{op}.{w}{order}", "R", "xd:rw, xs2, vmem" if op == "cas" else "xd, xs2, vmem",
                              "Atomic", f"amo {op}.{w}", unit="atomic", effects="atomic", opcode=AMO,
                              funct3=AMO_WIDTH_FUNCT3[w], funct5=funct5, aq=aq, rl=rl))
        for w, code in AMO_FLOATS.items():
            rows.append(_(f"mtia.amofadd.{w}{order}", "R", "xd, xs2, vmem", "Atomic", f"amo fadd.{w}",
                          unit="atomic", effects="atomic", opcode=CUSTOM_0, funct3=0,
                          funct7=0b0100000 | code << 2 | aq << 1 | rl))
    # fence (iorw, iorw): every memory access, DMA transfer and atomic before it completes before any after it
    rows.append(_("fence", "I", "", "Fence", "fence fence", unit="atomic", effects="atomic", opcode=MISC_MEM,
                  funct3=0, rd=0, rs1=0, imm12=0x0FF))
    return rows


ATOMIC = _atomic_rows()

# The SIMD engine (SE; custom-2): ``vd[i] = f(vs2[i])`` for the body elements (vl, SEW 32 or 16 from vtype; masked
# by v0.t like an RVV instruction), computed by the SE's lookup tables and interpolation, not the vector unit.
SE = [_(f"mtia.se.{fn}.v", "SE", "vd, vs2, vm", "SE", f"se {fn}", vs1=code)
      for fn, code in SE_FUNCTIONS.items()]
# Its floating-point ALUs [ISCA25 3.2]: ``vd[i] = vs2[i] op vs1[i]`` / ``vs2[i] op f[rs1]`` (rsub: ``f[rs1] - vs2[i]``),
# fp32 or fp16, IEEE nearest-even as RVV's vf<op>; and fp32 -> fp16 as RVV's vfncvt.f.f.w (an assumption: YAML se:).
SE += [_(f"mtia.se.f{op}.{form}", "SEVV" if form == "vv" else "SEVF",
         "vd, vs2, vs1, vm" if form == "vv" else "vd, vs2, fs1, vm", "SEALU", f"se_alu {op}", funct6=code)
       for op, (code, forms) in SE_ALU.items() for form in forms.split()] + [
    _("mtia.se.fncvt.f.f.w", "SEVV", "vd, vs2, vm", "SEALU", "se_cvt ncvt", funct6=0b010010, vs1=0b10100)]
# The SE's own port to local memory (class SEMem, an assumption named in the YAML): RVV's vle<E>.v / vse<E>.v, E 16
# or 32, without the vector unit, in order with its loads and stores and before later engine commands and DMA
SE += [_(f"mtia.se.v{k[0]}e{e}.v", f"SE{k[0].upper()}", f"{k[1]}, vmem, vm", "SEMem", f"v{k[2]} {e}",
         effects=k[2], funct6=code) for k in (("l", "vd", "load"), ("s", "vs3", "store"))
       for e, code in SE_MEM_EEW.items()]

EXTENSIONS = [("RV64I", "RV64I base integer", RV64I), ("M", "M: integer multiply and divide", RV64M),
              ("F", "F: single-precision floating point", RV64F),
              ("D", "D: double-precision floating point", RV64D), ("V", "V: vectors (RVV 1.0 subset)", RVV),
              ("MTIA", "MTIA custom instructions (custom-0)", MTIA),
              ("DPE", "MTIA matrix engine (custom-1)", DPE),
              ("A", "A: atomics (with Zacas, Zabha halfwords, MTIA's float add) and the fence", ATOMIC),
              ("SE", "MTIA SIMD engine: nonlinear functions and floating-point ALUs (custom-2)", SE)]


# --------------------------------------------------------------------------------------------------------------
# Derived instruction specs
# --------------------------------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True, eq=False)
class InstrSpec:
    """One instruction, derived from its row."""

    name: str
    format: str
    extension: str
    fixed: Tuple[Tuple[str, int], ...]   # (field name, value): every fixed field including format defaults
    operands: Tuple[Kind, ...]           # in assembly order
    operand_names: Tuple[str, ...]       # the table's kind names, e.g. ("xd", "xs1", "simm12")
    timing: str
    unit: str
    sem_family: str
    sem_op: str
    match: int
    mask: int
    overlaps: Tuple[str, ...] = ()
    access: Tuple[str, ...] = ()         # per operand: "r", "w", "rw" or "" (no register)
    effects: FrozenSet[str] = frozenset()  # names from EFFECTS

    @functools.cached_property
    def register_operands(self) -> Tuple[Tuple[str, Optional[str], str], ...]:
        """``(file, attribute, access)`` of each register an operand names, in operand order; the attribute is
        None for the fixed ``v0`` of the merges. ``vm`` is left out: it reads v0 only when the decoded vm is 0."""
        return register_operands(self.operands, self.access)

    @property
    def links(self) -> bool:
        """Whether the instruction writes a register (a ``jal``/``jalr`` that does is a call, not a jump)."""
        return any("w" in a for a in self.access)

    @functools.cached_property
    def attrs(self) -> Tuple[str, ...]:
        """The decoded attribute names this instruction has, e.g. ``("rd", "rs1", "imm")``."""
        return tuple(a for k in self.operands for a in k.attrs)

    @functools.cached_property
    def reg_classes(self) -> Dict[str, str]:
        """Register class of each register attribute: ``{"rd": "x", "rs1": "f"}`` for ``fcvt.w.s``."""
        out: Dict[str, str] = {}
        for k in self.operands:
            out.update(k.reg_classes())
        return out

    @property
    def opcode(self) -> int:
        return self.match & 0x7F

    @property
    def binutils_knows(self) -> bool:
        """Whether GNU binutils 2.40 (``as``, ``objdump``) knows this instruction: not MTIA's custom-0 / custom-1
        / custom-2 rows, nor Zacas's ``amocas``, nor Zabha's halfword atomics.  GNU-syntax assembly spells the
        others with ``.insn`` (:mod:`mtiacc.asm.insn`)."""
        if self.opcode in (CUSTOM_0, CUSTOM_1, CUSTOM_2):
            return False
        if self.sem_family == "amo":
            op, _dot, width = self.sem_op.partition(".")
            return op != "cas" and width != "h"
        return True

    @property
    def syntax(self) -> str:
        """``addi rd, rs1, imm``; optional operands in brackets."""
        parts = [f"[{k.syntax}]" if k.optional else k.syntax for k in self.operands]
        return f"{self.name} {', '.join(parts)}".rstrip()

    def __repr__(self) -> str:
        return f"<InstrSpec {self.name} match={self.match:#010x} mask={self.mask:#010x}>"


class TableError(Exception):
    """The table itself is inconsistent (a bug in this file, caught by :func:`check_table` in the tests)."""


def register_operands(kinds: Sequence[Kind], access: Sequence[str]) -> Tuple[Tuple[str, Optional[str], str], ...]:
    out = []
    for kind, acc in zip(kinds, access):
        if kind is KINDS["v0"]:
            out.append(("v", None, acc))
        elif kind is not KINDS["vm"]:
            out.extend((cls, attr, acc) for attr, cls in kind.reg_classes().items())
    return tuple(out)


def _operand(text: str) -> Tuple[str, Optional[str]]:
    """``"xd:r"`` -> ``("xd", "r")``; ``"xd"`` -> ``("xd", None)`` (the kind's access)."""
    name, _sep, access = text.partition(":")
    return name.strip(), access.strip() if _sep else None


@functools.lru_cache(maxsize=None)
def _kinds(names: Tuple[str, ...]) -> Tuple[Kind, ...]:
    return tuple(KINDS[n] for n in names)


def _field_mask(hi: int, lo: int) -> int:
    return ((1 << (hi - lo + 1)) - 1) << lo


@functools.lru_cache(maxsize=None)
def _operand_list(text: str) -> Tuple[Tuple[str, ...], Tuple[str, ...]]:
    """The kind names and accesses of a row's operand text, ``"xd, xs1:r"``; rows share a few dozen texts."""
    ops = [_operand(n) for n in text.split(",") if n.strip()]
    for n, acc in ops:
        if n not in KINDS:
            raise TableError(f"unknown operand kind {n}")
        if acc is not None and (acc not in ACCESS or not KINDS[n].access):
            raise TableError(f"operand {n} cannot have access '{acc}'")
    return tuple(n for n, _acc in ops), tuple(KINDS[n].access if acc is None else acc for n, acc in ops)


def _build(ext: str, row: Row) -> InstrSpec:
    if row.fmt not in FORMATS:
        raise TableError(f"{row.name}: unknown format {row.fmt}")
    defaults, unit = FORMATS[row.fmt]
    fixed = {**defaults, **dict(row.fixed)}
    match = mask = 0
    for fname, value in fixed.items():
        if fname not in FIXED_FIELDS:
            raise TableError(f"{row.name}: unknown fixed field {fname}")
        hi, lo = FIXED_FIELDS[fname]
        fm = _field_mask(hi, lo)
        if mask & fm:
            raise TableError(f"{row.name}: fixed field {fname} overlaps another fixed field")
        if value >> (hi - lo + 1):
            raise TableError(f"{row.name}: value {value} does not fit fixed field {fname}")
        match |= value << lo
        mask |= fm
    try:
        names, access = _operand_list(row.operands)
    except TableError as e:
        raise TableError(f"{row.name}: {e}") from None
    unit = row.unit or unit
    effects = set(row.effects.split())
    effects.update(_TIMING_EFFECTS.get(row.timing, "").split())
    if unit in ("vector", "se") and "setvl" not in effects:     # the SE too works on vl elements of SEW
        effects.add("vtype")
    family, _sep, op = row.sem.partition(" ")
    return InstrSpec(name=row.name, format=row.fmt, extension=ext, fixed=tuple(fixed.items()),
                     operands=_kinds(names), operand_names=names, timing=row.timing,
                     unit=unit, sem_family=family, sem_op=op, match=match, mask=mask,
                     overlaps=row.overlaps, access=access, effects=frozenset(effects))


INSTRUCTIONS: List[InstrSpec] = [_build(ext, row) for ext, _title, rows in EXTENSIONS for row in rows]
BY_NAME: Dict[str, InstrSpec] = {s.name: s for s in INSTRUCTIONS}


def check_table(specs: List[InstrSpec] = INSTRUCTIONS) -> None:
    """Raise :class:`TableError` unless every row is well-formed and no two rows overlap."""
    seen = set()
    for s in specs:
        if s.name in seen:
            raise TableError(f"duplicate mnemonic {s.name}")
        seen.add(s.name)
        if s.timing not in TIMING_CLASSES:
            raise TableError(f"{s.name}: unknown timing class {s.timing}")
        if s.unit not in UNITS:
            raise TableError(f"{s.name}: unknown unit {s.unit}")
        if s.sem_op not in SEM_FAMILIES.get(s.sem_family, ()):
            raise TableError(f"{s.name}: unknown semantics {s.sem_family} {s.sem_op}")
        if not s.effects <= EFFECTS.keys():
            raise TableError(f"{s.name}: unknown effects {' '.join(sorted(s.effects - EFFECTS.keys()))}")
        covered = s.mask
        attrs = set()
        for kind in s.operands:
            km = kind.mask
            if covered & km:
                raise TableError(f"{s.name}: operand {kind.syntax} bits {km & covered:#010x} are already covered")
            covered |= km
            for a in kind.attrs:
                if a in attrs:
                    raise TableError(f"{s.name}: attribute {a} given by two operands")
                attrs.add(a)
        if covered != 0xFFFFFFFF:
            raise TableError(f"{s.name}: bits {~covered & 0xFFFFFFFF:#010x} are not covered")
        if any(k.optional for k in s.operands):
            first = next(i for i, k in enumerate(s.operands) if k.optional)
            if not all(k.optional for k in s.operands[first:]):
                raise TableError(f"{s.name}: optional operands must come last")
        if s.match & 3 != 3:
            raise TableError(f"{s.name}: not a 32-bit encoding (low bits {s.match & 3:02b})")
    by_opcode: Dict[int, List[InstrSpec]] = {}
    for s in specs:
        by_opcode.setdefault(s.opcode, []).append(s)
    for group in by_opcode.values():
        for i, a in enumerate(group):
            for b in group[i + 1:]:
                if (a.match ^ b.match) & a.mask & b.mask == 0:
                    if b.name in a.overlaps and a.name in b.overlaps:
                        continue
                    raise TableError(f"encodings of {a.name} and {b.name} overlap")

