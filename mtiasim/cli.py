"""``mtiasim run BIN --inputs NPZ [--grid X[,Y[,Z]]] [--arg NAME=VALUE]... [-o OUT.npz] [--stats]``.

Every user mistake is one clear message on stderr and an exit code that tells its kind (``ExitCode``: 2 usage,
3 bad input, 4 the kernel faulted); a simulator bug prints a short request to report it and exits 70 (the
traceback only with ``MTIA_DEBUG=1``).
"""
from __future__ import annotations

import os
import sys
import traceback

import click

from mtiacc.diagnostics import ExitCode, UsageError, UserError, closed_pipe_exit, report, tool_version
from mtiacc.files import check_writable

from .loader import MAX_INPUT_BYTES, load_inputs  # noqa: F401 - load_inputs is part of the CLI's API
from .sync.progress import DEFAULT_MAX_CYCLES, DEFAULT_MAX_STEPS

def parse_args_option(items):
    out = {}
    for item in items:
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or not name or not name.isidentifier():
            raise UsageError(f"--arg '{item}' must be NAME=VALUE")
        out[name] = value
    return out


def write_npz_atomically(path: str, arrays) -> None:
    """Write the archive whole or not at all (``-``: standard output), whatever the arrays' names."""
    from mtiacc.files import save_npz, write_whole
    write_whole(path, lambda f: save_npz(f, arrays))


def default_output(binary: str) -> str:
    stem, _ext = os.path.splitext(binary)
    return stem + ".out.npz"


def print_stats(stats, out_path=None) -> None:
    from rich.console import Console

    from .stats import render
    class _Console(Console):
        def on_broken_pipe(self) -> None:   # rich would exit 1; main() ends quietly (141)
            raise BrokenPipeError()

    # with the outputs on stdout (-o -), the statistics go to stderr
    render(stats, _Console(file=sys.stderr if out_path == "-" else sys.stdout, width=110))


def parse_place_option(items):
    out = {}
    for item in items:
        name, sep, where = item.partition("=")
        if not sep or not name.strip().isidentifier() or where.strip().lower() not in ("dram", "sram"):
            raise UsageError(f"--place '{item}' must be NAME=dram or NAME=sram")
        out[name.strip()] = where.strip().lower()
    return out


def write_json(path: str, obj) -> None:
    import json
    try:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(obj, f, indent=1)
    except OSError as e:
        raise UserError(f"cannot write '{path}': {e.strerror}") from None


class _ClosedPipe(Exception):
    """Standard output's reader went away while a command wrote to it (click would exit 1 on it)."""


class _Group(click.Group):
    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            raise _ClosedPipe() from None


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(version=tool_version("mtiasim"), message="%(version)s", help="Print the version and exit.")
def cli():
    """mtiasim: an instruction-level simulator of an MTIA-2i-like accelerator."""


@cli.command("run")
@click.argument("binary", type=click.Path(dir_okay=False))
@click.option("--inputs", "inputs_path", required=True, metavar="NPZ",
              help="npz archive: one array per pointer parameter, 0-d arrays for scalars ('-': standard input)")
@click.option("--grid", "grid", metavar="X[,Y[,Z]]", help="launch grid (overrides the binary's)")
@click.option("--arg", "arg_items", multiple=True, metavar="NAME=VALUE", help="scalar parameter value")
@click.option("-o", "--output", "output", metavar="OUT.npz",
              help="where to write the buffers after the run ('-': standard output)")
@click.option("--stats", is_flag=True, help="print statistics")
@click.option("--machine", "--config", "config_path", metavar="MACHINE",
              help="a built-in machine or a machine YAML file (default: mtia2i)")
@click.option("--set", "set_items", multiple=True, metavar="KEY=VALUE",
              help="change one key of the machine for this run, e.g. memory.dram.bw_bytes_per_s=409.6e9")
@click.option("--max-steps", type=click.IntRange(min=1), default=DEFAULT_MAX_STEPS, show_default=True,
              help="stop a run that executes more instruction steps than this, counted across its waves (about 10 s "
                   "of host time; a grid too large for it is refused before it runs)")
@click.option("--max-cycles", type=click.IntRange(min=1), default=DEFAULT_MAX_CYCLES, show_default=True,
              help="stop a run whose simulated time passes this many cycles (a runaway loop, a livelock)")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None, metavar="SECONDS",
              help="stop a run that takes longer than this on the host (wall-clock seconds)")
@click.option("--max-input-bytes", type=click.IntRange(min=1), default=MAX_INPUT_BYTES, show_default=True,
              help="refuse an inputs archive whose arrays are bigger than this uncompressed")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="orders programs whose atomics reach a memory in the same cycle (vary it to expose races)")
@click.option("--place", "place_items", multiple=True, metavar="NAME=sram|dram",
              help="where a pointer parameter's buffer lives (default DRAM)")
@click.option("--stats-json", "stats_json", metavar="FILE", help="write the statistics as JSON")
@click.option("--trace", "trace_path", metavar="FILE", help="write a Chrome/Perfetto trace (JSON)")
@click.option("--sanitize", is_flag=True,
              help="report integer division by zero, reads of local memory never written, races between "
                   "programs, missing DMA waits and DMA transfers nothing orders (exit code 4 when there are any)")
def run_cmd(binary, inputs_path, grid, arg_items, output, stats, config_path, set_items, max_steps, max_cycles,
            timeout, max_input_bytes, seed, place_items, stats_json, trace_path, sanitize):
    """Run kernel binary BINARY on the inputs and write every pointer buffer to OUT.npz."""
    from .sanitize import SanitizerError
    out = output or default_output(binary)
    for path in (out, stats_json, trace_path):
        if path:
            check_writable(path)
    findings = None
    try:
        result = _simulate(binary, inputs_path, grid, arg_items, (config_path, set_items), max_steps, place_items,
                           trace=bool(trace_path), seed=seed, max_cycles=max_cycles, timeout=timeout,
                           max_input_bytes=max_input_bytes, sanitize=sanitize)
    except SanitizerError as e:     # the run finished: its outputs are written, then the findings reported
        if e.result is None:        # it stopped at a fault: the findings until then, then the fault
            raise
        result, findings = e.result, e
    write_npz_atomically(out, result.outputs)
    if stats:
        print_stats(result.stats, out)
    if stats_json:
        write_json(stats_json, result.stats.to_json())
    if trace_path:
        from .trace import write_trace
        try:
            write_trace(trace_path, result.trace)
        except OSError as e:
            raise UserError(f"cannot write '{trace_path}': {e.strerror}") from None
    if out != "-":
        click.echo(f"wrote {out}")
    if findings is not None:
        raise findings


def _simulate(binary, inputs_path, grid, arg_items, machine, max_steps=None, place_items=(),
              max_input_bytes=MAX_INPUT_BYTES, **kw):
    """Run ``binary``; ``machine`` is (``--machine`` file or None, the ``--set`` texts)."""
    from mtiacc.asm.gridexpr import parse_grid_option
    from mtiacc.machine.simulator import load_config

    from .runner import run

    grid_t = parse_grid_option(grid) if grid is not None else None
    config_path, set_items = machine
    cfg = load_config(config_path, tuple(set_items))     # --set problems first: they are flags
    args = parse_args_option(arg_items)
    place = parse_place_option(place_items)
    if not os.path.exists(binary):
        raise UserError(f"binary '{binary}' does not exist")
    inputs = load_inputs(inputs_path, max_input_bytes)
    result = run(binary, inputs, grid=grid_t, args=args, config=cfg,
                 max_steps=DEFAULT_MAX_STEPS if max_steps is None else max_steps, place=place, **kw)
    if result.unused_inputs:   # most likely a misspelt parameter name
        names = ", ".join(f"'{n}'" for n in result.unused_inputs)
        params = ", ".join(p["name"] for p in result.program.meta.get("params", []))
        click.echo(f"{inputs_path}: warning: {names} match{'es' if len(result.unused_inputs) == 1 else ''} no "
                   f"parameter of the kernel (parameters: {params}); ignored", err=True)
    return result


def _common(f):
    for opt in reversed([
        click.argument("binary", type=click.Path(dir_okay=False)),
        click.option("--inputs", "inputs_path", required=True, metavar="NPZ", help="npz archive of the inputs"),
        click.option("--grid", "grid", metavar="X[,Y[,Z]]", help="launch grid (overrides the binary's)"),
        click.option("--arg", "arg_items", multiple=True, metavar="NAME=VALUE", help="scalar parameter value"),
        click.option("--machine", "--config", "config_path", metavar="MACHINE",
                     help="a built-in machine or a machine YAML file (default: mtia2i)"),
        click.option("--set", "set_items", multiple=True, metavar="KEY=VALUE",
                     help="change one key of the machine for this run"),
        click.option("--place", "place_items", multiple=True, metavar="NAME=sram|dram",
                     help="where a pointer parameter's buffer lives (default DRAM)"),
    ]):
        f = opt(f)
    return f


@cli.command("profile")
@_common
@click.option("--top", type=click.IntRange(min=1), default=20, show_default=True,
              help="instructions to list, most expensive first")
def profile_cmd(binary, inputs_path, grid, arg_items, config_path, set_items, place_items, top):
    """Cycles per kernel source line (annotated source) and per instruction."""
    from .profile import attribute, render_profile
    result = _simulate(binary, inputs_path, grid, arg_items, (config_path, set_items), place_items=place_items,
                       profile=True)
    click.echo(render_profile(attribute(result), top=top))


@cli.command("roofline")
@_common
@click.option("--plot", "plot_path", metavar="PNG", help="draw the chart (needs matplotlib: pip install mtiacc[plot])")
def roofline_cmd(binary, inputs_path, grid, arg_items, config_path, set_items, place_items, plot_path):
    """Place the run on the chip's roofline: bound, achieved rates, arithmetic intensity."""
    from mtiacc.machine.simulator import load_config
    from .roofline import plot, summary
    if plot_path:
        check_writable(plot_path)
    result = _simulate(binary, inputs_path, grid, arg_items, (config_path, set_items), place_items=place_items)
    cfg = load_config(config_path, tuple(set_items))
    click.echo(summary(result.stats, cfg))
    if plot_path:
        plot(result.stats, cfg, plot_path)
        click.echo(f"wrote {plot_path}")


def main(argv=None) -> int:
    try:
        cli.main(args=argv, prog_name="mtiasim", standalone_mode=False)
        sys.stdout.flush()      # a closed pipe shows here, not at the interpreter's exit
        return 0
    except (_ClosedPipe, BrokenPipeError):   # `mtiasim run ... --stats | head -1`: stop quietly
        return closed_pipe_exit()
    except UserError as e:
        report(e)
        return e.exit_code
    except click.exceptions.Exit as e:
        return e.exit_code
    except click.exceptions.Abort:
        print("aborted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except click.ClickException as e:
        e.show()
        return ExitCode.USAGE
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except Exception:  # noqa: BLE001 - the last line of defence: never a bare traceback
        if os.environ.get("MTIA_DEBUG") == "1":
            print("mtiasim: internal error", file=sys.stderr)
            traceback.print_exc()
        else:
            print("mtiasim: internal error (a bug in the simulator). Please report it with the binary and inputs; "
                  "set MTIA_DEBUG=1 to see the details.", file=sys.stderr)
        return ExitCode.INTERNAL


if __name__ == "__main__":
    sys.exit(main())
