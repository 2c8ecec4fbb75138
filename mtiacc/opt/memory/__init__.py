"""Passes about where data lives between DRAM and local memory, one per file: ``reuse-loads``
(``reuse_loads.py``: a block two loops read is moved from DRAM once and kept in local memory) and
``keep-invariant`` (``keep_invariant.py``: a tile every program of a persistent slot loads alike is moved
once per slot) and ``prefetch-rows`` (``prefetch_rows.py``: that kept row fetched whole while the previous
program of the slot computes) and ``split-dots`` (``split_dots.py``: a dot too big for local memory computed in
sub-tiles that fit), ``band-accumulators`` (``band_accumulators.py``: a K loop run once per band of its result) and
``stream-blocks`` (``stream_blocks.py``, with ``reblock.py``: one-dimensional blocks streamed in chunks, column
loops in trips of fewer columns); ``plan.py`` is the plan they ask and ``backoff.py`` the driver's second run of the
passes when the plan as they left it does not fit."""
from mtiacc.opt.memory import keep_invariant, prefetch_rows, reuse_loads, split_dots, stream_blocks, band_accumulators  # noqa: F401  (registers the passes)
