"""``compile_file``: a Triton source file in, the IR of one kernel out."""
from __future__ import annotations

import ast
import dataclasses
from typing import Dict, List, Optional, Union

from mtiacc.diagnostics import CompileError
from mtiacc.frontend.language.memory.descriptor import host_descriptor
from mtiacc.frontend.source import SourceFile
from mtiacc.frontend.visitor.decorators import Tuning, config_meta, evaluate_heuristics, format_value, read_tuning
from mtiacc.frontend.visitor.imports import resolver_for
from mtiacc.frontend.visitor.lowering import FunctionLowering
from mtiacc.frontend.visitor.module_scan import decorator_kind, scan_module
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


def choose_kernel_def(path: str, kernel: Optional[str] = None):
    """``(function definition, module scope)`` of kernel ``kernel`` of ``path`` (the file parsed, never run)."""
    src = SourceFile.read(path)
    info = scan_module(src.parse(), resolver=resolver_for(path))
    return _choose_kernel(info.jit_functions, kernel, path), info.scope


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


def compile_file(path: str, kernel: Optional[str] = None, defines: Optional[Dict[str, str]] = None,
                 signature: Optional[str] = None, config: Optional[int] = None) -> FrontendResult:
    """Parse ``path`` (never importing it) and lower one ``@triton.jit`` function to IR.  ``config``
    chooses one of its ``@triton.autotune`` configs (default: the first)."""
    src = SourceFile.read(path)
    tree = src.parse()
    info = scan_module(tree, resolver=resolver_for(path))
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
