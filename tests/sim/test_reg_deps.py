"""mtiasim's scoreboard reads which registers an instruction reads and writes from the ISA table's access column:
for every row, the sources and destinations of a decoded word are the table's register operands."""
import pytest

from mtiacc.asm import isa
from mtiacc.asm.encoding import decode, encode
from mtiasim.semantics.common import reg_deps


def _word(spec, vm):
    vals = {}
    for i, a in enumerate(spec.attrs):
        vals[a] = {"vm": vm, "rm": 7, "vtypei": 0x10, "imm": 0, "shamt": 1}.get(a, 8 + i)
    return decode(encode(spec, **vals))


@pytest.mark.parametrize("vm", [0, 1])
def test_sources_and_destinations_are_the_tables(vm):
    for spec in isa.INSTRUCTIONS:
        d = _word(spec, vm)
        src, dst = reg_deps(d)
        want_src = [(f, 0 if a is None else getattr(d, a)) for f, a, acc in spec.register_operands if "r" in acc]
        want_dst = [(f, getattr(d, a)) for f, a, acc in spec.register_operands if "w" in acc]
        if vm == 0 and "vm" in spec.operand_names and ("v", 0) not in want_src:
            want_src.append(("v", 0))
        assert sorted(src) == sorted(want_src) and sorted(dst) == sorted(want_dst), spec.name


def test_stated_exceptions_reach_the_simulator():
    src, dst = reg_deps(decode(encode("mtia.dma.in", rd=5, rs1=6, rs2=7)))
    assert dst == [] and sorted(src) == [("x", 5), ("x", 6), ("x", 7)]       # rd is an address, read
    src, dst = reg_deps(decode(encode("vfmacc.vv", vd=8, vs1=16, vs2=24, vm=1)))
    assert dst == [("v", 8)] and ("v", 8) in src                              # the accumulator is read
    src, dst = reg_deps(decode(encode("vmerge.vvm", vd=8, vs2=16, vs1=24)))
    assert ("v", 0) in src
    assert reg_deps(decode(encode("addi", rd=0, rs1=1, imm=0)))[1] == []     # x0 is never a destination
