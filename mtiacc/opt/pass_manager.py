"""Passes, their registry, pipeline strings, and running a pipeline with verification between passes.

A pass is a small frozen dataclass: its class has a ``name`` and its fields are its options.
A pipeline is a string of pass names separated by commas, each optionally followed by options
in braces: ``canonicalize{max-iterations=4},cse,dce`` (options separated by commas or spaces;
a dash in an option name stands for an underscore in the field name).
"""
from __future__ import annotations

import dataclasses
import time
from typing import Callable, ClassVar, Dict, List, Optional, Tuple

from mtiacc.diagnostics import UserError
from mtiacc.ir.core import VerifyError
from mtiacc.ir.ops import ModuleOp
from mtiacc.ir.verifier import verify_module


@dataclasses.dataclass(frozen=True)
class ModulePass:
    """Base of every pass: subclasses set ``name`` and implement ``run``."""

    name: ClassVar[str] = ""

    def run(self, module: ModuleOp) -> None:
        raise NotImplementedError

    def spelling(self) -> str:
        """The pipeline text for this pass with its options."""
        opts = [f"{f.name.replace('_', '-')}={_format_option(getattr(self, f.name))}"
                for f in dataclasses.fields(self) if getattr(self, f.name) != f.default]
        return self.name + ("{" + ",".join(opts) + "}" if opts else "")


PASSES: Dict[str, type] = {}


def register_pass(cls: type) -> type:
    """Class decorator: make a pass available by its name in pipeline strings."""
    if not cls.name:
        raise TypeError(f"{cls.__name__} has no pass name")
    PASSES[cls.name] = cls
    return cls


def _format_option(v) -> str:
    return ("true" if v else "false") if isinstance(v, bool) else str(v)


def _convert(pass_name: str, field: dataclasses.Field, text: str):
    kind = field.type if isinstance(field.type, type) else {"int": int, "bool": bool, "float": float,
                                                             "str": str}.get(str(field.type), str)
    try:
        if kind is bool:
            if text.lower() not in ("true", "false", "1", "0"):
                raise ValueError(text)
            return text.lower() in ("true", "1")
        return kind(text)
    except ValueError:
        raise UserError(f"pass '{pass_name}': option '{field.name.replace('_', '-')}' expects "
                        f"{kind.__name__}, got '{text}'") from None


def _split_top_level(text: str) -> List[str]:
    """Split on commas outside braces."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth < 0:
                raise UserError(f"pipeline '{text}': unbalanced '}}'")
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if depth != 0:
        raise UserError(f"pipeline '{text}': unbalanced '{{'")
    parts.append("".join(cur))
    return parts


def parse_pipeline(text: str) -> List[ModulePass]:
    """``"canonicalize,dce"`` -> the pass instances, in order. Unknown names and options are errors."""
    passes: List[ModulePass] = []
    if not text.strip():
        return passes
    for part in _split_top_level(text):
        part = part.strip()
        name, _, rest = part.partition("{")
        name = name.strip()
        if not name:
            raise UserError(f"pipeline '{text}': empty pass name")
        if name not in PASSES:
            raise UserError(f"unknown pass '{name}' (known passes: {', '.join(sorted(PASSES))})")
        cls = PASSES[name]
        options: Dict[str, object] = {}
        if rest:
            if not rest.rstrip().endswith("}"):
                raise UserError(f"pipeline '{text}': options of '{name}' must end with '}}'")
            fields = {f.name: f for f in dataclasses.fields(cls)}
            for item in rest.rstrip()[:-1].replace(",", " ").split():
                key, eq, value = item.partition("=")
                field = fields.get(key.replace("-", "_"))
                if not eq or field is None:
                    known = ", ".join(f.replace("_", "-") for f in fields) or "none"
                    raise UserError(f"pass '{name}' has no option '{key}' (its options: {known})"
                                    if eq else f"pass '{name}': option '{item}' needs a value (name=value)")
                options[field.name] = _convert(name, field, value)
        passes.append(cls(**options))
    return passes


@dataclasses.dataclass
class PassRun:
    name: str
    seconds: float


def run_pipeline(module: ModuleOp, pipeline: str, verify_each: bool = True,
                 after_pass: Optional[Callable[[ModulePass, ModuleOp], None]] = None) -> List[PassRun]:
    """Run the passes of ``pipeline`` on ``module`` in order, verifying the IR before and after each.

    ``after_pass(pass, module)`` is called after each pass (for printing between passes).
    Returns the time each pass took.
    """
    passes = parse_pipeline(pipeline)
    if verify_each:
        _verify(module, "before the pipeline")
    runs: List[PassRun] = []
    for p in passes:
        start = time.perf_counter()
        p.run(module)
        runs.append(PassRun(p.name, time.perf_counter() - start))
        if verify_each:
            _verify(module, f"after pass '{p.spelling()}'")
        if after_pass is not None:
            after_pass(p, module)
    return runs


def _verify(module: ModuleOp, when: str) -> None:
    try:
        verify_module(module)
    except VerifyError as e:
        raise VerifyError(f"IR verification failed {when}: {e.message}", e.loc) from e


__all__: Tuple[str, ...] = ("ModulePass", "PASSES", "register_pass", "parse_pipeline", "run_pipeline",
                            "PassRun")
