"""Passes about where data lives between DRAM and local memory, one per file: ``reuse-loads``
(``reuse_loads.py``: a block two loops read is moved from DRAM once and kept in local memory)."""
from mtiacc.opt.memory import reuse_loads  # noqa: F401  (registers the pass)
