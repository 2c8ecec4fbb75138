"""``docs/language.md``'s table of the ``triton.language`` names, and which of them the frontend supports.

The table is generated (``python -m mtiacc.frontend.language.tl_names --write``) from Triton's export
list (``exports.py``) and the frontend's name table (``__init__.py``); tests/frontend/test_names.py
checks that the document is current and that each name marked unsupported is reported as "not
supported yet" where it is used.
"""
from __future__ import annotations

import sys
from pathlib import Path

from mtiacc.frontend.language import LANGUAGE
from mtiacc.frontend.language.dot import NOT_ON_THIS_TARGET
from mtiacc.frontend.language.exports import TL_NAMES

DOC = Path(__file__).resolve().parents[3] / "docs" / "language.md"
BEGIN, END = "<!-- BEGIN names (generated) -->", "<!-- END names (generated) -->"


def supported(name: str) -> bool:
    """Whether the frontend gives ``tl.<name>`` a meaning."""
    return name in LANGUAGE


def render() -> str:
    lines = [BEGIN, "", "| group | supported | not supported yet |", "|---|---|---|"]
    for group, names in TL_NAMES.items():
        yes = ", ".join(f"`{n}`" for n in names if supported(n)) or "-"
        no = ", ".join(f"`{n}`" + (" (not on this target)" if n in NOT_ON_THIS_TARGET else "")
                       for n in names if not supported(n)) or "-"
        lines.append(f"| {group} | {yes} | {no} |")
    total = sum(len(v) for v in TL_NAMES.values())
    count = sum(supported(n) for v in TL_NAMES.values() for n in v)
    lines += ["", f"{count} of the {total} names are supported.", "", END]
    return "\n".join(lines)


def updated(text: str) -> str:
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return head + render() + tail


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        DOC.write_text(updated(DOC.read_text()))
    else:
        print(render())
