"""docs/isa.md is generated from the table; pseudo rows are consistent with the table."""
import pytest

from mtiacc.asm import isadoc
from mtiacc.asm.assembler import assemble
from mtiacc.asm.disasm import disassemble
from mtiacc.asm.encoding import operand_values
from mtiacc.asm.isa import INSTRUCTIONS
from mtiacc.asm.pseudo import PSEUDOS, li_sequence


def test_checked_in_isa_doc_is_up_to_date():
    assert isadoc.DOC_PATH.read_text(encoding="utf-8") == isadoc.render(), \
        "docs/isa.md is stale: run python -m mtiacc.asm.isadoc --write"


def test_every_instruction_is_documented_with_semantics():
    text = isadoc.render()
    for spec in INSTRUCTIONS:
        assert f"`{spec.syntax}`" in text
        assert isadoc.semantics(spec)


@pytest.mark.parametrize("ps", [p for p in PSEUDOS if p.expander is None], ids=lambda p: p.syntax)
def test_pseudo_rows_fill_every_operand_of_their_base(ps):
    vals = {}
    for kind in ps.operands:
        for attr, dom in kind.domain().items():
            vals[attr] = dom[0] if isinstance(dom, tuple) else list(dom)[0]
    ((spec, out),) = ps.expand(vals)
    operand_values(spec, out)  # raises if an operand is missing or extra


def test_aliases_print_and_reassemble():
    src = "nop\nli a0, -5\nmv a0, a1\nret\njr t0\nneg a0, a1\nfmv.s fa0, fa1\nvmnot.m v1, v2\nbeqz a0, .+8\nj .-4"
    code = assemble(src).code
    listing = disassemble(code)
    texts = [line.split(":  ", 1)[1].split("  ", 1)[1] for line in listing.splitlines()]
    assert texts == ["nop", "li a0, -5", "mv a0, a1", "ret", "jr t0", "neg a0, a1", "fmv.s fa0, fa1",
                     "vmnot.m v1, v2", "beqz a0, .+8", "j .-4"]
    assert assemble("\n".join(texts)).code == code


def test_li_lengths():
    assert len(li_sequence(10, 5)) == 1
    assert len(li_sequence(10, 0x12345)) == 2
    assert len(li_sequence(10, 0x123456789ABCDEF0)) == 8
    assert li_sequence(10, 1 << 31) == [("addiw", {"rd": 10, "rs1": 0, "imm": 1}),
                                        ("slli", {"rd": 10, "rs1": 10, "shamt": 31})]
