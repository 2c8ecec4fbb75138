"""Regenerate ``tests/asm/data/golden_encodings.tsv``, the encodings of GNU as for every row of the ISA table.

    PYTHONPATH=. python -m tests.asm.make_golden_encodings      # needs riscv64-linux-gnu-as and -objcopy
                                                                # (apt-get install -y binutils-riscv64-linux-gnu)

Each row of ``mtiacc.asm.isa.INSTRUCTIONS`` is written with four operand sets (the low edge, the high edge and
two seeded random ones, ``tests.asm._asm_samples.sample_operands``), then ``li`` of edge and random values and
the pseudo-instructions of ``tests.asm.test_binutils``; the whole program goes through GNU as once
(``-march=rv64imafdv``, no relaxation, no compressed forms) and the words it produced are recorded next to the
text.  The MTIA rows binutils does not know are given to it as ``.insn`` forms of our encoding
(``mtiacc.asm.insn.insn_text``): for them the file pins our own encoding, so a change to it fails too.

Columns (tab-separated): section (``row``, ``li`` or ``pseudo``), the row's name, its operand values as JSON
(``-`` outside ``row``), our assembly text, the text given to GNU as, and the 32-bit words GNU produced in
hex (space-separated: ``li`` expands to several).  ``tests/asm/test_golden_encodings.py`` checks the encoder and
the assembler against the file on every machine; ``tests/asm/test_binutils.py`` checks the file is what GNU as
produces now, where binutils is installed (and always in CI).
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from mtiacc.asm import isa
from mtiacc.asm.assembler import assemble
from mtiacc.asm.disasm import instruction_text
from mtiacc.asm.encoding import decode, encode
from mtiacc.asm.insn import insn_text
from tests.asm._asm_samples import sample_operands

GOLDEN = Path(__file__).parent / "data" / "golden_encodings.tsv"
SAMPLES = 4
AS = "riscv64-linux-gnu-as"
OBJCOPY = "riscv64-linux-gnu-objcopy"
HEADER = ".option norelax\n.option norvc\n.text\n"


def entries():
    """[(section, name, values JSON, our text, GNU text)] in program order, with ``pc`` as GNU will see it."""
    from tests.asm.test_binutils import LI_VALUES, PSEUDO_SAMPLES
    out, pc = [], 0
    for spec in isa.INSTRUCTIONS:
        for vals in sample_operands(spec, n=SAMPLES):
            word = encode(spec, **vals)
            text = instruction_text(decode(word), pc, aliases=False)
            out.append(("row", spec.name, json.dumps(vals, sort_keys=True), text,
                        text if spec.binutils_knows else insn_text(spec, word)))
            pc += 4
    out += [("li", "li", "-", f"li a0, {v}", f"li a0, {v}") for v in LI_VALUES]
    out += [("pseudo", ln.split()[0], "-", ln, ln) for ln in PSEUDO_SAMPLES]
    return out


def program(rows, column):
    """The assembly text of ``rows`` (entries or parsed golden lines) from ``column`` (3: ours, 4: GNU's)."""
    return "\n".join(r[column] for r in rows)


def words_per_line(rows):
    """How many words our assembler makes of each line (labels none), to split one program's bytes by line."""
    out = []
    for r in rows:
        line = r[3]
        if line.endswith(":"):
            out.append(0)
            continue
        out.append(len(assemble(line + ("\np_target:" if "p_target" in line else "")).code) // 4)
    return out


def gnu_bytes(text: str) -> bytes:
    """``text`` assembled by GNU as: the bytes of its ``.text``."""
    with tempfile.TemporaryDirectory() as d:
        src, obj, binf = Path(d) / "g.s", Path(d) / "g.o", Path(d) / "g.bin"
        src.write_text(HEADER + text + "\n")
        r = subprocess.run([AS, "-march=rv64imafdv", "-o", str(obj), str(src)], capture_output=True, text=True)
        if r.returncode:
            raise RuntimeError(r.stderr[:4000])
        subprocess.run([OBJCOPY, "-O", "binary", "-j", ".text", str(obj), str(binf)], check=True)
        return binf.read_bytes()


def split_words(code: bytes, counts):
    words = [code[i:i + 4][::-1].hex() for i in range(0, len(code), 4)]
    if len(words) != sum(counts):
        raise RuntimeError(f"GNU as made {len(words)} words where we make {sum(counts)}")
    out, i = [], 0
    for n in counts:
        out.append(" ".join(words[i:i + n]))
        i += n
    return out


def golden_lines():
    rows = entries()
    words = split_words(gnu_bytes(program(rows, 4)), words_per_line(rows))
    return ["\t".join(r) + "\t" + w for r, w in zip(rows, words)]


def read_golden(path: Path = GOLDEN):
    """The golden file's lines as tuples (section, name, values, ours, gnu, words)."""
    return [tuple(ln.split("\t")) for ln in path.read_text().splitlines() if ln and not ln.startswith("#")]


def main() -> int:
    for tool in (AS, OBJCOPY):
        if shutil.which(tool) is None:
            print(f"error: {tool} not found (apt-get install -y binutils-riscv64-linux-gnu)", file=sys.stderr)
            return 1
    version = subprocess.run([AS, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    GOLDEN.write_text(f"# made by `PYTHONPATH=. python -m tests.asm.make_golden_encodings` with {version}\n"
                      "# section\tname\tvalues\tours\tgnu\twords (the 32-bit words GNU as produced, in hex)\n"
                      + "\n".join(golden_lines()) + "\n")
    print(f"wrote {GOLDEN}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
