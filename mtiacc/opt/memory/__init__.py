"""Passes about where data lives between DRAM and local memory, one per file: ``reuse-loads``
(``reuse_loads.py``: a block two loops read is moved from DRAM once and kept in local memory) and
``keep-invariant`` (``keep_invariant.py``: a tile every program of a persistent slot loads alike is moved
once per slot)."""
from mtiacc.opt.memory import keep_invariant, reuse_loads  # noqa: F401  (registers the passes)
