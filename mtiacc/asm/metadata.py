"""The schema of a kernel binary's ``.mtia.meta`` section (docs/architecture.md, "The binary"), declared once.

Every field is a row of :data:`SCHEMA`: its JSON type, its range, whether it is required.  :func:`check_metadata`
walks a decoded metadata object against it and raises a :class:`UserError` naming the file, the field's path
(``params[1].type``) and what it must be, so a binary whose metadata does not fit is a clear error before any
tool uses it.  Keys the schema does not name are ignored (a later compiler of the same format version may add
some).  ``mtiasim`` checks besides that the target is its machine's (``mtiasim.loader.check_target``).
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, Dict, Optional, Tuple

from ..diagnostics import UserError

FORMAT_VERSION = 1
MAX_TEXT = 1 << 16          # characters in a name, a type, a grid expression
MAX_PARAMS = 4096
MAX_SIZE = 1 << 40          # bytes: larger than any local memory


class Invalid(Exception):
    """A value that does not fit: ``path`` where, ``want`` what it must be."""

    def __init__(self, path: str, want: str, value: Any):
        super().__init__(path)
        self.path, self.want, self.value = path, want, value


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


# --- the kinds of value a field can hold: each knows how to check itself and how to say what it wants --------

@dataclasses.dataclass(frozen=True)
class Int:
    lo: int
    hi: int
    want: str = ""

    def check(self, v, path):
        if not (_is_int(v) and self.lo <= v <= self.hi):
            raise Invalid(path, self.want or f"an integer in {self.lo}..{self.hi}", v)


@dataclasses.dataclass(frozen=True)
class Str:
    want: str = "a string"
    nonempty: bool = False
    identifier: bool = False
    digits: bool = False        # a decimal line number, as the keys of 'source'

    def check(self, v, path):
        ok = isinstance(v, str) and len(v) <= MAX_TEXT and (v or not self.nonempty)
        if ok and self.identifier:
            ok = v.isidentifier()
        if ok and self.digits:
            ok = v.isascii() and v.isdigit() and len(v) <= 9
        if not ok:
            raise Invalid(path, self.want, v)


@dataclasses.dataclass(frozen=True)
class Null:
    want: str = "null"

    def check(self, v, path):
        if v is not None:
            raise Invalid(path, self.want, v)


@dataclasses.dataclass(frozen=True)
class AnyJson:
    want: str = "any JSON value"

    def check(self, v, path):
        pass


@dataclasses.dataclass(frozen=True)
class Choice:
    values: Tuple[str, ...]

    def check(self, v, path):
        if not (isinstance(v, str) and v in self.values):
            raise Invalid(path, "one of " + ", ".join(repr(x) for x in self.values), v)


@dataclasses.dataclass(frozen=True)
class OneOf:
    kinds: Tuple[Any, ...]
    want: str

    def check(self, v, path):
        for k in self.kinds:
            try:
                k.check(v, path)
                return
            except Invalid:
                continue
        raise Invalid(path, self.want, v)


@dataclasses.dataclass(frozen=True)
class ListOf:
    item: Any
    want: str
    min_len: int = 0
    max_len: int = 1 << 20
    unique: Optional[str] = None    # the items' field whose values must differ

    def check(self, v, path):
        if not isinstance(v, list) or not self.min_len <= len(v) <= self.max_len:
            raise Invalid(path, self.want, v)
        seen = set()
        for i, x in enumerate(v):
            self.item.check(x, f"{path}[{i}]")
            if self.unique is not None:
                key = x[self.unique]
                if key in seen:
                    raise Invalid(f"{path}[{i}].{self.unique}", f"unique (another entry of '{path}' has it too)", key)
                seen.add(key)


@dataclasses.dataclass(frozen=True)
class Field:
    kind: Any
    required: bool = False


@dataclasses.dataclass(frozen=True)
class Obj:
    fields: Dict[str, Field]
    want: str = "an object"
    closed: bool = False            # keys other than the fields are refused
    check_more: Optional[Callable[[dict, str], None]] = None

    def check(self, v, path):
        if not isinstance(v, dict):
            raise Invalid(path, self.want, v)
        for name, f in self.fields.items():
            where = f"{path}.{name}" if path else name
            if name not in v:
                if f.required:
                    raise Invalid(where, "present", _MISSING)
                continue
            f.kind.check(v[name], where)
        if self.closed:
            extra = sorted(set(v) - set(self.fields), key=str)
            if extra:
                raise Invalid(f"{path}.{extra[0]}" if path else extra[0],
                              f"absent ({self.want} has only {', '.join(self.fields)})", v[extra[0]])
        if self.check_more is not None:
            self.check_more(v, path)


@dataclasses.dataclass(frozen=True)
class MapOf:
    key: Any
    value: Any
    want: str

    def check(self, v, path):
        if not isinstance(v, dict):
            raise Invalid(path, self.want, v)
        for k, x in v.items():
            self.key.check(k, f"{path} key {k!r}"[:80])
            self.value.check(x, f"{path}.{k}"[:80])


_MISSING = object()
DIM = Int(0, (1 << 31) - 1, "a size in 0..2**31-1")
SHAPE = ListOf(DIM, "a shape (a list of at most 8 sizes)", max_len=8)
# the element types device_print and device_assert values may have (mtiasim/semantics/convert_debug.py reads them)
DEBUG_TYPES = ("i1", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "fp16", "bf16", "fp32", "fp64")
DEBUG_TYPE = Choice(DEBUG_TYPES)


def _shape_size(entry: dict, path: str) -> None:
    shapes = [entry["shape"]] if "shape" in entry else [a["shape"] for a in entry.get("args", ()) if "shape" in a]
    for shape in shapes:
        n = 1
        for d in shape:
            n *= d
        if n > (1 << 31) - 1:
            raise Invalid(f"{path}.shape", "a shape of at most 2**31-1 elements", shape)


PRINT = Obj({"kind": Field(Choice(("print",)), True), "prefix": Field(Str()),
             "args": Field(ListOf(Obj({"type": Field(DEBUG_TYPE, True), "shape": Field(SHAPE)},
                                      "an object with a 'type' and a 'shape'", closed=True),
                                  "a list of the printed values' types", max_len=1024))},
            "a device_print entry", closed=True, check_more=_shape_size)
ASSERT = Obj({"kind": Field(Choice(("assert",)), True), "message": Field(Str()), "type": Field(DEBUG_TYPE),
              "shape": Field(SHAPE)}, "a device_assert entry", closed=True, check_more=_shape_size)


def _debug_entry(v, path):
    kind = v.get("kind") if isinstance(v, dict) else None
    if kind == "print":
        PRINT.check(v, path)
    elif kind == "assert":
        ASSERT.check(v, path)
    else:
        raise Invalid(path, "a device_print or device_assert entry (an object whose 'kind' is 'print' or "
                            "'assert')", v)


@dataclasses.dataclass(frozen=True)
class Custom:
    fn: Callable[[Any, str], None]

    def check(self, v, path):
        self.fn(v, path)


PARAM = Obj({"name": Field(Str("a parameter name (a Python identifier)", identifier=True), True),
             "type": Field(Str("a type in Triton signature syntax (a string such as '*fp32')", nonempty=True), True)},
            "an object with a \"name\" and a \"type\"", closed=True)
GRID_AXIS = OneOf((Str("an expression", nonempty=True), Int(0, (1 << 63) - 1)), "an expression or a size")

# The metadata, field by field (docs/architecture.md, "The binary").
SCHEMA = Obj({
    "format_version": Field(Int(0, 1 << 31, "an integer"), True),
    "kernel": Field(Str("a string (the kernel's name)", nonempty=True), True),
    "target": Field(Str("a target name (a non-empty string)", nonempty=True), True),
    "params": Field(ListOf(PARAM, "a list of {\"name\", \"type\"} objects", max_len=MAX_PARAMS, unique="name"), True),
    "constexprs": Field(MapOf(Str("a parameter name", identifier=True), AnyJson(), "an object of values by name")),
    "grid": Field(OneOf((Null(), ListOf(GRID_AXIS, "", 1, 3)), "null or a list of 1 to 3 expressions")),
    "lmem_bytes": Field(Int(0, MAX_SIZE, "a non-negative integer below 2**40 (bytes)")),
    "args_base": Field(Int(0, MAX_SIZE, "a non-negative integer below 2**40 (a local-memory address)")),
    "source_file": Field(OneOf((Null(), Str()), "a string (a file name)")),
    "source": Field(MapOf(Str("a line number", digits=True), Str("a line of text"),
                          "an object of line numbers to lines of text")),
    "strings": Field(ListOf(Custom(_debug_entry), "a list of objects (the device_print / device_assert entries)",
                            max_len=1 << 16)),
    "tuning": Field(Obj({}, "an object")),
    # persistent-programs: launch only the grid's first N programs, each running programs p, p + N, ...
    "persistent": Field(Int(1, 1 << 31, "a positive integer (program slots)")),
}, "a JSON object")


def _shown(value) -> str:
    if value is _MISSING:
        return "it is missing"
    text = repr(value)
    return "got " + (text if len(text) <= 60 else text[:57] + "...")


def check_metadata(meta: Any, filename: str, schema: Obj = SCHEMA) -> Dict[str, Any]:
    """``meta`` if it follows :data:`SCHEMA`; else a UserError ``binary 'F': metadata field 'X' must be ...``."""
    where = f"binary '{filename}'"
    if not isinstance(meta, dict):
        raise UserError(f"{where}: the metadata is not a JSON object")
    version = meta.get("format_version", _MISSING)
    if _is_int(version) and version != FORMAT_VERSION:
        raise UserError(f"{where}: metadata format version {version}; this tool reads version {FORMAT_VERSION} "
                        "(recompile the kernel with the matching mtiacc)")
    try:
        schema.check(meta, "")
    except Invalid as e:
        if e.want.startswith("unique"):
            raise UserError(f"{where}: metadata names parameter {e.value!r} twice") from None
        if e.value is _MISSING:
            raise UserError(f"{where}: metadata field '{e.path}' is missing") from None
        raise UserError(f"{where}: metadata field '{e.path}' must be {e.want}, {_shown(e.value)}") from None
    return meta
