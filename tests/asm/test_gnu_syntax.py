"""GNU-syntax assembly (`mtiacc --emit=asm --asm-syntax=gnu`): `.insn` for what binutils 2.40 lacks, the same bytes
from GNU as as from our assembler; and our assembler's `.insn` directive."""
import functools
import subprocess

import pytest

from tests.asm._asm_samples import sample_operands
from tests.asm._binutils import need
from tests.cli.helpers import clean, mtiacc
from tests.conftest import EXAMPLES, ROOT
from mtiacc.asm import isa
from mtiacc.asm.assembler import AsmError, assemble
from mtiacc.asm.elf import read_elf
from mtiacc.asm.encoding import encode
from mtiacc.asm.gnu import gnu_syntax
from mtiacc.asm.insn import insn_template, insn_text
from mtiacc.asm.operands import register_name
from mtiacc.driver import Options, compile_kernel

AS, OBJCOPY = "riscv64-linux-gnu-as", "riscv64-linux-gnu-objcopy"
FILECHECK = ROOT / "tests" / "filecheck"

# (file, kernel, -D, signature): the custom instructions of every unit (DMA, program id, matrix engine, atomics)
KERNELS = [
    (EXAMPLES / "vector_add.py", None, {"BLOCK_SIZE": "256"}, None),
    (EXAMPLES / "softmax.py", None, {"BLOCK_SIZE": "1024"}, "*fp32,*fp32,i32,i32,i32"),
    (EXAMPLES / "transpose.py", None, {"BLOCK_M": "16", "BLOCK_N": "16"}, "*fp32,*fp32,i32,i32,i32,i32,i32,i32"),
    (FILECHECK / "dot_engine.py", None, {}, "*bf16,*bf16,*fp32"),
    (FILECHECK / "atomics_asm.py", None, {}, "*i32,*u32,*i64,*u64,*fp16,*bf16,*fp32,*fp64,*i16"),
]


@functools.lru_cache(maxsize=None)
def _compiled(index):
    path, kernel, defines, signature = KERNELS[index]
    out = compile_kernel(str(path), Options(kernel=kernel, defines=dict(defines), signature=signature))
    return out.asm_text, read_elf(out.binary).text


def _samples():
    """Every row, three encodings each: (spec, word)."""
    return [(spec, encode(spec, **vals)) for spec in isa.INSTRUCTIONS for vals in sample_operands(spec, n=3)]


def _words(code):
    return [int.from_bytes(code[i:i + 4], "little") for i in range(0, len(code), 4)]


def _gnu_text(tmp_path, text, name="k"):
    src, obj, binf = tmp_path / f"{name}.s", tmp_path / f"{name}.o", tmp_path / f"{name}.bin"
    src.write_text(text)
    r = subprocess.run([AS, "-o", str(obj), str(src)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[:4000]
    subprocess.run([OBJCOPY, "-O", "binary", "-j", ".text", str(obj), str(binf)], check=True)
    return binf.read_bytes()


def _need_binutils():
    need(AS, OBJCOPY)


# -- the spelling, against our assembler --------------------------------------------------------------------------
def test_every_rows_insn_spelling_assembles_to_its_word():
    samples = _samples()
    text = "\n".join(insn_text(spec, word) for spec, word in samples)
    assert _words(assemble(text).code) == [w for _s, w in samples]


def test_custom_rows_are_spelled_by_their_format_fields():
    pid = isa.BY_NAME["mtia.pid"]
    assert insn_text(pid, encode(pid, rd=10, imm=1)) == ".insn i CUSTOM_0, 2, a0, zero, 1"
    dma = isa.BY_NAME["mtia.dma.out2d"]
    assert insn_text(dma, encode(dma, rd=10, rs1=11, rs2=12)) == ".insn r CUSTOM_0, 0, 3, a0, a1, a2"
    cas = isa.BY_NAME["amocas.w.aq"]
    assert insn_text(cas, encode(cas, rd=5, rs1=6, rs2=7)) == ".insn r AMO, 2, 22, t0, t1, t2"
    vadd = isa.BY_NAME["vadd.vv"]
    assert insn_text(vadd, 0x022180D7) == ".insn 0x022180d7"      # no GNU type for the vector formats
    assert not pid.binutils_knows and not cas.binutils_knows and not isa.BY_NAME["amoswap.h"].binutils_knows
    assert vadd.binutils_knows and isa.BY_NAME["amoswap.w"].binutils_knows


def test_insn_template_names_the_fields_insn_text_fills():
    """docs/isa.md's `.insn` form of each row binutils lacks, its fields filled in, is the row's spelling."""
    for spec in isa.INSTRUCTIONS:
        if spec.binutils_knows or insn_template(spec) == ".insn WORD":     # a raw word has no fields to fill
            continue
        for vals in sample_operands(spec, n=3):
            text = insn_template(spec)
            for attr in ("rd", "rs1", "rs2"):
                text = text.replace(f", {attr}", f", {register_name('x', vals[attr])}" if attr in vals else "")
            text = text.replace(", imm", f", {vals.get('imm')}")
            assert text == insn_text(spec, encode(spec, **vals)), spec.name


def test_insn_forms_our_assembler_reads():
    text = """f:
    .insn r CUSTOM_0, 0, 0, a0, a1, a2
    .insn r 0x0b, 0, 0, x10, x11, x12
    .insn i LOAD, 2, a0, 8(a1)
    .insn i load, 2, a0, a1, 8
    .insn s STORE, 2, a0, -8(a1)
    .insn b BRANCH, 1, a0, zero, f
    .insn j JAL, zero, f
    .insn u LUI, a0, 0x12345
    .insn 0x0000100b
    .insn 4, 0x0000100b
    """
    ours = """f:
    mtia.dma.in a0, a1, a2
    mtia.dma.in a0, a1, a2
    lw a0, 8(a1)
    lw a0, 8(a1)
    sw a0, -8(a1)
    bnez a0, f
    j f
    lui a0, 0x12345
    mtia.dma.wait
    mtia.dma.wait
    """
    assert assemble(text).code == assemble(ours).code


@pytest.mark.parametrize("line, message, col", [
    (".insn r CUSTOM_9, 0, 0, a0, a1, a2", "unknown opcode 'CUSTOM_9'", 9),
    (".insn r CUSTOM_0, 8, 0, a0, a1, a2", "funct3 8 out of range 0..7", 19),
    (".insn r CUSTOM_0, 0, 0, a0, a1", "'.insn r' takes OPCODE, FUNCT3, FUNCT7, RD, RS1, RS2", 7),
    (".insn i CUSTOM_0, 0, a0, q7, 0", "expected a register, got 'q7'", 26),
    (".insn i CUSTOM_0, 0, a0, a1, 4096", "out of range", 30),
    (".insn 0x12", "is not a 32-bit instruction", 7),
    (".insn 2, 0x1", "only 4-byte instructions", 7),
    (".insn 0x0, 1, 2", "expected '.insn TYPE, ...'", 15),
])
def test_insn_errors_point_at_the_operand(line, message, col):
    with pytest.raises(AsmError) as e:
        assemble(line, "k.s")
    assert message in str(e.value)
    assert (e.value.loc.file, e.value.loc.line, e.value.loc.col) == ("k.s", 1, col)
    assert "^" in e.value.render()


# -- whole kernels --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("index", range(len(KERNELS)), ids=[k[0].stem for k in KERNELS])
def test_gnu_syntax_round_trips_through_our_assembler(index):
    asm, text = _compiled(index)
    gnu = gnu_syntax(asm)
    assert ".insn" in gnu and "\tmtia." not in gnu
    assert assemble(gnu).code == text


@pytest.mark.parametrize("index", range(len(KERNELS)), ids=[k[0].stem for k in KERNELS])
def test_gnu_as_assembles_our_gnu_syntax_to_the_same_bytes(tmp_path, index):
    _need_binutils()
    asm, text = _compiled(index)
    assert _gnu_text(tmp_path, gnu_syntax(asm)) == text


def test_gnu_as_reads_every_rows_insn_spelling(tmp_path):
    _need_binutils()
    samples = _samples()
    text = "\t.option norvc\n\t.option norelax\n" + "\n".join(insn_text(s, w) for s, w in samples) + "\n"
    assert _words(_gnu_text(tmp_path, text)) == [w for _s, w in samples]


def test_rewritten_line_keeps_the_instruction_and_its_comment():
    gnu = gnu_syntax("f:\n\tmtia.pid\ta0, 1                # axis 1\n\tmtia.dma.wait\n\tret\n")
    lines = gnu.splitlines()
    assert lines[0].startswith("\t.attribute\tarch, \"rv64i2p1_m2p0_a2p1_f2p2_d2p2_v1p0")
    assert lines[1:3] == ["\t.option\tnorvc", "\t.option\tnorelax"]
    assert lines[4:] == ["\t.insn\ti CUSTOM_0, 2, a0, zero, 1\t# mtia.pid a0, 1\t# axis 1",
                         "\t.insn\ti CUSTOM_0, 1, zero, zero, 0\t# mtia.dma.wait", "\tret"]


def test_cli_asm_is_gnu_syntax_by_default(capsys, tmp_path):
    out = tmp_path / "k.s"
    code, _o, err = mtiacc(capsys, EXAMPLES / "vector_add.py", "-D", "BLOCK_SIZE=256", "--emit=asm", "-o", out)
    assert code == 0, err
    text = out.read_text()
    assert "# mtia.pid a0, 0" in text and ".insn" in text
    code, _o, err = mtiacc(capsys, EXAMPLES / "vector_add.py", "-D", "BLOCK_SIZE=256", "--emit=asm",
                           "--asm-syntax=mtia", "-o", out)
    assert code == 0, err
    text = out.read_text()
    assert "\tmtia.pid\ta0, 0\n" in text
    assert ".insn" not in text
    clean(mtiacc(capsys, EXAMPLES / "vector_add.py", "-D", "BLOCK_SIZE=256", "--asm-syntax=mtia"),
          "--asm-syntax applies to --emit=asm", code=2)


FAR = "f:\n\tbnez\ta0, far\n\tbgt\ta0, a1, f\n" + "\tnop\n" * 1100 + "far:\n\tblt\ta0, a1, f\n\tret\n"


def test_relaxed_branches_are_spelled_as_their_three_instructions():
    gnu = gnu_syntax(FAR)
    lines = gnu.splitlines()
    assert lines[4] == "\tbne\ta0, zero, .+8; jal zero, .+8; jal zero, .+4408\t# bnez a0, far"
    assert lines[5] == "\tbgt\ta0, a1, f"          # near: as written
    assert lines[-2] == "\tblt\ta0, a1, .+8; jal zero, .+8; jal zero, .-4424\t# blt a0, a1, f"
    assert assemble(gnu).code == assemble(FAR).code


def test_gnu_as_keeps_our_relaxed_branches(tmp_path):
    _need_binutils()
    assert _gnu_text(tmp_path, gnu_syntax(FAR)) == assemble(FAR).code
