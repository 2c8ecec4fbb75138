"""A kernel's ``@triton.autotune`` and ``@triton.heuristics`` decorators, read from the source.

Triton stacks them over ``@triton.jit`` (which must be the innermost decorator); at a launch the
outermost runs first.  ``@triton.autotune(configs=[triton.Config({...}, num_warps=, num_stages=, ...)],
key=[...], ...)`` times every config and launches the fastest; ahead of time there is nothing to time,
so one config is chosen by its index (``mtiacc --config N``, default 0) and its kwargs become the
values of those parameters (``-D`` overrides them).  ``@triton.heuristics({"NAME": lambda args: ...})``
computes a parameter from the others: ``args`` maps the kernel's parameters to their values (the
``-D`` values, the parameters' defaults, constants given in ``--signature``, the values set by the
heuristics that ran before, and the chosen config's kwargs and options when the heuristic sits below
``@triton.autotune``).  A ``-D NAME=VALUE`` for a heuristic's name replaces it.

The arguments are computed by :mod:`static_eval` (never by running the user's file); what cannot be
computed is a compile error at its place.  ``prune_configs_by``, ``reset_to_zero``, ``restore_value``,
``pre_hook``, ``post_hook``, ``warmup``, ``rep``, ``do_bench``, ``use_cuda_graph`` and ``cache_results``
concern timing at run time: accepted and ignored (every config stays selectable).
"""
from __future__ import annotations

import ast
import dataclasses
from typing import Dict, List, Optional, Sequence

from mtiacc.diagnostics import CompileError, SourceLocation
from mtiacc.frontend.source import SourceFile
from mtiacc.frontend.visitor.module_scan import decorator_kind
from mtiacc.frontend.visitor.static_eval import Closure, Config, HeuristicArgs, MissingArgument, NotStatic, \
    StaticEvaluator
from mtiacc.ir.types import Type, triton_type_name

# kwargs of a triton.Config that Triton hands to the backend as compile options when they are not parameters
# (AMD's, as the HIP configs of Triton's matmul tutorial set them): they mean nothing on this target
BACKEND_OPTIONS = frozenset({"waves_per_eu", "matrix_instr_nonkdim", "kpack", "schedule_hint",
                             "instruction_sched_variant"})
AUTOTUNE_ARGS = ("configs", "key", "prune_configs_by", "reset_to_zero", "restore_value", "pre_hook", "post_hook",
                 "warmup", "rep", "use_cuda_graph", "do_bench", "cache_results")


@dataclasses.dataclass
class Heuristic:
    name: str
    fn: object                    # a Closure (lambda or helper def)
    node: ast.AST                 # the value's expression, for errors
    sees_config: bool             # below @triton.autotune: its args include the config's kwargs


@dataclasses.dataclass
class Tuning:
    """What a kernel's decorators say; empty for a plain ``@triton.jit`` kernel."""

    kernel: str
    configs: Optional[List[Config]] = None          # None without @triton.autotune
    key: Optional[str] = None                       # autotune's key, as written
    ignored: List[str] = dataclasses.field(default_factory=list)   # autotune arguments without effect here
    heuristics: List[Heuristic] = dataclasses.field(default_factory=list)   # in the order they run
    evaluator: Optional[StaticEvaluator] = None
    where: Optional[SourceLocation] = None          # the @triton.autotune decorator

    def choose(self, index: Optional[int]) -> Optional[Config]:
        """Config ``index`` (``--config``; None: the first, when there are configs)."""
        if self.configs is None:
            if index is not None:
                raise CompileError(f"--config {index}: kernel '{self.kernel}' has no @triton.autotune configs")
            return None
        n = len(self.configs)
        if index is None:
            index = 0
        if not 0 <= index < n:
            raise CompileError(f"--config {index}: kernel '{self.kernel}' has {n} autotune config"
                               f"{'s' if n != 1 else ''} (0 to {n - 1}; --list-configs shows them)", self.where)
        return self.configs[index]

    def describe(self) -> str:
        """The text of ``mtiacc FILE --list-configs``."""
        lines = [f"kernel {self.kernel}"]
        if self.configs is None:
            lines.append("  no @triton.autotune configs")
        else:
            lines.append(f"  {len(self.configs)} autotune config{'s' if len(self.configs) != 1 else ''}"
                         + (f" (key {self.key})" if self.key else ""))
            for i, c in enumerate(self.configs):
                lines.append(f"  [{i}] {format_config(c)}")
            if self.ignored:
                lines.append(f"  ignored: {', '.join(self.ignored)} (run-time tuning)")
        if self.heuristics:
            lines.append(f"  heuristics (in the order they run): {', '.join(h.name for h in self.heuristics)}")
            for h in self.heuristics:
                text = ast.unparse(h.fn.node.body) if isinstance(h.fn.node, ast.Lambda) else f"{h.fn.node.name}(args)"
                lines.append(f"    {h.name} = {text}")
        return "\n".join(lines) + "\n"


def format_value(v) -> str:
    return triton_type_name(v) if isinstance(v, Type) else repr(v)


def format_config(c: Config) -> str:
    parts = [f"{k}={format_value(v)}" for k, v in c.kwargs.items()]
    parts += [f"{k}={getattr(c, k)}" for k in Config.OPTIONS if getattr(c, k) is not None]
    if c.pre_hook:
        parts.append(f"pre_hook={c.pre_hook} (ignored)")
    return ", ".join(parts)


def config_meta(c: Config, index: int, count: int) -> dict:
    """The chosen config as the binary's metadata records it."""
    out = {"index": index, "count": count,
           "kwargs": {k: format_value(v) if isinstance(v, Type) else v for k, v in c.kwargs.items()}}
    out.update({k: getattr(c, k) for k in Config.OPTIONS})
    return out


def _error(src: SourceFile, e: NotStatic, what: str) -> CompileError:
    return CompileError(f"{what}: {e.why}", src.loc(e.node) if e.node is not None else None)


def _bind(src: SourceFile, call: ast.Call, names: Sequence[str], what: str) -> Dict[str, ast.expr]:
    """A decorator call's arguments by name (Python's rules, without running anything)."""
    out: Dict[str, ast.expr] = {}
    if len(call.args) > len(names):
        raise CompileError(f"{what} takes at most {len(names)} positional arguments", src.loc(call.args[len(names)]))
    for name, arg in zip(names, call.args):
        out[name] = arg
    for kw in call.keywords:
        if kw.arg is None:
            raise CompileError(f"`**` in {what} is not evaluated at compile time", src.loc(kw.value))
        if kw.arg not in names:
            raise CompileError(f"{what} got an unexpected keyword argument '{kw.arg}'", src.loc(kw))
        if kw.arg in out:
            raise CompileError(f"{what} got multiple values for '{kw.arg}'", src.loc(kw))
        out[kw.arg] = kw.value
    return out


def read_tuning(src: SourceFile, fn: ast.FunctionDef, scope, module: ast.Module) -> Tuning:
    """The kernel's autotune configs and heuristics, checked against its parameters."""
    tuning = Tuning(fn.name)
    decos = [(d, decorator_kind(d, scope)) for d in fn.decorator_list]
    kinds = [k for _, k in decos]
    if "autotune" not in kinds and "heuristics" not in kinds:
        return tuning
    jit_at = kinds.index("jit")
    for d, k in decos[jit_at + 1:]:
        if k in ("autotune", "heuristics"):
            raise CompileError(f"@triton.{k} must be above @triton.jit (@triton.jit is the innermost decorator, "
                               f"directly over `def {fn.name}`)", src.loc(d))
    first = min([fn.lineno] + [d.lineno for d in fn.decorator_list])
    ev = StaticEvaluator(scope, module, first)
    tuning.evaluator = ev
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
    autotune_at = kinds.index("autotune") if "autotune" in kinds else None
    for i, (d, k) in enumerate(decos):
        if k == "autotune":
            if i != autotune_at:
                raise CompileError("a kernel takes one @triton.autotune", src.loc(d))
            _read_autotune(src, d, ev, tuning, params)
        elif k == "heuristics":
            _read_heuristics(src, d, ev, tuning, params, sees_config=autotune_at is not None and i > autotune_at)
    _check_overlaps(src, tuning)
    return tuning


def _read_autotune(src, d: ast.expr, ev: StaticEvaluator, tuning: Tuning, params: List[str]) -> None:
    if not isinstance(d, ast.Call):
        raise CompileError("@triton.autotune needs its arguments: @triton.autotune(configs=[...], key=[...])",
                           src.loc(d))
    args = _bind(src, d, AUTOTUNE_ARGS, "triton.autotune()")
    if "configs" not in args:
        raise CompileError("triton.autotune() needs configs=[triton.Config(...), ...]", src.loc(d))
    try:
        configs = ev.evaluate(args["configs"])
    except NotStatic as e:
        raise _error(src, e, "cannot compute the autotune configs at compile time "
                             "(they may use literals, comprehensions, module-level names and simple helpers)") from None
    if not isinstance(configs, (list, tuple)) or not all(isinstance(c, Config) for c in configs):
        raise CompileError("triton.autotune's configs must be a list of triton.Config(...)", src.loc(args["configs"]))
    tuning.where = src.loc(d)
    tuning.configs = list(configs) or [Config({}, node=d)]   # Triton's default for an empty list
    if "key" in args:
        tuning.key = ast.unparse(args["key"])
    tuning.ignored = [name for name in AUTOTUNE_ARGS[2:] if name in args]
    for c in tuning.configs:
        c.kwargs = {k: v for k, v in c.kwargs.items() if k in params or k not in BACKEND_OPTIONS}
        for name in c.kwargs:
            if name not in params:
                raise CompileError(f"triton.Config sets '{name}', which is not a parameter of kernel "
                                   f"'{tuning.kernel}' (its parameters: {', '.join(params)})", src.loc(c.node))


def _read_heuristics(src, d: ast.expr, ev: StaticEvaluator, tuning: Tuning, params: List[str],
                     sees_config: bool) -> None:
    if not isinstance(d, ast.Call):
        raise CompileError("@triton.heuristics needs its values: @triton.heuristics({\"NAME\": lambda args: ...})",
                           src.loc(d))
    args = _bind(src, d, ("values",), "triton.heuristics()")
    if "values" not in args:
        raise CompileError("triton.heuristics() needs a dict of names to functions", src.loc(d))
    node = args["values"]
    try:
        values = ev.evaluate(node)
    except NotStatic as e:
        raise _error(src, e, "cannot read the heuristics at compile time") from None
    if not isinstance(values, dict):
        raise CompileError("triton.heuristics' values must be a dict of parameter names to functions", src.loc(node))
    where = {}
    if isinstance(node, ast.Dict):
        where = {k.value: (k, v) for k, v in zip(node.keys, node.values) if isinstance(k, ast.Constant)}
    for name, f in values.items():
        key_node, value_node = where.get(name, (node, node))
        if not isinstance(name, str) or name not in params:
            raise CompileError(f"@triton.heuristics sets {name!r}, which is not a parameter of kernel "
                               f"'{tuning.kernel}' (its parameters: {', '.join(params)})", src.loc(key_node))
        if not isinstance(f, Closure):
            raise CompileError(f"heuristic '{name}' must be a function of args (lambda args: ...)",
                               src.loc(value_node))
        tuning.heuristics.append(Heuristic(name, f, f.node if isinstance(f.node, ast.Lambda) else value_node,
                                           sees_config))


def _check_overlaps(src, tuning: Tuning) -> None:
    """A heuristic above @triton.autotune runs first and passes its value on; a config setting the same
    name then conflicts (Triton: "Conflicting meta-parameters")."""
    for h in tuning.heuristics:
        if h.sees_config:
            continue
        for c in tuning.configs or []:
            if h.name in c.kwargs:
                raise CompileError(f"triton.Config sets '{h.name}', which a @triton.heuristics above "
                                   "@triton.autotune also sets (Triton rejects conflicting meta-parameters)",
                                   src.loc(c.node))


def evaluate_heuristics(src: SourceFile, tuning: Tuning, config: Optional[Config], known: Dict[str, object],
                        params: List[str], defined: Sequence[str]) -> Dict[str, object]:
    """The heuristics' values, in the order they run.  ``known``: the parameters' compile-time values
    (``-D``, defaults, signature constants, the config's kwargs); ``defined``: the ``-D`` names, which
    replace a heuristic of that name."""
    out: Dict[str, object] = {}
    config_kwargs = dict(config.kwargs) if config is not None else {}
    options = {k: getattr(config, k) for k in Config.OPTIONS if getattr(config, k) is not None} if config else {}
    for h in tuning.heuristics:
        if h.name in defined:
            continue
        visible = {k: v for k, v in known.items() if h.sees_config or k not in config_kwargs or k in defined}
        visible.update(out)
        if h.sees_config:
            visible.update({k: v for k, v in options.items() if k not in visible})
        args = HeuristicArgs(visible, params + (list(options) if h.sees_config else []))
        try:
            value = tuning.evaluator.call_fresh(h.fn, [args], h.node)
        except MissingArgument as e:
            if e.name in config_kwargs and not h.sees_config:
                why = (f"'{e.name}' is set by the @triton.autotune config, which runs after this heuristic "
                       "(it is above @triton.autotune); put @triton.heuristics below @triton.autotune")
            else:
                why = (f"it needs the value of '{e.name}', a run-time argument of kernel '{tuning.kernel}'; give "
                       f"it with -D {e.name}=VALUE (or a constant for it in --signature), or give the result "
                       f"with -D {h.name}=VALUE")
            raise CompileError(f"cannot compute heuristic '{h.name}' at compile time: {why}",
                               src.loc(e.node)) from None
        except NotStatic as e:
            raise _error(src, e, f"cannot compute heuristic '{h.name}' at compile time (give its value with "
                                 f"-D {h.name}=VALUE)") from None
        if not isinstance(value, (bool, int, float, str, Type)) and value is not None:
            raise CompileError(f"heuristic '{h.name}' gives {type(value).__name__} {value!r}, not a constant "
                               "(a bool, int, float, string or type)", src.loc(h.node))
        out[h.name] = value
    return out
