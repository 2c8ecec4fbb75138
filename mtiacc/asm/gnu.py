"""Assembly that GNU as (binutils 2.40) assembles to the same bytes as mtiacc's assembler.

:func:`gnu_syntax` assembles the text, then rewrites each instruction GNU as does not know (the ISA table's
``binutils_knows``: MTIA's custom instructions, Zacas, Zabha) as ``.insn`` directives of its exact words, keeping
the instruction as written in a trailing comment; and each conditional branch our assembler relaxed (a target
beyond 4 KiB: ``b<cond> .+8; j .+8; j target``, where GNU as would invert the condition and make two words) as
its three instructions with explicit offsets.  A header names the architecture (``.attribute arch``, which
GNU as also assembles by) and turns off what would change the bytes: compressed instructions (``norvc``) and
linker relaxation (``norelax``: every branch and jump is resolved by the assembler).  Everything else (labels,
``.loc``, directives, the standard instructions and pseudo-instructions) is left as it is: GNU as reads it alike.
"""
from __future__ import annotations

import re
from typing import Dict, List, Optional

from .assembler import Placed, assemble
from .elf import ARCH
from .encoding import decode
from .insn import insn_text

HEADER = (f'\t.attribute\tarch, "{ARCH}"\n'
          "\t.option\tnorvc\n"
          "\t.option\tnorelax\n")


def _spelling(st: Placed) -> Optional[str]:
    """What GNU as must read to make this statement's words, or None if it does from the text as written."""
    if not all(spec.binutils_knows for spec in st.specs):
        return "; ".join(insn_text(spec, word) for spec, word in zip(st.specs, st.words))
    if st.relaxed:
        return "; ".join(decode(word).text(st.offset + 4 * i) for i, word in enumerate(st.words))
    return None


def _rewrite(line: str, stmts: List[Placed]) -> str:
    # right to left, so that earlier columns stay valid
    for st in sorted(stmts, key=lambda p: -p.col):
        start, end = st.col - 1, st.end_col - 1
        written = re.sub(r"\s+", " ", line[start:end].strip())
        insns = _spelling(st)
        rest = line[end:]
        if not rest.strip() or rest.lstrip().startswith("#"):   # room for the instruction as a comment
            insns = f"{insns}\t# {written}"
            rest = "" if not rest.strip() else "\t" + rest.lstrip()
        line = line[:start] + insns.replace(" ", "\t", 1) + rest
    return line


def gnu_syntax(text: str, filename: str = "<asm>") -> str:
    """``text`` (assembly mtiacc's assembler reads) as assembly GNU as reads, for the same ``.text`` bytes.

    Raises the assembler's :class:`~mtiacc.asm.assembler.AsmError` for text it rejects."""
    program = assemble(text, filename)
    todo: Dict[int, List[Placed]] = {}
    for st in program.statements:
        if _spelling(st) is not None:
            todo.setdefault(st.line, []).append(st)
    lines = text.split("\n")
    for number, stmts in todo.items():
        lines[number - 1] = _rewrite(lines[number - 1], stmts)
    # the header goes after the leading comment lines
    first = next((i for i, ln in enumerate(lines) if not ln.lstrip().startswith("#")), len(lines))
    lines.insert(first, HEADER.rstrip("\n"))
    return "\n".join(lines)
