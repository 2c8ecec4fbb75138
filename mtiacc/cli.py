"""`mtiacc`: the compiler's command line.

    mtiacc FILE.py [-o OUT] [--kernel NAME] [-D NAME=VALUE]... [--signature SIG] [--grid EXPR]
                   [--emit ir|asm|bin] [-O0|-O1|-O2|-O3]
    mtiacc disasm BIN
"""
from __future__ import annotations

import os
import sys
import traceback

import click

from mtiacc.diagnostics import UserError, report
from mtiacc.driver import Options, compile_kernel, write_atomically


def run_guarded(fn, *args, **kwargs) -> None:
    """Run a command: user errors print one diagnostic and exit 1; never a traceback for them."""
    try:
        fn(*args, **kwargs)
    except UserError as e:
        report(e)
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)
    except click.exceptions.Exit:
        raise
    except Exception as e:  # an internal bug: say so plainly
        if os.environ.get("MTIA_DEBUG"):
            traceback.print_exc()
        print(f"internal compiler error: {type(e).__name__}: {e}\n"
              "note: this is a bug in mtiacc; rerun with MTIA_DEBUG=1 for details and report it",
              file=sys.stderr)
        sys.exit(70)


def parse_define(text: str):
    name, sep, value = text.partition("=")
    if not sep or not name.isidentifier():
        raise click.BadParameter(f"expected NAME=VALUE, got '{text}'", param_hint="-D")
    return name, value


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("-o", "output", type=click.Path(dir_okay=False), help="Output file (default: FILE's stem + .bin; "
              "stdout for --emit=ir/asm).")
@click.option("--kernel", help="The @triton.jit function to compile (needed when the file has several).")
@click.option("-D", "defines", multiple=True, metavar="NAME=VALUE", help="Value of a tl.constexpr parameter.")
@click.option("--signature", help="Types of the non-constexpr parameters, Triton AOT style: '*fp32,*fp32,i32'.")
@click.option("--grid", help="Launch grid stored in the binary, e.g. 'cdiv(N, BLOCK_SIZE)'.")
@click.option("--emit", type=click.Choice(["ir", "asm", "bin"]), default="bin", show_default=True,
              help="Stop after this stage and write its output.")
@click.option("-O", "opt_level", type=click.IntRange(0, 3), default=2, show_default=True, metavar="LEVEL",
              help="Optimization level: -O0 .. -O3.")
@click.option("--passes", help="Run this pass pipeline instead of the -O level's (e.g. 'canonicalize,dce').")
@click.option("--target", help="Target name or machine YAML (default: mtia2i).")
def compile_command(file, output, kernel, defines, signature, grid, emit, opt_level, passes, target):
    """Compile a Triton kernel to an MTIA binary."""
    defs = dict(parse_define(d) for d in defines)
    opts = Options(kernel=kernel, defines=defs, signature=signature, grid=grid, opt_level=opt_level,
                   passes=passes, target=target)

    def go():
        result = compile_kernel(file, opts, stop_after=emit)
        if emit in ("ir", "asm"):
            text = result.ir_text if emit == "ir" else result.asm_text
            if output:
                write_atomically(output, text.encode())
            else:
                sys.stdout.write(text)
            return
        out = output or os.path.splitext(os.path.basename(file))[0] + ".bin"
        write_atomically(out, result.binary)
        click.echo(f"wrote {out}", err=True)

    run_guarded(go)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("binary", type=click.Path(dir_okay=False))
def disasm_command(binary):
    """Print a compiled kernel's metadata and disassembly, with source lines."""
    def go():
        from mtiacc.asm.disasm import disassemble_binary
        from mtiacc.asm.elf import read_elf
        try:
            with open(binary, "rb") as f:
                data = f.read()
        except OSError as e:
            raise UserError(f"cannot read '{binary}': {e.strerror}") from None
        sys.stdout.write(disassemble_binary(read_elf(data, filename=binary)))

    run_guarded(go)


SUBCOMMANDS = {"disasm": disasm_command}


def main(argv=None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in SUBCOMMANDS:
        SUBCOMMANDS[argv[0]].main(argv[1:], prog_name=f"mtiacc {argv[0]}")
    else:
        compile_command.main(argv, prog_name="mtiacc")


if __name__ == "__main__":
    main()
