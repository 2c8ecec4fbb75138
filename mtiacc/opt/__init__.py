"""The optimizer: a pass manager, one pass per file, and the named pipelines of ``-O0`` .. ``-O3``."""
from mtiacc.opt.pass_manager import (PASSES, ModulePass, PassRun, parse_pipeline, register_pass,
                                     run_pipeline)
from mtiacc.opt.pipelines import PIPELINES, pipeline_for_level
# Importing the passes registers them.
from mtiacc.opt import canonicalize, cse, dce  # noqa: E402,F401

__all__ = ["run_pipeline", "parse_pipeline", "pipeline_for_level", "PIPELINES", "PASSES",
           "ModulePass", "PassRun", "register_pass"]
