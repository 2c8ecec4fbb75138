"""The named pipelines behind ``-O0`` .. ``-O3``, and the passes every compile runs around them: the one
place that says what runs.

IR passes run on the IR after the frontend; ``machine-*`` passes run in codegen, on the machine code
after register allocation (``--disable-pass`` reaches both).

A compile (``mtiacc FILE.py``) runs more than the optimizations: code generation needs the IR in a
certain shape, and the passes that give it that shape are ordinary passes, fixed around the level's
pipeline (or the ``--passes`` one) so that ``--dump-pipeline``, ``--print-ir-*`` and ``--time-passes``
show them like any other:

* ``REQUIRED_PREFIX`` runs first: ``inline`` (codegen lowers one function, so inlining is how calls
  compile) and ``carry-pointer-offsets`` (codegen keeps pointer blocks as structure, not as loop-carried
  data), so the optimizations see the kernel as codegen will;
* ``REQUIRED_TAIL`` runs last among the IR passes, just before instruction selection:
  ``dot-accumulators`` (which dots keep their accumulator in the matrix engine across a loop, decided on
  the loops as the optimizations left them, ``pipeline-dots`` included), ``access-plan`` (how each load and store moves, recorded on the op for codegen to read; after every
  pass that could change an access) and ``legalize-fp8`` (fp8 values become bytes; no optimization should
  see them so; an encoding, which changes no access).

``-O3`` is the default of every entry path (``mtiacc.driver.Options.opt_level``: the CLI, ``mtiacc.compile``
and ``mtiacc.load``, the Triton backend, ``torch.compile``): it is the pipeline that reaches the roofline.
``-O2`` leaves out ``loop-unroll``, ``persistent-programs``, ``keep-invariant`` and ``prefetch-rows`` (a
faster compile of a slower kernel: docs/passes.md, "The default level").  At ``-O3`` a compile runs
``inline,carry-pointer-offsets,contract-fma,canonicalize,..,dce,dot-accumulators,access-plan,
legalize-fp8,machine-peephole,machine-schedule`` and at ``-O0``
``inline,carry-pointer-offsets,contract-fma,split-dots,band-accumulators,stream-blocks,dot-accumulators,access-plan,legalize-fp8``.  The
required passes cannot be disabled (``--disable-pass=inline`` is an error).  A ``--passes`` pipeline names
none of them (they are added) or all of them at their places, as ``--dump-pipeline`` prints them, so that
its output can be given back to ``--passes``.  ``--emit=ir`` shows every decision the compiler made
before instruction selection, so it stops after ``access-plan`` and before ``CODEGEN_ONLY``
(``legalize-fp8``: the byte encoding of fp8 values, which ``--print-ir-after=legalize-fp8`` shows).  ``mtiacc opt`` (IR in, IR out) runs only the passes it is
given: a level there is the level's optimizations.
"""
from __future__ import annotations

from typing import List, Sequence, Tuple

from mtiacc.diagnostics import UsageError
from mtiacc.opt.pass_manager import PASSES, ModulePass, is_machine, parse_pipeline, spell_pipeline

PIPELINES = {
    0: "contract-fma,split-dots,band-accumulators,stream-blocks",
    1: "contract-fma,canonicalize,dce,split-dots,band-accumulators,stream-blocks,transposed-loads,pipeline-dots,pipeline-loads,issue-dots-early,dce,machine-peephole",
    2: "contract-fma,canonicalize,sccp,cse,split-dots,band-accumulators,stream-blocks,licm,canonicalize,transposed-loads,pipeline-dots,fuse-elementwise,reuse-loads,"
       "pipeline-loads,issue-dots-early,dce,machine-peephole,machine-schedule",
    3: "contract-fma,canonicalize,sccp,loop-unroll,canonicalize,cse,split-dots,band-accumulators,stream-blocks,licm,canonicalize,transposed-loads,pipeline-dots,fuse-elementwise,"
       "reuse-loads,"
       "persistent-programs,licm,keep-invariant,prefetch-rows,pipeline-loads,issue-dots-early,dce,machine-peephole,machine-schedule",
}

# contract-fma opens every level's pipeline: whether a * b + c is rounded once is the compile's numerics (Triton's
# enable_fp_fusion, mtiacc --no-fp-fusion), not its optimization level, so it is decided on the expressions as the
# frontend built them, before any optimization could make a product shared or private.

# What code generation needs, at every level (see the module docstring), in the order they run.
REQUIRED_PREFIX = ["inline", "carry-pointer-offsets"]
REQUIRED_TAIL = ["dot-accumulators", "access-plan", "legalize-fp8"]
CODEGEN_ONLY = ("legalize-fp8",)   # the end of the tail that --emit=ir does not run


def pipeline_for_level(level: int, codegen: bool = False) -> str:
    """The pipeline string of optimization level ``level`` (0 to 3); with ``codegen``, as a compile runs
    it, the required passes included (what ``mtiacc --dump-pipeline -O<level>`` prints)."""
    if level not in PIPELINES:
        raise UsageError(f"unknown optimization level -O{level} (expected -O0 to -O3)")
    if codegen:
        return spell_pipeline(for_codegen(parse_pipeline(PIPELINES[level])))
    return PIPELINES[level]


def for_codegen(passes: Sequence[ModulePass], disabled: Sequence[str] = ()) -> List[ModulePass]:
    """``passes`` (a level's pipeline or ``--passes``, after ``--disable-pass``) as a compile runs them:
    ``REQUIRED_PREFIX``, their IR passes, ``REQUIRED_TAIL``, their machine passes.  ``disabled`` is checked:
    a required pass cannot be disabled."""
    required = REQUIRED_PREFIX + REQUIRED_TAIL
    for name in disabled:
        if name in required:
            raise UsageError(f"--disable-pass: '{name}' cannot be disabled: code generation needs it "
                            f"(every compile runs {_required_text()})")
    ir = [p for p in passes if not is_machine(p)]
    machine = [p for p in passes if is_machine(p)]
    names = [p.name for p in ir]
    named = [n for n in names if n in required]
    if not named:
        return [PASSES[n]() for n in REQUIRED_PREFIX] + ir + [PASSES[n]() for n in REQUIRED_TAIL] + machine
    head, tail = names[:len(REQUIRED_PREFIX)], names[len(names) - len(REQUIRED_TAIL):]
    if head != REQUIRED_PREFIX or tail != REQUIRED_TAIL or len(named) != len(required):
        raise UsageError(f"pipeline '{spell_pipeline(passes)}': '{named[0]}' runs in every compile at a fixed "
                        f"place ({_required_text()}): name none of these passes (they are added) or all of them "
                        "there, as --dump-pipeline prints them")
    return ir + machine


def split_tail(passes: Sequence[ModulePass]) -> Tuple[List[ModulePass], List[ModulePass], List[ModulePass]]:
    """A compile pipeline (:func:`for_codegen`) in its three stages: (the IR passes ``--emit=ir`` shows the
    result of, the ``CODEGEN_ONLY`` end of the tail, the machine passes)."""
    ir = [p for p in passes if not is_machine(p)]
    n = len(ir)
    while n and ir[n - 1].name in CODEGEN_ONLY:
        n -= 1
    return ir[:n], ir[n:], [p for p in passes if is_machine(p)]


def _required_text() -> str:
    return f"{','.join(REQUIRED_PREFIX)} first and {','.join(REQUIRED_TAIL)} last"
