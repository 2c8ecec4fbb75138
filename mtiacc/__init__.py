"""mtiacc: a Triton compiler for an MTIA-like accelerator, and the Python API to launch kernels on its simulator.

``mtiacc.load(path, name)[grid](*args, **kwargs)`` compiles a ``@triton.jit`` kernel of a file (never running the
file), launches it on numpy arrays or torch CPU tensors on the simulator and writes the results back
(:mod:`mtiacc.runtime`); ``mtiacc.compile(path, ...)`` is the compiler as a function.  Importing the package
loads nothing else until one of them is used.
"""
from __future__ import annotations

__all__ = ["load", "compile", "Kernel", "Launch", "TensorDescriptor"]


def compile(path: str, kernel=None, *, signature=None, constexprs=None, grid=None, opt_level=None,
            target=None, stop_after: str = "bin", fast_math: bool = False, fp_fusion: bool = True, machine=None,
            overrides=()):
    """Compile kernel ``kernel`` of ``path``: returns the :class:`mtiacc.driver.Compilation` (``.binary`` the ELF
    bytes, ``.asm_text``, ``.ir_text``, ``.meta``).  ``signature`` is Triton's (``"*fp32,*fp32,i32"``), or a list
    of its entries; ``constexprs`` maps constexpr parameters to Python values; ``fast_math`` is ``--fast-math``
    (every math function the SIMD engine has runs on it, at its table's accuracy); ``fp_fusion`` False is
    ``--no-fp-fusion`` (``a * b + c`` rounded twice instead of contracted into one fused multiply-add);
    ``machine`` (``--machine``: a built-in name or a machine YAML; ``target`` is its older name) and ``overrides``
    (``--set``: ``["pe.local_memory_bytes=262144"]`` or ``{key: value}``) choose the machine compiled for;
    ``opt_level`` None is the compiler's default level (``-O3``), as ``mtiacc FILE.py`` without ``-O``."""
    from mtiacc.driver import Options, compile_kernel
    from mtiacc.runtime.launcher import _define_text
    if isinstance(signature, (list, tuple)):
        signature = ",".join(signature)
    defines = {k: _define_text(k, v) for k, v in (constexprs or {}).items()}
    if isinstance(overrides, dict):
        overrides = tuple(overrides.items())
    elif isinstance(overrides, str):
        overrides = (overrides,)
    opts = Options(kernel=kernel, defines=defines, signature=signature,
                   target=str(machine) if machine is not None else target, overrides=tuple(overrides or ()),
                   grid=",".join(map(str, grid)) if isinstance(grid, (list, tuple)) else grid,
                   fast_math=bool(fast_math), fp_fusion=bool(fp_fusion))
    if opt_level is not None:             # else the compiler's default (Options.opt_level)
        opts.opt_level = int(opt_level)
    from mtiacc.diagnostics import UserError, surfaced
    try:
        return compile_kernel(path, opts, stop_after=stop_after)
    except UserError as e:       # the whole diagnostic as its text, no compiler frames (as the launcher's)
        raise surfaced(e) from None


def __getattr__(name):
    if name in ("load", "Kernel", "Launch", "TensorDescriptor"):
        from mtiacc import runtime
        return getattr(runtime, name)
    raise AttributeError(f"module 'mtiacc' has no attribute '{name}'")
