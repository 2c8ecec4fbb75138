"""Passes that reshape loops for the machine, one per file: ``pipeline-loads`` (``pipeline_loads.py``)."""
from mtiacc.opt.loops import pipeline_loads  # noqa: F401  (registers the pass)
