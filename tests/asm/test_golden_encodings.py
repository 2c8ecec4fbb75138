"""Our encodings against GNU as's, recorded once in ``tests/asm/data/golden_encodings.tsv`` (regenerate with
``PYTHONPATH=. python -m tests.asm.make_golden_encodings``): a wrong bit in the ISA table, the encoder or the
assembler fails here on every machine, binutils installed or not."""
import json

import pytest

from mtiacc.asm import isa
from mtiacc.asm.assembler import assemble
from mtiacc.asm.encoding import decode, encode
from tests.asm.make_golden_encodings import GOLDEN, SAMPLES, program, read_golden, words_per_line

ROWS = read_golden()


def _section(name):
    return [r for r in ROWS if r[0] == name]


def test_the_golden_table_covers_every_row_of_the_isa_table():
    named = [r[1] for r in _section("row")]
    assert sorted(set(named)) == sorted(s.name for s in isa.INSTRUCTIONS), \
        "the ISA table changed: regenerate with `PYTHONPATH=. python -m tests.asm.make_golden_encodings`"
    assert all(named.count(s.name) == SAMPLES for s in isa.INSTRUCTIONS)


def test_the_encoder_makes_gnu_as_words_for_every_row():
    bad = []
    for _, name, values, ours, _, words in _section("row"):
        got = f"{encode(isa.BY_NAME[name], **json.loads(values)):08x}"
        if got != words:
            bad.append((ours, got, words))
    assert not bad, bad[:20]


def test_the_decoder_reads_back_every_golden_word():
    for _, name, values, _, _, words in _section("row"):
        d = decode(int(words, 16))
        want = json.loads(values)
        assert d.name == name and {k: d.values()[k] for k in want} == want, (name, words)


@pytest.mark.parametrize("section", ["row", "li", "pseudo"])
def test_the_assembler_makes_gnu_as_words(section):
    rows = _section(section)
    code = assemble(program(rows, 3)).code
    got = [code[i:i + 4][::-1].hex() for i in range(0, len(code), 4)]
    want, owners = [], []
    for r, n in zip(rows, words_per_line(rows)):
        ws = r[5].split() if r[5] else []
        assert len(ws) == n, (r[3], ws, n)
        want += ws
        owners += [r[3]] * n
    assert len(got) == len(want), (len(got), len(want))
    bad = [(owners[i], g, w) for i, (g, w) in enumerate(zip(got, want)) if g != w]
    assert not bad, bad[:20]
