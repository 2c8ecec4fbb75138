"""The ops' declared attributes as a section of ``docs/architecture.md``.

    python -m mtiacc.ir            # print the section
    python -m mtiacc.ir --write    # rewrite it in docs/architecture.md
    python -m mtiacc.ir --check    # exit 1 if docs/architecture.md's section is stale

Every op class declares its attributes (``attribute(kind, optional, default, doc, of)`` in ``mtiacc/ir/core.py``)
and the verifier rejects any other; this lists them, op by op, from the declarations themselves.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Dict, List

import mtiacc.ir  # noqa: F401  (registers every op)
from mtiacc.ir.core import OP_REGISTRY, attribute
from mtiacc.ir.text.printer import format_attr

DOC_PATH = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"
BEGIN = "<!-- op attributes: generated from the op classes by `python -m mtiacc.ir --write`; do not edit -->"
END = "<!-- end of op attributes -->"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _default(d: attribute) -> str:
    if not d.optional:
        return "required"
    if d.default is None or d.default == ():
        return "optional"
    return f"optional, `{format_attr(d.default)}` when absent"


def render() -> str:
    """The generated part of the section: one row per declared attribute (ops that share their declarations,
    as the ``math.*`` functions share ``approx``, in one row), then the ops that declare none."""
    lines: List[str] = [BEGIN, "", "| op | attribute | kind | presence | what it says |", "|---|---|---|---|---|"]
    bare: List[str] = []
    groups: Dict[tuple, List[str]] = {}
    for name in sorted(OP_REGISTRY):
        defs = tuple(OP_REGISTRY[name]._attr_defs)
        if defs:
            groups.setdefault(defs, []).append(f"`{name}`")
        else:
            bare.append(f"`{name}`")
    for defs, names in groups.items():
        for i, d in enumerate(defs):
            op = ", ".join(names) if i == 0 else ""
            lines.append(f"| {op} | `{d.name}` | {_cell(d.kind_name())} | {_default(d)} | {_cell(d.doc)} |")
    lines += ["", "Ops that declare no attribute: " + ", ".join(bare) + ".", "", END]
    return "\n".join(lines) + "\n"


def _section(text: str) -> tuple:
    """(start, end) of the generated part in ``text``, markers included."""
    start = text.index(BEGIN)
    end = text.index(END, start) + len(END) + 1
    return start, end


def current() -> str:
    text = DOC_PATH.read_text(encoding="utf-8")
    start, end = _section(text)
    return text[start:end]


def main(argv: List[str]) -> int:
    if "--write" in argv:
        text = DOC_PATH.read_text(encoding="utf-8")
        start, end = _section(text)
        DOC_PATH.write_text(text[:start] + render() + text[end:], encoding="utf-8")
        return 0
    if "--check" in argv:
        if current() != render():
            print(f"{DOC_PATH}'s op attributes are stale: run python -m mtiacc.ir --write", file=sys.stderr)
            return 1
        return 0
    sys.stdout.write(render())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
