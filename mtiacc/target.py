"""The compiler's view of the machine, read from the one target YAML (`mtiasim/configs/<name>.yaml`)."""
from __future__ import annotations

import dataclasses
import functools
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


def _from_yaml(text: str, origin: str) -> Target:
    try:
        d = yaml.safe_load(text)
        pe = d["pe"]
        return Target(name=str(d["name"]), vlen_bits=int(pe["vector"]["vlen_bits"]),
                      lmem_bytes=int(pe["local_memory_bytes"]), stack_bytes=int(pe["stack_bytes"]),
                      timing=tuple((str(k), (int(v["issue"]), int(v["latency"])))
                                   for k, v in (d.get("timing") or {}).items()),
                      dpe_accumulator_rows=int((d.get("dpe") or {}).get("accumulator_rows", 1024)))
    except (yaml.YAMLError, KeyError, TypeError, ValueError) as e:
        raise UserError(f"{origin}: not a valid target description ({e})") from None


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
