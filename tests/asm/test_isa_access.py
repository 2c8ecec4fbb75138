"""The ISA table's access and effects columns: consistent with the operand kinds, formats and timing classes,
the exceptions stated where the table states them, pseudo-instructions agreeing with their base rows, and the
reference document showing both."""
import pytest

from mtiacc.asm import isa, isadoc
from mtiacc.asm.pseudo import PSEUDOS, lookup

# (mnemonic prefix, operand kind, access) of every row whose access is not its kind's
EXCEPTIONS = {*{(n, "xd", "r") for n in ("mtia.dma.in", "mtia.dma.out", "mtia.dma.in2d", "mtia.dma.out2d",
                                        "mtia.dpe.mm", "mtia.dpe.acc.ld", "mtia.dpe.acc.st",
                                        *(f"mtia.mlu.trans.e{w}" for w in (8, 16, 32, 64)))},
              *{(f"{op}.{form}", "vd", "rw") for op in ("vfmacc", "vfnmacc", "vfmsac", "vfnmsac", "vfmadd", "vfnmadd", "vfmsub", "vfnmsub")
                for form in ("vv", "vf")},
              *{(f"amocas.{w}{order}", "xd", "rw") for w in ("h", "w", "d") for order in isa.AMO_ORDERINGS}}


def test_one_access_per_operand_and_only_registers_have_one():
    for s in isa.INSTRUCTIONS:
        assert len(s.access) == len(s.operands), s.name
        for kind, acc in zip(s.operands, s.access):
            assert acc in isa.ACCESS, s.name
            assert bool(acc) == bool(kind.access), (s.name, kind)     # immediates, targets, rm: no access


def test_destinations_are_written_and_sources_read_except_where_stated():
    found = set()
    for s in isa.INSTRUCTIONS:
        for name, kind, acc in zip(s.operand_names, s.operands, s.access):
            if acc != kind.access:
                found.add((s.name, name, acc))
            elif name in ("xd", "fd", "vd"):
                assert acc == "w", s.name
            elif kind.access:
                assert acc == "r", s.name
    assert found == EXCEPTIONS


def test_register_operands_name_each_register_once_in_operand_order():
    s = isa.BY_NAME["vmerge.vvm"]
    assert s.register_operands == (("v", "vd", "w"), ("v", "vs2", "r"), ("v", "vs1", "r"), ("v", None, "r"))
    assert isa.BY_NAME["sw"].register_operands == (("x", "rs2", "r"), ("x", "rs1", "r"))
    assert isa.BY_NAME["vfmacc.vf"].register_operands == (("v", "vd", "rw"), ("f", "rs1", "r"), ("v", "vs2", "r"))
    for s in isa.INSTRUCTIONS:     # the mask operand reads v0 only when vm=0: the simulator decides
        assert all(attr != "vm" for _f, attr, _a in s.register_operands)


def test_effects_follow_the_timing_class_and_unit():
    mlu = tuple(f"mtia.mlu.trans.e{w}" for w in (8, 16, 32, 64))
    for s in isa.INSTRUCTIONS:
        assert s.effects <= isa.EFFECTS.keys(), s.name
        assert ("load" in s.effects) == (s.timing in ("Load", "VLoad") or s.name in (
            "mtia.dma.out", "mtia.dma.out2d", "mtia.print", "mtia.assert", "mtia.dpe.ldw", "mtia.dpe.mm",
            "mtia.dpe.acc.ld", "mtia.se.vle16.v", "mtia.se.vle32.v") + mlu), s.name
        assert ("store" in s.effects) == (s.timing in ("Store", "VStore") or s.name in (
            "mtia.dma.in", "mtia.dma.in2d", "mtia.dpe.acc.st", "mtia.se.vse16.v", "mtia.se.vse32.v") + mlu), s.name
        assert ("branch" in s.effects) == (s.format == "B"), s.name
        assert ("jump" in s.effects) == (s.name in ("jal", "jalr")), s.name
        assert ("setvl" in s.effects) == (s.sem_family == "vsetvli"), s.name
        assert ("vtype" in s.effects) == (s.unit in ("vector", "se") and s.sem_family != "vsetvli"), s.name
        assert ("dma" in s.effects) == (s.unit == "dma"), s.name
        assert ("engine" in s.effects) == (s.unit in ("dpe", "mlu")), s.name   # the MLU: behind the engine
        assert ("io" in s.effects) == (s.sem_family == "debug"), s.name
        assert ("atomic" in s.effects) == (s.unit == "atomic"), s.name
        assert ("trap" in s.effects) == (s.sem_family == "system"), s.name


def test_unknown_effect_and_bad_access_are_detected():
    row = isa._("bad", "R", "xd, xs1, xs2", "IntALU", "alu add", effects="teleport", opcode=isa.OP, funct3=0,
                funct7=0)
    with pytest.raises(isa.TableError, match="unknown effects teleport"):
        isa.check_table([isa._build("RV64I", row)])
    for operands in ("xd:x, xs1, xs2", "xd, xs1, xs2, simm12:r"):
        row = isa._("bad", "R", operands, "IntALU", "alu add", opcode=isa.OP, funct3=0, funct7=0)
        with pytest.raises(isa.TableError, match="cannot have access"):
            isa._build("RV64I", row)


def test_pseudos_take_the_access_and_effects_of_their_base_row():
    for p in PSEUDOS:
        base = {a: acc for k, acc in zip(p.base.operands, p.base.access) for a in k.attrs}
        for kind, acc in zip(p.operands, p.access):
            assert acc == (base[kind.attrs[0]] if kind.access else ""), p.name
        assert p.effects == p.base.effects and p.timing == p.base.timing


@pytest.mark.parametrize("text,n,unconditional", [
    ("j", 1, True), ("ret", 0, True), ("jr", 1, True),              # jumps that do not link end a block
    ("jal", 1, False), ("jalr", 1, False), ("jal", 2, False),      # calls (they write ra or rd) do not
    ("jalr", 3, False), ("beqz", 2, False), ("beq", 3, False), ("add", 3, False),
])
def test_jumps_that_do_not_link(text, n, unconditional):
    row = lookup(text, n)
    assert ("jump" in row.effects and not row.links) == unconditional


def test_lookup_prefers_the_pseudo_of_that_many_operands():
    assert lookup("jalr", 1).base is isa.BY_NAME["jalr"] and lookup("jalr", 2) is isa.BY_NAME["jalr"]
    assert lookup("li", 2).name == "li" and lookup("frobnicate", 0) is None


def test_docs_show_access_and_effects():
    text = isadoc.render()
    assert "| `{}` | {} |".format("load", isa.EFFECTS["load"]) in text
    line = next(x for x in text.splitlines() if x.startswith("| `mtia.dma.in "))
    assert line.endswith("| r rd, rs1, rs2 | dma, store |")
    line = next(x for x in text.splitlines() if x.startswith("| `vfmacc.vv "))
    assert line.endswith("| w vd; r vd, vs1, vs2, v0 if vm=0 | vtype |")
