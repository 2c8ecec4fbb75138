"""Building small functions by hand."""
from mtiacc.ir import ops
from mtiacc.ir.core import Builder


def make_func(arg_types=(), names=None, name="k"):
    """A module with one function; returns (module, func, builder at the function's entry)."""
    module = ops.ModuleOp.get()
    names = names or [f"a{i}" for i in range(len(arg_types))]
    func = ops.FuncOp.get(name, list(arg_types), names)
    module.body.block.append(func)
    return module, func, Builder(func.entry)


def emit(builder, op):
    builder.insert(op)
    return op.result if len(op.results) == 1 else op


def ret(builder):
    builder.insert(ops.ReturnOp.get())
