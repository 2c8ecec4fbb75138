"""Builtins that reach memory beyond ``tl.load`` / ``tl.store``: atomics, block pointers and tensor
descriptors.  Each module has a ``LANGUAGE`` table (``tl.<name>``) and a ``METHODS`` table
(``x.<name>(...)``); this package merges them for :mod:`mtiacc.frontend.language`.

The modules never import each other; what they share is in helpers: ``boxes`` (an N-d box as a pointer
block and its bounds mask: block pointers, ``block_ptr``, and tensor descriptors, ``descriptor``) and
``rmw`` (the atomics' type rules and ops: ``atomics`` and the descriptors' atomics).
"""
from __future__ import annotations

from typing import Dict

from mtiacc.frontend.language.memory import atomics, block_ptr, descriptor

LANGUAGE: Dict[str, object] = {}
METHODS: Dict[str, object] = {}
for _module in (atomics, block_ptr, descriptor):
    LANGUAGE.update(_module.LANGUAGE)
    METHODS.update(_module.METHODS)
