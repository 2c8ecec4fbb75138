"""Generate ``docs/isa.md`` from the ISA and pseudo tables.

    python -m mtiacc.asm.isadoc            # print
    python -m mtiacc.asm.isadoc --write    # rewrite docs/isa.md
    python -m mtiacc.asm.isadoc --check    # exit 1 if docs/isa.md is stale
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Tuple

from .insn import insn_template
from .isa import EFFECTS, EXTENSIONS, FIXED_FIELDS, INSTRUCTIONS, OPCODE_NAMES, InstrSpec
from .operands import KINDS
from .pseudo import PSEUDOS

DOC_PATH = Path(__file__).resolve().parents[2] / "docs" / "isa.md"

# --------------------------------------------------------------------------------------------------------------
# Semantics in words: one phrase per (family, op); A and B are the family's operands.
# --------------------------------------------------------------------------------------------------------------
_BINOP = {
    "add": "{a} + {b}", "sub": "{a} - {b}", "rsub": "{b} - {a}", "sll": "{a} << {b}", "srl": "{a} >> {b} (logical)",
    "sra": "{a} >> {b} (arithmetic)", "slt": "({a} < {b}, signed) ? 1 : 0", "sltu": "({a} < {b}, unsigned) ? 1 : 0",
    "xor": "{a} ^ {b}", "or": "{a} | {b}", "and": "{a} & {b}", "mul": "low bits of {a} × {b}",
    "mulh": "high bits of {a} × {b} (signed × signed)", "mulhsu": "high bits of {a} × {b} (signed × unsigned)",
    "mulhu": "high bits of {a} × {b} (unsigned × unsigned)", "div": "{a} / {b} (signed, toward zero)",
    "divu": "{a} / {b} (unsigned)", "rem": "{a} % {b} (signed)", "remu": "{a} % {b} (unsigned)",
    "min": "min({a}, {b})", "max": "max({a}, {b})", "minu": "min({a}, {b}) (unsigned)",
    "maxu": "max({a}, {b}) (unsigned)", "rdiv": "{b} / {a}", "sgnj": "{a} with the sign of {b}",
    "sgnjn": "{a} with the negated sign of {b}", "sgnjx": "{a} with sign(a) xor sign(b)",
    "eq": "{a} == {b}", "ne": "{a} != {b}", "lt": "{a} < {b}", "le": "{a} <= {b}", "gt": "{a} > {b}",
    "ge": "{a} >= {b}", "ltu": "{a} < {b} (unsigned)", "leu": "{a} <= {b} (unsigned)",
    "gtu": "{a} > {b} (unsigned)", "geu": "{a} >= {b} (unsigned)",
}
_MASKOP = {"and": "a & b", "or": "a | b", "xor": "a ^ b", "nand": "~(a & b)", "andn": "a & ~b", "orn": "a | ~b",
           "nor": "~(a | b)", "xnor": "~(a ^ b)"}
_LOAD = {"b": "sext(mem8", "h": "sext(mem16", "w": "sext(mem32", "d": "(mem64", "bu": "zext(mem8",
         "hu": "zext(mem16", "wu": "zext(mem32"}
_FCVT = {"w.s": "x[rd] = sext(int32(f[rs1]))", "wu.s": "x[rd] = sext(uint32(f[rs1]))",
         "l.s": "x[rd] = int64(f[rs1])", "lu.s": "x[rd] = uint64(f[rs1])", "s.w": "f[rd] = float(int32(x[rs1]))",
         "s.wu": "f[rd] = float(uint32(x[rs1]))", "s.l": "f[rd] = float(int64(x[rs1]))",
         "s.lu": "f[rd] = float(uint64(x[rs1]))"}
_VCVT = {"f.x": "float(signed vs2[i])", "f.xu": "float(unsigned vs2[i])", "x.f": "signed int(vs2[i]) (frm)",
         "xu.f": "unsigned int(vs2[i]) (frm)", "rtz.x.f": "signed int(vs2[i]), toward zero",
         "rtz.xu.f": "unsigned int(vs2[i]), toward zero"}
_FMA = {"madd": "f[rs1]×f[rs2] + f[rs3]", "msub": "f[rs1]×f[rs2] - f[rs3]", "nmsub": "-(f[rs1]×f[rs2]) + f[rs3]",
        "nmadd": "-(f[rs1]×f[rs2]) - f[rs3]"}
_VFMA = {"macc": "+({b} × vs2[i]) + vd[i]", "nmacc": "-({b} × vs2[i]) - vd[i]", "msac": "+({b} × vs2[i]) - vd[i]",
         "nmsac": "-({b} × vs2[i]) + vd[i]", "madd": "+({b} × vd[i]) + vs2[i]", "nmadd": "-({b} × vd[i]) - vs2[i]",
         "msub": "+({b} × vd[i]) - vs2[i]", "nmsub": "-({b} × vd[i]) + vs2[i]"}


def _vector_b(spec: InstrSpec) -> str:
    """The second source of a .vv/.vx/.vi/.vf row, from its operand list."""
    names = spec.operand_names
    if "vs1" in names:
        return "vs1[i]"
    if "xs1" in names:
        return "x[rs1]"
    if "fs1" in names:
        return "f[rs1]"
    return "imm"


# prose after an extension's table
_NOTES = {"MTIA": (
    "A PE's DMA transfers into local memory run one after another in issue order, and so do those out of it, the"
    " two directions at once (the machine YAML's `memory.dma.channels`: 2; with 1, every transfer in one order)."
    " `mtia.dma.wait N` stalls until every transfer"
    " the PE issued has completed but the N issued last: a loop issues the next tile's transfers, then waits"
    " for this tile's with N = the transfers it just issued, which run meanwhile."
    " N omitted (encoded 0) waits for every transfer, as the wait did before it took a count, so older binaries"
    " keep their meaning. A transfer of zero bytes counts as issued and completes at once, so code that issues"
    " a masked-off tile's empty transfer instead of branching around it keeps its count exact. Vector add 2^20"
    " (BLOCK 1024, -O3, `make bench-roofline`): 88271 cycles (94.0% of the DRAM roofline) with a barrier"
    " before each prefetch and at the end of each loop trip, 85506 cycles (97.0%) with counted waits"
    " (docs/passes.md, \"Counted DMA waits\")."
    " `mtia.dma.wait.in N` leaves the transfers out of local memory in flight: with two channels a tile's store"
    " may run under the next tile's loads (docs/architecture.md, \"DMA channels\"). The two channels are ordered by"
    " local-memory bytes only (an inbound transfer is held behind an earlier outbound one that still reads its local"
    " bytes): a transfer into local memory of DRAM or SRAM bytes that an earlier transfer out of it writes, or the"
    " reverse, may run first, so a program that loads bytes it stored waits for the store in between"
    " (docs/architecture.md, \"DMA channels\").",
)}


def semantics(spec: InstrSpec) -> str:
    fam, op = spec.sem_family, spec.sem_op
    if fam in ("alu", "alu_imm"):
        b = "x[rs2]" if fam == "alu" else ("shamt" if "shamt" in spec.attrs else "imm")
        return "x[rd] = " + _BINOP[op].format(a="x[rs1]", b=b)
    if fam in ("alu_w", "alu_imm_w"):
        b = "x[rs2]" if fam == "alu_w" else ("shamt" if "shamt" in spec.attrs else "imm")
        return "x[rd] = sext32(" + _BINOP[op].format(a="x[rs1][31:0]", b=b + ("[31:0]" if fam == "alu_w" else "")) + ")"
    simple = {
        "lui": "x[rd] = imm (imm20 << 12, sign-extended)",
        "auipc": "x[rd] = pc + imm (imm20 << 12, sign-extended)",
        "jal": "x[rd] = pc + 4; pc = pc + offset",
        "jalr": "t = pc + 4; pc = (x[rs1] + imm) & ~1; x[rd] = t",
        "fsqrt": "f[rd] = sqrt(f[rs1])",
        "vid": "vd[i] = i",
        "dma_wait": "stall until every DMA transfer this PE issued is complete but the `inflight` issued last (omitted:"
                    " 0, every transfer; a zero-byte transfer counts, complete at its issue)",
        "dma_waitin": "the same for the transfers into local memory (`in`, `in2d`) only: those out of it may stay in"
                      " flight; `inflight` counts the transfers of both directions issued last",
        "pid": "x[rd] = program id along grid axis imm (0, 1, 2)",
        "nprogs": "x[rd] = grid size along axis imm (0, 1, 2)",
    }
    if fam == "dma_wait" and op == "waitin":
        return simple["dma_waitin"]
    if fam in simple:
        return simple[fam]
    if fam == "branch":
        return "if " + _BINOP[op].format(a="x[rs1]", b="x[rs2]") + ": pc = pc + offset"
    if fam == "load":
        return f"x[rd] = {_LOAD[op]}[x[rs1] + imm])"
    if fam == "store":
        bits = {"b": 8, "h": 16, "w": 32, "d": 64}[op]
        return f"mem{bits}[x[rs1] + imm] = x[rs2][{bits - 1}:0]"
    if fam == "fload":
        return "f[rd] = NaN-box(mem32[x[rs1] + imm])" if op == "w" else "f[rd] = mem64[x[rs1] + imm]"
    if fam == "fstore":
        return "mem32[x[rs1] + imm] = f[rs2][31:0]" if op == "w" else "mem64[x[rs1] + imm] = f[rs2]"
    if fam == "dpu":
        return "f[rd] = " + _BINOP[op].format(a="f[rs1]", b="f[rs2]") + " (double)"
    if fam == "dsqrt":
        return "f[rd] = sqrt(f[rs1]) (double)"
    if fam == "dcmp":
        return "x[rd] = (" + _BINOP[op].format(a="f[rs1]", b="f[rs2]") + ") ? 1 : 0 (double)"
    if fam == "dcvt":
        dst, src = op.split(".")
        names = {"w": "int32", "wu": "uint32", "l": "int64", "lu": "uint64", "s": "single", "d": "double"}
        reg = {"w": "x", "wu": "x", "l": "x", "lu": "x", "s": "f", "d": "f"}
        return f"{reg[dst]}[rd] = {names[dst]}({names[src]} {reg[src]}[rs1])" + \
            (" (saturating, rm rounding)" if reg[dst] == "x" else "")
    if fam == "dmv":
        return "x[rd] = bits of f[rs1]" if op == "x.d" else "f[rd] = bits of x[rs1]"
    if fam == "dfma":
        return "f[rd] = " + _FMA[op] + " (double)"
    if fam == "fclass":
        return "x[rd] = one-hot class of f[rs1] (bit 0 -inf ... 9 quiet NaN)"
    if fam == "fpu":
        return "f[rd] = " + _BINOP[op].format(a="f[rs1]", b="f[rs2]")
    if fam == "fcmp":
        return "x[rd] = (" + _BINOP[op].format(a="f[rs1]", b="f[rs2]") + ") ? 1 : 0"
    if fam == "fcvt":
        return _FCVT[op]
    if fam == "fmv":
        return "x[rd] = sext(bits of f[rs1])" if op == "x.w" else "f[rd] = bits of x[rs1][31:0]"
    if fam == "fma":
        return "f[rd] = " + _FMA[op]
    if fam == "system":
        return "environment call" if op == "ecall" else "breakpoint"
    if fam == "vsetvli":
        avl = "x[rs1]" if op == "vsetvli" else "uimm"
        return f"vtype = vtypei; vl = min(AVL, VLMAX) with AVL = {avl}; x[rd] = vl"
    if fam.startswith(("vload", "vstore")):
        e = int(op)
        if fam.endswith("indexed"):
            addr, eew = "x[rs1] + vs2[i]", f"index EEW {e}, data SEW"
        elif fam.endswith("strided"):
            addr, eew = "x[rs1] + i × x[rs2]", f"EEW {e}"
        else:
            addr, eew = f"x[rs1] + {e // 8}i", f"EEW {e}"
        by = (", by the SIMD engine's own port to local memory, not the vector unit (in program order with the "
              "vector unit's loads and stores)") if spec.unit == "se" else ""
        return (f"vd[i] = mem[{addr}] ({eew}{by})" if fam.startswith("vload") else
                f"mem[{addr}] = vs3[i] ({eew}{by})")
    if fam in ("valu", "vfalu"):
        return "vd[i] = " + _BINOP[op].format(a="vs2[i]", b=_vector_b(spec))
    if fam in ("vcmp", "vfcmp"):
        return "vd.mask[i] = " + _BINOP[op].format(a="vs2[i]", b=_vector_b(spec))
    if fam == "vfma":
        return "vd[i] = " + _VFMA[op].format(b=_vector_b(spec))
    if fam == "vmerge":
        return f"vd[i] = v0.mask[i] ? {_vector_b(spec)} : vs2[i]"
    if fam == "vmv":
        return f"vd[i] = {_vector_b(spec)}"
    if fam == "vmv_scalar":
        return {"x.s": "x[rd] = sext(vs2[0])", "s.x": "vd[0] = x[rs1]", "f.s": "f[rd] = vs2[0]",
                "s.f": "vd[0] = f[rs1]"}[op]
    if fam == "vslide":
        return "vd[i] = i + uimm < VLMAX ? vs2[i + uimm] : 0"
    if fam == "vcvt":
        return f"vd[i] = {_VCVT[op]}"
    if fam == "vfunary":
        return "vd[i] = sqrt(vs2[i])"
    if fam == "vmask":
        return f"vd.mask[i] = {_MASKOP[op]} with a = vs2.mask[i], b = vs1.mask[i]"
    if fam in ("vred", "vfred"):
        what = {"usum": "sum (any order)", "osum": "sum (in element order)"}.get(op, op)
        return f"vd[0] = {what} of vs1[0] and the active vs2[i]"
    if fam == "dma":
        inbound = op.startswith("in")
        src, dst = ("DRAM x[rs1]", "local memory x[rd]") if inbound else ("local memory x[rs1]", "DRAM x[rd]")
        if op.endswith("2d"):
            return (f"copy dma.rows rows of x[rs2] bytes from {src} to {dst} (row strides dma.dram_stride and "
                    f"dma.local_stride), asynchronously (rd is read, not written)")
        return f"copy x[rs2] bytes from {src} to {dst}, asynchronously (rd is read, not written)"
    if fam == "dma_cfg":
        return "DMA configuration register imm = x[rs1] (0 dma.rows, 1 dma.dram_stride, 2 dma.local_stride)"
    if fam == "dpe":
        return {
            "cfg": "matrix-engine configuration register imm = x[rs1] (0 input type: 0 fp16, 1 bf16, 2 int8, 3 uint8; "
                   "1 weight row stride; 2 streamed row stride; 3 accumulator row stride in local memory; "
                   "4 tile width N (1..32); 5 transpose the weight tile on load; 6 acc.st output: 0 fp32 / int32, "
                   "1 fp16, 2 bf16)",
            "ldw": "cache the weight tile W: x[rs2] rows (K <= 32) of N elements from local memory x[rs1]",
            "mm": "acc[x[rd] + i] += row_i @ W for the x[rs2] rows of K elements streamed from local memory x[rs1] "
                  "(asynchronous; rd is read, not written)",
            "zero": "acc[x[rs1] .. x[rs1] + x[rs2]) = 0",
            "accld": "acc[x[rd] + i] = the x[rs2] rows of N fp32 / int32 values at local memory x[rs1]",
            "accst": "the x[rs2] accumulator rows from acc[x[rs1]] to local memory x[rd] (N fp32 / int32 values "
                     "each, or fp16 / bf16 by configuration register 6)",
            "mlutrans": "the memory layout unit: the dense block of rows x cols elements (x[rs2] = rows << 16 | cols; "
                        "element width from the mnemonic) at local memory x[rs1], transposed into local memory x[rd] "
                        "(asynchronous, in the engine's command order; rd is read, not written)",
        }[op]
    if fam == "dpe_wait":
        return ("stall until every command this PE gave the matrix engine has completed but the `inflight` issued "
                "last (omitted: 0, every command; `cfg` commands count; at most 255: the command processor tracks "
                "the completion of its last 256 commands)")
    if fam == "vext":
        return f"vd[i] = {'sign' if op[0] == 's' else 'zero'}-extend(vs2[i]) (source EEW = SEW/{op[1]})"
    if fam == "vnarrow":
        return f"vd[i] = (vs2[i] {'>>a' if op == 'sra' else '>>u'} {_vector_b(spec)})[SEW-1:0] (source EEW 2*SEW)"
    if fam == "vmulhx":
        return f"vd[i] = high half of ({'signed ' if op == 'mulhsu' else 'unsigned '}vs2[i] × unsigned " \
               f"{_vector_b(spec)})"
    if fam in ("vfwcvt", "vfncvt"):
        how = "widening: SEW -> 2*SEW" if fam == "vfwcvt" else "narrowing: 2*SEW -> SEW"
        return f"vd[i] = {_VCVT.get(op, 'round to odd (f -> f)' if op == 'rod.f.f' else op)}, {how}"
    if fam == "debug":
        return {"print": "print the values at the addresses in the table at local x[rs1] with meta['strings'][imm]",
                "assert": "stop the run unless every element of the value at table x[rs1] is nonzero "
                          "(meta['strings'][imm] has the message)",
                "flush": "write this wave's buffered print lines to stdout in program-id order"}[op]
    if fam == "amo":
        name, _dot, w = op.partition(".")
        width = {"h": "16", "w": "32", "d": "64", "s": "fp32", "bf": "bf16"}.get(w, w)
        what = {"add": "old + x[rs2]", "swap": "x[rs2]", "xor": "old ^ x[rs2]", "or": "old | x[rs2]",
                "and": "old & x[rs2]", "min": "min(old, x[rs2]) (signed)", "max": "max(old, x[rs2]) (signed)",
                "minu": "min(old, x[rs2]) (unsigned)", "maxu": "max(old, x[rs2]) (unsigned)",
                "fadd": "old + x[rs2] (floating point, rounded to nearest even)"}
        order = "; .aq: later accesses wait for it; .rl: it waits for earlier accesses (DMA transfers included)"
        if name == "cas":
            return (f"indivisibly: old = mem{width}[x[rs1]]; if old == x[rd]: mem{width}[x[rs1]] = x[rs2]; "
                    f"x[rd] = sext(old){order}")
        return f"indivisibly: old = mem{width}[x[rs1]]; mem{width}[x[rs1]] = {what[name]}; x[rd] = sext(old){order}"
    if fam == "fence":
        return "wait until every memory access, DMA transfer and atomic this PE issued has completed"
    if fam == "se":
        what = {"sigmoid": "1 / (1 + exp(-x))", "recip": "1 / x", "rsqrt": "1 / sqrt(x)"}.get(op, f"{op}(x)")
        return (f"vd[i] = {what} with x = vs2[i] (fp32 or fp16), by the SIMD engine's table (its accuracy: the "
                f"machine YAML's se.functions)")
    if fam == "se_cvt":
        return ("vd[i] = fp16(vs2[i]) (vs2 fp32 at EEW 2 * SEW, SEW 16; rounded to nearest even, NaN canonical, as the "
                "vector unit's vfncvt.f.f.w), on the SIMD engine's ALUs")
    if fam == "se_alu":
        second = "vs1[i]" if spec.format == "SEVV" else "f[rs1]"
        what = f"{second} - vs2[i]" if op == "rsub" else \
            f"{op}(vs2[i], {second})" if op in ("min", "max") else \
            f"vs2[i] {dict(add='+', sub='-', mul='*')[op]} {second}"
        return (f"vd[i] = {what} (fp32 or fp16, rounded to nearest even as the vector unit's vf{op}), on the "
                f"SIMD engine's ALUs")
    raise KeyError(fam)


# --------------------------------------------------------------------------------------------------------------
# Encoding diagrams
# --------------------------------------------------------------------------------------------------------------
def encoding_fields(spec: InstrSpec) -> List[Tuple[int, int, str]]:
    """``(hi, lo, text)`` from bit 31 down: fixed fields as binary values, operand fields by name."""
    pieces = []
    for name, value in spec.fixed:
        hi, lo = FIXED_FIELDS[name]
        pieces.append((hi, lo, format(value, f"0{hi - lo + 1}b")))
    for kind in spec.operands:
        for label, hi, lo in kind.fields():
            pieces.append((hi, lo, label))
    return sorted(pieces, reverse=True)


def encoding_diagram(spec: InstrSpec) -> str:
    return " \\| ".join(f"{text}" for _hi, _lo, text in encoding_fields(spec))


def access_text(spec: InstrSpec) -> str:
    """``w rd; r rs1, rs2`` (the registers the instruction writes and reads; ``v0`` under ``vm=0``)."""
    regs = spec.register_operands
    writes = [attr or "v0" for _f, attr, acc in regs if "w" in acc]
    reads = [attr or "v0" for _f, attr, acc in regs if "r" in acc]
    if "vm" in spec.operand_names:
        reads.append("v0 if vm=0")
    return "; ".join(f"{rw} {', '.join(names)}" for rw, names in (("w", writes), ("r", reads)) if names) or "-"


def _bits_text(hi: int, lo: int) -> str:
    return f"{hi}:{lo}" if hi != lo else f"{hi}"


def render() -> str:
    out: List[str] = []
    w = out.append
    w("# mtiacc ISA reference")
    w("")
    w("<!-- Generated from mtiacc/asm/isa.py and mtiacc/asm/pseudo.py by `python -m mtiacc.asm.isadoc --write`."
      " Do not edit. -->")
    w("")
    w("RV64IMF + a subset of RVV 1.0 + the MTIA custom instructions. Every instruction is 32 bits, little-endian."
      " One table row per instruction is the single source of truth for the encoder, decoder, assembler,"
      " disassembler, this document, the simulator's dispatch (`sem_family`, `sem_op`) and timing class, and"
      " the registers and state each instruction reads and writes (the register allocator's defs and uses,"
      " the scheduler's dependences, the simulator's scoreboard).")
    w("")
    w("Conventions: `x[r]`, `f[r]` are scalar registers, `vd[i]` element *i* of a vector register group at the"
      " current SEW/LMUL, for `i < vl`. With the optional `v0.t` (vm=0) only elements whose mask bit in `v0` is"
      " set are written; without it (vm=1) all are. Encodings list fields from bit 31 down to bit 0; fixed"
      " fields are shown as binary values. Assembly is GNU `as` syntax; omitted optional operands are `[...]`.")
    w("")
    w(f"{len(INSTRUCTIONS)} instructions, {len(PSEUDOS)} pseudo-instruction forms.")
    w("")
    w("## Operand kinds")
    w("")
    w("| kind | syntax | bits | decoded as | values | access |")
    w("|---|---|---|---|---|---|")
    for name, kind in KINDS.items():
        bits = ", ".join(_bits_text(hi, lo) for _l, hi, lo in kind.fields()) or "(none)"
        values = []
        for attr, dom in kind.domain().items():
            if isinstance(dom, tuple):
                lo, hi, step = dom
                values.append(f"{lo}..{hi}" + (f" step {step}" if step != 1 else ""))
            else:
                values.append(f"{len(dom)} values")
        opt = " (optional)" if kind.optional else ""
        w(f"| `{name}` | `{kind.syntax}`{opt} | {bits} | {', '.join(kind.attrs) or '-'} | {'; '.join(values) or '-'} "
          f"| {kind.access or '-'} |")
    w("")
    w("Registers accept ABI names (`zero ra sp gp tp t0-t6 s0-s11 fp a0-a7`, `ft0-11 fs0-11 fa0-7`) and"
      " `x0-x31`, `f0-f31`, `v0-v31`. A vtype is `eSEW[, mLMUL|mfN][, ta|tu][, ma|mu]` (defaults m1, tu, mu) or a"
      " number; a rounding mode is `rne rtz rdn rup rmm dyn` (default `dyn`, as GNU as encodes it).")
    w("")
    w("The *access* of an operand is what the instruction does with the register it names: `w` written, `r` read"
      " (a memory operand's base; `vm`: v0 when masked), `rw` both. It is the kind's unless the row says otherwise"
      " (`mtia.dma.*` read rd; the vector multiply-adds read and write vd).")
    w("")
    w("## Effects")
    w("")
    w("What an instruction does beyond its operands; from its timing class (loads, stores, branches, jumps,"
      " `vsetvli`, system) and unit (every other vector instruction reads vl and vtype), or stated on the row.")
    w("")
    w("| effect | meaning |")
    w("|---|---|")
    for name, meaning in EFFECTS.items():
        w(f"| `{name}` | {meaning} |")
    w("")
    for ext, title, _rows in EXTENSIONS:
        specs = [s for s in INSTRUCTIONS if s.extension == ext]
        w(f"## {title}")
        w("")
        w("| instruction | encoding (31 → 0) | match / mask | timing | unit | semantics (`family op`) "
          "| registers | effects |")
        w("|---|---|---|---|---|---|---|---|")
        for s in specs:
            opname = OPCODE_NAMES.get(s.opcode, "")
            w(f"| `{s.syntax}` | {encoding_diagram(s)} ({opname}) | `{s.match:08x}` / `{s.mask:08x}` | {s.timing} "
              f"| {s.unit} | {semantics(s).replace('|', chr(92) + '|')} (`{s.sem_family} {s.sem_op}`) "
              f"| {access_text(s)} | {', '.join(sorted(s.effects)) or '-'} |")
        w("")
        for line in _NOTES.get(ext, ()):
            w(line)
            w("")
    w("## For GNU as: `.insn`")
    w("")
    w("GNU binutils 2.40 does not know these instructions. `mtiacc --emit=asm` writes each as the"
      " `.insn` directive of its encoding fields (our assembler reads `.insn` too), so that `riscv64-linux-gnu-as`"
      " makes the same words; `objdump` shows them as `.4byte`.")
    w("")
    w("| instruction | `.insn` |")
    w("|---|---|")
    for s in INSTRUCTIONS:
        if not s.binutils_knows:
            w(f"| `{s.syntax}` | `{insn_template(s)}` |")
    w("")
    w("## Pseudo-instructions")
    w("")
    w("Expanded by the assembler; the disassembler prints the ones marked *alias* in place of the base"
      " instruction.")
    w("")
    w("| pseudo | expands to | alias |")
    w("|---|---|---|")
    for p in PSEUDOS:
        w(f"| `{p.syntax}` | `{p.expansion_text()}` | {'yes' if p.alias else ''} |")
    w("")
    return "\n".join(out)


def main(argv: List[str]) -> int:
    text = render()
    if "--write" in argv:
        DOC_PATH.write_text(text, encoding="utf-8")
        return 0
    if "--check" in argv:
        current = DOC_PATH.read_text(encoding="utf-8") if DOC_PATH.exists() else ""
        if current != text:
            print(f"{DOC_PATH} is stale: run python -m mtiacc.asm.isadoc --write", file=sys.stderr)
            return 1
        return 0
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
