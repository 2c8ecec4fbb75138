"""Reading the generic text form back (what ``printer.py`` writes), so IR round-trips.

    %3 = "arith.addi"(%1, %2) {attrs} ({regions}) : (i32, i32) -> i32 loc("kernel.py":7:12)

A small recursive-descent parser over the text.  ``//`` starts a comment to the end of the line.
With ``locate=True``, an op without a ``loc(...)`` gets its own position in the IR text as its
location, so that verifier errors on hand-written IR point into that file (off by default, so
that printing what was parsed gives back the same text).  Errors are CompileErrors at the
offending position: an attribute the op does not declare is one at its name, a value not of the
declared kind one at the value (the verifier's words, where the text says it).
"""
from __future__ import annotations

import re
import struct
from typing import Dict, List, Optional

from mtiacc.diagnostics import CompileError, SourceLocation
from mtiacc.ir.core import OP_REGISTRY, Block, Operation, Region, Value
from mtiacc.ir.types import SCALAR_TYPES, BlockType, FunctionType, PointerType, Type

_WS = re.compile(r"(?:\s+|//[^\n]*)*")
_VALUE = re.compile(r"%[A-Za-z0-9_.$]+")
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
_NUMBER = re.compile(r"-?(?:\d+\.\d*(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+|inf|nan|\d+)")
_HEX = re.compile(r"0x[0-9A-Fa-f]+")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SCALAR = re.compile(r"(?:i1|i8|i16|i32|i64|u8|u16|u32|u64|f16|bf16|f32|f64|f8E4M3FNUZ|f8E5M2FNUZ|f8E4M3FN|f8E5M2|f8E4M3B15)\b")
_DIM = re.compile(r"(\d+)x")
_LABEL = re.compile(r"\^bb\d+")
_SEGMENTS = "operandSegmentSizes"   # the sizes of an op's operand groups, an attribute in the text only


class IRParser:
    def __init__(self, text: str, filename: str = "<ir>", locate: bool = False):
        self.locate = locate
        self.text = text
        self.filename = filename
        self.pos = 0
        self.scopes: List[Dict[str, Value]] = [{}]

    # ------------------------------------------------------------------ low level

    def loc_here(self) -> SourceLocation:
        line = self.text.count("\n", 0, self.pos) + 1
        col = self.pos - (self.text.rfind("\n", 0, self.pos) + 1) + 1
        return SourceLocation(self.filename, line, col)

    def error(self, message: str):
        raise CompileError(message, self.loc_here())

    def skip(self) -> None:
        self.pos = _WS.match(self.text, self.pos).end()

    def peek(self, literal: str) -> bool:
        self.skip()
        return self.text.startswith(literal, self.pos)

    def accept(self, literal: str) -> bool:
        if self.peek(literal):
            self.pos += len(literal)
            return True
        return False

    def expect(self, literal: str) -> None:
        if not self.accept(literal):
            found = self.text[self.pos:self.pos + 12].split("\n")[0] or "end of input"
            self.error(f"expected '{literal}', found '{found}'")

    def match(self, regex: re.Pattern) -> Optional[re.Match]:
        self.skip()
        m = regex.match(self.text, self.pos)
        if m:
            self.pos = m.end()
        return m

    def string(self) -> str:
        m = self.match(_STRING)
        if not m:
            self.error("expected a string")
        return re.sub(r"\\(.)", r"\1", m.group(1))

    # ------------------------------------------------------------------ types

    def type(self) -> Type:
        self.skip()
        if self.accept("!tt.ptr<"):
            t = PointerType(self.type())
            self.expect(">")
            return t
        if self.accept("tensor<"):
            dims = []
            while True:
                self.skip()
                m = _DIM.match(self.text, self.pos)
                if not m:
                    break
                self.pos = m.end()
                dims.append(int(m.group(1)))
            elem = self.type()
            self.expect(">")
            return BlockType(tuple(dims), elem)
        if self.peek("("):
            return self.function_type()
        m = self.match(_SCALAR)
        if not m:
            self.error("expected a type")
        return SCALAR_TYPES[m.group(0)]

    def type_list(self, close: str = ")") -> List[Type]:
        types: List[Type] = []
        if self.accept(close):
            return types
        while True:
            types.append(self.type())
            if self.accept(close):
                return types
            self.expect(",")

    def function_type(self) -> FunctionType:
        self.expect("(")
        ins = self.type_list()
        self.expect("->")
        if self.accept("("):
            outs = self.type_list()
        else:
            outs = [self.type()]
        return FunctionType(tuple(ins), tuple(outs))

    # ------------------------------------------------------------------ attributes

    def attr_value(self):
        self.skip()
        if self.peek('"'):
            return self.string()
        if self.accept("["):
            items = []
            if self.accept("]"):
                return items
            while True:
                items.append(self.attr_value())
                if self.accept("]"):
                    return items
                self.expect(",")
        m = self.match(_HEX)
        if m:  # a float by its bit pattern: 0x7F800000 : f32
            self.expect(":")
            t = self.type()
            bits = int(m.group(0), 16)
            if t == SCALAR_TYPES["f64"]:
                return struct.unpack("<d", struct.pack("<Q", bits))[0]
            return struct.unpack("<f", struct.pack("<I", bits))[0]
        m = self.match(_NUMBER)
        if m:
            text = m.group(0)
            return int(text) if re.fullmatch(r"-?\d+", text) else float(text)
        if self.accept("true"):
            return True
        if self.accept("false"):
            return False
        return self.type()

    def attr_dict(self, cls: type) -> Dict[str, object]:
        """The ``{name = value, ...}`` of an op of class ``cls``: each name one the op declares (or
        ``operandSegmentSizes``), given once, its value of the declared kind; an error at the name or the value."""
        attrs: Dict[str, object] = {}
        if not self.accept("{"):
            return attrs
        if self.accept("}"):
            return attrs
        while True:
            self.skip()
            name_pos = self.pos
            m = self.match(_IDENT)
            if not m:
                self.error("expected an attribute name")
            name = m.group(0)
            if name in attrs:
                self.pos = name_pos
                self.error(f"'{cls.name}' op has attribute '{name}' twice")
            if name not in cls._attr_by_name and name != _SEGMENTS:
                self.pos = name_pos
                self.error(f"'{cls.name}' op {cls.undeclared_attribute(name)}")
            self.expect("=")
            self.skip()
            value_pos = self.pos
            value = self.attr_value()
            if name == _SEGMENTS:
                if not (isinstance(value, list) and all(type(x) is int and x >= 0 for x in value)):
                    self.pos = value_pos
                    self.error(f"'{cls.name}' op {_SEGMENTS} must be a list of sizes, got {value!r}")
            elif not cls._attr_by_name[name].admits(value):
                self.pos = value_pos
                self.error(f"'{cls.name}' op {cls.attribute_of_another_kind(name, value)}")
            attrs[name] = value
            if self.accept("}"):
                return attrs
            self.expect(",")

    # ------------------------------------------------------------------ values

    def use(self) -> Value:
        here = self.pos
        m = self.match(_VALUE)
        if not m:
            self.error("expected a value (%name)")
        for scope in reversed(self.scopes):
            if m.group(0) in scope:
                return scope[m.group(0)]
        self.pos = here
        self.skip()
        self.error(f"use of undefined value {m.group(0)}")

    def define(self, name: str, value: Value) -> None:
        if name in self.scopes[-1]:
            self.error(f"value {name} is defined twice")
        self.scopes[-1][name] = value
        hint = name[1:]
        if not hint.isdigit():
            value.name_hint = hint

    # ------------------------------------------------------------------ ops, blocks, regions

    def op(self) -> Operation:
        self.skip()
        start = self.loc_here()
        names: List[str] = []
        if self.peek("%"):
            while True:
                m = self.match(_VALUE)
                if not m:
                    self.error("expected a result name")
                names.append(m.group(0))
                if not self.accept(","):
                    break
            self.expect("=")
        self.skip()
        name_pos = self.pos
        op_name = self.string()
        cls = OP_REGISTRY.get(op_name)
        if cls is None:
            self.pos = name_pos
            self.error(f"unknown op '{op_name}'")
        self.expect("(")
        operands: List[Value] = []
        if not self.accept(")"):
            while True:
                operands.append(self.use())
                if self.accept(")"):
                    break
                self.expect(",")
        attrs = self.attr_dict(cls)
        segments = attrs.pop(_SEGMENTS, None)
        regions: List[Region] = []
        if self.accept("("):
            while True:
                regions.append(self.region())
                if self.accept(")"):
                    break
                self.expect(",")
        self.expect(":")
        ftype = self.function_type()
        if len(ftype.inputs) != len(operands):
            self.error(f"'{op_name}' has {len(operands)} operands but its type lists {len(ftype.inputs)}")
        if len(ftype.outputs) != len(names):
            self.error(f"'{op_name}' defines {len(names)} results but its type lists {len(ftype.outputs)}")
        for v, t in zip(operands, ftype.inputs):
            if v.type != t:
                self.error(f"operand {v.type} does not match the type {t} given for it")
        loc = start if self.locate else None
        if self.accept("loc("):
            file = self.string()
            self.expect(":")
            line = int(self.match(_NUMBER).group(0))
            self.expect(":")
            col = int(self.match(_NUMBER).group(0))
            self.expect(")")
            loc = SourceLocation(file, line, col)
        op = cls(operands, list(ftype.outputs), attrs, loc=loc, regions=regions, segments=segments)
        for name, r in zip(names, op.results):
            self.define(name, r)
        return op

    def region(self) -> Region:
        self.expect("{")
        region = Region()
        self.scopes.append({})
        block: Optional[Block] = None
        while not self.accept("}"):
            if self.match(_LABEL):
                block = region.add_block(Block())
                if self.accept("("):
                    if not self.accept(")"):
                        while True:
                            m = self.match(_VALUE)
                            if not m:
                                self.error("expected a block argument (%name: type)")
                            self.expect(":")
                            self.define(m.group(0), block.add_arg(self.type()))
                            if self.accept(")"):
                                break
                            self.expect(",")
                self.expect(":")
                continue
            if block is None:
                block = region.add_block(Block())
            block.append(self.op())
        self.scopes.pop()
        if not region.blocks:
            region.add_block(Block())
        return region

    def parse(self) -> Operation:
        op = self.op()
        self.skip()
        if self.pos != len(self.text):
            self.error("unexpected text after the top-level op")
        return op


def parse_ir(text: str, filename: str = "<ir>", locate: bool = False) -> Operation:
    """Parse one top-level op (normally a ``builtin.module``) from its generic text form."""
    return IRParser(text, filename, locate).parse()


