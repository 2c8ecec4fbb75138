"""Disassembler listing: labels, targets, source comments, unknown words."""
from mtiacc.asm.assembler import assemble
from mtiacc.asm.disasm import disassemble
from mtiacc.asm.encoding import DecodeError, decode, decode_all
from mtiacc.asm.isa import BY_NAME

SRC = """\
    .file 1 "kernel.py"
kernel:
    .loc 1 3 5
    vsetvli t0, a0, e32, m8, ta, ma
    vle32.v v8, (a1), v0.t
.Lloop:
    .loc 1 4 9
    vadd.vv v8, v8, v16, v0.t
    addi a0, a0, -1
    bnez a0, .Lloop
    .loc 1 3 5
    ret
"""


def test_listing_with_labels_and_source():
    p = assemble(SRC)
    text = disassemble(p.code, symbols=p.symbols, lines=p.lines,
                       source={"3": "x = tl.load(p)", "4": "    y = x + x"}, source_file="kernel.py")
    assert text == """\
kernel:
  # kernel.py:3: x = tl.load(p)
       0:  0d3572d7  vsetvli t0, a0, e32, m8, ta, ma
       4:  0005e407  vle32.v v8, (a1), v0.t
.Lloop:
  # kernel.py:4: y = x + x
       8:  00880457  vadd.vv v8, v8, v16, v0.t
       c:  fff50513  addi a0, a0, -1
      10:  fe051ce3  bnez a0, .Lloop
  # kernel.py:3: x = tl.load(p)
      14:  00008067  ret
"""


def test_listing_base_and_no_aliases_and_string_source():
    p = assemble("loop: beq a0, zero, loop\n.word 0xffffffff")
    text = disassemble(p.code, base=0x1000, symbols=p.symbols, aliases=False, lines=[(0, 2, 1)],
                       source="first\nsecond line\n")
    assert text.splitlines() == ["loop:", "  # <source>:2: second line", "    1000:  00050063  beq a0, zero, loop",
                                 "    1004:  ffffffff  .word 0xffffffff  # unknown instruction"]
    assert disassemble(b"") == ""


def test_decode_errors_name_the_word_and_offset():
    try:
        decode(0xFFFFFFFF)
    except DecodeError as e:
        assert "0xffffffff" in e.message
    else:
        raise AssertionError
    try:
        decode_all(b"\x13\0\0\0" + b"\xff\xff\xff\xff")
    except DecodeError as e:
        assert "0xffffffff" in e.message and "offset 0x4" in e.message
    else:
        raise AssertionError


def test_register_classes_for_the_simulator():
    assert BY_NAME["fcvt.w.s"].reg_classes == {"rd": "x", "rs1": "f"}
    assert BY_NAME["vfadd.vf"].reg_classes == {"vd": "v", "vs2": "v", "rs1": "f"}
    d = decode(0x0005E407)
    assert (d.spec.sem_family, d.spec.sem_op, d.vd, d.rs1, d.vm) == ("vload", "32", 8, 11, 0)


def test_disassemble_binary_shows_meta_and_source():
    from mtiacc.asm.disasm import disassemble_binary
    from mtiacc.asm.elf import build_elf, read_elf
    p = assemble(SRC)
    meta = {"kernel": "kernel", "target": "mtia2i", "params": [{"name": "x", "type": "*fp32"}],
            "source_file": "kernel.py", "source": {"3": "x = tl.load(p)", "4": "y = x + x"}}
    text = disassemble_binary(read_elf(build_elf(p.code, entry_symbol="kernel", symbols=p.symbols, meta=meta,
                                                 lines=p.lines)))
    assert text.startswith("# kernel kernel for target mtia2i (format version 1)\n# params: x: *fp32\n")
    assert "  # kernel.py:4: y = x + x\n       8:  00880457  vadd.vv v8, v8, v16, v0.t" in text
