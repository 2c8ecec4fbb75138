"""Passes that reshape loops for the machine, one per file: ``persistent-programs``
(``persistent_programs.py``) and ``pipeline-loads`` (``pipeline_loads.py``)."""
from mtiacc.opt.loops import persistent_programs, pipeline_loads  # noqa: F401  (register the passes)
