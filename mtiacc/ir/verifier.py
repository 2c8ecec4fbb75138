"""``verify_module``: every op's own checks, block structure, and SSA dominance.

Dominance here is the straight-line rule: an operand is a block argument of its block or an
enclosing block, or the result of an op earlier in its block or before the enclosing op in an
enclosing block.
"""
from __future__ import annotations

from typing import List, Set

from mtiacc.ir.core import Block, Operation, Terminator, VerifyError
from mtiacc.ir.ops import FuncOp, ModuleOp, ReturnOp


def _verify_block(block: Block, visible: Set[int], funcs: List[FuncOp]) -> None:
    """Verify ``block``'s ops; ``visible``: the ids of the values defined where the block is (the block adds its
    own while it is checked and takes them out after, so one set serves the whole function); ``funcs`` gathers the
    functions met, in pre-order, for the checks that follow."""
    added = [id(a) for a in block.args if id(a) not in visible]
    visible.update(added)
    try:
        _verify_ops(block, visible, added, funcs)
    finally:
        visible.difference_update(added)


def _verify_ops(block: Block, visible: Set[int], added: list, funcs: List[FuncOp]) -> None:
    last = len(block.ops) - 1
    for i, op in enumerate(block.ops):
        if op.parent is not block:
            raise VerifyError(f"'{op.name}' op is in a block that is not its parent", op.loc)
        for index, v in enumerate(op.operands):
            if id(v) not in visible:
                raise VerifyError(f"'{op.name}' op operand #{index} is used before it is defined "
                                  "(or is not defined in this scope)", op.loc)
            for u in v.uses:
                if u.op is op and u.index == index:
                    break
            else:
                raise VerifyError(f"'{op.name}' op operand #{index} is missing from its value's uses", op.loc)
        if i != last and Terminator in op.traits:
            raise VerifyError(f"'{op.name}' op must be the last op of its block", op.loc)
        op.verify()
        if isinstance(op, FuncOp):
            funcs.append(op)
        for r in op.regions:
            if r.parent is not op:
                raise VerifyError(f"'{op.name}' op has a region whose parent is another op", op.loc)
            for b in r.blocks:
                _verify_block(b, visible, funcs)
        for r in op.results:
            if id(r) not in visible:
                visible.add(id(r))
                added.append(id(r))


def _verify_func(func: FuncOp) -> None:
    block = func.entry
    types = tuple(a.type for a in block.args)
    if types != func.function_type.inputs:
        raise VerifyError(f"'tt.func' op entry block arguments ({', '.join(map(str, types))}) do not match "
                          f"the function type {func.function_type}", func.loc)
    if func.arg_names and len(func.arg_names) != len(block.args):
        raise VerifyError(f"'tt.func' op has {len(func.arg_names)} argument names for "
                          f"{len(block.args)} arguments", func.loc)
    term = block.terminator
    if not isinstance(term, ReturnOp):
        raise VerifyError(f"'tt.func' op '{func.sym_name}' must end with 'tt.return'", func.loc)
    rtypes = tuple(v.type for v in term.values)
    if rtypes != func.function_type.outputs:
        raise VerifyError("'tt.return' op returns (" + ", ".join(map(str, rtypes)) + ") but the function "
                          f"type is {func.function_type}", term.loc)


def verify_op(op: Operation) -> None:
    """Verify ``op`` and everything nested in it."""
    op.verify()
    funcs: List[FuncOp] = [op] if isinstance(op, FuncOp) else []
    for r in op.regions:
        for b in r.blocks:
            _verify_block(b, set(), funcs)
    for func in funcs:        # every function nested in ``op``, in pre-order (as op.walk() meets them)
        _verify_func(func)


def verify_module(module: ModuleOp) -> None:
    """Raise :class:`VerifyError` (a CompileError, with the op's location) on the first problem."""
    if not isinstance(module, ModuleOp):
        raise VerifyError(f"expected a builtin.module, got '{getattr(module, 'name', module)}'")
    for op in module.body.block.ops:
        if not isinstance(op, FuncOp):
            raise VerifyError(f"'{op.name}' op cannot appear at module level (only tt.func)", op.loc)
    verify_op(module)
