"""A sweep's specification: the file a user writes, checked, and the points it spans.

    kernel: examples/vector_add.py        # Triton source (paths relative to the spec's folder)
    kernel_name: add_kernel               # optional, as --kernel
    signature: "*fp32,*fp32,*fp32,i32"    # optional, as --signature
    options: {opt_level: 3, fast_math: false}   # optional compile options
    grid: "cdiv(N, BLOCK_SIZE)"           # as --grid
    inputs: data.npz                      # a path, or a list of paths (an axis)
    args: {N: 1024}                       # optional scalar arguments (as mtiasim run --arg); a list is an axis
    defines: {BLOCK_SIZE: [256, 1024]}    # -D values; a list is an axis
    set: {memory.dram.bw_bytes_per_s: [102.4e9, 204.8e9]}   # machine overrides; a list is an axis

The points are the cartesian product of the axes, in the order the axes appear in the file (the last one varies
fastest), so a sweep's rows come out in an order the user can predict from the spec.
"""
from __future__ import annotations

import dataclasses
import itertools
import json
import os
import re
from typing import Dict, List, Optional, Sequence, Tuple

from mtiacc.diagnostics import UserError

KEYS = ("kernel", "kernel_name", "signature", "options", "grid", "inputs", "args", "defines", "set", "place",
        "max_cycles")
OPTIONS = {"opt_level": int, "fast_math": bool, "fp_fusion": bool, "passes": str, "config": int}
# the axes a point records, in the row's "point" object
AXES = ("defines", "set", "args", "inputs")


@dataclasses.dataclass(frozen=True)
class Spec:
    path: str                      # the spec file
    kernel: str                    # absolute path of the Triton source
    kernel_name: Optional[str]
    signature: Optional[str]
    options: Dict[str, object]
    grid: Optional[str]
    place: Dict[str, str]
    max_cycles: Optional[int]
    # axis name -> [(key, [values])...], in the file's order; "inputs" has the key ""
    axes: Tuple[Tuple[str, str, Tuple[object, ...]], ...]


@dataclasses.dataclass(frozen=True)
class Point:
    """One point of the sweep: its values on every axis (single values included)."""
    index: int
    defines: Dict[str, object]
    set: Dict[str, object]
    args: Dict[str, object]
    inputs: str                    # as written in the spec (relative to its folder)

    def as_json(self) -> dict:
        return {"defines": dict(self.defines), "set": dict(self.set), "args": dict(self.args),
                "inputs": self.inputs}

    def ident(self) -> str:
        """A canonical text for the point (what --resume matches rows by)."""
        return json.dumps(self.as_json(), sort_keys=True)


_FLOAT = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)[eE][-+]?\d+")


def _number(v):
    """YAML 1.1 reads ``102.4e9`` (an exponent without a sign) as a string; a user means the number."""
    return float(v) if isinstance(v, str) and _FLOAT.fullmatch(v) else v


def _error(path: str, msg: str) -> UserError:
    return UserError(f"{path}: {msg}")


def parse_spec(data, path: str) -> Spec:
    """Check the mapping read from the spec file at ``path`` and build the ``Spec``."""
    if not isinstance(data, dict):
        raise _error(path, "a sweep spec is a mapping (kernel:, grid:, inputs:, defines:, set:, ...)")
    for k in data:
        if k not in KEYS:
            raise _error(path, f"unknown key '{k}' (known: {', '.join(KEYS)})")
    if "kernel" not in data or not isinstance(data["kernel"], str):
        raise _error(path, "'kernel:' must name the Triton source file")
    if "inputs" not in data:
        raise _error(path, "'inputs:' must name an .npz file (or a list of them)")
    folder = os.path.dirname(os.path.abspath(path))
    kernel = os.path.join(folder, data["kernel"])
    if not os.path.isfile(kernel):
        raise _error(path, f"kernel '{data['kernel']}' does not exist (paths are relative to the spec's folder)")
    options = data.get("options") or {}
    if not isinstance(options, dict):
        raise _error(path, "'options:' must be a mapping")
    for k, v in options.items():
        if k not in OPTIONS:
            raise _error(path, f"unknown option '{k}' (known: {', '.join(OPTIONS)})")
        if not isinstance(v, OPTIONS[k]) or (OPTIONS[k] is int and isinstance(v, bool)):
            raise _error(path, f"option '{k}' must be {OPTIONS[k].__name__}, got {v!r}")
    for k in ("kernel_name", "signature", "grid"):
        if data.get(k) is not None and not isinstance(data[k], str):
            raise _error(path, f"'{k}:' must be a string")
    place = data.get("place") or {}
    if not isinstance(place, dict) or any(v not in ("dram", "sram") for v in place.values()):
        raise _error(path, "'place:' maps pointer parameters to dram or sram")
    max_cycles = data.get("max_cycles")
    if max_cycles is not None and (isinstance(max_cycles, bool) or not isinstance(max_cycles, int)
                                   or max_cycles < 1):
        raise _error(path, "'max_cycles:' must be a positive integer")
    axes: List[Tuple[str, str, Tuple[object, ...]]] = []
    for section in data:
        if section == "inputs":
            values = data["inputs"] if isinstance(data["inputs"], list) else [data["inputs"]]
            if not values or not all(isinstance(v, str) for v in values):
                raise _error(path, "'inputs:' must be a path or a non-empty list of paths")
            for v in values:
                if not os.path.isfile(os.path.join(folder, v)):
                    raise _error(path, f"inputs '{v}' do not exist (paths are relative to the spec's folder)")
            axes.append(("inputs", "", tuple(values)))
        elif section in ("defines", "set", "args"):
            block = data[section] or {}
            if not isinstance(block, dict):
                raise _error(path, f"'{section}:' must be a mapping of names to a value or a list of values")
            for key, value in block.items():
                values = value if isinstance(value, list) else [value]
                if not values:
                    raise _error(path, f"'{section}.{key}' has an empty list of values")
                for v in values:
                    if not isinstance(v, (int, float, str, bool)):
                        raise _error(path, f"'{section}.{key}': {v!r} is not a scalar value")
                axes.append((section, str(key), tuple(_number(v) for v in values)))
    return Spec(path=path, kernel=kernel, kernel_name=data.get("kernel_name"), signature=data.get("signature"),
                options=dict(options), grid=data.get("grid"), place=dict(place), max_cycles=max_cycles,
                axes=tuple(axes))


def points(spec: Spec) -> List[Point]:
    """Every point of the sweep, in the spec's order."""
    out = []
    for i, combo in enumerate(itertools.product(*(values for _s, _k, values in spec.axes))):
        parts: Dict[str, Dict[str, object]] = {"defines": {}, "set": {}, "args": {}}
        inputs = ""
        for (section, key, _values), v in zip(spec.axes, combo):
            if section == "inputs":
                inputs = v
            else:
                parts[section][key] = v
        out.append(Point(i, parts["defines"], parts["set"], parts["args"], inputs))
    return out


def axis_sizes(spec: Spec) -> Sequence[Tuple[str, int]]:
    return [((f"{s}.{k}" if k else s), len(v)) for s, k, v in spec.axes]


def load_spec(path: str) -> Spec:
    """Read and check the spec file at ``path``."""
    from mtiacc.machine.loader import read_yaml
    return parse_spec(read_yaml(path, "sweep spec"), path)
