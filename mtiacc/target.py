"""The compiler's view of the machine, read from the one target YAML (`mtiasim/configs/<name>.yaml`)."""
from __future__ import annotations

import dataclasses
import functools
import os
from pathlib import Path
from typing import Optional, Tuple

import yaml

from mtiacc.diagnostics import UserError


# The machine descriptions ship in the simulator's package folder; the compiler reads the same file
# (one source of truth for the machine) without importing any simulator code.
CONFIG_DIR = Path(__file__).resolve().parent.parent / "mtiasim" / "configs"


@dataclasses.dataclass(frozen=True)
class Target:
    name: str
    vlen_bits: int
    lmem_bytes: int
    stack_bytes: int
    args_base: int = 0
    # timing class -> (issue cycles, result latency), from the YAML's `timing:` section
    timing: Tuple[Tuple[str, Tuple[int, int]], ...] = ()
    # the matrix engine (`dpe:`): fp32 / int32 accumulator rows of 32 values each
    dpe_accumulator_rows: int = 1024
    # the SIMD engine (`se.functions`): function -> its table's accuracy, ("bits", n): relative error below 2^-n,
    # ("abs_bits", n): absolute error below 2^-n (empty: the machine has no SE)
    se_functions: Tuple[Tuple[str, Tuple[str, int]], ...] = ()

    def latency(self, timing_class: str, default: int = 1) -> int:
        """Result latency in cycles of an instruction of this timing class (for scheduling)."""
        return dict(self.timing).get(timing_class, (1, default))[1]

    @property
    def vlenb(self) -> int:
        return self.vlen_bits // 8


@functools.lru_cache(maxsize=None)
def instruction_info(mnemonic: str, nargs: int):
    """The ISA table's row for a mnemonic or pseudo-instruction with ``nargs`` operands, or None: its
    ``operand_names``, ``access`` (per operand), ``effects``, ``links``, ``timing`` and ``sem_family`` (a pseudo
    has its base instruction's timing class and effects)."""
    from mtiacc.asm.pseudo import lookup
    return lookup(mnemonic, nargs)


def _field(d, path: str, origin: str, default=None, minimum: int = 1) -> int:
    """The integer at dotted ``path`` of the target mapping, at least ``minimum``."""
    cur = d
    for part in path.split("."):
        if not isinstance(cur, dict) or part not in cur:
            if default is not None:
                return default
            raise UserError(f"target description '{origin}' has no '{path}' (see mtiasim/configs/mtia2i.yaml)")
        cur = cur[part]
    if isinstance(cur, bool) or not isinstance(cur, int) or cur < minimum:
        want = "a positive integer" if minimum == 1 else f"an integer of at least {minimum}"
        raise UserError(f"target description '{origin}': '{path}' must be {want}, got {cur!r}")
    return cur


def _from_yaml(text: str, origin: str) -> Target:
    try:
        d = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        if mark is not None and os.path.exists(origin):
            from mtiacc.diagnostics import SourceLocation
            raise UserError(f"target description is not valid YAML: {e.problem}",
                            SourceLocation(origin, mark.line + 1, mark.column + 1)) from None
        raise UserError(f"target description '{origin}' is not valid YAML") from None
    if not isinstance(d, dict):
        raise UserError(f"target description '{origin}' is not a YAML mapping of the machine's parameters "
                        "(see mtiasim/configs/mtia2i.yaml)")
    lmem = _field(d, "pe.local_memory_bytes", origin)
    stack = _field(d, "pe.stack_bytes", origin, minimum=0)
    if stack >= lmem:
        raise UserError(f"target description '{origin}': the stack ({stack} bytes) does not fit in local memory "
                        f"({lmem} bytes)")
    vlen = _field(d, "pe.vector.vlen_bits", origin)
    if vlen % 64:
        raise UserError(f"target description '{origin}': 'pe.vector.vlen_bits' must be a multiple of 64")
    timing = d.get("timing") or {}
    try:
        timing = tuple((str(k), (int(v["issue"]), int(v["latency"]))) for k, v in timing.items())
    except (KeyError, TypeError, ValueError, AttributeError):
        raise UserError(f"target description '{origin}': 'timing' must map each class to its 'issue' and "
                        "'latency' cycles") from None
    return Target(name=str(d.get("name", origin)), vlen_bits=vlen, lmem_bytes=lmem, stack_bytes=stack,
                  timing=timing, dpe_accumulator_rows=_field(d, "dpe.accumulator_rows", origin, 1024),
                  se_functions=_se_functions(d, origin))


def _se_functions(d, origin: str):
    """``se.functions`` of the YAML: ``((name, (kind, bits)), ...)``; the simulator checks the section in full."""
    funcs = (d.get("se") or {}).get("functions") or {} if isinstance(d.get("se") or {}, dict) else {}
    out = []
    for name, v in (funcs.items() if isinstance(funcs, dict) else ()):
        kind = next((k for k in ("bits", "abs_bits") if isinstance(v, dict) and k in v), None)
        if kind is None or isinstance(v[kind], bool) or not isinstance(v[kind], int):
            raise UserError(f"target description '{origin}': se.functions.{name} needs 'bits' or 'abs_bits' "
                            "(an integer)")
        out.append((str(name), (kind, v[kind])))
    return tuple(out)


@functools.lru_cache(maxsize=None)
def load_target(path: Optional[str] = None) -> Target:
    """The named built-in target (default mtia2i), or a target YAML file."""
    if path is None or "/" not in path and not path.endswith(".yaml"):
        name = path or "mtia2i"
        try:
            text = (CONFIG_DIR / f"{name}.yaml").read_text(encoding="utf-8")
        except FileNotFoundError:
            raise UserError(f"unknown target '{name}'") from None
        return _from_yaml(text, name)
    try:
        with open(path, encoding="utf-8") as f:
            return _from_yaml(f.read(), path)
    except OSError as e:
        raise UserError(f"cannot read target description '{path}': {e.strerror}") from None
