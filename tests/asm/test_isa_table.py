"""The ISA table's build-time checks, and that they catch broken rows."""
import pytest

from mtiacc.asm import isa
from mtiacc.asm.encoding import decode, encode, find_spec


def test_table_checks_pass():
    isa.check_table()


def test_every_row_covers_32_bits_exactly_once():
    for s in isa.INSTRUCTIONS:
        covered = s.mask
        for k in s.operands:
            assert covered & k.mask == 0, s.name
            covered |= k.mask
        assert covered == 0xFFFFFFFF, s.name


def test_no_two_rows_overlap():
    for i, a in enumerate(isa.INSTRUCTIONS):
        for b in isa.INSTRUCTIONS[i + 1:]:
            assert (a.match ^ b.match) & a.mask & b.mask, (a.name, b.name)


def test_match_decodes_to_its_own_row():
    for s in isa.INSTRUCTIONS:
        assert find_spec(s.match) is s


def test_overlap_is_detected():
    add = isa.BY_NAME["add"]
    clone = isa._build("RV64I", isa.Row("add2", "R", "xd, xs1, xs2", "IntALU", "alu add", add.fixed))
    with pytest.raises(isa.TableError, match="overlap"):
        isa.check_table([add, clone])


def test_uncovered_bits_are_detected():
    row = isa._("bad", "R", "xd, xs1", "IntALU", "alu add", opcode=isa.OP, funct3=0, funct7=0)
    with pytest.raises(isa.TableError, match="not covered"):
        isa.check_table([isa._build("RV64I", row)])


def test_double_covered_bits_are_detected():
    row = isa._("bad", "R", "xd, xs1, xs2", "IntALU", "alu add", opcode=isa.OP, funct3=0, funct7=0, rs2=0)
    with pytest.raises(isa.TableError, match="already covered"):
        isa.check_table([isa._build("RV64I", row)])


def test_unknown_semantics_and_timing_are_detected():
    row = isa._("bad", "R", "xd, xs1, xs2", "IntALUX", "alu add", opcode=isa.OP, funct3=0, funct7=0)
    with pytest.raises(isa.TableError, match="timing"):
        isa.check_table([isa._build("RV64I", row)])
    row = isa._("bad", "R", "xd, xs1, xs2", "IntALU", "alu frob", opcode=isa.OP, funct3=0, funct7=0)
    with pytest.raises(isa.TableError, match="semantics"):
        isa.check_table([isa._build("RV64I", row)])


def test_families_and_ops_are_all_used():
    used = {(s.sem_family, s.sem_op) for s in isa.INSTRUCTIONS}
    for fam, ops in isa.SEM_FAMILIES.items():
        for op in ops:
            assert (fam, op) in used, (fam, op)


def test_custom_instructions_match_architecture_doc():
    assert encode("mtia.dma.in", rd=1, rs1=2, rs2=3) == (3 << 20) | (2 << 15) | (1 << 7) | 0b0001011
    assert encode("mtia.dma.out", rd=1, rs1=2, rs2=3) == (1 << 25) | (3 << 20) | (2 << 15) | (1 << 7) | 0b0001011
    assert encode("mtia.dma.wait") == (1 << 12) | 0b0001011
    assert encode("mtia.pid", rd=5, imm=2) == (2 << 20) | (2 << 12) | (5 << 7) | 0b0001011
    assert encode("mtia.nprogs", rd=5, imm=1) == (1 << 20) | (3 << 12) | (5 << 7) | 0b0001011
    for name, unit in [("mtia.dma.in", "dma"), ("mtia.dma.wait", "dma"), ("mtia.pid", "custom")]:
        assert isa.BY_NAME[name].unit == unit


@pytest.mark.parametrize("word,text", [
    (0x00500513, "addi a0, zero, 5"),
    (0x80000537, "lui a0, 0x80000"),
    (0x00c5f553, "fadd.s fa0, fa1, fa2"),
    (0x00c59553, "fadd.s fa0, fa1, fa2, rtz"),
    (0x013572d7, "vsetvli t0, a0, e32, m8, tu, mu"),
    (0x0d3572d7, "vsetvli t0, a0, e32, m8, ta, ma"),
    (0x02056407, "vle32.v v8, (a0)"),
    (0x962fb0d7, "vsll.vi v1, v2, 31"),
    (0xc45ff2d7, "vsetivli t0, 31, e8, mf8, ta, mu"),
    (0xfeb50ee3, "beq a0, a1, .-4"),
])
def test_known_words(word, text):
    d = decode(word)
    assert str(d) == text
    assert encode(d.spec, **d.values()) == word


def test_decoded_attributes():
    d = decode(0x80000537)  # lui a0, 0x80000
    assert (d.rd, d.imm, d.spec.sem_family, d.spec.timing) == (10, -(1 << 31), "lui", "IntALU")
    d = decode(encode("slli", rd=1, rs1=2, shamt=63))
    assert d.shamt == 63 and d.imm == 63
    d = decode(encode("vadd.vv", vd=1, vs2=2, vs1=3, vm=0))
    assert (d.vd, d.vs2, d.vs1, d.vm, d.rs1, d.imm) == (1, 2, 3, 0, None, None)
    assert d.spec.unit == "vector" and d.spec.sem_op == "add"
