"""Builtins that reach memory beyond ``tl.load`` / ``tl.store``: atomics, block pointers and tensor
descriptors.  Each module has a ``LANGUAGE`` table (``tl.<name>``) and a ``METHODS`` table
(``x.<name>(...)``); this package merges them for :mod:`mtiacc.frontend.language`.
"""
from __future__ import annotations

from typing import Dict

from mtiacc.frontend.language.memory import atomics

LANGUAGE: Dict[str, object] = dict(atomics.LANGUAGE)
METHODS: Dict[str, object] = dict(atomics.METHODS)
