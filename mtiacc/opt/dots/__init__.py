"""Passes about matrix products (``tt.dot``), one per file: ``pipeline-dots`` (``pipeline.py``) and
``dot-accumulators`` (``accumulators.py``)."""
from mtiacc.opt.dots import accumulators, pipeline  # noqa: F401  (registers the passes)
