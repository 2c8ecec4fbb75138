"""What the language layer may ask of the AST visitor: the :class:`LoweringContext` interface.

The builtins (``tl.*``) build IR through the :class:`~mtiacc.frontend.language.semantic.Semantic` they
receive as their first argument and never import the visitor.  A few of them must lower user
code: ``tl.reduce`` and ``tl.associative_scan`` call a ``@triton.jit`` combine function.  They do
it through ``sem.lowering``, an object with this interface, which the visitor hands to the
``Semantic`` it creates (as Triton's code generator hands itself to the builtins that need it).
The visitor (``visitor/lowering.py``) implements it; this module, at the bottom of the frontend,
only declares it.
"""
from __future__ import annotations

from typing import Dict, Protocol, Sequence


class LoweringContext(Protocol):
    """The visitor lowering the current function, as the builtins see it."""

    def call_jit_function(self, fn: object, args: Sequence[object], kwargs: Dict[str, object]) -> object:
        """Call the ``@triton.jit`` function ``fn`` (a :class:`~mtiacc.frontend.values.FunctionRef`
        or :class:`~mtiacc.frontend.values.HelperRef`) with already lowered arguments, at the
        builder's insertion point; returns what it returns (a value, a constant or a tuple)."""
        ...

    def call_jit_elementwise(self, fn: object, args: Sequence[object]) -> object:
        """Call ``fn`` for ``tl.map_elementwise``: as :meth:`call_jit_function`, in element-wise mode (an
        ``if`` on a block condition, in ``fn`` and the functions it calls, selects per element)."""
        ...
