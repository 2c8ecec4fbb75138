"""Reading a machine YAML against the schema, and ``--set KEY=VALUE`` overrides (the only YAML reader).

Every problem is a :class:`UserError` naming the file, the key and, where the file has one, its line and column:
a file that is not YAML, a key the schema does not declare (with the nearest declared key), a key given twice, a
missing key, a value of the wrong type or out of its bounds.
"""
from __future__ import annotations

import os
from typing import Dict, Iterable, List, Optional, Tuple, Union

from mtiacc.diagnostics import SourceLocation, UsageError, UserError

from .schema import coerce, keys, sections


def _yaml():
    """The yaml module and its fastest safe loader, imported when a YAML text is read (the import costs a compile
    ~15 ms; a machine file read before comes from its record, :mod:`.cache`, without it)."""
    import yaml
    return yaml, getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _File:
    """One machine file being read: its path and where each key was written."""

    def __init__(self, path: str):
        self.path = path
        self.marks: Dict[str, object] = {}     # dotted key -> the yaml mark of its value (sections: of the key)

    def error(self, message: str, key: Optional[str] = None, mark=None) -> UserError:
        mark = mark if mark is not None else self.marks.get(key) if key else None
        if mark is None and key:     # a missing key: at the section that should hold it
            parent = key.rpartition(".")[0]
            while parent and parent not in self.marks:
                parent = parent.rpartition(".")[0]
            mark = self.marks.get(parent)
        if mark is not None and os.path.exists(self.path):
            return UserError(f"machine description: {message}",
                             SourceLocation(self.path, mark.line + 1, mark.column + 1))
        return UserError(f"machine description '{self.path}': {message}")


def read_file(path: str) -> Dict[str, object]:
    """The checked values of machine file ``path``: dotted key -> value of the key's type."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        raise UserError(f"machine description '{path}' does not exist") from None
    except IsADirectoryError:
        raise UserError(f"machine description '{path}' is a directory, not a YAML file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise UserError(f"cannot read machine description '{path}': {getattr(e, 'strerror', None) or e}") \
            from None
    src = _File(path)
    yaml, loader_class = _yaml()
    loader = loader_class(text)
    try:
        root = loader.get_single_node()
        raw: Dict[str, object] = {}
        if root is None:
            raise src.error("the file is empty (a machine description is a mapping of the machine's parameters)")
        if not isinstance(root, yaml.MappingNode):
            raise src.error("the file is not a YAML mapping of the machine's parameters "
                            "(see mtiacc/machine/mtia2i.yaml)", mark=root.start_mark)
        _walk(root, "", raw, src, loader)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        context = f" ({e.context})" if getattr(e, "context", None) else ""
        if mark is not None:
            raise UserError(f"machine description is not valid YAML: {e.problem}{context}",
                            SourceLocation(path, mark.line + 1, mark.column + 1)) from None
        raise UserError(f"machine description '{path}' is not valid YAML: {e}") from None
    finally:
        loader.dispose()
    return check(raw, src)


def _walk(node, prefix: str, out: Dict[str, object], src: _File, loader) -> None:
    yaml, _loader_class = _yaml()
    known, groups = keys(), sections()
    seen = set()
    for knode, vnode in node.value:
        if not isinstance(knode, yaml.ScalarNode):
            raise src.error("a key must be a name", mark=knode.start_mark)
        dotted = f"{prefix}.{knode.value}" if prefix else str(knode.value)
        if dotted in seen:
            raise src.error(f"'{dotted}' is given twice", mark=knode.start_mark)
        seen.add(dotted)
        if dotted in groups:
            src.marks[dotted] = knode.start_mark
            if not isinstance(vnode, yaml.MappingNode):
                raise src.error(f"'{dotted}' must be a mapping (of {_children(dotted)}), got "
                                f"{_text(vnode)}", mark=vnode.start_mark)
            _walk(vnode, dotted, out, src, loader)
        elif dotted in known:
            src.marks[dotted] = vnode.start_mark
            out[dotted] = loader.construct_object(vnode, deep=True)
        else:
            raise src.error(f"unknown key '{dotted}'{suggest(dotted)}", mark=knode.start_mark)


def _text(node) -> str:
    yaml, _loader_class = _yaml()
    if isinstance(node, yaml.ScalarNode):
        return repr(node.value)
    return "a list" if isinstance(node, yaml.SequenceNode) else "a mapping"


def _children(prefix: str) -> str:
    names = sorted({k[len(prefix) + 1:].split(".")[0] for k in keys() if k.startswith(prefix + ".")})
    return ", ".join(names[:6]) + (", ..." if len(names) > 6 else "")


def suggest(dotted: str) -> str:
    """`` (did you mean 'x.y'?)`` for the declared key nearest a misspelt one, else ``''``."""
    import difflib
    near = difflib.get_close_matches(dotted, list(keys()) + sorted(sections()), n=1, cutoff=0.75)
    return f" (did you mean '{near[0]}'?)" if near else ""


def check(raw: Dict[str, object], src: _File) -> Dict[str, object]:
    """Every declared key present, of its type and in its bounds; the values in the schema's order."""
    out: Dict[str, object] = {}
    groups: Dict[str, List[str]] = {}
    for dotted, key in keys().items():
        if key.one_of_group:
            groups.setdefault(dotted.rpartition(".")[0], []).append(dotted)
            if dotted not in raw:
                continue
        elif dotted not in raw:
            raise src.error(f"missing key '{dotted}' ({key.describe()}: {key.doc})", key=dotted)
        v = coerce(key, raw[dotted])
        if isinstance(v, str) and key.type is not str:
            raise src.error(f"'{dotted}' {v}", key=dotted)
        out[dotted] = v
    for parent, members in groups.items():
        present = [m for m in members if m in raw]
        if len(present) != 1:
            names = " or ".join(f"'{m.rpartition('.')[2]}'" for m in members)
            raise src.error(f"'{parent}' needs exactly one of {names}", key=present[-1] if present else parent)
    lmem, stack = out["pe.local_memory_bytes"], out["pe.stack_bytes"]
    if stack >= lmem:
        raise src.error(f"the stack ({stack} bytes, 'pe.stack_bytes') does not fit in local memory ({lmem} "
                        "bytes, 'pe.local_memory_bytes')", key="pe.stack_bytes")
    if _llc_too_large(out):
        raise src.error(_llc_message(out), key="memory.sram.llc_bytes")
    return out


def _llc_too_large(v: Dict[str, object]) -> bool:
    return v["memory.sram.llc_bytes"] > v["memory.sram.bytes"]


def _llc_message(v: Dict[str, object]) -> str:
    return (f"the LLC ({v['memory.sram.llc_bytes']} bytes, 'memory.sram.llc_bytes') is larger than the SRAM "
            f"({v['memory.sram.bytes']} bytes, 'memory.sram.bytes') it is part of")


def read_yaml(path: str, what: str) -> object:
    """The YAML document at ``path`` as plain data, for the project's other YAML files (a sweep's spec): this
    module stays the one place that speaks YAML, and its errors read as a machine file's do (``what`` names the
    document: ``sweep spec``)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        raise UserError(f"{what} '{path}' does not exist") from None
    except (OSError, UnicodeDecodeError) as e:
        raise UserError(f"cannot read {what} '{path}': {getattr(e, 'strerror', None) or e}") from None
    yaml, loader_class = _yaml()
    try:
        return yaml.load(text, Loader=loader_class)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        if mark is not None:
            raise UserError(f"{what} is not valid YAML: {e.problem}",
                            SourceLocation(path, mark.line + 1, mark.column + 1)) from None
        raise UserError(f"{what} '{path}' is not valid YAML: {e}") from None


Overrides = Union[None, Dict[str, object], Iterable[str], Iterable[Tuple[str, object]]]


def parse_set(text: str) -> Tuple[str, object]:
    """``KEY=VALUE`` of ``--set``: the dotted key and the value read as a YAML scalar (``409.6e9``, ``0x1000``)."""
    key, eq, value = str(text).partition("=")
    key = key.strip()
    if not eq or not key:
        raise UsageError(f"--set '{text}' must be KEY=VALUE, e.g. --set memory.dram.bw_bytes_per_s=409.6e9")
    yaml, loader_class = _yaml()
    try:
        parsed = yaml.load(value, Loader=loader_class) if value.strip() else None
    except yaml.YAMLError:
        raise UsageError(f"--set '{text}': '{value}' is not a YAML scalar") from None
    if isinstance(parsed, (dict, list)):
        raise UsageError(f"--set '{text}': the value must be a single number or name, not a YAML "
                         f"{'mapping' if isinstance(parsed, dict) else 'list'}")
    return key, parsed


def normalize_overrides(overrides: Overrides) -> Tuple[Tuple[str, object, str], ...]:
    """``(key, value, how the user wrote it)`` of each override, in order: ``--set`` texts, ``(key, value)``
    pairs or a ``{key: value}`` mapping."""
    if not overrides:
        return ()
    if isinstance(overrides, str):
        overrides = [overrides]
    items = overrides.items() if isinstance(overrides, dict) else overrides
    out = []
    for item in items:
        if isinstance(item, str):
            key, value = parse_set(item)
            out.append((key, value, f"--set {item}"))
        else:
            key, value = item
            out.append((str(key), value, f"override {key}={value!r}"))
    return tuple(out)


def apply_overrides(values: Dict[str, object], overrides, path: str) -> Dict[str, object]:
    """``values`` with each override applied and checked as the file's keys are (a UsageError names the flag)."""
    out = dict(values)
    known = keys()
    for key, value, how in overrides:
        if key in sections():
            raise UsageError(f"{how}: '{key}' is a section: set one of its keys ({_children(key)})")
        if key not in known:
            raise UsageError(f"{how}: unknown key '{key}'{suggest(key)}")
        decl = known[key]
        v = coerce(decl, value)
        if isinstance(v, str) and decl.type is not str:
            raise UsageError(f"{how}: '{key}' {v}")
        if decl.one_of_group:      # bits replaces abs_bits and the other way round
            parent = key.rpartition(".")[0]
            for other in [k for k in out if k.rpartition(".")[0] == parent and known[k].one_of_group]:
                del out[other]
        out[key] = v
    if overrides and out["pe.stack_bytes"] >= out["pe.local_memory_bytes"]:
        raise UsageError(f"{overrides[-1][2]}: the stack ({out['pe.stack_bytes']} bytes) does not fit in local "
                         f"memory ({out['pe.local_memory_bytes']} bytes) of machine '{path}'")
    if overrides and _llc_too_large(out):
        raise UsageError(f"{overrides[-1][2]}: {_llc_message(out)} of machine '{path}'")
    return out
