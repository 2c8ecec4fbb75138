"""The generic text form of the IR (what ``--emit=ir`` shows).

    %3 = "arith.addi"(%1, %2) : (i32, i32) -> i32 loc("kernel.py":7:12)

Every op prints the same way: results, quoted op name, operands, attributes in braces, regions,
the function type of operands and results, and the source location.
"""
from __future__ import annotations

import io
from typing import Dict

from mtiacc.ir.core import Block, Operation, Value
from mtiacc.ir.types import Type


def format_attr(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        r = repr(v)
        if r in ("inf", "-inf", "nan"):
            return {"inf": "0x7F800000", "-inf": "0xFF800000", "nan": "0x7FC00000"}[r] + " : f32"
        return r
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, Type):
        return str(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(format_attr(x) for x in v) + "]"
    raise TypeError(f"cannot print attribute {v!r}")


class Printer:
    def __init__(self):
        self.names: Dict[int, str] = {}
        self.counter = 0
        self.out = io.StringIO()

    def name(self, v: Value) -> str:
        key = id(v)
        if key not in self.names:
            hint = v.name_hint
            if hint and hint.isidentifier() and f"%{hint}" not in self.names.values():
                self.names[key] = f"%{hint}"
            else:
                self.names[key] = f"%{self.counter}"
                self.counter += 1
        return self.names[key]

    def print_op(self, op: Operation, indent: int) -> None:
        pad = "  " * indent
        res = ", ".join(self.name(r) for r in op.results)
        head = f"{pad}{res} = " if op.results else pad
        operands = ", ".join(self.name(v) for v in op.operands)
        text = f'{head}"{op.name}"({operands})'
        attrs = dict(op.attrs)
        if op.segments is not None:
            attrs["operandSegmentSizes"] = list(op.segments)
        if attrs:
            text += " {" + ", ".join(f"{k} = {format_attr(v)}" for k, v in attrs.items()) + "}"
        self.out.write(text)
        if op.regions:
            self.out.write(" (")
            for i, r in enumerate(op.regions):
                self.out.write("{\n" if i == 0 else ", {\n")
                for b in r.blocks:
                    self.print_block(b, indent + 1)
                self.out.write(pad + "}")
            self.out.write(")")
        ins = ", ".join(str(v.type) for v in op.operands)
        outs = ", ".join(str(r.type) for r in op.results)
        outs = outs if len(op.results) == 1 else f"({outs})"
        self.out.write(f" : ({ins}) -> {outs}")
        if op.loc is not None:
            self.out.write(f' loc("{op.loc.file}":{op.loc.line}:{op.loc.col})')
        self.out.write("\n")

    def print_block(self, b: Block, indent: int) -> None:
        pad = "  " * (indent - 1)
        if b.args or (b.parent is not None and len(b.parent.blocks) > 1):
            args = ", ".join(f"{self.name(a)}: {a.type}" for a in b.args)
            index = b.parent.blocks.index(b) if b.parent is not None else 0
            self.out.write(f"{pad}^bb{index}({args}):\n")
        for op in b.ops:
            self.print_op(op, indent)


def print_ir(op: Operation) -> str:
    p = Printer()
    p.print_op(op, 0)
    return p.out.getvalue()
