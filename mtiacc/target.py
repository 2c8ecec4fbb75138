"""The compiler's view of the machine, read from the one target YAML (`mtiasim/configs/<name>.yaml`)."""
from __future__ import annotations

import dataclasses
import functools
from pathlib import Path
from typing import Optional

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

    @property
    def vlenb(self) -> int:
        return self.vlen_bits // 8


def _from_yaml(text: str, origin: str) -> Target:
    try:
        d = yaml.safe_load(text)
        pe = d["pe"]
        return Target(name=str(d["name"]), vlen_bits=int(pe["vector"]["vlen_bits"]),
                      lmem_bytes=int(pe["local_memory_bytes"]), stack_bytes=int(pe["stack_bytes"]))
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
