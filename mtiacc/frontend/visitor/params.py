"""A kernel's parameters: which are constexprs (and their values), and the types of the others.

Types come, in order of preference, from the ``signature`` (Triton AOT style: ``*fp32, i32``,
one entry per non-constexpr parameter, or one per parameter with each constexpr's value in its place, as
Triton's ``compile.py`` takes it; ``tensordesc<fp16[64, 64]>`` is a tensor descriptor the host
made, see :class:`DescriptorType`), from a parameter annotation (``x: tl.int32``,
``p: tl.pointer_type(tl.float16)``), or from a pre-pass over the body: a parameter that is
loaded or stored through, directly or via pointer arithmetic, is ``*fp32``; any other is ``i32``.
"""
from __future__ import annotations

import ast
import dataclasses
import re
from typing import Callable, Dict, List, Optional, Sequence, Set, Tuple, Union

from mtiacc.diagnostics import CompileError
from mtiacc.frontend.language import LANGUAGE
from mtiacc.frontend.source import SourceFile
from mtiacc.frontend.values import Builtin
from mtiacc.frontend.visitor.module_scan import NotConstant, const_eval, is_constexpr_annotation, resolve_static
from mtiacc.ir.types import PointerType, Type, f32, i32, i64, parse_triton_type, triton_type_name

MAX_DESCRIPTOR_RANK = 5


@dataclasses.dataclass(frozen=True)
class DescriptorType:
    """``tensordesc<fp16[64, 64]>``: a tensor descriptor made by the host (Triton's ``TensorDescriptor``),
    its element type and block shape.  It is passed as ``1 + 2 * rank`` argument slots: the base pointer,
    the shape (i32) and the strides (i64, in elements; the last is 1) (docs/architecture.md "Kernel ABI")."""

    elem: Type
    block: Tuple[int, ...]

    def __str__(self) -> str:
        return f"tensordesc<{triton_type_name(self.elem)}[{', '.join(map(str, self.block))}]>"

    def slot_types(self) -> List[Type]:
        n = len(self.block)
        return [PointerType(self.elem)] + [i32] * n + [i64] * n

    def slot_names(self, name: str) -> List[str]:
        n = range(len(self.block))
        return [f"{name}_base"] + [f"{name}_shape{i}" for i in n] + [f"{name}_stride{i}" for i in n]


ParamType = Union[Type, DescriptorType]

_DESCRIPTOR = re.compile(r"tensordesc\s*<\s*([A-Za-z0-9_]+)\s*\[([^\]]*)\]\s*>")
_DESCRIPTOR_FORM = "expected tensordesc<DTYPE[B0, B1, ...]>, e.g. tensordesc<fp16[64, 64]>"


def parse_descriptor_type(text: str) -> DescriptorType:
    """Triton's spelling of a host tensor descriptor's type; ValueError saying what is wrong."""
    m = _DESCRIPTOR.fullmatch(text.strip())
    if m is None:
        raise ValueError(f"malformed tensor descriptor type: {_DESCRIPTOR_FORM}")
    elem = parse_triton_type(m.group(1))
    if elem.is_ptr():
        raise ValueError("a tensor descriptor's element type is not a pointer")
    dims = [d.strip() for d in m.group(2).split(",")]
    if not all(d.isdigit() for d in dims):
        raise ValueError(f"the block shape [{m.group(2)}] must be integers separated by commas ({_DESCRIPTOR_FORM})")
    block = tuple(int(d) for d in dims)
    if not 1 <= len(block) <= MAX_DESCRIPTOR_RANK:
        raise ValueError(f"a descriptor has 1 to {MAX_DESCRIPTOR_RANK} dimensions, got {len(block)}")
    if any(d <= 0 or d & (d - 1) for d in block):
        raise ValueError(f"the block shape {list(block)} must be powers of two")
    numel = 1
    for d in block:
        numel *= d
    if numel > 1 << 20:
        raise ValueError(f"the block holds {numel} elements; a block may hold at most {1 << 20}")
    if block[-1] * elem.bytes < 16:
        raise ValueError(f"the last block dimension must hold at least 16 bytes, got {block[-1]} x {elem.bytes} = "
                         f"{block[-1] * elem.bytes}")
    return DescriptorType(elem, block)


def parse_param_type(text: str) -> ParamType:
    """A signature entry's type (AOT hints such as ``:16`` dropped): a Triton type or a tensor descriptor."""
    text = text.strip()
    if text.startswith("tensordesc"):
        return parse_descriptor_type(text)
    return parse_triton_type(text.split(":")[0])


def param_type_name(t: ParamType) -> str:
    """The type as a signature spells it (the binary's metadata records it so)."""
    return str(t) if isinstance(t, DescriptorType) else triton_type_name(t)


def split_signature(text: str) -> List[str]:
    """The entries of ``--signature``: split on the commas outside brackets (``tensordesc<fp16[64, 64]>``
    is one entry); ValueError when the brackets do not pair up."""
    entries, open_, start = [], [], 0
    pairs = {">": "<", "]": "[", ")": "("}
    for k, c in enumerate(text):
        if c in "<[(":
            open_.append(c)
        elif c in pairs:
            if not open_ or open_.pop() != pairs[c]:
                raise ValueError(f"'{c}' at column {k + 1} closes no bracket")
        elif c == "," and not open_:
            entries.append(text[start:k].strip())
            start = k + 1
    if open_:
        raise ValueError(f"'{open_[-1]}' is never closed")
    entries.append(text[start:].strip())
    return entries


@dataclasses.dataclass
class Param:
    name: str
    type: Optional[ParamType]
    constexpr: bool
    value: object = None


def parse_define(name: str, text: str):
    """The value of ``-D NAME=text``: a Python int, float, bool or string literal, a tuple (or list) of
    those (``-D shape=(8, 16, 4)``: a tuple constexpr, as Triton takes one), or a type."""
    t = text.strip()
    if t in ("true", "false"):
        return t == "true"
    try:
        v = ast.literal_eval(t)
    except (ValueError, SyntaxError):
        v = None
    if v is None and t == "None":  # an optional pointer left out, as Triton specializes a None argument
        return None
    if isinstance(v, (bool, int, float, str)):  # a string: ACTIVATION: tl.constexpr = "leaky_relu"
        return v
    if isinstance(v, (tuple, list)) and _literal_tuple(v):
        return _as_tuple(v)
    dtype = _dtype_define(t)
    if dtype is not None:
        return dtype
    hint = f"; a string is quoted: -D {name}='\"{t}\"'" if t.isidentifier() else ""
    raise CompileError(f"-D {name}={text}: expected an int, float, bool or string literal, a tuple of those, "
                       f"or a type (tl.float16, fp16){hint}")


def _literal_tuple(v) -> bool:
    return all(_literal_tuple(x) if isinstance(x, (tuple, list)) else isinstance(x, (bool, int, float, str))
               for x in v)


def _as_tuple(v) -> tuple:
    return tuple(_as_tuple(x) if isinstance(x, (tuple, list)) else x for x in v)


def _dtype_define(text: str) -> Optional[Type]:
    """``tl.float16``, ``float16`` or ``fp16``: a dtype for a constexpr parameter (``DT: tl.constexpr``)."""
    for prefix in ("triton.language.", "tl."):
        if text.startswith(prefix):
            text = text[len(prefix):]
    found = LANGUAGE.get(text)
    if isinstance(found, Type):
        return found
    try:
        return parse_triton_type(text)
    except ValueError:
        return None


def _annotation_type(ann: ast.expr, scope, src: SourceFile) -> Optional[ParamType]:
    """The IR type a parameter annotation names; None for annotations that say nothing."""
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        try:
            return parse_param_type(ann.value)
        except ValueError as e:
            raise CompileError(f"parameter annotation: {e}", src.loc(ann)) from None
    if isinstance(ann, ast.Call) and len(ann.args) == 1 and not ann.keywords:
        fn = resolve_static(ann.func, scope)
        if isinstance(fn, Builtin) and fn.qualname == "tl.pointer_type":
            elem = _annotation_type(ann.args[0], scope, src)
            if isinstance(elem, Type) and not elem.is_ptr():
                return PointerType(elem)
    found = resolve_static(ann, scope)
    if isinstance(found, Type):
        return found
    if ast.unparse(ann).split(".")[-1] == "tensor":
        return None
    if isinstance(found, Builtin) and found.qualname == "tl.tuple":
        raise CompileError("tuple kernel parameters (`tl.tuple`) are not supported yet; pass the elements as "
                           "separate parameters", src.loc(ann))
    raise CompileError(f"unsupported parameter annotation `{ast.unparse(ann)}` "
                       "(use a type such as tl.int32 or tl.pointer_type(tl.float16))", src.loc(ann))


# --------------------------------------------------------------------------- pointer inference

# builtins that read or write memory through a pointer argument: its position and keyword
_POINTER_ARG = {"tl.load": (0, "pointer"), "tl.store": (0, "pointer"), "mtia.async_copy": (1, "src"),
                "mtia.atomic_add": (0, "pointer")}


def _pointer_arg(node: ast.Call, scope):
    """The pointer argument of a call to a builtin of ``_POINTER_ARG``, else None."""
    fn = resolve_static(node.func, scope)
    if not isinstance(fn, Builtin) or fn.qualname not in _POINTER_ARG:
        return None
    pos, kw = _POINTER_ARG[fn.qualname]
    if len(node.args) > pos:
        return node.args[pos]
    return next((k.value for k in node.keywords if k.arg == kw), None)


def infer_pointer_params(fn: ast.FunctionDef, params: Set[str], scope) -> Set[str]:
    """The parameters used as the base pointer of a ``tl.load``/``tl.store`` (or ``mtia.async_copy``'s source,
    ``mtia.atomic_add``'s pointer).

    The pointer expression is traced through pointer arithmetic (``+`` takes its pointer from
    the left operand when that has one, else from the right; ``-`` from the left) and through
    local assignments.  ``p + pid * stride`` marks ``p``, not ``stride``.
    """
    assigned: Dict[str, List[ast.expr]] = {}
    pointer_exprs: List[ast.expr] = []
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    assigned.setdefault(t.id, []).append(node.value)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(node.target, ast.Name):
            if node.value is not None:
                value = node.value if isinstance(node, ast.AnnAssign) else \
                    ast.BinOp(node.target, node.op, node.value)
                assigned.setdefault(node.target.id, []).append(value)
        elif isinstance(node, ast.Call):
            ptr = _pointer_arg(node, scope)
            if ptr is not None:
                pointer_exprs.append(ptr)

    def roots(e: ast.expr, seen: frozenset) -> Set[str]:
        if isinstance(e, ast.Name):
            if e.id in params and e.id not in assigned:
                return {e.id}
            if e.id in seen:
                return set()
            found: Set[str] = set()
            for v in assigned.get(e.id, []):
                found |= roots(v, seen | {e.id})
            if e.id in params:
                found.add(e.id)
            return found
        if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Add):
            return roots(e.left, seen) or roots(e.right, seen)
        if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Sub):
            return roots(e.left, seen)
        if isinstance(e, ast.Subscript):
            return roots(e.value, seen)
        return set()

    out: Set[str] = set()
    for e in pointer_exprs:
        out |= roots(e, frozenset())
    return out


# --------------------------------------------------------------------------- resolution

def resolve_params(src: SourceFile, fn: ast.FunctionDef, scope, kernel: str,
                   defines: Dict[str, str], signature: Optional[str],
                   presets: Optional[Dict[str, object]] = None, derived: Sequence[str] = (),
                   derive: Optional[Callable[[Dict[str, object], List[str]], Dict[str, object]]] = None
                   ) -> List[Param]:
    """``presets``: values for parameters (an autotune config's kwargs; ``-D`` wins over them);
    ``derived``: parameters whose values ``derive(known values, run-time parameter names)`` computes
    from the others once they are known (the heuristics; ``-D`` wins over them too)."""
    presets = dict(presets or {})
    a = fn.args
    for bad, what in ((a.vararg, "*args"), (a.kwarg, "**kwargs")):
        if bad is not None:
            raise CompileError(f"{what} parameters are not supported in a kernel", src.loc(bad))
    if a.kwonlyargs:
        raise CompileError("keyword-only parameters are not supported in a kernel", src.loc(a.kwonlyargs[0]))
    args = a.posonlyargs + a.args
    defaults: Dict[str, ast.expr] = dict(zip([x.arg for x in args[len(args) - len(a.defaults):]], a.defaults))

    _check_defines(src, args, scope, kernel, defines)

    params: List[Param] = []
    pending: List[Param] = []   # derived: computed last
    missing: Dict[str, CompileError] = {}
    for arg in args:
        # -D on a plain parameter specializes it to that constant, like Triton's `constants=`
        # (its launcher does so for arguments equal to 1, e.g. `xnumel`); so do a config's kwargs
        given = arg.arg in defines or arg.arg in presets or arg.arg in derived
        if is_constexpr_annotation(arg.annotation, scope) or given:
            p = Param(arg.arg, None, True)
            if arg.arg in defines:
                p.value = parse_define(arg.arg, defines[arg.arg])
            elif arg.arg in derived:
                pending.append(p)
            elif arg.arg in presets:
                p.value = presets[arg.arg]
            else:
                try:
                    p.value = _constexpr_value(src, arg, defaults, defines, scope)
                except CompileError as e:
                    if signature is None:
                        raise
                    missing[p.name] = e     # unless the signature gives its value (Triton's spelling)
            params.append(p)
        else:
            params.append(Param(arg.arg, None, False))


    runtime = [p for p in params if not p.constexpr]
    by_name = {x.arg: x for x in args}
    if signature is not None:
        try:
            entries = split_signature(signature) if signature.strip() else []
        except ValueError as e:
            raise CompileError(f"the signature '{signature}' is malformed: {e}") from None
        if "" in entries:
            raise CompileError(f"signature entry {entries.index('') + 1} is empty in '{signature}'")
        if len(entries) == len(params) != len(runtime):
            # Triton's AOT spelling: one entry per parameter, constexprs included, a constexpr's entry its value
            for i, (p, text) in enumerate(zip(params, entries), start=1):
                if p.constexpr:
                    _signature_constexpr(p, text, i, defines, pending)
                    missing.pop(p.name, None)
            entries = [text for p, text in zip(params, entries) if not p.constexpr]
        elif len(entries) != len(runtime):
            names = ", ".join(p.name for p in runtime) or "none"
            raise CompileError(f"the signature has {len(entries)} entr{'y' if len(entries) == 1 else 'ies'} "
                               f"but kernel '{kernel}' has {len(runtime)} non-constexpr parameters ({names})",
                               src.loc(fn), notes=[f"or, as Triton's AOT compiler takes it, one entry per "
                                                   f"parameter ({len(params)}), a constexpr's entry its value"])
        for i, (p, text) in enumerate(zip(runtime, entries), start=1):
            value = _signature_constant(text)
            if value is None and text.partition(":")[2].strip() == "1" and not text.lstrip().startswith("*"):
                value = 1           # Triton AOT: the hint ':1' says the argument is 1, a constant
            if value is not None:   # Triton AOT: a number in the signature is that argument's constant value
                p.constexpr, p.value = True, value
                continue
            try:
                p.type = parse_param_type(text)
            except ValueError as e:
                raise CompileError(f"signature entry {i} ('{text}') for parameter '{p.name}': {e}") from None
    else:
        inferred = infer_pointer_params(fn, {p.name for p in runtime}, scope)
        for p in runtime:
            ann = by_name[p.name].annotation
            t = _annotation_type(ann, scope, src) if ann is not None else None
            p.type = t if t is not None else (PointerType(f32) if p.name in inferred else i32)

    for e in missing.values():
        raise e
    if pending:
        waiting = {p.name for p in pending}
        known = {p.name: p.value for p in params if p.constexpr and p.name not in waiting}
        values = derive(known, [p.name for p in params if not p.constexpr]) if derive is not None else {}
        for p in pending:
            p.value = values[p.name] if p.name in values else \
                presets.get(p.name) if p.name in presets else _constexpr_value(src, by_name[p.name], defaults, {},
                                                                              scope)
    return params


def _signature_constexpr(p: Param, text: str, i: int, defines: Dict[str, str], pending: List[Param]) -> None:
    """Constexpr ``p``'s value from its entry ``text`` (the ``i``-th) of a signature spelling every parameter."""
    value = _signature_constant(text)
    if value is None:
        bad = CompileError(f"signature entry {i} ('{text}') is constexpr parameter '{p.name}': give its value "
                           f"(a number, True, False, a quoted string or a type as tl.float16)")
        try:
            parse_param_type(text)      # a parameter's type ('i32', '*fp32') where a value belongs
            raise bad
        except ValueError:
            pass
        try:
            value = parse_define(p.name, text)
        except CompileError:
            raise bad from None
    if p.name in defines and parse_define(p.name, defines[p.name]) != value:
        raise CompileError(f"signature entry {i} gives constexpr '{p.name}' the value {value!r}, but "
                           f"-D {p.name}={defines[p.name]} another")
    if p in pending:
        pending.remove(p)
    p.value = value


def _signature_constant(text: str):
    """The value of a signature entry that is a number (``1024``, ``0.5``), else None."""
    if not text.lstrip("+-.")[:1].isdigit():
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return None


def _check_defines(src, args: List[ast.arg], scope, kernel: str, defines: Dict[str, str]) -> None:
    """Every ``-D NAME`` names a parameter (a plain one is specialized to the value, as Triton's ``constants=``);
    a misspelled one is named with its nearest constexpr parameter, before that parameter's missing value is."""
    names = [a.arg for a in args]
    constexprs = [a.arg for a in args if is_constexpr_annotation(a.annotation, scope)]
    for name in defines:
        if name in names:
            continue
        listing = ", ".join(constexprs) or "none"
        import difflib
        near = (difflib.get_close_matches(name, constexprs, n=1, cutoff=0.6)
                or difflib.get_close_matches(name, names, n=1, cutoff=0.6))
        if not near:
            raise CompileError(f"-D {name}: kernel '{kernel}' has no constexpr parameter '{name}' "
                               f"(its constexpr parameters: {listing})")
        at = next(a for a in args if a.arg == near[0])
        raise CompileError(f"-D {name}: kernel '{kernel}' has no constexpr parameter '{name}'; did you mean "
                           f"`{near[0]}`? (-D {near[0]}={defines[name]})", src.loc(at),
                           notes=[f"its constexpr parameters: {listing}"])


def _constexpr_value(src, arg: ast.arg, defaults, defines, scope):
    if arg.arg in defines:
        return parse_define(arg.arg, defines[arg.arg])
    if arg.arg in defaults:
        d = defaults[arg.arg]
        if isinstance(d, ast.Constant) and (isinstance(d.value, str) or d.value is None):
            return d.value                       # ACTIVATION: tl.constexpr = "relu"; BIAS: tl.constexpr = None
        try:
            return const_eval(defaults[arg.arg], scope)
        except (NotConstant, TypeError):
            found = resolve_static(defaults[arg.arg], scope)  # DT: tl.constexpr = tl.float16
            if isinstance(found, Type):
                return found
            raise CompileError(f"the default value of constexpr '{arg.arg}' is not a constant",
                               src.loc(defaults[arg.arg])) from None
    raise CompileError(f"constexpr '{arg.arg}' has no value; pass it with -D {arg.arg}=<value>", src.loc(arg))
