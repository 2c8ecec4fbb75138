"""A small, safe interpreter of the Python that builds a kernel's tuning decorators' arguments.

``@triton.autotune(configs=...)`` and ``@triton.heuristics({...: lambda args: ...})`` are ordinary Python
run when the file is imported; this compiler never imports it.  What can be computed from the source
alone is computed here, by walking the AST: literals, arithmetic and comparisons, conditional
expressions, comprehensions over literal ranges and lists, ``triton.Config(...)``, module-level names
assigned before the kernel (``configs = []`` then a ``for`` loop appending to it), simple helper functions
(assignments, ``if``, ``for``, ``while``, ``return``, ``list.append``), lambdas, the safe Python builtins
(``range``, ``len``, ``min``, ``max``, ``zip``, ...), ``itertools.product``, ``triton.cdiv`` and
``triton.next_power_of_2``.  Nothing else runs: no ``eval``, no attribute of an arbitrary object, no
import.  What cannot be computed raises :class:`NotStatic` at the node that needs it; a step budget
stops endless loops.
"""
from __future__ import annotations

import ast
import dataclasses
import itertools
import operator
import os
from typing import Callable, Dict, List, Optional

from mtiacc.frontend.values import Builtin, ForeignRef, FunctionRef, Marker, ModuleRef, NonConstantGlobal
from mtiacc.frontend.visitor.module_scan import resolve_static
from mtiacc.ir.types import Type

STEP_BUDGET = 200_000      # AST nodes evaluated and elements iterated, per evaluation
MAX_DEPTH = 40             # nested helper calls
MAX_SIZE = 100_000         # elements of a list or characters of a string built by an operator
MAX_BITS = 4096            # bits of an integer built by an operator


class NotStatic(Exception):
    """An expression this interpreter cannot (or may not) compute; ``node`` is where."""

    def __init__(self, node: Optional[ast.AST], why: str):
        super().__init__(why)
        self.node = node
        self.why = why


class MissingArgument(NotStatic):
    """``args["n"]`` in a heuristic when the kernel argument ``n`` has no compile-time value."""

    def __init__(self, node: ast.AST, name: str):
        super().__init__(node, f"the kernel argument '{name}' is only known at run time")
        self.name = name


@dataclasses.dataclass
class Config:
    """A ``triton.Config(...)``, as evaluated."""

    kwargs: Dict[str, object]
    num_warps: Optional[int] = 4
    num_stages: Optional[int] = 3
    num_ctas: Optional[int] = 1
    maxnreg: Optional[int] = None
    pre_hook: Optional[str] = None       # the hook's source text: recorded, never run
    ir_override: Optional[str] = None
    node: Optional[ast.Call] = None      # where the Config was written

    OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg")


@dataclasses.dataclass
class Closure:
    """A ``lambda`` or a helper ``def``, with the names it sees."""

    node: ast.AST                # ast.Lambda or ast.FunctionDef
    env: Dict[str, object]       # the enclosing function's locals ({} at module level)


@dataclasses.dataclass
class _Method:
    receiver: object
    name: str


class _Return(Exception):
    def __init__(self, value):
        self.value = value


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class HeuristicArgs:
    """The ``args`` dict a heuristic receives: the kernel's arguments by name, where they are known."""

    def __init__(self, known: Dict[str, object], params: List[str]):
        self.known = dict(known)
        self.params = list(params)

    def get(self, node: ast.AST, name, default=None, has_default=False):
        if name in self.known:
            return self.known[name]
        if name in self.params:
            raise MissingArgument(node, name)
        if has_default:
            return default
        raise NotStatic(node, f"args[{name!r}]: the kernel has no parameter {name!r} "
                              f"(its parameters: {', '.join(self.params)})")

    def __contains__(self, name) -> bool:
        return name in self.known or name in self.params


def _next_power_of_2(n):
    n = int(n)
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def _cdiv(x, d):
    return -(-x // d)


_BUILTINS: Dict[str, Callable] = {
    "range": range, "len": len, "min": min, "max": max, "abs": abs, "int": int, "float": float,
    "bool": bool, "str": str, "list": list, "tuple": tuple, "dict": dict, "set": set, "zip": zip,
    "enumerate": enumerate, "sorted": sorted, "reversed": reversed, "sum": sum, "any": any, "all": all,
    "round": round, "divmod": divmod, "filter": filter, "map": map, "isinstance": None, "print": None,
}
_FOREIGN: Dict[str, Callable] = {
    "itertools.product": itertools.product, "itertools.chain": itertools.chain,
    "math.ceil": __import__("math").ceil, "math.floor": __import__("math").floor,
    "math.log2": __import__("math").log2, "math.sqrt": __import__("math").sqrt,
}


@dataclasses.dataclass(frozen=True)
class Target:
    """What ``triton.runtime.driver.active.get_current_target()`` answers under the Triton backend that runs
    kernels on this chip (``mtiacc.triton_backend``): a backend named ``cpu``, neither CUDA nor HIP, so a
    file's target tests (``.backend == "cuda"``, ``.arch``) choose here as they do under Triton."""

    backend: str = "cpu"
    arch: str = "mtia2i"
    warp_size: int = 32


# the target queries of GPU programs, answered as on this chip: no CUDA device (``torch.cuda.is_available()``)
_FOREIGN.update({"triton.runtime.driver.active.get_current_target": Target,
                 "torch.cuda.is_available": lambda: False, "os.getenv": os.getenv})
_TRITON: Dict[str, Callable] = {"triton.next_power_of_2": _next_power_of_2, "triton.cdiv": _cdiv}
_SAFE_METHODS = {
    list: ("append", "extend", "copy", "index", "count", "insert", "pop", "reverse"),
    dict: ("get", "items", "keys", "values", "copy", "update", "setdefault"),
    str: ("upper", "lower", "startswith", "endswith", "join", "split", "strip"),
    tuple: ("index", "count"),
}
_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
           ast.LShift: operator.lshift, ast.RShift: operator.rshift, ast.BitAnd: operator.and_,
           ast.BitOr: operator.or_, ast.BitXor: operator.xor}
_UNOPS = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert, ast.Not: operator.not_}
_CMPOPS = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
           ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not}
_PLAIN = (int, float, bool, str, type(None))


class StaticEvaluator:
    """Evaluates expressions of one module.  ``scope`` is the module scan's (imports, constants,
    functions); ``module`` the module's AST; ``before_line``: module statements from that line on
    are not run (a decorator's arguments are computed when its ``def`` runs)."""

    def __init__(self, scope: Dict[str, object], module: ast.Module, before_line: int):
        self.scope = scope
        self.module = module
        self.before_line = before_line
        self.steps = STEP_BUDGET
        self.depth = 0
        self._globals: Optional[Dict[str, object]] = None
        self._poisoned: Dict[str, NotStatic] = {}
        self._defs = {n.name: n for n in module.body if isinstance(n, ast.FunctionDef)}

    # ------------------------------------------------------------------ names

    def _module_env(self) -> Dict[str, object]:
        """Run the module's top-level statements before ``before_line`` (assignments, loops, appends);
        a statement that cannot run leaves the names it assigns unknown, with the reason."""
        if self._globals is None:
            self._globals = {}
            for stmt in self.module.body:
                if stmt.lineno >= self.before_line:
                    break
                if not isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.While, ast.If,
                                         ast.Expr)):
                    continue
                saved, self.steps = self.steps, STEP_BUDGET
                try:
                    self._exec(stmt, self._globals)
                except NotStatic as e:
                    for name in _assigned_names(stmt):
                        self._globals.pop(name, None)
                        self._poisoned[name] = e
                except (_Return, _Break, _Continue):
                    pass
                self.steps = saved
        return self._globals

    def lookup(self, node: ast.Name, env: Dict[str, object]):
        name = node.id
        if name in env:
            return env[name]
        if env is not self._globals:
            glob = self._module_env()
            if name in glob:
                return glob[name]
        if name in self._poisoned:
            e = self._poisoned[name]
            raise NotStatic(node, f"the module-level name '{name}' is not known at compile time ({e.why})")
        v = self.scope.get(name)
        if isinstance(v, (bool, int, float, Marker, Builtin, ModuleRef, ForeignRef, Type)):
            return v
        if isinstance(v, FunctionRef):
            if v.jit or name not in self._defs:
                raise NotStatic(node, f"'{name}' is a @triton.jit function, not a helper that runs at compile time")
            return Closure(self._defs[name], {})
        if isinstance(v, NonConstantGlobal):
            raise NotStatic(node, f"the module-level name '{name}' is not known at compile time")
        if v is None and name in _BUILTINS:
            if _BUILTINS[name] is None:
                raise NotStatic(node, f"`{name}` is not evaluated at compile time")
            return _BUILTINS[name]
        if v is None:
            raise NotStatic(node, f"undefined name '{name}'")
        raise NotStatic(node, f"'{name}' cannot be evaluated at compile time")

    # ------------------------------------------------------------------ expressions

    def evaluate(self, node: ast.expr):
        """The value of ``node`` at module level, with a fresh step budget."""
        env = self._module_env()
        self.steps = STEP_BUDGET
        return self.eval(node, env)

    def call_fresh(self, fn, args, node):
        """``fn(*args)`` with a fresh step budget (a heuristic's lambda)."""
        self._module_env()
        self.steps = STEP_BUDGET
        return self.call(fn, args, {}, node)

    def eval(self, node: ast.expr, env: Optional[Dict[str, object]] = None):
        env = self._module_env() if env is None else env
        self.steps -= 1
        if self.steps < 0:
            raise NotStatic(node, "the computation takes too many steps")
        method = getattr(self, "_e_" + type(node).__name__, None)
        if method is None:
            raise NotStatic(node, f"`{_short(node)}` is not evaluated at compile time")
        return method(node, env)

    def _e_Constant(self, node, env):
        if not isinstance(node.value, _PLAIN):
            raise NotStatic(node, f"the constant {node.value!r} is not evaluated at compile time")
        return node.value

    def _e_Name(self, node, env):
        return self.lookup(node, env)

    def _e_Attribute(self, node, env):
        found = resolve_static(node, self.scope) if not _shadowed(node, env) else None
        if isinstance(found, ForeignRef) and found.qualname == "os.environ":
            return dict(os.environ)   # the file reads the environment it is compiled in, as run here it would
        if isinstance(found, (Marker, Builtin, Type, ForeignRef)):
            return found
        base = self.eval(node.value, env)
        if isinstance(base, (ModuleRef, ForeignRef)):
            return ForeignRef(f"{base.qualname}.{node.attr}")
        if isinstance(base, Config) and node.attr in ("kwargs",) + Config.OPTIONS:
            return getattr(base, node.attr)
        if isinstance(base, Target) and node.attr in Target.__dataclass_fields__:
            return getattr(base, node.attr)
        for kind, names in _SAFE_METHODS.items():
            if isinstance(base, kind) and node.attr in names:
                return _Method(base, node.attr)
        if isinstance(base, HeuristicArgs) and node.attr == "get":
            return _Method(base, "get")
        raise NotStatic(node, f"`{_short(node)}` is not evaluated at compile time")

    def _e_List(self, node, env):
        return self._elements(node.elts, env)

    def _e_Tuple(self, node, env):
        return tuple(self._elements(node.elts, env))

    def _e_Set(self, node, env):
        return set(self._elements(node.elts, env))

    def _elements(self, elts, env) -> list:
        out = []
        for e in elts:
            if isinstance(e, ast.Starred):
                out.extend(self._iterate(self.eval(e.value, env), e))
            else:
                out.append(self.eval(e, env))
        return out

    def _e_Dict(self, node, env):
        out = {}
        for k, v in zip(node.keys, node.values):
            if k is None:
                more = self.eval(v, env)
                if not isinstance(more, dict):
                    raise NotStatic(v, "`**` of something that is not a dict")
                out.update(more)
            else:
                out[self._hashable(k, env)] = self.eval(v, env)
        return out

    def _hashable(self, node, env):
        v = self.eval(node, env)
        try:
            hash(v)
        except TypeError:
            raise NotStatic(node, "an unhashable key") from None
        return v

    def _e_BinOp(self, node, env):
        a, b = self.eval(node.left, env), self.eval(node.right, env)
        op = type(node.op)
        if op not in _BINOPS:
            raise NotStatic(node, "this operator is not evaluated at compile time")
        if op is ast.Pow and isinstance(b, int) and abs(b) > 256 and not isinstance(a, float):
            raise NotStatic(node, "a power too large to compute")
        if op is ast.LShift and isinstance(b, int) and b > 256:
            raise NotStatic(node, "a shift too large to compute")
        if op is ast.Mult and (isinstance(a, (str, list, tuple)) or isinstance(b, (str, list, tuple))):
            seq, n = (a, b) if isinstance(a, (str, list, tuple)) else (b, a)
            if isinstance(n, int) and len(seq) * n > MAX_SIZE:
                raise NotStatic(node, "a value too large to compute")
        try:
            out = _BINOPS[op](a, b)
        except (ArithmeticError, TypeError, ValueError) as e:
            raise NotStatic(node, f"`{_short(node)}` fails: {e}") from None
        if isinstance(out, int) and out.bit_length() > MAX_BITS or \
                isinstance(out, (str, list, tuple)) and len(out) > MAX_SIZE:
            raise NotStatic(node, "a value too large to compute")
        return out

    def _e_UnaryOp(self, node, env):
        v = self.eval(node.operand, env)
        try:
            return _UNOPS[type(node.op)](v)
        except TypeError as e:
            raise NotStatic(node, f"`{_short(node)}` fails: {e}") from None

    def _e_BoolOp(self, node, env):
        v = None
        for e in node.values:
            v = self.eval(e, env)
            if isinstance(node.op, ast.And) and not v or isinstance(node.op, ast.Or) and v:
                return v
        return v

    def _e_Compare(self, node, env):
        left = self.eval(node.left, env)
        for op, comp in zip(node.ops, node.comparators):
            right = self.eval(comp, env)
            try:
                if isinstance(op, (ast.In, ast.NotIn)):
                    ok = left in right
                    ok = ok if isinstance(op, ast.In) else not ok
                else:
                    ok = _CMPOPS[type(op)](left, right)
            except TypeError as e:
                raise NotStatic(node, f"`{_short(node)}` fails: {e}") from None
            if not ok:
                return False
            left = right
        return True

    def _e_IfExp(self, node, env):
        return self.eval(node.body if self.eval(node.test, env) else node.orelse, env)

    def _e_Subscript(self, node, env):
        base = self.eval(node.value, env)
        if isinstance(node.slice, ast.Slice):
            parts = [self.eval(p, env) if p is not None else None
                     for p in (node.slice.lower, node.slice.upper, node.slice.step)]
            index = slice(*parts)
        else:
            index = self.eval(node.slice, env)
        if isinstance(base, HeuristicArgs):
            return base.get(node, index)
        if not isinstance(base, (list, tuple, dict, str, range)):
            raise NotStatic(node, f"`{_short(node)}`: only lists, tuples, dicts and strings are indexed at "
                                  "compile time")
        try:
            return base[index]
        except (LookupError, TypeError, ValueError) as e:
            raise NotStatic(node, f"`{_short(node)}` fails: {type(e).__name__} {e}") from None

    def _comprehension(self, node, env, emit):
        def loop(i, scope):
            if i == len(node.generators):
                emit(scope)
                return
            gen = node.generators[i]
            for item in self._iterate(self.eval(gen.iter, scope), gen.iter):
                inner = dict(scope)
                self._assign(gen.target, item, inner)
                if all(self.eval(c, inner) for c in gen.ifs):
                    loop(i + 1, inner)
        loop(0, dict(env))

    def _e_ListComp(self, node, env):
        out: list = []
        self._comprehension(node, env, lambda s: out.append(self.eval(node.elt, s)))
        return out

    _e_GeneratorExp = _e_ListComp

    def _e_SetComp(self, node, env):
        return set(self._e_ListComp(node, env))

    def _e_DictComp(self, node, env):
        out: dict = {}
        self._comprehension(node, env, lambda s: out.__setitem__(self._hashable(node.key, s),
                                                                 self.eval(node.value, s)))
        return out

    def _e_Lambda(self, node, env):
        return Closure(node, env if env is not self._globals else {})

    def _e_JoinedStr(self, node, env):
        out = []
        for part in node.values:
            if isinstance(part, ast.FormattedValue):
                v = self.eval(part.value, env)
                spec = self.eval(part.format_spec, env) if part.format_spec is not None else ""
                out.append(format(v, spec))
            else:
                out.append(self.eval(part, env))
        return "".join(out)

    def _e_Call(self, node, env):
        fn = self.eval(node.func, env)
        if isinstance(fn, Marker) and fn.qualname == "triton.Config":
            return self._config(node, env)
        args = self._elements(node.args, env)
        kwargs = {}
        for kw in node.keywords:
            if kw.arg is None:
                more = self.eval(kw.value, env)
                if not isinstance(more, dict):
                    raise NotStatic(kw.value, "`**` of something that is not a dict")
                kwargs.update(more)
            else:
                kwargs[kw.arg] = self.eval(kw.value, env)
        return self.call(fn, args, kwargs, node)

    def call(self, fn, args, kwargs, node):
        if isinstance(fn, Closure):
            return self._call_closure(fn, args, kwargs, node)
        if isinstance(fn, _Method):
            return self._call_method(fn, args, kwargs, node)
        if (fn is filter or fn is map) and len(args) >= 2 and not kwargs:
            return self._filter_map(fn, args, node)
        if isinstance(fn, Builtin) and fn.qualname in _TRITON:
            impl = _TRITON[fn.qualname]
        elif isinstance(fn, ForeignRef) and fn.qualname in _FOREIGN:
            impl = _FOREIGN[fn.qualname]
        elif callable(fn) and fn in _BUILTINS.values():
            impl = fn
        else:
            what = getattr(fn, "qualname", None) or _short(node.func)
            raise NotStatic(node, f"`{what}(...)` is not evaluated at compile time")
        for a in list(args) + list(kwargs.values()):
            if isinstance(a, (range, list, tuple, dict, set)) and impl in (list, tuple, sorted, sum, set, dict,
                                                                         zip, enumerate, reversed, any, all,
                                                                         itertools.product, min, max):
                self._charge(a, node)
        try:
            out = impl(*args, **kwargs)
        except (ArithmeticError, TypeError, ValueError, LookupError) as e:
            raise NotStatic(node, f"`{_short(node)}` fails: {e}") from None
        if isinstance(out, (zip, enumerate, reversed, itertools.product, itertools.chain)):
            out = list(self._iterate(out, node))
        return out

    def _filter_map(self, fn, args, node) -> list:
        """``filter(f, xs)`` and ``map(f, xs, ...)``, ``f`` any function this interpreter calls (as a list)."""
        f, iterables = args[0], [list(self._iterate(a, node)) for a in args[1:]]
        if fn is filter:
            if len(iterables) != 1:
                raise NotStatic(node, "filter() takes one iterable")
            return [x for x in iterables[0] if (x if f is None else self.call(f, [x], {}, node))]
        return [self.call(f, list(xs), {}, node) for xs in zip(*iterables)]

    def _charge(self, v, node):
        self.steps -= len(v)
        if self.steps < 0:
            raise NotStatic(node, "the computation takes too many steps")

    def _iterate(self, v, node):
        if isinstance(v, HeuristicArgs):
            v = list(v.known)
        if isinstance(v, dict):
            v = list(v)
        if not isinstance(v, (list, tuple, range, str, set, zip, enumerate, reversed, itertools.product,
                              itertools.chain)):
            raise NotStatic(node, f"`{_short(node)}` is not something to iterate over at compile time")
        for item in v:
            self.steps -= 1
            if self.steps < 0:
                raise NotStatic(node, "the computation takes too many steps")
            yield item

    def _call_method(self, m: _Method, args, kwargs, node):
        if isinstance(m.receiver, HeuristicArgs):
            if kwargs or not 1 <= len(args) <= 2:
                raise NotStatic(node, "args.get(name[, default])")
            return m.receiver.get(node, args[0], args[1] if len(args) > 1 else None, True)
        if m.name in ("extend", "update") and args:
            self._charge(args[0], node) if hasattr(args[0], "__len__") else None
        try:
            out = getattr(m.receiver, m.name)(*args, **kwargs)
        except (ArithmeticError, TypeError, ValueError, LookupError) as e:
            raise NotStatic(node, f"`{_short(node)}` fails: {e}") from None
        if m.name in ("items", "keys", "values"):
            out = list(out)
        return out

    def _call_closure(self, fn: Closure, args, kwargs, node):
        a = fn.node.args
        if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs:
            raise NotStatic(node, "a helper with *args, **kwargs or keyword-only parameters is not evaluated "
                                  "at compile time")
        names = [x.arg for x in a.args]
        if len(args) > len(names):
            raise NotStatic(node, f"too many arguments: takes {len(names)}, got {len(args)}")
        bound = dict(zip(names, args))
        for name, value in kwargs.items():
            if name not in names or name in bound:
                raise NotStatic(node, f"unexpected or repeated argument '{name}'")
            bound[name] = value
        defaults = dict(zip(names[len(names) - len(a.defaults):], a.defaults))
        for name in names:
            if name not in bound:
                if name not in defaults:
                    raise NotStatic(node, f"missing argument '{name}'")
                bound[name] = self.eval(defaults[name], fn.env or None)
        local = dict(fn.env)
        local.update(bound)
        if self.depth >= MAX_DEPTH:
            raise NotStatic(node, "helpers nested too deeply")
        self.depth += 1
        try:
            if isinstance(fn.node, ast.Lambda):
                return self.eval(fn.node.body, local)
            try:
                for stmt in fn.node.body:
                    self._exec(stmt, local)
            except _Return as r:
                return r.value
            return None
        finally:
            self.depth -= 1

    def _config(self, node: ast.Call, env) -> Config:
        fields = ("kwargs", "num_warps", "num_stages", "num_ctas", "maxnreg", "pre_hook", "ir_override")
        given: Dict[str, ast.expr] = {}
        if len(node.args) > len(fields):
            raise NotStatic(node, f"triton.Config takes at most {len(fields)} positional arguments")
        for name, arg in zip(fields, node.args):
            given[name] = arg
        for kw in node.keywords:
            if kw.arg is None or kw.arg not in fields:
                raise NotStatic(kw.value if kw.arg is None else kw, f"triton.Config() got an unexpected keyword "
                                f"argument '{kw.arg}'" if kw.arg else "`**` in triton.Config(...)")
            if kw.arg in given:
                raise NotStatic(kw, f"triton.Config() got multiple values for '{kw.arg}'")
            given[kw.arg] = kw.value
        if "kwargs" not in given:
            raise NotStatic(node, "triton.Config() needs its kwargs (a dict of meta-parameters)")
        cfg = Config(kwargs={}, node=node)
        kwargs = self.eval(given["kwargs"], env)
        if not isinstance(kwargs, dict) or not all(isinstance(k, str) for k in kwargs):
            raise NotStatic(given["kwargs"], "triton.Config's kwargs must be a dict of parameter names to values")
        cfg.kwargs = kwargs
        for name in Config.OPTIONS:
            if name in given:
                v = self.eval(given[name], env)
                if v is not None and (not isinstance(v, int) or isinstance(v, bool)):
                    raise NotStatic(given[name], f"triton.Config's {name} must be an integer, got {v!r}")
                setattr(cfg, name, v)
        for name in ("pre_hook", "ir_override"):   # functions and files: recorded by their text, never run
            if name in given and not (isinstance(given[name], ast.Constant) and given[name].value is None):
                setattr(cfg, name, ast.unparse(given[name]))
        return cfg

    # ------------------------------------------------------------------ statements

    def _assign(self, target: ast.expr, value, env):
        if isinstance(target, ast.Name):
            env[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = list(self._iterate(value, target))
            if len(items) != len(target.elts):
                raise NotStatic(target, f"cannot unpack {len(items)} values into {len(target.elts)}")
            for t, v in zip(target.elts, items):
                self._assign(t, v, env)
        elif isinstance(target, ast.Subscript):
            base = self.eval(target.value, env)
            if not isinstance(base, (list, dict)):
                raise NotStatic(target, "only list and dict items are assigned at compile time")
            try:
                base[self.eval(target.slice, env)] = value
            except (LookupError, TypeError) as e:
                raise NotStatic(target, f"`{_short(target)}` fails: {e}") from None
        else:
            raise NotStatic(target, f"assigning to `{_short(target)}` is not evaluated at compile time")

    def _exec(self, stmt: ast.stmt, env):
        self.steps -= 1
        if self.steps < 0:
            raise NotStatic(stmt, "the computation takes too many steps")
        if isinstance(stmt, ast.Assign):
            v = self.eval(stmt.value, env)
            for t in stmt.targets:
                self._assign(t, v, env)
        elif isinstance(stmt, ast.AnnAssign):
            if stmt.value is not None:
                self._assign(stmt.target, self.eval(stmt.value, env), env)
        elif isinstance(stmt, ast.AugAssign):
            load = _as_load(stmt.target)
            binop = ast.copy_location(ast.BinOp(left=load, op=stmt.op, right=stmt.value), stmt)
            v = self.eval(binop, env)
            self._assign(stmt.target, v, env)
        elif isinstance(stmt, ast.Expr):
            self.eval(stmt.value, env)
        elif isinstance(stmt, ast.Return):
            raise _Return(self.eval(stmt.value, env) if stmt.value is not None else None)
        elif isinstance(stmt, ast.If):
            self._block(stmt.body if self.eval(stmt.test, env) else stmt.orelse, env)
        elif isinstance(stmt, ast.For):
            for item in self._iterate(self.eval(stmt.iter, env), stmt.iter):
                self._assign(stmt.target, item, env)
                if not self._loop_body(stmt.body, env):
                    break
            else:
                self._block(stmt.orelse, env)
        elif isinstance(stmt, ast.While):
            while self.eval(stmt.test, env):
                if not self._loop_body(stmt.body, env):
                    break
            else:
                self._block(stmt.orelse, env)
        elif isinstance(stmt, ast.Break):
            raise _Break()
        elif isinstance(stmt, ast.Continue):
            raise _Continue()
        elif isinstance(stmt, ast.Pass):
            pass
        else:
            raise NotStatic(stmt, f"a `{type(stmt).__name__.lower()}` statement is not evaluated at compile time")

    def _loop_body(self, body, env) -> bool:
        """Run one iteration of a loop's body: False when it breaks out of the loop."""
        try:
            self._block(body, env)
        except _Break:
            return False
        except _Continue:
            pass
        return True

    def _block(self, stmts, env):
        for s in stmts:
            self._exec(s, env)


def _as_load(target: ast.expr) -> ast.expr:
    if isinstance(target, ast.Name):
        return ast.copy_location(ast.Name(id=target.id, ctx=ast.Load()), target)
    if isinstance(target, ast.Subscript):
        return ast.copy_location(ast.Subscript(value=target.value, slice=target.slice, ctx=ast.Load()), target)
    raise NotStatic(target, f"`{_short(target)} op= ...` is not evaluated at compile time")


def _assigned_names(stmt: ast.stmt) -> List[str]:
    """The module names a statement may change: names stored, and receivers of method calls."""
    out = []
    for n in ast.walk(stmt):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            out.append(n.id)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name):
            out.append(n.func.value.id)
        elif isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Name):
            out.append(n.value.id)
    return out


def _shadowed(node: ast.Attribute, env) -> bool:
    base = node
    while isinstance(base, ast.Attribute):
        base = base.value
    return isinstance(base, ast.Name) and base.id in env


def _short(node: ast.AST) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 60 else text[:57] + "..."
