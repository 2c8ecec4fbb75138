"""The machine description: one YAML file per machine, checked against one schema, read in one place.

``load(path=None, overrides=())`` returns a :class:`MachineDescription`: every key of :mod:`.schema` with its
value, after the overrides (``["memory.dram.bw_bytes_per_s=409.6e9"]`` as ``--set`` writes them, or
``{"pe.local_memory_bytes": 262144}``).  The compiler's view of it is :class:`mtiacc.target.Target`, the
simulator's :class:`mtiacc.machine.simulator.MachineConfig`; both tools take ``--machine FILE`` and
``--set KEY=VALUE`` so a kernel is compiled for the machine it runs on.  ``digest`` names the machine's values
(not its file's spelling): two descriptions with one digest time every kernel the same.

The built-in machines are the YAML files of this folder (``mtia2i``, the default).
"""
from __future__ import annotations

import dataclasses
import functools
import os
from pathlib import Path
from typing import Dict, Optional, Tuple

from mtiacc.diagnostics import UserError

from .loader import Overrides, apply_overrides, normalize_overrides, parse_set, read_file
from .schema import SCHEMA, Key, keys

__all__ = ["MachineDescription", "load", "parse_set", "builtin_names", "MACHINE_DIR", "DEFAULT", "SCHEMA", "Key",
           "keys"]

MACHINE_DIR = Path(__file__).resolve().parent
DEFAULT = "mtia2i"


@dataclasses.dataclass(frozen=True)
class MachineDescription:
    """A checked machine: ``values`` maps every dotted key to its value (the schema's types)."""

    path: str                                   # the file it was read from
    items: Tuple[Tuple[str, object], ...]       # (dotted key, value), in the schema's order
    overrides: Tuple[Tuple[str, object], ...] = ()   # what --set / overrides= changed, in order

    @functools.cached_property
    def values(self) -> Dict[str, object]:
        return dict(self.items)

    def __getitem__(self, key: str):
        try:
            return self.values[key]
        except KeyError:
            raise KeyError(f"machine description has no key '{key}'") from None

    def get(self, key: str, default=None):
        return self.values.get(key, default)

    def section(self, prefix: str) -> Dict[str, object]:
        """The keys under ``prefix`` as a nested mapping (``section("timing")["VALU"]["latency"]``)."""
        out: Dict[str, object] = {}
        for k, v in self.items:
            if k.startswith(prefix + "."):
                *parents, last = k[len(prefix) + 1:].split(".")
                d = out
                for p in parents:
                    d = d.setdefault(p, {})
                d[last] = v
        return out

    @property
    def name(self) -> str:
        return self.values["name"]

    @functools.cached_property
    def digest(self) -> str:
        """SHA-256 of the values (sorted keys, numbers as Python writes them): stable across runs, comments,
        spelling (``1.35e9`` or ``1350000000.0``) and key order."""
        import hashlib
        import json
        blob = json.dumps(sorted(self.items), separators=(",", ":"), default=repr)
        return hashlib.sha256(blob.encode()).hexdigest()


def builtin_names() -> Tuple[str, ...]:
    return tuple(sorted(p.stem for p in MACHINE_DIR.glob("*.yaml")))


def resolve(path: Optional[str]) -> str:
    """The file of ``path``: a built-in machine's name (``mtia2i``; None: the default) or a YAML file."""
    path = os.fspath(path) if path is not None else DEFAULT
    if "/" in path or os.sep in path or path.endswith((".yaml", ".yml")) or os.path.exists(path):
        return path
    if path not in builtin_names():
        raise UserError(f"unknown machine '{path}' (built in: {', '.join(builtin_names())}; or a machine YAML "
                        "file)")
    return str(MACHINE_DIR / f"{path}.yaml")


@functools.lru_cache(maxsize=64)
def _read(path: str, stamp) -> Tuple[Tuple[str, object], ...]:
    from .cache import read_values
    return tuple(read_values(path, read_file).items())


def load(path: Optional[str] = None, overrides: Overrides = ()) -> MachineDescription:
    """The machine of ``path`` (a built-in name or a YAML file; default ``mtia2i``) with ``overrides`` applied.
    Every problem is a :class:`UserError` naming the file and the key (a bad override: a ``UsageError``)."""
    file = resolve(path)
    try:
        st = os.stat(file)
        stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
    except OSError:
        stamp = None       # read_file reports it
    values = dict(_read(file, stamp))
    norm = normalize_overrides(overrides)
    if norm:
        values = apply_overrides(values, norm, file)
        order = list(keys())
        values = {k: values[k] for k in sorted(values, key=order.index)}
    return MachineDescription(file, tuple(values.items()), tuple((k, v) for k, v, _ in norm))
