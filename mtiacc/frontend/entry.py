"""``compile_file``: a Triton source file in, the IR of one kernel out.

The file may also be a :class:`~mtiacc.frontend.source.KernelSource`, one function as a running program holds
it (the Triton backend's): it is compiled as written in its file, located there, with its captured values.
"""
from __future__ import annotations

import ast
import copy
import dataclasses
import os
from typing import Dict, List, Optional, Tuple, Union

from mtiacc.diagnostics import CompileError
from mtiacc.frontend.language.memory.descriptor import host_descriptor
from mtiacc.frontend.language import module_attr
from mtiacc.frontend.source import Global, KernelSource, SourceFile
from mtiacc.frontend.values import FunctionRef, HelperRef, ModuleRef
from mtiacc.frontend.visitor.decorators import Tuning, config_meta, evaluate_heuristics, format_value, read_tuning
from mtiacc.frontend.visitor.imports import Importer, LoadedModule, resolver_for
from mtiacc.frontend.visitor.lowering import FunctionLowering
from mtiacc.frontend.visitor.module_scan import ModuleInfo, decorator_kind, scan_module
from mtiacc.frontend.visitor.params import DescriptorType, Param, resolve_params
from mtiacc.ir import ops
from mtiacc.ir.core import Builder, VerifyError
from mtiacc.ir.types import Type, triton_type_name
from mtiacc.ir.verifier import verify_module


@dataclasses.dataclass
class FrontendResult:
    module: ops.ModuleOp
    kernel: str
    params: List[Param]
    constexprs: Dict[str, Union[int, float, bool]]
    source_file: str
    source_lines: Dict[int, str]
    tuning: Optional[dict] = None   # the chosen autotune config and the heuristics' values (metadata)


def _entry_points(jit: Dict[str, ast.FunctionDef]) -> List[str]:
    """The @triton.jit functions no other one names (calls, or passes as a combine function): with
    helpers beside one kernel in a file, the kernel."""
    used = {n.id for name, fn in jit.items() for n in ast.walk(fn)
            if isinstance(n, ast.Name) and n.id in jit and n.id != name}
    return [name for name in jit if name not in used]


def _choose_kernel(jit: Dict[str, ast.FunctionDef], kernel: Optional[str], path: str) -> ast.FunctionDef:
    names = ", ".join(jit)
    if not jit:
        raise CompileError(f"{path}: no @triton.jit function found")
    if kernel is None:
        roots = _entry_points(jit)
        if len(roots) != 1:
            listed = ", ".join(roots) if roots else names
            raise CompileError(f"{path} has several @triton.jit functions ({listed}); "
                               "choose one with --kernel")
        return jit[roots[0]]
    if kernel not in jit:
        raise CompileError(f"{path} has no @triton.jit function '{kernel}'; available: {names}")
    return jit[kernel]


Unit = Union[str, KernelSource]


class _Units:
    """The :class:`LoadedModule` of a :class:`KernelSource` and of each function it captures (each once): its
    scope is its file's module level (its ``@triton.jit`` functions named as that file's), then its captured
    values; its one function is the text's, tuple parameters flattened."""

    def __init__(self, path: str):
        self.importer = Importer(os.path.dirname(os.path.abspath(path)))
        self.files: Dict[str, Optional[LoadedModule]] = {}
        self.units: Dict[int, LoadedModule] = {}

    def file(self, path: str) -> Optional[LoadedModule]:
        path = os.path.abspath(path)
        if path not in self.files:
            self.files[path] = None
            if os.path.isfile(path):
                src = SourceFile.read(path)
                info = scan_module(src.parse(), resolver=self.importer.resolver(os.path.dirname(path)))
                name = os.path.splitext(os.path.basename(path))[0]
                self.files[path] = LoadedModule(name, path, src, info, self.importer)
        return self.files[path]

    def unit(self, ks: KernelSource) -> LoadedModule:
        if id(ks) in self.units:
            return self.units[id(ks)]
        src = SourceFile(ks.path, ks.text, ks.first_line, ks.indent)
        tree = src.parse()
        fn = tree.body[0] if len(tree.body) == 1 else None
        if not isinstance(fn, ast.FunctionDef) or fn.name != ks.name:
            raise CompileError(f"{ks.path}:{ks.first_line}: the source given for '{ks.name}' is not one function "
                               f"definition of that name")
        scope: Dict[str, object] = {}
        module = self.file(ks.path)
        if module is not None:
            for k, v in module.info.scope.items():
                scope[k] = HelperRef(module, k) if isinstance(v, FunctionRef) and v.jit else v
        # the path keeps helpers of one file apart in a kernel's table of lowered helpers (functions.py)
        unit = LoadedModule(ks.name, f"{ks.path}#{ks.name}:{ks.first_line}", src,
                            ModuleInfo(scope, {ks.name: _flat_params(fn, ks.tuple_params)}), self.importer)
        self.units[id(ks)] = unit
        scope.update({k: self.value(v) for k, v in ks.captured.items()})
        return unit

    def value(self, v):
        """A captured value as the frontend's scope holds it."""
        if isinstance(v, KernelSource):
            return HelperRef(self.unit(v), v.name)
        if isinstance(v, Global):
            module, _, attr = v.dotted.rpartition(".")
            return module_attr(ModuleRef(module), attr, v.dotted) if module else ModuleRef(v.dotted)
        if isinstance(v, tuple):
            return tuple(self.value(x) for x in v)
        return v


def _leaves(name: str, structure) -> List[str]:
    if not isinstance(structure, (tuple, list)):
        return [name]
    return [leaf for i, s in enumerate(structure) for leaf in _leaves(f"{name}__{i}", s)]


def _flat_params(fn: ast.FunctionDef, tuple_params) -> ast.FunctionDef:
    """``fn`` with each tuple parameter as its leaves' parameters (see :class:`KernelSource`)."""
    if not tuple_params:
        return fn
    args = []
    for a in fn.args.args:
        if a.arg in tuple_params:
            args += [ast.copy_location(ast.arg(leaf), a) for leaf in _leaves(a.arg, tuple_params[a.arg])]
        else:
            args.append(a)
    out = copy.copy(fn)
    out.args = copy.copy(fn.args)
    out.args.args = args
    return out


def _tuple_value(name: str, structure, values: Dict[str, object]):
    if not isinstance(structure, (tuple, list)):
        return values[name]
    return tuple(_tuple_value(f"{name}__{i}", s, values) for i, s in enumerate(structure))


def _read_unit(unit: Unit) -> Tuple[SourceFile, ast.Module, ModuleInfo, str]:
    """(source, tree, module level, path) of a file or a :class:`KernelSource`."""
    if isinstance(unit, KernelSource):
        module = _Units(unit.path).unit(unit)
        return module.src, ast.Module(body=list(module.info.jit_functions.values()), type_ignores=[]), \
            module.info, unit.path
    src = SourceFile.read(unit)
    tree = src.parse()
    return src, tree, scan_module(tree, resolver=resolver_for(unit)), unit


def choose_kernel_def(path: Unit, kernel: Optional[str] = None):
    """``(function definition, module scope)`` of kernel ``kernel`` of ``path`` (the file parsed, never run)."""
    _, _, info, where = _read_unit(path)
    return _choose_kernel(info.jit_functions, kernel, where), info.scope


def _check_tuned_functions(src: SourceFile, info) -> None:
    for name, deco in info.tuned_without_jit.items():
        kind = decorator_kind(deco, info.scope)
        raise CompileError(f"@triton.{kind} decorates '{name}', which is not a @triton.jit function; put "
                           f"@triton.jit directly above `def {name}`", src.loc(deco))


def read_kernel_tuning(path: str, kernel: Optional[str] = None) -> Tuning:
    """A kernel's autotune configs and heuristics, read without compiling it (``--list-configs``)."""
    src = SourceFile.read(path)
    tree = src.parse()
    info = scan_module(tree, resolver=resolver_for(path))
    _check_tuned_functions(src, info)
    fn = _choose_kernel(info.jit_functions, kernel, path)
    return read_tuning(src, fn, info.scope, tree)


def compile_file(path: Unit, kernel: Optional[str] = None, defines: Optional[Dict[str, str]] = None,
                 signature: Optional[str] = None, config: Optional[int] = None) -> FrontendResult:
    """Parse ``path`` (never importing it) and lower one ``@triton.jit`` function to IR.  ``config``
    chooses one of its ``@triton.autotune`` configs (default: the first).  ``path`` may be a
    :class:`KernelSource` (without decorators: its caller chose its config)."""
    if isinstance(path, KernelSource):
        try:
            return _compile(*_read_unit(path), kernel, defines, signature, config, path.tuple_params)
        except CompileError as e:
            _quote_source(e, path)
            raise
    return _compile(*_read_unit(path), kernel, defines, signature, config, {})


def _quote_source(e: CompileError, ks: KernelSource) -> None:
    """The source line of an error in ``ks`` is the text's (a patched function's is not its file's)."""
    loc = e.loc
    if e.source_line is None and loc is not None and loc.file == ks.path and loc.line is not None:
        i = loc.line - ks.first_line
        lines = ks.text.splitlines()
        if 0 <= i < len(lines):
            e.source_line = " " * ks.indent + lines[i] if lines[i] else ""


def _compile(src: SourceFile, tree: ast.Module, info: ModuleInfo, path: str, kernel, defines, signature, config,
             tuple_params) -> FrontendResult:
    _check_tuned_functions(src, info)
    fn = _choose_kernel(info.jit_functions, kernel, path)
    tuning = read_tuning(src, fn, info.scope, tree)
    chosen = tuning.choose(config)
    defines = dict(defines or {})
    heuristics: Dict[str, object] = {}

    def derive(known, runtime_names):
        names = [a.arg for a in fn.args.posonlyargs + fn.args.args]
        heuristics.update(evaluate_heuristics(src, tuning, chosen, known, names, list(defines)))
        return heuristics

    params = resolve_params(src, fn, info.scope, fn.name, defines, signature,
                            presets=chosen.kwargs if chosen is not None else None,
                            derived=[h.name for h in tuning.heuristics], derive=derive)
    summary = None
    if chosen is not None or heuristics:
        summary = {}
        if chosen is not None:
            summary["config"] = config_meta(chosen, config or 0, len(tuning.configs))
        if heuristics:
            summary["heuristics"] = {k: format_value(v) if isinstance(v, Type) else v for k, v in heuristics.items()}

    runtime = [p for p in params if not p.constexpr]
    types, names = [], []
    for p in runtime:      # a host descriptor takes several slots: its base pointer, shape and strides
        desc = isinstance(p.type, DescriptorType)
        types += p.type.slot_types() if desc else [p.type]
        names += p.type.slot_names(p.name) if desc else [p.name]
    module = ops.ModuleOp.get()
    func = ops.FuncOp.get(fn.name, types, names, loc=src.loc(fn))
    module.body.block.append(func)

    lowering = FunctionLowering(src, info, Builder(func.entry, src.loc(fn)))
    args = iter(func.args)
    for p in params:
        if p.constexpr:
            lowering.locals[p.name] = p.value
        elif isinstance(p.type, DescriptorType):
            n = len(p.type.block)
            slots = [next(args) for _ in range(1 + 2 * n)]
            lowering.locals[p.name] = host_descriptor(slots[0], slots[1:1 + n], slots[1 + n:], p.type.block)
        else:
            lowering.locals[p.name] = next(args)
    for name, structure in tuple_params.items():   # a tuple parameter is the tuple of its leaves
        lowering.locals[name] = _tuple_value(name, structure, lowering.locals)
    lowering.visit_body(fn.body)
    if not lowering.returned:
        lowering.builder.loc = src.loc(fn)
        lowering.builder.insert(ops.ReturnOp.get())

    try:
        verify_module(module)
    except VerifyError as e:  # the frontend built invalid IR: our bug, not the user's
        raise CompileError(f"internal compiler error: invalid IR from the frontend: {e.message}", e.loc) from e

    return FrontendResult(
        module=module, kernel=fn.name, params=params,
        constexprs={p.name: triton_type_name(p.value) if isinstance(p.value, Type) else p.value  # DT=fp16
                    for p in params if p.constexpr},
        source_file=path, source_lines=src.lines_of(fn), tuning=summary)
