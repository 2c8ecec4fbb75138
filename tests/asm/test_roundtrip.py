"""Property: for every table row, legal operands -> encode -> decode -> print -> assemble gives the same word."""
import pytest
from hypothesis import HealthCheck, given, settings

from tests.asm._asm_samples import operands_strategy, sample_operands
from mtiacc.asm import isa
from mtiacc.asm.assembler import assemble
from mtiacc.asm.disasm import instruction_text
from mtiacc.asm.encoding import decode, encode


def _roundtrip(spec, vals):
    word = encode(spec, **vals)
    assert 0 <= word <= 0xFFFFFFFF
    d = decode(word)
    assert d.spec is spec
    assert d.values() == vals
    for aliases in (False, True):
        text = instruction_text(d, 0, aliases=aliases)
        code = assemble(text).code
        assert code == word.to_bytes(4, "little"), (text, hex(word), code.hex())


@pytest.mark.parametrize("spec", isa.INSTRUCTIONS, ids=lambda s: s.name)
def test_roundtrip_edges(spec):
    for vals in sample_operands(spec, n=3):
        _roundtrip(spec, vals)


@pytest.mark.parametrize("spec", isa.INSTRUCTIONS, ids=lambda s: s.name)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=__import__("hypothesis").strategies.data())
def test_roundtrip_property(spec, data):
    _roundtrip(spec, data.draw(operands_strategy(spec)))
