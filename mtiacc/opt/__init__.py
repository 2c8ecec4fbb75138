"""The optimizer: a pass manager, one pass per file, and the named pipelines of ``-O0`` .. ``-O3``."""
from mtiacc.opt.pass_manager import (PASSES, Instrumentation, MachinePass, ModulePass, PassContext, PassRun, Remark,
                                     PassVerifyError, SpillRemarkError, is_machine,
                                     parse_pipeline, register_pass, remove_disabled, run_machine_passes,
                                     run_pipeline, spell_pipeline)
from mtiacc.opt.pipelines import (CODEGEN_ONLY, PIPELINES, REQUIRED_PREFIX, REQUIRED_TAIL, for_codegen,
                                   pipeline_for_level, split_tail)
# Importing the passes registers them (the machine passes' code lives in codegen).
from mtiacc.opt import axis_info, canonicalize, cse, dce, licm, loop_unroll, machine, sccp  # noqa: E402,F401
from mtiacc.opt import dots, fuse_elementwise, loops, memory, numerics  # noqa: E402,F401
# the passes every compile runs (pipelines.REQUIRED_PREFIX, REQUIRED_TAIL)
from mtiacc.opt import access_plan, carried_ptrs, inline, legalize_fp8  # noqa: E402,F401

__all__ = ["PassContext", "Remark", "SpillRemarkError", "run_pipeline", "parse_pipeline", "pipeline_for_level", "PIPELINES", "PASSES",
           "ModulePass", "MachinePass", "PassRun", "register_pass", "Instrumentation", "is_machine",
           "remove_disabled", "run_machine_passes", "spell_pipeline", "for_codegen", "split_tail",
           "REQUIRED_PREFIX", "REQUIRED_TAIL", "CODEGEN_ONLY"]
