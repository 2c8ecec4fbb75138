"""Passes about matrix products (``tt.dot``), one per file: ``transposed-loads`` (``transposed_loads.py``),
``pipeline-dots`` (``pipeline.py``), ``issue-dots-early`` (``issue_early.py``) and ``dot-accumulators``
(``accumulators.py``)."""
from mtiacc.opt.dots import accumulators, issue_early, pipeline, transposed_loads  # noqa: F401  (registers the passes)
