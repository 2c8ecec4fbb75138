"""``mtiasim run BIN --inputs NPZ [--grid X[,Y[,Z]]] [--arg NAME=VALUE]... [-o OUT.npz] [--stats]``.

Every user mistake is one clear message on stderr and exit code 1; a simulator bug prints a short request to
report it (the traceback only with ``MTIA_DEBUG=1``).
"""
from __future__ import annotations

import os
import sys
import tempfile
import traceback
import zipfile

import click
import numpy as np

from mtiacc.diagnostics import UserError, report


def load_inputs(path: str):
    if not os.path.exists(path):
        raise UserError(f"inputs file '{path}' does not exist")
    try:
        with np.load(path, allow_pickle=False) as z:
            if not hasattr(z, "files"):
                raise UserError(f"inputs file '{path}' is a single .npy array, not an .npz archive of named arrays")
            return {k: z[k] for k in z.files}
    except UserError:
        raise
    except (zipfile.BadZipFile, ValueError, OSError, EOFError) as e:
        raise UserError(f"inputs file '{path}' is not a readable .npz archive ({e})") from None


def parse_args_option(items):
    out = {}
    for item in items:
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or not name or not name.isidentifier():
            raise UserError(f"--arg '{item}' must be NAME=VALUE")
        out[name] = value
    return out


def write_npz_atomically(path: str, arrays) -> None:
    """Write the archive to a temporary file beside ``path`` and rename it: whole or not at all."""
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".mtiasim-", suffix=".npz.tmp", dir=directory)
    except OSError as e:
        raise UserError(f"cannot write '{path}': {e.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez(f, **arrays)
        os.replace(tmp, path)
    except OSError as e:
        raise UserError(f"cannot write '{path}': {e.strerror}") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def default_output(binary: str) -> str:
    stem, _ext = os.path.splitext(binary)
    return stem + ".out.npz"


def print_stats(stats, out_path) -> None:
    from rich.console import Console
    from rich.table import Table

    t = Table(title="mtiasim", show_header=True)
    t.add_column("statistic")
    t.add_column("value", justify="right")
    gx, gy, gz = stats.grid
    t.add_row("grid", f"{gx} x {gy} x {gz}")
    t.add_row("programs run", f"{stats.programs:,}")
    t.add_row("waves", f"{stats.waves:,}")
    t.add_row("instructions retired", f"{stats.instructions:,}")
    for unit in sorted(stats.by_unit):
        t.add_row(f"  {unit} instructions", f"{stats.by_unit[unit]:,}")
    t.add_row("simulated cycles", f"{stats.cycles:,}")
    t.add_row("  of which job launch", f"{stats.launch_cycles:,}")
    t.add_row("time at the clock", f"{stats.time_us:,.3f} us")
    t.add_row("DRAM bytes moved by DMA", f"{stats.dram_bytes:,}")
    t.add_row("  DRAM -> local (dma.in)", f"{stats.dram_bytes_in:,}")
    t.add_row("  local -> DRAM (dma.out)", f"{stats.dram_bytes_out:,}")
    t.add_row("host time", f"{stats.wall_seconds:.3f} s")
    Console(file=sys.stdout, width=100).print(t)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def cli():
    """mtiasim: an instruction-level simulator of an MTIA-2i-like accelerator."""


@cli.command("run")
@click.argument("binary", type=click.Path(dir_okay=False))
@click.option("--inputs", "inputs_path", required=True, metavar="NPZ",
              help="npz archive: one array per pointer parameter, 0-d arrays for scalars")
@click.option("--grid", "grid", metavar="X[,Y[,Z]]", help="launch grid (overrides the binary's)")
@click.option("--arg", "arg_items", multiple=True, metavar="NAME=VALUE", help="scalar parameter value")
@click.option("-o", "--output", "output", metavar="OUT.npz", help="where to write the buffers after the run")
@click.option("--stats", is_flag=True, help="print statistics")
@click.option("--config", "config_path", metavar="MACHINE.yaml", help="machine description")
@click.option("--max-steps", type=click.IntRange(min=1), default=50_000_000, show_default=True,
              help="stop a wave that executes more instruction steps than this")
def run_cmd(binary, inputs_path, grid, arg_items, output, stats, config_path, max_steps):
    """Run kernel binary BINARY on the inputs and write every pointer buffer to OUT.npz."""
    from .gridexpr import parse_grid_option
    from .runner import run

    grid_t = parse_grid_option(grid) if grid is not None else None
    args = parse_args_option(arg_items)
    if not os.path.exists(binary):
        raise UserError(f"binary '{binary}' does not exist")
    inputs = load_inputs(inputs_path)
    result = run(binary, inputs, grid=grid_t, args=args, config_path=config_path, max_steps=max_steps)
    out = output or default_output(binary)
    write_npz_atomically(out, result.outputs)
    if stats:
        print_stats(result.stats, out)
    click.echo(f"wrote {out}")


def main(argv=None) -> int:
    try:
        cli.main(args=argv, prog_name="mtiasim", standalone_mode=False)
        return 0
    except UserError as e:
        report(e)
        return 1
    except click.exceptions.Exit as e:
        return e.exit_code
    except click.exceptions.Abort:
        print("aborted", file=sys.stderr)
        return 1
    except click.ClickException as e:
        e.show()
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception:  # noqa: BLE001 - the last line of defence: never a bare traceback
        if os.environ.get("MTIA_DEBUG") == "1":
            print("mtiasim: internal error", file=sys.stderr)
            traceback.print_exc()
        else:
            print("mtiasim: internal error (a bug in the simulator). Please report it with the binary and inputs; "
                  "set MTIA_DEBUG=1 to see the details.", file=sys.stderr)
        return 70


if __name__ == "__main__":
    sys.exit(main())
