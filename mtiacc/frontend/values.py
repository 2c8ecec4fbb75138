"""What a name or an expression can stand for in a kernel, besides run-time values and constants.

A frontend value is one of: an IR ``Value`` (run time), a Python ``bool``/``int``/``float``
(constexpr), ``None``, a ``str`` or a tuple of those (only as arguments), an IR ``Type``
(``tl.float32``), or one of the reference objects below.
"""
from __future__ import annotations

import dataclasses
from typing import Callable

from mtiacc.diagnostics import CompileError


@dataclasses.dataclass(frozen=True)
class ModuleRef:
    """An imported module: ``triton``, ``triton.language``, or a foreign one (``numpy``)."""

    qualname: str

    @property
    def description(self) -> str:
        return f"the module `{self.qualname}`"


@dataclasses.dataclass(frozen=True)
class Builtin:
    """A language function (``tl.load``) implemented by ``impl(ctx, *args, **kwargs)``."""

    qualname: str
    impl: Callable

    @property
    def description(self) -> str:
        return f"the function `{self.qualname}`"


@dataclasses.dataclass(frozen=True)
class Marker:
    """A name with a meaning but no value: ``triton.jit``, ``tl.constexpr``, ``triton.autotune``."""

    qualname: str

    @property
    def description(self) -> str:
        return f"`{self.qualname}`"


@dataclasses.dataclass(frozen=True)
class Unsupported:
    """A Triton name this compiler does not implement yet (``tl.dot``), or (``missing``) a name that does not
    exist at all (``tl.arnge``)."""

    qualname: str
    hint: str = ""  # e.g. "did you mean `tl.maximum`?" for a name Triton does not export either
    reason: str = ""  # the whole message, for a name this target will not support (`tl.dot_scaled`)
    missing: bool = False  # Triton has no such name either: a typo


@dataclasses.dataclass(frozen=True)
class ForeignRef:
    """Something from a module other than triton (``np.float32``, ``torch``)."""

    qualname: str


@dataclasses.dataclass(frozen=True)
class FunctionRef:
    """A function defined in the file; ``jit`` tells whether it is a ``@triton.jit`` function."""

    name: str
    jit: bool


@dataclasses.dataclass(frozen=True, eq=False)
class HelperRef:
    """A ``@triton.jit`` function of another module of the user's project (``from mylib import f``)."""

    module: object  # the LoadedModule it is defined in (visitor/imports.py)
    name: str

    @property
    def description(self) -> str:
        return f"the function `{self.module.name}.{self.name}`"


def is_jit_function(x) -> bool:
    """Whether ``x`` names a ``@triton.jit`` function, of this file or of another module."""
    return isinstance(x, HelperRef) or (isinstance(x, FunctionRef) and x.jit)


@dataclasses.dataclass(frozen=True)
class NonConstantGlobal:
    """A module-level name whose value is not a compile-time constant."""

    name: str


@dataclasses.dataclass(frozen=True)
class BoundMethod:
    """``x.to`` before the call: a method of a run-time value."""

    name: str
    receiver: object
    impl: Callable


def check_supported(v, spelled: str) -> None:
    """Report a name that cannot be used in a kernel, where it is used."""
    if isinstance(v, Unsupported):
        if v.reason:
            raise CompileError(v.reason)
        if v.missing:
            module = v.qualname.rpartition(".")[0]
            raise CompileError(f"`{v.qualname}` does not exist" + (f"; {v.hint}" if v.hint else
                                                                   f" (`{module}` has no such name)"))
        raise CompileError(f"`{v.qualname}` is not supported yet" + (f"; {v.hint}" if v.hint else ""))
    if isinstance(v, ForeignRef):
        raise CompileError(f"`{spelled}` ({v.qualname}) cannot be used inside a kernel")


JIT = Marker("triton.jit")
CONSTEXPR = Marker("triton.language.constexpr")


class Aggregate:
    """A value made of several run-time parts under a compile-time structure: a block pointer
    (``tl.make_block_ptr``) or a tensor descriptor (``tl.make_tensor_descriptor``).

    ``parts()`` are its parts in order, each an IR value or a constant; ``with_parts`` rebuilds it
    from new parts of the same structure; ``key()`` is the structure (element type, block shape ...).
    A call to a ``@triton.jit`` helper passes and returns every run-time part.  A loop or an ``if``
    carries only the parts at the indices ``carried`` (a block pointer's offsets): the others must
    be the very same values at the end of the body or in both branches.
    """

    carried: tuple = ()
    description = "an aggregate"

    def parts(self) -> tuple:
        raise NotImplementedError

    def with_parts(self, parts) -> "Aggregate":
        raise NotImplementedError

    def key(self) -> tuple:
        raise NotImplementedError

    def same_fixed_parts(self, other) -> bool:
        """Whether ``other`` has this structure and the same parts outside ``carried``."""
        if type(other) is not type(self) or other.key() != self.key():
            return False
        for i, (a, b) in enumerate(zip(self.parts(), other.parts())):
            if i in self.carried or a is b:
                continue
            if type(a) is not type(b) or not isinstance(a, (bool, int, float)) or a != b:
                return False
        return True
