"""Differential tests against GNU binutils (the oracle for encodings and for objdump's view of our ELF).

Where binutils is missing these skip, except in CI (``CI`` set in the environment), where they fail: CI installs
binutils (``.ci/run``) and must run them.  ``test_golden_encodings.py`` checks the encodings everywhere against the
words GNU as made once; here, the golden file is also checked to be what GNU as makes now."""
import random
import re
import subprocess

import pytest

from tests.asm._asm_samples import sample_operands
from tests.asm._binutils import need
from mtiacc.asm import isa
from mtiacc.asm.assembler import assemble
from mtiacc.asm.disasm import instruction_text
from mtiacc.asm.elf import build_elf
from mtiacc.asm.encoding import decode, encode
from mtiacc.asm.insn import insn_text

AS = "riscv64-linux-gnu-as"
OBJCOPY = "riscv64-linux-gnu-objcopy"
OBJDUMP = "riscv64-linux-gnu-objdump"


def _need_binutils():
    need(AS, OBJCOPY, OBJDUMP)


LI_VALUES = [0, 1, -1, 2047, 2048, -2048, -2049, 0x7FF, 0x800, 0xFFF, 0x1000, 0x7FFFF800, 0x7FFFFFFF,
             0x80000000, -0x80000000, -0x80000001, 0xFFFFFFFF, 0x100000000, 1 << 40, (1 << 40) + 1,
             0x123456789ABCDEF0, -0x123456789ABCDEF0, 0x7FFFFFFFFFFFFFFF, -0x8000000000000000,
             0xFFFFFFFFFFFFFFFF, 0x8000000000000000, 0xFFFFFFFF00000000, 0x00000000FFFFFF00, 0x7FF8000000000000]
LI_VALUES += [random.Random(i).getrandbits(64) - (1 << 63) for i in range(40)]
LI_VALUES += [random.Random(100 + i).getrandbits(random.Random(i).randrange(13, 64)) for i in range(40)]

PSEUDO_SAMPLES = """\
nop
mv a0, a1
not t0, t1
neg a2, a3
negw a2, a3
sext.w s1, s2
seqz a0, a5
snez a0, a5
sltz a0, a5
sgtz a0, a5
j p_target
jal p_target
jr t0
jalr t1
jalr a0, a1, 12
jalr a0, -4(a1)
ret
beqz a0, p_target
bnez a0, p_target
blez a0, p_target
bgez a0, p_target
bltz a0, p_target
bgtz a0, p_target
bgt a0, a1, p_target
ble a0, a1, p_target
bgtu a0, a1, p_target
bleu a0, a1, p_target
p_target:
fmv.s fa0, fa1
fneg.s fa0, fa1
fabs.s fa0, fa1
fmv.x.s a0, ft3
fmv.s.x ft3, a0
vneg.v v1, v2
vnot.v v1, v2, v0.t
vfneg.v v4, v8
vfabs.v v4, v8, v0.t
vmmv.m v1, v2
vmnot.m v1, v2
vmclr.m v3
vmset.m v3
vmsgt.vv v1, v2, v3
vmsgtu.vv v1, v2, v3, v0.t
vmsge.vv v1, v2, v3
vmsgeu.vv v1, v2, v3
vmfgt.vv v1, v2, v3
vmfge.vv v1, v2, v3, v0.t
vsetvli zero, zero, e8, m1
vsetvli a0, a1, e16, mf2, ta
vle32.v v8, 0(a0)
lw a0, (a1)
fsqrt.s ft0, ft1, rne
fcvt.w.s a0, fa0, rtz
addi x5, x6, 0x7ff
addi fp, s0, -0x800
""".splitlines()


def _program():
    ours, gnu = [], []
    pc = 0
    for spec in isa.INSTRUCTIONS:
        for vals in sample_operands(spec, n=3):
            text = instruction_text(decode(encode(spec, **vals)), pc, aliases=False)
            ours.append(text)
            gnu.append(text if spec.binutils_knows else insn_text(spec, encode(spec, **vals)))
            pc += 4
    for v in LI_VALUES:
        ours.append(f"li a0, {v}")
        gnu.append(f"li a0, {v}")
    ours += PSEUDO_SAMPLES
    gnu += PSEUDO_SAMPLES
    return ours, gnu


def _gnu_assemble(tmp_path, lines):
    src = tmp_path / "gnu.s"
    src.write_text(".option norelax\n.option norvc\n.text\n" + "\n".join(lines) + "\n")
    obj, binf = tmp_path / "gnu.o", tmp_path / "gnu.bin"
    r = subprocess.run([AS, "-march=rv64imafdv", "-o", str(obj), str(src)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[:4000]
    subprocess.run([OBJCOPY, "-O", "binary", "-j", ".text", str(obj), str(binf)], check=True)
    return binf.read_bytes()


def test_every_row_and_pseudo_matches_gnu_as(tmp_path):
    _need_binutils()
    ours, gnu = _program()
    expected = _gnu_assemble(tmp_path, gnu)
    got = assemble("\n".join(ours)).code
    # map each word back to its source line for a readable failure
    owners = []
    for line in ours:
        if line.endswith(":"):
            continue
        n = len(assemble(line + ("\np_target:" if "p_target" in line else "")).code) // 4
        owners += [line] * n
    assert len(got) == len(expected), (len(got), len(expected))
    bad = [(owners[i // 4], got[i:i + 4][::-1].hex(), expected[i:i + 4][::-1].hex())
           for i in range(0, len(got), 4) if got[i:i + 4] != expected[i:i + 4]]
    assert not bad, bad[:20]


def test_objdump_decodes_our_elf(tmp_path):
    _need_binutils()
    lines = []
    for spec in isa.INSTRUCTIONS:
        vals = sample_operands(spec, n=3)[2]
        if any(k.syntax == "offset" for k in spec.operands):
            vals["imm"] = 0  # a target inside the function
        lines.append(instruction_text(decode(encode(spec, **vals)), 0, aliases=False))
    prog = assemble("kernel:\n" + "\n".join(lines))
    path = tmp_path / "k.elf"
    path.write_bytes(build_elf(prog.code, entry_symbol="kernel", symbols=prog.symbols,
                               meta={"kernel": "kernel"}, lines=prog.lines))
    r = subprocess.run([OBJDUMP, "-d", "-M", "no-aliases", str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    dumped = [ln.split("\t") for ln in r.stdout.splitlines() if re.match(r"^\s*[0-9a-f]+:\t", ln)]
    mnemonics = [cols[2].strip() for cols in dumped if len(cols) > 2]
    assert len(mnemonics) == len(isa.INSTRUCTIONS)
    for spec, mnemonic in zip(isa.INSTRUCTIONS, mnemonics):
        if not spec.binutils_knows:
            assert mnemonic == ".4byte", (spec.name, mnemonic)
        else:
            assert mnemonic == spec.name, (spec.name, mnemonic)
    assert "<kernel>:" in r.stdout


def test_the_golden_encodings_are_what_gnu_as_makes_now():
    """``tests/asm/data/golden_encodings.tsv`` against a fresh run of GNU as over the same program."""
    _need_binutils()
    from tests.asm.make_golden_encodings import golden_lines, read_golden
    fresh = [tuple(ln.split("\t")) for ln in golden_lines()]
    kept = read_golden()
    assert len(fresh) == len(kept), "regenerate: PYTHONPATH=. python -m tests.asm.make_golden_encodings"
    bad = [(k[3], k[5], f[5]) for k, f in zip(kept, fresh) if k != f]
    assert not bad, bad[:20]
