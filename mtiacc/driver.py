"""The compiler pipeline, start to end, in one readable function per stage.

    source --frontend--> IR --passes--> IR --codegen--> asm text --assembler--> ELF bytes

The passes are one pipeline (``mtiacc.opt.pipelines``): the required prefix (``inline``,
``carry-pointer-offsets``), the level's optimizations (or ``--passes``), then the tail
(``access-plan``, ``legalize-fp8``) and, in codegen, the machine passes.  ``--emit=ir`` shows the IR after
``access-plan``: every decision made before instruction selection.
"""
from __future__ import annotations

import ast
import dataclasses
import os
from typing import TYPE_CHECKING, Dict, FrozenSet, List, Optional, Tuple

from mtiacc.diagnostics import UsageError, UserError

if TYPE_CHECKING:     # the target (and the YAML reader under it) is imported when a compile starts
    from mtiacc.target import Target

FORMAT_VERSION = 1


@dataclasses.dataclass
class Options:
    kernel: Optional[str] = None
    defines: Dict[str, str] = dataclasses.field(default_factory=dict)
    signature: Optional[str] = None
    grid: Optional[str] = None
    opt_level: int = 3                 # the default of every entry path (CLI, mtiacc.load/compile, Triton, torch)
    passes: Optional[str] = None       # an explicit pipeline overrides opt_level
    codegen: bool = True               # the pipeline feeds codegen: the required passes are added (not `mtiacc opt`)
    target: Optional[str] = None       # --machine: a built-in machine's name or a machine YAML (None: mtia2i)
    overrides: Tuple[str, ...] = ()    # --set KEY=VALUE: keys of the machine changed for this compile
    disabled_passes: Tuple[str, ...] = ()   # --disable-pass (IR and machine passes)
    verify_each: bool = True
    instrumentation: Optional[object] = None  # mtiacc.opt.Instrumentation: --print-ir-*, --time-passes
    config: Optional[int] = None       # --config: which @triton.autotune config (None: the first)
    num_stages: Optional[int] = None   # the kernel's software-pipelining depth (its config's num_stages)
    fast_math: bool = False            # --fast-math: every math function the SIMD engine has runs on it
    fp_fusion: bool = True             # contract-fma: a * b + c rounded once (Triton's enable_fp_fusion); --no-fp-fusion
    werror_spill: bool = False         # --Werror=spill: a step of the local-memory ladder is an error
    may_alias: Tuple[str, ...] = ()    # --may-alias X,Y: pointer parameters a launch passes shared memory for,
                                       # one "X Y" entry per group (the kernel's may_alias attribute)


@dataclasses.dataclass
class Compilation:
    """Everything a compile produced; later stages are None until they ran."""

    frontend: object
    ir_text: str = ""
    asm_text: str = ""
    binary: bytes = b""
    meta: Optional[dict] = None
    remarks: List[object] = dataclasses.field(default_factory=list)   # mtiacc.opt.Remark: the ladder's steps


def run_frontend(path: str, opts: Options):
    from mtiacc.frontend import compile_file
    if isinstance(path, str):          # else a KernelSource (mtiacc.frontend.source), handed over in memory
        check_source_path(path)
    fe = compile_file(path, kernel=opts.kernel, defines=opts.defines, signature=opts.signature, config=opts.config)
    mark_aliases(fe, opts.may_alias)     # every run of the passes sees it (the back-off runs them again)
    return fe


def written_parameters(path, opts: Options) -> Optional[FrozenSet[str]]:
    """The pointer parameters the kernel may write through, from the frontend's IR alone (None: any may be
    written; ``ir/analysis/pointers.py``): the launcher asks it of a launch that passes shared memory."""
    from mtiacc.ir.analysis.pointers import written_parameters as written
    fe = run_frontend(path, opts)
    return written(next(op for op in fe.module.body.block.ops if getattr(op, "sym_name", None) == fe.kernel))


def check_source_path(path: str) -> None:
    if not os.path.exists(path):
        raise UserError(f"no such file: '{path}'")
    if os.path.isdir(path):
        raise UserError(f"'{path}' is a directory, not a kernel file")


def list_configs(path: str, opts: Options) -> str:
    """``--list-configs``: the kernel's autotune configs (by index) and its heuristics."""
    from mtiacc.frontend.entry import read_kernel_tuning
    check_source_path(path)
    return read_kernel_tuning(path, opts.kernel).describe()


def pipeline_passes(opts: Options) -> list:
    """The passes this compile runs (IR and machine), in order, after --disable-pass: with ``opts.codegen``
    the required passes around the level's pipeline (or --passes), else (`mtiacc opt`) only the pipeline."""
    from mtiacc.opt import for_codegen, parse_pipeline, pipeline_for_level, remove_disabled
    pipeline = opts.passes if opts.passes is not None else pipeline_for_level(opts.opt_level)
    disabled = tuple(opts.disabled_passes) + (() if opts.fp_fusion else ("contract-fma",))
    passes = remove_disabled(parse_pipeline(pipeline), disabled)
    if opts.num_stages is not None:
        passes = [_with_stages(p, opts) for p in passes]
    passes = [_with_slots(p, opts) for p in passes]
    return for_codegen(passes, opts.disabled_passes) if opts.codegen else passes


def _with_stages(p, opts: Options):
    """A config's ``num_stages`` is the kernel's default pipelining depth, as in Triton: ``pipeline-dots``
    and ``pipeline-loads`` use it for the loops without their own ``tl.range(..., num_stages=)``, unless
    the pipeline text sets the pass's ``stages`` itself."""
    if p.name not in ("pipeline-dots", "pipeline-loads", "persistent-programs") or p.user_set("stages"):
        return p
    return p.with_options(stages=max(1, opts.num_stages))


def _with_slots(p, opts: Options):
    """``persistent-programs`` strides over the target's PEs, unless the pipeline text sets ``slots`` itself."""
    if p.name != "persistent-programs" or p.user_set("slots"):
        return p
    from mtiacc.target import load_target
    return p.with_options(slots=load_target(opts.target, opts.overrides).n_pes)


def run_ir_passes(module, passes: list, opts: Options, context=None) -> None:
    """Run IR passes on ``module``, which the frontend (or the passes before) verified."""
    from mtiacc.opt import run_pipeline
    if passes:
        run_pipeline(module, passes, verify_each=opts.verify_each, instrumentation=opts.instrumentation,
                     verify_input=False, context=context)


def plan_local_memory(module, target: Target) -> None:
    """The local-memory plan of the kernel as the passes left it, with the loops over tiles that store their tile
    under the next trip where it fits (``store_under_next``), written on its function (``--emit=ir``)."""
    from mtiacc.opt.memory.plan import annotate, kernel_of, plan_stores_under
    func = kernel_of(module)
    if func is not None:
        annotate(func, plan_stores_under(func, target))
        func.verify_attributes()     # the plan's attributes are declared on tt.func


def mark_aliases(fe, groups: Tuple[str, ...]) -> None:
    """The kernel's ``may_alias``: the groups of pointer parameters a launch passes memory they share for, which no
    pass then holds apart (``mtiacc/ir/analysis/pointers.py``).  No groups: no attribute, the compile unchanged."""
    from mtiacc.ir.types import PointerType
    if not groups:
        return
    pointers = [p.name for p in fe.params if not p.constexpr and isinstance(p.type, PointerType)]
    entries = []
    for g in groups:
        names = [n for n in g.replace(",", " ").split()]
        for n in names:
            if n not in pointers:
                raise UsageError(f"--may-alias: '{n}' is not a pointer parameter of '{fe.kernel}' (pointer "
                                 f"parameters: {', '.join(pointers) or 'none'})")
        if len(set(names)) < 2:
            raise UsageError(f"--may-alias: '{g}' must name two or more pointer parameters")
        entries.append(" ".join(sorted(set(names), key=pointers.index)))
    func = next(op for op in fe.module.body.block.ops if getattr(op, "sym_name", None) == fe.kernel)
    func.attrs["may_alias"] = entries
    func.verify_attributes()


def _machine_hook(passes: list, target: Target, opts: Options):
    """Codegen runs this after register allocation: the pipeline's machine passes, instrumented."""
    from mtiacc.codegen import MACHINE_PASSES, format_machine
    from mtiacc.opt import run_machine_passes
    if not passes:
        return None
    return lambda fn: run_machine_passes(fn, target, passes, MACHINE_PASSES, format_machine, opts.instrumentation)


def parse_grid(text: str, fe) -> List[str]:
    """Check a launch-grid expression (the grammar of :mod:`mtiacc.asm.gridexpr`, which the simulator evaluates)
    against the kernel's parameters; returns one expression string per axis (at most 3)."""
    from mtiacc.asm.gridexpr import GridError, names, parse
    from mtiacc.ir.types import PointerType
    try:
        axes = parse(text)
    except GridError as e:
        raise UsageError(f"--grid: {e.reason}") from None
    known = {p.name for p in fe.params}
    pointers = {p.name for p in fe.params if not p.constexpr and isinstance(p.type, PointerType)}
    used, shapes = names(axes)
    for name, k in sorted(shapes):
        if name not in pointers:
            raise UsageError(f"--grid: '{name}.shape[{k}]' is not allowed in a grid expression (an input array's "
                             f"size is NAME.shape[K], NAME a pointer parameter: "
                             f"{', '.join(sorted(pointers)) or 'none'})")
    unknown = sorted(used - known)
    if unknown:
        raise UsageError(f"--grid: unknown name '{unknown[0]}' (parameters: {', '.join(sorted(known))})")
    return [ast.unparse(a) for a in axes]


def build_meta(fe, target: Target, grid: Optional[List[str]], lmem_bytes: int) -> dict:
    from mtiacc.frontend.visitor.params import param_type_name
    from mtiacc.ir.mtia import sram_buffers
    place = sram_buffers(fe.module)
    return {
        "format_version": FORMAT_VERSION,
        "kernel": fe.kernel,
        "target": target.name,
        "params": [{"name": p.name, "type": param_type_name(p.type)} for p in fe.params if not p.constexpr],
        "constexprs": dict(fe.constexprs),
        "grid": grid,
        "lmem_bytes": lmem_bytes,
        "args_base": target.args_base,
        "source_file": fe.source_file,
        "source": {str(k): v for k, v in fe.source_lines.items()},
        **({"tuning": fe.tuning} if fe.tuning else {}),
        **({"persistent": slots} if (slots := _persistent_slots(fe.module)) else {}),
        **({"place": place} if place else {}),
    }


def _persistent_slots(module) -> Optional[int]:
    """The slot count of the kernel's ``persistent-programs`` loop, if it has one."""
    from mtiacc.ir.scf import ForOp
    return next((op.persistent for op in module.walk() if isinstance(op, ForOp) and op.persistent), None)


def _back_off(path, opts: Options, target: Target, fe, ctx, optimize: list, legalize: list):
    """When the plan of the kernel as the passes left it overflows and codegen finds no room either, the passes
    run again planning for less local memory (``mtiacc.opt.memory.backoff``): the first run whose plan fits is
    kept.  Otherwise ``(fe, ctx)`` as they are."""
    from mtiacc.codegen import generate
    from mtiacc.codegen.vector.lmem import LocalMemoryFull
    from mtiacc.opt import PassContext
    from mtiacc.opt.memory import backoff
    over = backoff.overflow(fe.module, target)
    if not over:
        return fe, ctx
    quiet = dataclasses.replace(opts, instrumentation=None)

    def passes(t: Target):
        f = run_frontend(path, opts)
        c = PassContext(target=t, num_stages=opts.num_stages, werror_spill=opts.werror_spill)
        run_ir_passes(f.module, optimize, quiet, c)
        return f, c
    probe, c = passes(target)    # the same compile on a copy of the IR: does codegen place its blocks?
    try:
        run_ir_passes(probe.module, legalize, quiet, c)
        generate(probe.module, target, probe.source_file, probe.source_lines)
        return fe, ctx
    except LocalMemoryFull:
        pass
    for reserve in backoff.reserves(over, target):
        f, c = passes(backoff.smaller(target, reserve))
        if not backoff.overflow(f.module, target):
            backoff.record(f.module, c, reserve, over)
            return f, c
    return fe, ctx


def compile_kernel(path: str, opts: Options, stop_after: str = "bin") -> Compilation:
    """Run the pipeline up to `stop_after` ('ir', 'asm' or 'bin')."""
    from mtiacc.ir.text.printer import print_ir
    from mtiacc.opt import split_tail
    from mtiacc.target import load_target
    target = load_target(opts.target, opts.overrides)     # a bad --machine / --set before the kernel is read
    fe = run_frontend(path, opts)
    grid = parse_grid(opts.grid, fe) if opts.grid else None
    stages = ((fe.tuning or {}).get("config") or {}).get("num_stages")
    if stages is not None:
        opts = dataclasses.replace(opts, num_stages=stages)
    optimize, legalize, machine_passes = split_tail(pipeline_passes(opts))
    from mtiacc.opt import PassContext
    ctx = PassContext(target=target, num_stages=opts.num_stages, werror_spill=opts.werror_spill)
    run_ir_passes(fe.module, optimize, opts, ctx)
    fe, ctx = _back_off(path, opts, target, fe, ctx, optimize, legalize)
    plan_local_memory(fe.module, target)
    out = Compilation(fe, remarks=ctx.remarks)
    if stop_after == "ir":
        out.ir_text = print_ir(fe.module)
        return out
    from mtiacc.codegen import generate
    run_ir_passes(fe.module, legalize, opts, ctx)
    asm = generate(fe.module, target, fe.source_file, fe.source_lines, _machine_hook(machine_passes, target, opts),
                   fast_math=opts.fast_math)
    out.asm_text = asm.text
    if stop_after == "asm":
        return out
    from mtiacc.asm.assembler import assemble
    from mtiacc.asm.elf import build_elf
    program = assemble(asm.text, filename=f"<asm of {fe.kernel}>")
    out.meta = build_meta(fe, target, grid, asm.lmem_bytes)
    if asm.strings:  # tl.device_print / tl.device_assert entries, indexed by mtia.print / mtia.assert
        out.meta["strings"] = asm.strings
    # Local labels (.L*) stay out of the symbol table, as GNU as leaves them out.
    symbols = {k: v for k, v in program.symbols.items() if not k.startswith(".L")}
    out.binary = build_elf(program.code, entry_symbol=fe.kernel, symbols=symbols,
                           meta=out.meta, lines=program.lines)
    return out


def write_atomically(path: str, data: bytes) -> None:
    """Write the whole file or nothing (``-``: standard output), with the umask's permissions."""
    from mtiacc.files import write_whole
    write_whole(path, data)
