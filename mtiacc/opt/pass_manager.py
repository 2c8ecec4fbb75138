"""Passes, their registry, pipeline strings, and running a pipeline with verification between passes.

A pass is a small frozen dataclass: its class has a ``name`` and its fields are its options.
A pipeline is a string of pass names separated by commas, each optionally followed by options
in braces: ``canonicalize{max-iterations=4},cse,dce`` (options separated by commas or spaces;
a dash in an option name stands for an underscore in the field name).
"""
from __future__ import annotations

import dataclasses
import sys
import time
from typing import (Callable, ClassVar, Dict, List, Optional, Sequence, Set, TextIO, Tuple,
                    Union)

from mtiacc.diagnostics import CompileError, ExitCode, SourceLocation, UsageError, format_diagnostic
from mtiacc.ir.core import VerifyError
from mtiacc.ir.ops import FuncOp, ModuleOp
from mtiacc.ir.verifier import verify_module
from mtiacc.target import Target, load_target


@dataclasses.dataclass(frozen=True)
class Remark:
    """A decision a pass made because something did not fit (``--remarks`` prints them): what was done, to which
    op (its location), and the estimated cost."""

    kind: str                 # the ladder step: "stages", "keep-invariant", "reuse-loads", "pipeline-loads", ...
    message: str
    loc: Optional[SourceLocation] = None
    cost: str = ""

    def render(self) -> str:
        return format_diagnostic("remark", self.message + (f" (estimated cost: {self.cost})" if self.cost else ""),
                                 self.loc)


class SpillRemarkError(CompileError):
    """``--Werror=spill``: a kernel the planner had to fit by a step of its ladder."""


@dataclasses.dataclass
class PassContext:
    """What every pass run can consult besides the IR: the machine the code is compiled for, the depth a
    kernel's config asks loops to be pipelined to, and where the remarks of the local-memory ladder go."""

    target: Target = dataclasses.field(default_factory=load_target)
    num_stages: Optional[int] = None   # the kernel's config num_stages (Triton's default pipelining depth)
    remarks: List[Remark] = dataclasses.field(default_factory=list)
    werror_spill: bool = False         # --Werror=spill: a ladder step is an error

    def remark(self, r: Remark) -> None:
        if self.werror_spill:
            raise SpillRemarkError(r.message + (f" (estimated cost: {r.cost})" if r.cost else "")
                                   + " [--Werror=spill]", r.loc)
        self.remarks.append(r)


@dataclasses.dataclass(frozen=True)
class ModulePass:
    """Base of every pass: subclasses set ``name`` and implement ``run``."""

    name: ClassVar[str] = ""
    # run(module, ctx) with the PassContext (the target, the remarks), rather than run(module)
    needs_context: ClassVar[bool] = False

    def run(self, module: ModuleOp) -> Optional[bool]:
        """Transform ``module`` in place.  A pass may return False to say it changed nothing; the pass
        manager then skips verifying the IR after it (it is the IR that was verified before)."""
        raise NotImplementedError

    def user_set(self, option: str) -> bool:
        """Whether the pipeline text set ``option`` (a field name) of this pass, rather than leaving its default."""
        return option in getattr(self, "_user_set", ())

    def with_options(self, **changes) -> "ModulePass":
        """This pass with other option values; the options the pipeline text set stay known as set."""
        out = dataclasses.replace(self, **changes)
        _remember(out, getattr(self, "_user_set", ()))
        return out

    def spelling(self) -> str:
        """The pipeline text for this pass with its options."""
        opts = [f"{f.name.replace('_', '-')}={_format_option(getattr(self, f.name))}"
                for f in dataclasses.fields(self) if getattr(self, f.name) != f.default]
        return self.name + ("{" + ",".join(opts) + "}" if opts else "")


class FunctionPass(ModulePass):
    """A pass that runs on each function of the module in turn (as MLIR's passes on ``func.func``): subclasses
    implement ``run_on_function(func, ctx)`` and return whether they changed it; ``ctx`` is the PassContext when
    the pass sets ``needs_context``, else None."""

    def run(self, module: ModuleOp, ctx=None) -> bool:
        changed = False
        for op in list(module.body.block.ops):
            if isinstance(op, FuncOp):
                changed |= bool(self.run_on_function(op, ctx))
        return changed

    def run_on_function(self, func: FuncOp, ctx) -> bool:
        raise NotImplementedError


PASSES: Dict[str, type] = {}


def _remember(p: ModulePass, options) -> None:
    """Record on ``p`` the option fields its pipeline text set: an attribute beside the frozen dataclass's fields,
    so that its fields stay its options (its spelling, its equality)."""
    object.__setattr__(p, "_user_set", frozenset(options))


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
        raise UsageError(f"pass '{pass_name}': option '{field.name.replace('_', '-')}' expects "
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
                raise UsageError(f"pipeline '{text}': unbalanced '}}'")
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if depth != 0:
        raise UsageError(f"pipeline '{text}': unbalanced '{{'")
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
            raise UsageError(f"pipeline '{text}': empty pass name")
        if name not in PASSES:
            raise UsageError(f"unknown pass '{name}' (known passes: {', '.join(sorted(PASSES))})")
        cls = PASSES[name]
        options: Dict[str, object] = {}
        if rest:
            if not rest.rstrip().endswith("}"):
                raise UsageError(f"pipeline '{text}': options of '{name}' must end with '}}'")
            fields = {f.name: f for f in dataclasses.fields(cls)}
            for item in rest.rstrip()[:-1].replace(",", " ").split():
                key, eq, value = item.partition("=")
                field = fields.get(key.replace("-", "_"))
                if not eq or field is None:
                    known = ", ".join(f.replace("_", "-") for f in fields) or "none"
                    raise UsageError(f"pass '{name}' has no option '{key}' (its options: {known})"
                                    if eq else f"pass '{name}': option '{item}' needs a value (name=value)")
                options[field.name] = _convert(name, field, value)
        p = cls(**options)
        _remember(p, options)
        passes.append(p)
    return passes


@dataclasses.dataclass
class PassRun:
    name: str
    seconds: float
    changed: Optional[bool] = None   # known when the IR text was compared (print-after-change)


class MachinePass(ModulePass):
    """A pass over machine code (after register allocation), named in the same pipelines as IR passes.

    Its implementation lives in codegen (``mtiacc.codegen.MACHINE_PASSES``); on the IR it does nothing.
    """

    machine: ClassVar[bool] = True

    def run(self, module: ModuleOp) -> None:
        pass


def is_machine(p: ModulePass) -> bool:
    return isinstance(p, MachinePass)


@dataclasses.dataclass
class Instrumentation:
    """The debugging flags of the pass manager (``--print-ir-*``, ``--time-passes``).

    Pass names in ``print_before``/``print_after`` match a pass by its name, options aside.
    IR dumps go to ``stream`` (stderr by default) under a header line as MLIR prints it.
    """

    print_before: Set[str] = dataclasses.field(default_factory=set)
    print_after: Set[str] = dataclasses.field(default_factory=set)
    print_after_all: bool = False
    print_after_change: bool = False
    time_passes: bool = False
    stream: Optional[TextIO] = None
    runs: List[PassRun] = dataclasses.field(default_factory=list)

    def _out(self) -> TextIO:
        return self.stream if self.stream is not None else sys.stderr

    def wants_text(self) -> bool:
        return self.print_after_change

    def before(self, p: ModulePass, text: Callable[[], str]) -> None:
        if p.name in self.print_before:
            self.dump("Before", p, text())

    def after(self, p: ModulePass, text: Callable[[], str], before_text: Optional[str]) -> Optional[bool]:
        """Print after ``p`` as asked; returns whether the text changed (None if not compared)."""
        changed = None
        after_text = None
        if before_text is not None:
            after_text = text()
            changed = after_text != before_text
        if self.print_after_all or p.name in self.print_after or (self.print_after_change and changed):
            self.dump("After", p, after_text if after_text is not None else text())
        return changed

    def dump(self, when: str, p: ModulePass, text: str) -> None:
        out = self._out()
        out.write(f"// -----// IR Dump {when} {p.spelling()} //----- //\n")
        out.write(text if text.endswith("\n") else text + "\n")
        out.write("\n")

    def record(self, run: PassRun) -> None:
        self.runs.append(run)

    def report_times(self) -> None:
        """The ``--time-passes`` table: one row per pass run, in order, and the total."""
        if not self.time_passes:
            return
        out = self._out()
        total = sum(r.seconds for r in self.runs) or 1e-12
        out.write("===" + "-" * 60 + "===\n")
        out.write("  ... Pass execution timing report ...\n")
        out.write("===" + "-" * 60 + "===\n")
        out.write(f"  Total Execution Time: {total:.4f} seconds\n\n")
        out.write("   Wall Time (ms)    ( %)   Name\n")
        for r in self.runs:
            out.write(f"  {r.seconds * 1e3:14.3f}  ({100 * r.seconds / total:5.1f}%)  {r.name}\n")
        out.write(f"  {total * 1e3:14.3f}  (100.0%)  Total\n")


def remove_disabled(passes: Sequence[ModulePass], disabled: Sequence[str]) -> List[ModulePass]:
    """The pipeline without the passes named in ``disabled`` (each must be a known pass name)."""
    for name in disabled:
        if name not in PASSES:
            raise UsageError(f"--disable-pass: unknown pass '{name}' (known passes: {', '.join(sorted(PASSES))})")
    return [p for p in passes if p.name not in set(disabled)]


def spell_pipeline(passes: Sequence[ModulePass]) -> str:
    return ",".join(p.spelling() for p in passes)


def run_pipeline(module: ModuleOp, pipeline: Union[str, Sequence[ModulePass]], verify_each: bool = True,
                 after_pass: Optional[Callable[[ModulePass, ModuleOp], None]] = None,
                 instrumentation: Optional[Instrumentation] = None, verify_input: bool = True,
                 context: Optional[PassContext] = None) -> List[PassRun]:
    """Run the passes of ``pipeline`` on ``module`` in order, verifying the IR before and after each
    (not after a pass that reports it changed nothing; not before the first with ``verify_input`` False,
    for a caller that verified ``module`` already).

    ``after_pass(pass, module)`` is called after each pass (for printing between passes).
    Machine passes in the pipeline are skipped here (codegen runs them).  Passes that ask for it run with
    ``context`` (by default the default target's).  Returns the time each pass took.
    """
    from mtiacc.ir.text.printer import print_ir
    passes = parse_pipeline(pipeline) if isinstance(pipeline, str) else list(pipeline)
    passes = [p for p in passes if not is_machine(p)]
    instr = instrumentation
    ctx = context
    if ctx is None and any(p.needs_context for p in passes):
        ctx = PassContext()
    if verify_each and verify_input:
        _verify(module, "before the pipeline")
    runs: List[PassRun] = []
    for p in passes:
        before_text = None
        if instr is not None:
            instr.before(p, lambda: print_ir(module))
            if instr.wants_text():
                before_text = print_ir(module)
        start = time.perf_counter()
        changed = p.run(module, ctx) if p.needs_context else p.run(module)
        run = PassRun(p.name, time.perf_counter() - start)
        runs.append(run)
        if verify_each and changed is not False:
            _verify(module, f"after pass '{p.spelling()}'", internal=True)
        if instr is not None:
            run.changed = instr.after(p, lambda: print_ir(module), before_text)
            instr.record(run)
        if after_pass is not None:
            after_pass(p, module)
    return runs


def run_machine_passes(fn, target, passes: Sequence[ModulePass], impls: Dict[str, Callable],
                       format_function: Callable[[object], str],
                       instrumentation: Optional[Instrumentation] = None) -> List[PassRun]:
    """Run the machine passes of a pipeline on machine function ``fn``: ``impls[name](fn, target)``
    (codegen's ``MACHINE_PASSES``; the driver glues the two layers), printing with ``format_function``."""
    instr = instrumentation
    runs: List[PassRun] = []
    for p in passes:
        if not is_machine(p):
            continue
        before_text = None
        if instr is not None:
            instr.before(p, lambda: format_function(fn))
            if instr.wants_text():
                before_text = format_function(fn)
        start = time.perf_counter()
        impls[p.name](fn, target)
        run = PassRun(p.name, time.perf_counter() - start)
        runs.append(run)
        if instr is not None:
            run.changed = instr.after(p, lambda: format_function(fn), before_text)
            instr.record(run)
    return runs


class PassVerifyError(VerifyError):
    """A pass left IR that breaks an invariant (an op's rules, an attribute it does not declare): a bug in the
    compiler, whatever the input, so the tools exit as for an internal error."""

    exit_code = ExitCode.INTERNAL


def _verify(module: ModuleOp, when: str, internal: bool = False) -> None:
    """Verify ``module``; a failure names ``when`` (the pass just run). ``internal``: the IR is a pass's output,
    and a failure is the compiler's bug (the input was verified before the pipeline)."""
    try:
        verify_module(module)
    except VerifyError as e:
        if not internal:
            raise VerifyError(f"IR verification failed {when}: {e.message}", e.loc) from e
        raise PassVerifyError(f"internal compiler error: IR verification failed {when}: {e.message}", e.loc,
                              notes=["this is a bug in mtiacc; rerun with --print-ir-after-all to see the pass's "
                                     "output, and report it"]) from e


__all__: Tuple[str, ...] = ("ModulePass", "MachinePass", "PassContext", "Remark", "SpillRemarkError", "PassVerifyError",
                            "PASSES", "register_pass", "parse_pipeline",
                            "run_pipeline", "run_machine_passes", "PassRun", "Instrumentation",
                            "remove_disabled", "spell_pipeline", "is_machine")
