"""Assembler: syntax, directives, the line table, and user errors with file:line:col and a caret."""
import pytest

from mtiacc.asm.assembler import AsmError, assemble
from mtiacc.asm.encoding import decode_all, encode
from mtiacc.diagnostics import UserError


def words(text):
    return [d.word for d in decode_all(assemble(text).code)]


def test_abi_and_numeric_register_names():
    assert words("add x10, x11, x12") == words("add a0, a1, a2") == [encode("add", rd=10, rs1=11, rs2=12)]
    assert words("addi fp, s0, 0") == [encode("addi", rd=8, rs1=8, imm=0)]
    assert words("fadd.s f10, f11, f12") == words("fadd.s fa0, fa1, fa2")
    assert words("fmadd.s fs11, ft11, fs2, ft0") == [encode("fmadd.s", rd=27, rs1=31, rs2=18, rs3=0)]


def test_labels_forward_and_backward_references():
    prog = assemble("""
top:  beq a0, a1, bottom   # forward
      nop
bottom:
      j top
""")
    assert prog.symbols == {"top": 0, "bottom": 8}
    assert [str(d) for d in decode_all(prog.code)] == ["beq a0, a1, .+8", "addi zero, zero, 0", "jal zero, .-8"]


def test_dot_relative_targets_and_numbers():
    assert words("beq a0, a1, .+8\nbne a0, a1, .-4") == [
        encode("beq", rs1=10, rs2=11, imm=8), encode("bne", rs1=10, rs2=11, imm=-4)]
    assert words("addi a0, a0, 0x7ff\naddi a0, a0, -0b101\naddi a0, a0, 010") == [
        encode("addi", rd=10, rs1=10, imm=v) for v in (2047, -5, 8)]


def test_directives_and_line_table():
    prog = assemble("""\
    .text
    .option norvc
    .attribute arch, "rv64i2p1_m2p0_f2p2_v1p0"
    .globl kernel
    .p2align 2
    .type kernel, @function
    .file 1 "kernel.py"
kernel:
    .loc 1 12 5
    li a0, 0x12345678; li a1, 1
    .loc 1 13 9 prologue_end
    ret
    .size kernel, .-kernel
    .equ N, 40
    addi a0, a0, N+2
    .p2align 4
    .word 0x12345678
""")
    assert prog.globals == ["kernel"] and prog.files == {1: "kernel.py"} and prog.source_file == "kernel.py"
    assert prog.lines == [(0, 12, 5), (4, 12, 5), (8, 12, 5), (12, 13, 9), (16, 13, 9)]
    ws = [int.from_bytes(prog.code[i:i + 4], "little") for i in range(0, len(prog.code), 4)]
    assert ws[4] == encode("addi", rd=10, rs1=10, imm=42)
    assert ws[5:8] == [0x13] * 3 and ws[8] == 0x12345678  # padded with nops to 32


def test_vector_syntax():
    assert words("vsetvli t0, a0, e32, m8, ta, ma") == words("vsetvli t0, a0, 0xd3")
    assert words("vsetvli t0, a0, e32") == [encode("vsetvli", rd=5, rs1=10, vtypei=0b010000)]
    assert words("vle32.v v8, (a0)") == words("vle32.v v8, 0(a0)")
    assert words("vadd.vv v8, v8, v16, v0.t") == [encode("vadd.vv", vd=8, vs2=8, vs1=16, vm=0)]
    assert words("vmerge.vvm v1, v2, v3, v0") == [encode("vmerge.vvm", vd=1, vs2=2, vs1=3)]


def test_rounding_mode_is_optional_and_defaults_to_dyn():
    assert words("fadd.s fa0, fa1, fa2") == words("fadd.s fa0, fa1, fa2, dyn") == [0x00C5F553]
    assert words("fcvt.w.s a0, fa0, rtz") == [encode("fcvt.w.s", rd=10, rs1=10, rm=1)]


def test_dma_wait_count_is_optional_and_round_trips():
    """`mtia.dma.wait N` leaves the N transfers issued last in flight; omitted, N is 0 (every transfer): the
    encoding of the plain wait is unchanged, and it prints without the count."""
    from mtiacc.asm.disasm import instruction_text
    assert words("mtia.dma.wait") == words("mtia.dma.wait 0") == [0x0000100B]
    assert words("mtia.dma.wait 2") == [0x0020100B] and words("mtia.dma.wait 2047") == [0x7FF0100B]
    for text in ("mtia.dma.wait", "mtia.dma.wait 2", "mtia.dma.wait 2047"):
        (d,) = decode_all(assemble(text).code)
        assert instruction_text(d) == text
    with pytest.raises(AsmError, match="immediate 2048 out of range 0..2047"):
        assemble("  mtia.dma.wait 2048")


def _err(text):
    with pytest.raises(AsmError) as info:
        assemble(text, "kernel.s")
    return info.value


@pytest.mark.parametrize("text,line,col,end_col,message", [
    ("  fadd.x fa0, fa1, fa2", 1, 3, 9, "unknown instruction 'fadd.x'"),
    ("nop\n  addi a0, a1", 2, 3, 7, "'addi' takes 3 operands, got 2"),
    ("  addi a0, a1, 5000", 1, 16, 20, "immediate 5000 out of range -2048..2047"),
    ("  beq a0, a1, nowhere", 1, 15, 22, "undefined label 'nowhere'"),
    ("  addi a0, ft0, 1", 1, 12, 15, "expected an integer register, got 'ft0'"),
    ("x: nop\nx: nop", 2, 1, 2, "symbol 'x' is already defined (line 1)"),
    ("  beq a0, a1, .+2000000", 1, 3, 6, "branch target out of range: offset 2000000 is beyond a jump's 1 MiB"),
    ("  j far\n  .p2align 20\nfar: nop", 2, 12, 14, "bad alignment 20"),
    ("  vsetvli t0, a0, e33, m1", 1, 19, 22, "expected SEW (e8, e16, e32, e64), got 'e33'"),
    ("  vsetvli t0, a0, e32, ta, m1", 1, 28, 30, "unexpected vtype part 'm1'"),
    ("  vle32.v v8, 4(a0)", 1, 15, 20, "vector memory operands take no offset"),
    ("  addi a0 a1, 1", 1, 11, 13, "expected ',' between operands"),
    ("  lui a0, %hi(x)", 1, 11, None, "unexpected character '%'"),
    ("  lui a0, 0x100000", 1, 11, 19, "upper immediate 1048576 out of range 0..0xfffff"),
    ("  .loc 2 3 4", 1, 8, 9, "file number 2 was not declared by '.file'"),
    ("  .frob 1", 1, 3, 8, "unknown directive '.frob'"),
    ("  vadd.vv v1, v2, v3, v1.t", 1, 23, 27, "expected the mask operand 'v0.t', got 'v1.t'"),
    ("  li a0, x", 1, 10, 11, "undefined symbol 'x'"),
    ("  li a0, 0x10000000000000000", 1, 10, 29, "does not fit in 64 bits"),
    ("  fadd.s fa0, fa1, fa2, rxx", 1, 25, 28, "expected a rounding mode"),
    ("  mtia.pid a0, 3", 1, 16, 17, "immediate 3 out of range 0..2"),
    ("  jalr", 1, 3, 7, "'jalr' takes 1, 2 or 3 operands, got 0"),
    ("  lw a0, 8(ft0)", 1, 10, 16, "expected an integer base register, got 'ft0'"),
    ("  slli a0, a0, 64", 1, 16, 18, "immediate 64 out of range 0..63"),
    ("  addi a0, a0, a0+1", 1, 16, 20, "undefined symbol 'a0'"),
    ("x:\n  addi a0, a0, x", 2, 16, 17, "expected a constant, got address 'x'"),
    ("  .data\n  nop", 2, 3, 6, "instructions must be in .text, not .data"),
    ("  add a0, a1, a2,\nnop", 1, 18, None, "syntax error: unexpected end of line"),
    ("  add a0, a1, a2,", 1, 18, None, "syntax error: unexpected end of input"),
])
def test_errors_have_location_message_and_caret(text, line, col, end_col, message):
    e = _err(text)
    assert isinstance(e, UserError)
    assert message in e.message
    assert (e.loc.file, e.loc.line, e.loc.col) == ("kernel.s", line, col)
    if end_col is not None:
        assert e.loc.end_col == end_col
    rendered = e.render()
    src = text.split("\n")[line - 1]
    assert rendered.splitlines()[0] == f"kernel.s:{line}:{col}: error: {e.message}"
    assert rendered.splitlines()[1] == src
    caret = rendered.splitlines()[2]
    assert caret.index("^") == col - 1
    assert "Traceback" not in rendered


def test_unknown_mnemonic_suggests_a_close_one():
    assert "did you mean 'vfadd.vv'?" in _err("vfadd.vvv v1, v2, v3").render()


def test_wrong_operand_count_shows_syntax():
    assert "note: syntax: vadd.vv vd, vs2, vs1, [vm]" in _err("vadd.vv v1, v2").render()
