"""Print allocated machine IR as GNU `as` text: directives, labels, `.loc` lines and comments
that show the kernel source line each group of instructions comes from."""
from __future__ import annotations

import io
import os
from typing import Dict, Optional, Tuple

from mtiacc.codegen.machine.mir import LabelDef, MFunction, MInstr, format_instr
from mtiacc.codegen.machine.regalloc import used_labels


def emit_function(fn: MFunction, source_file: str, source_lines: Dict[int, str]) -> str:
    out = io.StringIO()
    w = out.write
    w(f"# mtiacc: kernel {fn.name}\n")
    w(f'\t.file\t1 "{os.path.basename(source_file)}"\n')
    w("\t.text\n")
    w(f"\t.globl\t{fn.name}\n")
    w("\t.p2align\t2\n")
    w(f"\t.type\t{fn.name}, @function\n")
    w(f"{fn.name}:\n")
    labels = used_labels(fn)
    last: Tuple[Optional[int], Optional[int]] = (None, None)
    for it in fn.items:
        if isinstance(it, LabelDef):
            if it.label.name in labels:
                w(f"{it.label.name}:\n")
            continue
        assert isinstance(it, MInstr)
        if it.loc is not None and (it.loc.line, it.loc.col) != last:
            # a row per column too: a fault, a finding or a profile line names the op that did it (the store of
            # `tl.store(Y + offs, tl.load(X + offs))`, not the load); the source text once per line
            if it.loc.line != last[0]:
                text = source_lines.get(it.loc.line, "").strip()
                w(f"\t.loc\t1 {it.loc.line} {it.loc.col}\t# {os.path.basename(it.loc.file)}:{it.loc.line}: {text}\n")
            else:
                w(f"\t.loc\t1 {it.loc.line} {it.loc.col}\n")
            last = (it.loc.line, it.loc.col)
        line = "\t" + format_instr(it).replace(" ", "\t", 1)
        if it.comment:
            line = f"{line:<40}# {it.comment}"
        w(line + "\n")
    w(f"\t.size\t{fn.name}, .-{fn.name}\n")
    return out.getvalue()
