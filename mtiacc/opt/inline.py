"""``inline``: replace every ``tt.call`` by a copy of the callee's body, then drop the helpers.

Codegen lowers exactly one function, so every compile runs this pass, at every optimization level,
``-O0`` included (``REQUIRED_PREFIX`` in ``mtiacc/opt/pipelines.py``): here inlining is not an
optimization but how calls are compiled.  (It runs first, so that the other passes see the kernel with
its helpers in place.)

Callees are inlined bottom-up (a helper's own calls first); a call cycle is an error.  Helpers are
the functions marked ``sym_visibility = "private"`` (the frontend marks every function but the
kernel); once nothing calls them they are erased.  Inlined ops keep their own source locations, so
the line table still points into the helper's source.
"""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Set

from mtiacc.diagnostics import CompileError
from mtiacc.ir.core import Block, Operation, Region, Value
from mtiacc.ir.ops import FuncOp, ModuleOp, ReturnOp
from mtiacc.ir.scf import CallOp
from mtiacc.opt.pass_manager import ModulePass, register_pass


def clone_regions(op: Operation, mapping: Dict[int, Value]) -> List[Region]:
    """Copies of ``op``'s regions, their block arguments and ops added to ``mapping`` (id -> value)."""
    regions = []
    for r in op.regions:
        new_r = Region()
        for b in r.blocks:
            nb = Block([a.type for a in b.args], [a.name_hint for a in b.args])
            for a, na in zip(b.args, nb.args):
                mapping[id(a)] = na
            new_r.add_block(nb)
            for nested in b.ops:
                nb.append(clone_op(nested, mapping))
        regions.append(new_r)
    return regions


def clone_op(op: Operation, mapping: Dict[int, Value]) -> Operation:
    """A copy of ``op`` (and its regions) whose operands go through ``mapping`` (id -> value)."""
    regions = clone_regions(op, mapping)
    new = type(op)([mapping.get(id(v), v) for v in op.operands], [r.type for r in op.results],
                   dict(op.attrs), loc=op.loc, regions=regions, segments=op.segments)
    for old, r in zip(op.results, new.results):
        r.name_hint = old.name_hint
        mapping[id(old)] = r
    return new


def _calls(op: Operation) -> List[CallOp]:
    return [o for o in op.walk() if isinstance(o, CallOp)]


def inline_call(call: CallOp, callee: FuncOp) -> None:
    entry = callee.entry
    mapping: Dict[int, Value] = {id(a): v for a, v in zip(entry.args, call.args)}
    block = call.parent
    for op in entry.ops:
        if isinstance(op, ReturnOp):
            for r, v in zip(call.results, op.values):
                r.replace_all_uses_with(mapping.get(id(v), v))
            break
        block.insert_before(call, clone_op(op, mapping))
    call.erase()


def inline_module(module: ModuleOp) -> bool:
    """Inline every call and erase the helpers; whether anything changed."""
    funcs = {f.sym_name: f for f in module.funcs}
    done: Set[str] = set()
    inlined: List[CallOp] = []

    def process(func: FuncOp, stack: List[str]) -> None:
        if func.sym_name in done:
            return
        for call in _calls(func):
            callee = funcs.get(call.callee)
            if callee is None:
                raise CompileError(f"call to unknown function '{call.callee}'", call.loc)
            if callee.sym_name in stack or callee is func:
                cycle = " -> ".join(stack + [func.sym_name, callee.sym_name])
                raise CompileError(f"recursive calls are not supported ({cycle})", call.loc)
            process(callee, stack + [func.sym_name])
            inline_call(call, callee)
            inlined.append(call)
        done.add(func.sym_name)

    for f in list(funcs.values()):
        process(f, [])
    helpers = [f for f in funcs.values() if f.attrs.get("sym_visibility") == "private"]
    for f in helpers:
        for op in reversed(list(f.walk())):
            if op is not f:
                op.drop_operands()
        f.erase()
    return bool(inlined or helpers)


@register_pass
@dataclasses.dataclass(frozen=True)
class Inline(ModulePass):
    name = "inline"

    def run(self, module: ModuleOp) -> bool:
        return inline_module(module)
