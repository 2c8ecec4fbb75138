"""``python -m mtiacc.machine``: every key of the schema (type, unit, bounds, meaning);
``python -m mtiacc.machine MACHINE [--set KEY=VALUE]...``: that machine's values and its digest."""
from __future__ import annotations

import argparse
import sys

from mtiacc.diagnostics import UserError, report

from . import load
from .schema import describe_schema


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m mtiacc.machine", description=__doc__)
    ap.add_argument("machine", nargs="?", help="a built-in machine's name or a machine YAML file")
    ap.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    a = ap.parse_args(argv)
    if a.machine is None and not a.overrides:
        print(describe_schema())
        return 0
    try:
        m = load(a.machine, a.overrides)
    except UserError as e:
        report(e)
        return int(e.exit_code)
    for key, value in m.items:
        print(f"{key} = {value!r}")
    print(f"# {m.path}, digest {m.digest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
