"""`mtiacc`: the compiler's command line.

    mtiacc FILE.py [-o OUT] [--kernel NAME] [-D NAME=VALUE]... [--signature SIG] [--grid EXPR]
                   (Triton's AOT spellings too: -n/--kernel-name, -s, -g)
                   [--config N] [--emit ir|asm|bin] [--asm-syntax gnu|mtia] [--fast-math] [-O0|-O1|-O2|-O3]
                   [--machine NAME|M.yaml] [--set KEY=VALUE]...   (the machine compiled for: mtiacc/machine/)
    mtiacc FILE.py --list-configs [--kernel NAME]
    mtiacc opt IN.mtir [--passes=PIPELINE | -O LEVEL] [-o OUT] [--no-verify-each]
    mtiacc disasm BIN

Pass-manager flags (both `mtiacc FILE.py` and `mtiacc opt`): --passes, -O0..-O3, --dump-pipeline,
--print-ir-before=PASS, --print-ir-after=PASS, --print-ir-after-all, --print-ir-after-change,
--disable-pass=PASS (repeatable), --time-passes, --no-verify-each.  IR dumps and timing go to stderr.
"""
from __future__ import annotations

import gc
import os
import sys

import click

from mtiacc.diagnostics import ExitCode, UsageError, UserError, closed_pipe_exit, report, tool_version
from mtiacc.driver import Options, write_atomically   # light: the compiler's stages import when a command runs


def run_guarded(fn, *args, **kwargs) -> None:
    """Run a command: user errors print one diagnostic and exit with their kind's code (ExitCode); never a
    traceback for them.  A closed standard output ends the command quietly (exit 141)."""
    try:
        fn(*args, **kwargs)
        sys.stdout.flush()      # a closed pipe shows here, not at the interpreter's exit
    except BrokenPipeError:     # `mtiacc ... -o - | head -1`: the reader went away; stop quietly
        sys.exit(closed_pipe_exit())
    except UserError as e:
        report(e)
        sys.exit(e.exit_code)
    except KeyboardInterrupt:
        sys.exit(ExitCode.INTERRUPTED)
    except click.exceptions.Exit:
        raise
    except Exception as e:  # an internal bug: say so plainly
        if os.environ.get("MTIA_DEBUG"):
            import traceback
            traceback.print_exc()
        print(f"internal compiler error: {type(e).__name__}: {e}\n"
              "note: this is a bug in mtiacc; rerun with MTIA_DEBUG=1 for details and report it",
              file=sys.stderr)
        sys.exit(ExitCode.INTERNAL)


def parse_define(text: str):
    name, sep, value = text.partition("=")
    if not sep or not name.isidentifier():
        raise click.BadParameter(f"expected NAME=VALUE, got '{text}'", param_hint="-D")
    return name, value


def pass_options(f):
    """The pass-manager flags shared by the compiler and `mtiacc opt`."""
    options = [
        click.option("-O", "opt_level", type=click.IntRange(0, 3), default=Options.opt_level, show_default=True, metavar="LEVEL",
                     help="Optimization level: -O0 .. -O3 (named pipelines, see --dump-pipeline)."),
        click.option("--passes", help="Run this pass pipeline instead of the -O level's, e.g. "
                     "'canonicalize,cse,loop-unroll{max-trip=16},dce' (a compile adds the passes codegen needs)."),
        click.option("--dump-pipeline", is_flag=True, help="Print the pipeline that would run, and exit."),
        click.option("--print-ir-before", "print_before", multiple=True, metavar="PASS",
                     help="Print the IR before each run of PASS (to stderr)."),
        click.option("--print-ir-after", "print_after", multiple=True, metavar="PASS",
                     help="Print the IR after each run of PASS (to stderr)."),
        click.option("--print-ir-after-all", is_flag=True, help="Print the IR after every pass."),
        click.option("--print-ir-after-change", is_flag=True,
                     help="Print the IR after every pass that changed it."),
        click.option("--disable-pass", "disabled", multiple=True, metavar="PASS",
                     help="Leave PASS out of the pipeline (repeatable; not a pass codegen needs)."),
        click.option("--time-passes", is_flag=True, help="Print a table of the time each pass took (stderr)."),
        click.option("--verify-each/--no-verify-each", default=True, show_default=True,
                     help="Verify the IR after every pass."),
    ]
    for opt in reversed(options):
        f = opt(f)
    return f


def make_instrumentation(print_before, print_after, print_ir_after_all, print_ir_after_change, time_passes):
    from mtiacc.opt import PASSES, Instrumentation
    for name in (*print_before, *print_after):
        if name not in PASSES:
            raise UsageError(f"--print-ir-before/after: unknown pass '{name}' "
                            f"(known passes: {', '.join(sorted(PASSES))})")
    if not (print_before or print_after or print_ir_after_all or print_ir_after_change or time_passes):
        return None
    return Instrumentation(print_before=set(print_before), print_after=set(print_after),
                           print_after_all=print_ir_after_all, print_after_change=print_ir_after_change,
                           time_passes=time_passes)


def dump_pipeline(passes_text, opt_level, disabled, codegen=True) -> None:
    from mtiacc.driver import Options, pipeline_passes
    from mtiacc.opt import spell_pipeline
    passes = pipeline_passes(Options(opt_level=opt_level, passes=passes_text, disabled_passes=tuple(disabled),
                                     codegen=codegen))
    sys.stdout.write(spell_pipeline(passes) + "\n")


SUBCOMMAND_HELP = """\b
Subcommands (mtiacc COMMAND --help for each):
  mtiacc opt IN.mtir [--passes=...|-O LEVEL] [-o OUT]   run passes on IR text, like mlir-opt
  mtiacc disasm BIN                                     metadata, disassembly and source lines of a binary"""


def _print_version(ctx: click.Context, value: bool) -> None:
    """``--version``: looked up only when asked (reading the package metadata costs every compile ~20 ms)."""
    if value and not ctx.resilient_parsing:
        click.echo(tool_version("mtiacc"))
        ctx.exit()


@click.command(context_settings={"help_option_names": ["-h", "--help"]}, epilog=SUBCOMMAND_HELP)
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, help="Print the version and exit.",
              callback=lambda ctx, _param, value: _print_version(ctx, value))
@click.argument("file", type=click.Path(dir_okay=False), required=False)
@click.option("-o", "output", type=click.Path(dir_okay=False), help="Output file, '-' for stdout (default: FILE's "
              "stem + .bin; stdout for --emit=ir/asm).")
@click.option("--kernel", "-n", "--kernel-name", "kernel", help="The @triton.jit function to compile (needed when "
              "the file has several that no other @triton.jit function calls).")
@click.option("-D", "defines", multiple=True, metavar="NAME=VALUE", help="Value of a tl.constexpr parameter.")
@click.option("--signature", "-s", "signature", help="Types of the non-constexpr parameters, Triton AOT style: "
              "'*fp32,*fp32,i32'; or one entry per parameter, a constexpr's entry its value: '*fp32,*fp32,i32,1024'.")
@click.option("--grid", "-g", "grid", help="Launch grid stored in the binary, e.g. 'cdiv(N, BLOCK_SIZE)' or "
              "Triton's 'N / 1024, 1, 1'.")
@click.option("--emit", type=click.Choice(["ir", "asm", "bin"]), default="bin", show_default=True,
              help="Stop after this stage and write its output.")
@click.option("--asm-syntax", type=click.Choice(["mtia", "gnu"]), default="gnu", show_default=True,
              help="--emit=asm: text GNU as assembles to the same bytes (custom instructions as .insn, their "
              "mnemonic in a comment), or MTIA mnemonics throughout (our assembler's syntax).")
@click.option("--machine", "--target", "target", metavar="MACHINE",
              help="Compile for this machine: a built-in name or a machine YAML (default: mtia2i).")
@click.option("--set", "set_items", multiple=True, metavar="KEY=VALUE",
              help="Change one key of the machine, e.g. pe.local_memory_bytes=262144 (as for mtiasim run).")
@click.option("--config", "config", type=int, metavar="N",
              help="Compile the kernel's N-th @triton.autotune config (0-based; default 0).")
@click.option("--list-configs", is_flag=True, help="Print the kernel's autotune configs and heuristics, and exit.")
@click.option("--fast-math", "fast_math", is_flag=True,
              help="Compute every math function the SIMD engine has (exp, log, tanh, sqrt, sin ...) on it, at its "
              "table's accuracy (docs/architecture.md); by default only where that meets the vector library's.")
@click.option("--fp-fusion/--no-fp-fusion", "fp_fusion", default=True, show_default=True,
              help="Contract a * b + c into one fused multiply-add, rounded once, as Triton does by default "
              "(its enable_fp_fusion); --no-fp-fusion rounds the product and the sum apart.")
@click.option("--may-alias", "may_alias", multiple=True, metavar="X,Y",
              help="Pointer parameters the launch passes memory they share for (one array passed twice): no "
              "pass then holds them apart (the kernel's may_alias attribute). Repeatable, one group each.")
@click.option("--remarks", "remarks", is_flag=True, help="Print what the compiler gave up to fit the kernel's "
              "blocks in local memory (fewer pipeline stages, tiles not kept, a dot split into sub-tiles, blocks "
              "streamed in chunks), with the op and the estimated cost.")
@click.option("--Werror", "werror", type=click.Choice(["spill"]), multiple=True, help="--Werror=spill: a step "
              "taken to fit local memory (see --remarks) is an error.")
@pass_options
def compile_command(file, output, kernel, defines, signature, grid, emit, asm_syntax, target, set_items, config,
                    list_configs, fast_math, fp_fusion, may_alias, remarks, werror, opt_level, passes, dump_pipeline,
                    print_before, print_after, print_ir_after_all, print_ir_after_change, disabled, time_passes, verify_each):
    """Compile a Triton kernel to an MTIA binary."""
    defs = dict(parse_define(d) for d in defines)
    if file is None and not dump_pipeline:
        raise click.UsageError("Missing argument 'FILE'.")

    if asm_syntax != "gnu" and emit != "asm":
        raise click.UsageError("--asm-syntax applies to --emit=asm")
    if output == "-" and emit == "bin" and sys.stdout.isatty():
        raise click.UsageError("refusing to write a binary to a terminal (-o -): redirect standard output")

    def go():
        if dump_pipeline:
            globals()["dump_pipeline"](passes, opt_level, disabled)
            return
        if list_configs:
            from mtiacc.driver import list_configs as describe
            sys.stdout.write(describe(file, Options(kernel=kernel)))
            return
        instr = make_instrumentation(print_before, print_after, print_ir_after_all, print_ir_after_change,
                                     time_passes)
        opts = Options(kernel=kernel, defines=defs, signature=signature, grid=grid, opt_level=opt_level,
                       passes=passes, target=target, overrides=tuple(set_items), disabled_passes=tuple(disabled),
                       verify_each=verify_each,
                       instrumentation=instr, config=config, fast_math=fast_math, fp_fusion=fp_fusion,
                       werror_spill="spill" in werror, may_alias=tuple(may_alias))
        from mtiacc.driver import compile_kernel
        try:
            result = compile_kernel(file, opts, stop_after=emit)
        finally:
            if instr is not None:
                instr.report_times()
        if remarks:
            for r in result.remarks:
                click.echo(r.render(), err=True)
        if emit in ("ir", "asm"):
            text = result.ir_text if emit == "ir" else result.asm_text
            if emit == "asm" and asm_syntax == "gnu":
                from mtiacc.asm.gnu import gnu_syntax
                text = gnu_syntax(text, filename=f"<asm of {file}>")
            if output:
                write_atomically(output, text.encode())
            else:
                sys.stdout.write(text)
            return
        out = output or os.path.splitext(os.path.basename(file))[0] + ".bin"
        write_atomically(out, result.binary)
        if out != "-":
            click.echo(f"wrote {out}", err=True)

    run_guarded(go)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("file", type=click.Path(dir_okay=False), required=False)
@click.option("-o", "output", type=click.Path(dir_okay=False), help="Output file ('-' or none: stdout).")
@pass_options
def opt_command(file, output, opt_level, passes, dump_pipeline, print_before, print_after, print_ir_after_all,
                print_ir_after_change, disabled, time_passes, verify_each):
    """Read IR text (the generic form), run passes on it, write IR text (like mlir-opt).

    Without --passes or -O, no pass runs (the IR is parsed, verified and printed back).  -O runs the
    level's optimizations, without the passes a compile adds for codegen (name them in --passes).
    """
    if file is None and not dump_pipeline:
        raise click.UsageError("Missing argument 'FILE'.")
    source = click.get_current_context().get_parameter_source("opt_level")
    level_given = source is not None and source.name != "DEFAULT"

    def go():
        from mtiacc.driver import Options, pipeline_passes
        from mtiacc.ir.text.parser import parse_ir
        from mtiacc.ir.text.printer import print_ir
        from mtiacc.opt import run_pipeline
        pipeline = passes if passes is not None else (None if level_given else "")
        if dump_pipeline:
            globals()["dump_pipeline"](pipeline, opt_level, disabled, codegen=False)
            return
        instr = make_instrumentation(print_before, print_after, print_ir_after_all, print_ir_after_change,
                                     time_passes)
        from mtiacc.files import read_bytes
        try:
            text = read_bytes(file, "IR file").decode("utf-8")   # '-': standard input
        except UnicodeDecodeError:
            raise UserError(f"'{file}' is not UTF-8 text") from None
        module = parse_ir(text, file)
        run_list = pipeline_passes(Options(opt_level=opt_level, passes=pipeline, disabled_passes=tuple(disabled),
                                           codegen=False))   # IR out: only the passes asked for
        if verify_each:
            # Ops without a loc(...) are reported at their position in the IR text.
            run_pipeline(parse_ir(text, file, locate=True), [], verify_each=True)
        try:
            run_pipeline(module, run_list, verify_each=verify_each, instrumentation=instr)
        finally:
            if instr is not None:
                instr.report_times()
        out = print_ir(module)
        if output:
            write_atomically(output, out.encode())
        else:
            sys.stdout.write(out)

    run_guarded(go)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("binary", type=click.Path(dir_okay=False))
def disasm_command(binary):
    """Print a compiled kernel's metadata and disassembly, with source lines."""
    def go():
        from mtiacc.asm.disasm import disassemble_binary
        from mtiacc.asm.elf import read_elf
        from mtiacc.asm.metadata import check_metadata
        from mtiacc.files import read_bytes
        data = read_bytes(binary, "binary")   # '-': standard input
        b = read_elf(data, filename=binary)
        check_metadata(b.meta, binary)
        sys.stdout.write(disassemble_binary(b))

    run_guarded(go)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("spec", type=click.Path(dir_okay=False))
@click.option("-o", "output", required=True, type=click.Path(dir_okay=False), metavar="OUT.jsonl",
              help="Where to write one JSON row per point (written whole at the end).")
@click.option("--executor", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="Run the simulations in local processes or as Ray tasks.")
@click.option("--address", metavar="ADDR", help="The Ray cluster: auto or HOST:PORT (default: $RAY_ADDRESS, else "
              "a Ray started on this machine for the sweep).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), metavar="N",
              help="Parallel jobs (default: the machine's cores).")
@click.option("--resume", is_flag=True, help="Keep the rows an interrupted or finished run of OUT.jsonl has; run "
              "only the points without one.")
def sweep_command(spec, output, executor, address, jobs, resume):
    """Compile and simulate every point of a sweep SPEC (YAML: kernel, grid, inputs, defines, set, ...);
    docs/sweeps.md describes the spec and the rows."""
    def go():
        from mtiacc.sweep import run_sweep
        from mtiacc.sweep.progress import Progress
        with Progress() as bar:
            summary = run_sweep(spec, output, executor=executor, jobs=jobs, address=address, resume=resume,
                                progress=bar.update)
        print(summary.line(output), file=sys.stderr)

    run_guarded(go)


SUBCOMMANDS = {"disasm": disasm_command, "opt": opt_command, "sweep": sweep_command}


def collect_garbage_rarely() -> None:
    """A compile is a short process that allocates many objects (the IR, the machine code, the modules it
    imports) and frees most by reference counting: the cycle collector's default thresholds (700, 10, 10) make it
    walk them hundreds of times for little.  Collect a young generation every 200,000 allocations instead, and
    leave what was built before (the command line's imports) out of the collections (gc.freeze).  Only for the
    process the command is (not for `mtiacc sweep`, a long one, nor for a caller of :func:`main`)."""
    gc.freeze()
    gc.set_threshold(200_000, 20, 20)


def main(argv=None) -> None:
    if argv is None and sys.argv[1:2] != ["sweep"]:
        collect_garbage_rarely()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in SUBCOMMANDS:
        SUBCOMMANDS[argv[0]].main(argv[1:], prog_name=f"mtiacc {argv[0]}")
    else:
        compile_command.main(argv, prog_name="mtiacc")


if __name__ == "__main__":
    main()
