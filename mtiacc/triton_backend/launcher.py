"""The launcher Triton constructs for a compiled kernel: ``launcher(src, metadata)``, then
``launcher(gx, gy, gz, stream, function, packed_metadata, launch_metadata, enter_hook, exit_hook, *args)``.

Triton's stages only produced its TTIR; the binary that runs is mtiacc's, compiled from the kernel's Python
source (``src.fn``'s, located in its file, with the values it captures: :mod:`.closures`) with Triton's signature: the arguments' types as
Triton specialized them, the constexprs (and arguments Triton made constant, such as an int equal to 1) as
constants.  :class:`mtiacc.runtime.Kernel` does the rest: it compiles once per signature and constants (a disk
cache), runs the grid on the simulator on the tensors' memory (views, strides and storage offsets as they are)
and writes what the kernel stored back into the tensors.  Each launch advances the simulated clock; a launch
identical to the previous one is replayed rather than simulated again (:mod:`.replay`).

An error mtiacc reports (a kernel it rejects, an argument it cannot pass) is raised as mtiacc's own
:class:`~mtiacc.diagnostics.UserError`, its text the rendered diagnostic (``file:line:col: error: ...``).
"""
from __future__ import annotations

import inspect
import os
import time
from typing import Dict, List, Optional

from triton.runtime.errors import OutOfResources

from mtiacc.diagnostics import CompileError, UserError
from mtiacc.runtime import Kernel
from mtiacc.runtime.signature import Reinterpreted, TensorDescriptor
from mtiacc.triton_backend import clock, closures, progress, records, tuning
from mtiacc.triton_backend.limits import run_limits
from mtiacc.triton_backend.replay import Replay

# Triton signature entries mtiacc takes as they are (pointers to these, and scalars of them)
_SCALARS = {"i1", "u1", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "fp16", "bf16", "fp32", "fp64",
            "fp8e4nv", "fp8e5", "fp8e4b15", "fp8e4b8", "fp8e5b16"}

_kernels: Dict[tuple, Kernel] = {}

class ConfigDoesNotCompile(OutOfResources):
    """An autotune config mtiacc cannot compile for the chip (its blocks do not fit a PE's local memory, ...),
    raised while Triton's autotuner measures it: the autotuner skips it as it skips a config that is out of a
    GPU's resources.  The config it chooses is then launched as usual, and if none compiles, that launch
    reports mtiacc's diagnostic."""

    def __init__(self, err: UserError):
        super().__init__(required="more", limit="what the chip has", name="mtiacc")
        self.diagnostic = str(err)

    def __str__(self) -> str:
        return self.diagnostic

    def __reduce__(self):
        return (_config_error, (self.diagnostic,))


def _config_error(text: str) -> "ConfigDoesNotCompile":
    return ConfigDoesNotCompile(UserError(text))


def surfaced(err: UserError) -> UserError:
    """``err`` with its rendered diagnostic as its text, and no traceback through Triton's or our frames."""
    if err.args and err.args[0] == err.message:
        err.args = (err.render(),)
    return err.with_traceback(None)


def _source_of(fn, tuples=None):
    """What mtiacc compiles a JITFunction from: its :class:`~mtiacc.runtime.KernelSource` (its own
    source, located in its file, with the values it captures: :mod:`.closures`), or for a JITFunction Inductor
    pickled (it drops the Python function) the file it remembers."""
    py = getattr(fn, "fn", fn)
    while hasattr(py, "fn") and not inspect.isfunction(py):
        py = py.fn
    if py is None:
        path, name = getattr(fn, "file_name", None), _jit_name(fn)
        if path and name and os.path.exists(path):
            return os.path.abspath(path), name
        raise UserError(f"mtiacc compiles a kernel from its source file, and '{name or fn}' has none")
    try:
        path = inspect.getsourcefile(py)
    except TypeError:
        path = None
    if not path or not os.path.exists(path):
        raise UserError(f"mtiacc compiles a kernel from its source file, and '{py.__name__}' has none "
                        f"(defined in {getattr(py, '__module__', '?')}, not in a file)")
    return closures.kernel_source(fn, tuples), py.__name__


def _jit_name(fn) -> str:
    name = getattr(fn, "__name__", None)
    if isinstance(name, str) and name:
        return name
    full = getattr(fn, "_fn_name", "") or ""
    return full.rsplit(".", 1)[-1]


def _check_signature(name: str, signature: Dict[str, object]) -> None:
    for param, ty in signature.items():
        if ty == "constexpr":
            continue
        # "*k...": a pointer annotated tl.const (Triton's frontend, run first, rejects stores through it)
        base = ty.removeprefix("*k").removeprefix("*") if isinstance(ty, str) else ty
        if isinstance(ty, str) and ty.startswith("tensordesc<") and ty.split("[", 1)[0][11:] in _SCALARS:
            continue   # a host TensorDescriptor (passed as mtiacc.runtime.TensorDescriptor: _unwrapped)
        if not isinstance(ty, str) or base not in _SCALARS:
            raise UserError(f"{name}(): parameter '{param}' has Triton type {ty!r}, which mtiacc cannot pass "
                            f"(it takes pointers to tensors, scalars and constexprs)")


def _mtiacc_type(ty) -> Optional[str]:
    """A Triton signature entry as mtiacc spells the type (``*kfp32``, a ``tl.const`` pointer: ``*fp32``; Triton's
    ``u1`` for bools: ``i1``), or None for what the arguments give (constexprs, tensor descriptors)."""
    if not isinstance(ty, str) or ty == "constexpr" or ty.startswith("tensordesc"):
        return None
    ptr = "*" if ty.startswith("*") else ""
    base = ty.removeprefix("*k").removeprefix("*")
    return ptr + ("i1" if base == "u1" else base)


def kernel_for(unit, name: str, num_stages: Optional[int], fp_fusion: bool = True) -> Kernel:
    """The :class:`mtiacc.runtime.Kernel` of ``name`` in ``unit`` (a file, or a KernelSource: one per source and
    options, so its in-memory table of binaries lives as long as the process).  ``fp_fusion``: the launch's
    ``enable_fp_fusion`` (``contract-fma``)."""
    if isinstance(unit, str):
        try:
            stamp = os.stat(unit).st_mtime_ns
        except OSError:
            stamp = 0
        key = (unit, name, stamp, num_stages, fp_fusion)
    else:
        key = (unit.digest_text(), name, num_stages, fp_fusion)
    k = _kernels.get(key)
    if k is None:
        opts = {} if num_stages is None else {"num_stages": int(num_stages)}
        if not fp_fusion:
            opts["fp_fusion"] = False
        k = _kernels[key] = Kernel(unit, name, **opts)
    return k


_TORCH_NAMES = {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32", "fp64": "float64",
                "fp8e4nv": "float8_e4m3fn", "fp8e5": "float8_e5m2", "fp8e4b8": "float8_e4m3fnuz",
                "fp8e5b16": "float8_e5m2fnuz"}


def _unwrapped(v):
    """A ``triton.TensorWrapper`` (``triton.reinterpret(tensor, tl.uint32)``) as the torch view of its memory
    with that element type; Triton's host ``TensorDescriptor`` as mtiacc's (:func:`_descriptor`); anything
    else as it is."""
    if type(v).__name__ == "TensorDescriptor" and type(v).__module__.startswith("triton."):
        return _descriptor(v)
    base, dtype = getattr(v, "base", None), getattr(v, "dtype", None)
    if type(v).__name__ != "TensorWrapper" or base is None or dtype is None:
        return v
    import torch
    name = getattr(dtype, "name", str(dtype))
    tdt = getattr(torch, _TORCH_NAMES.get(name, name), None)
    if name in _SCALARS and not isinstance(tdt, torch.dtype) and base.element_size() * 8 == dtype.primitive_bitwidth:
        return Reinterpreted(base, name)       # a type torch has not (fp8e4b15): the bytes, with that type
    if not isinstance(tdt, torch.dtype):
        raise UserError(f"a tensor reinterpreted as {name}: mtiacc cannot pass that element type")
    return base.view(tdt)


def _descriptor(d) -> TensorDescriptor:
    """Triton's ``TensorDescriptor(base, shape, strides, block_shape, padding)`` as mtiacc's: the kernel's
    descriptor spans its base tensor as that tensor's shape and strides say (``from_tensor``'s), so a
    descriptor over other extents or strides, or padded with NaN, is refused with its reason."""
    base = d.base
    shape, strides = [int(x) for x in d.shape], [int(x) for x in d.strides]
    if not hasattr(base, "stride") or shape != list(base.shape) or strides != list(base.stride()):
        raise UserError(f"a TensorDescriptor of shape {shape} and strides {strides} over a tensor of shape "
                        f"{list(getattr(base, 'shape', []))}: mtiacc passes descriptors that span their tensor as "
                        "it is (TensorDescriptor.from_tensor)")
    if getattr(d, "padding", "zero") != "zero":
        raise UserError(f"a TensorDescriptor with padding={d.padding!r}: mtiacc pads out-of-bounds reads with zeros")
    return TensorDescriptor(_unwrapped(base), tuple(int(b) for b in d.block_shape))


class MtiaLauncher:
    """Launches one Triton-compiled kernel on the simulator (see the module's docstring)."""

    def __init__(self, src, metadata):
        fn = getattr(src, "fn", None)
        if fn is None:
            raise UserError("mtiacc launches kernels compiled from Python source (@triton.jit), not IR files")
        self.py_fn = getattr(fn, "fn", None)     # kept: Inductor clears fn.fn when it pickles its kernels
        self.name = _jit_name(fn) or "kernel"
        self.path = ""
        self.kernel: Optional[Kernel] = None
        # why this kernel runs on the host (per-kernel fallback: see mtiacc.triton_backend.records)
        self.fallback_reason: Optional[str] = None
        # a tuple parameter (Triton 3.x) is compiled as one parameter per element, its argument flattened
        self.tuple_types = [ty if isinstance(ty, (tuple, list)) else None for ty in src.signature.values()]
        tuples = {p: ty for p, ty in src.signature.items() if isinstance(ty, (tuple, list))}
        signature = dict(f for p, ty in src.signature.items() for f in closures.flat_names(p, ty))
        # parameters Triton compiled as constants: the constexpr ones, and arguments it specialized (1, None)
        self.constants: List[str] = [p for p, ty in signature.items() if ty == "constexpr"]
        # the element types are Triton's signature's, as its compiled kernel reads them (never the tensors' again)
        self.types: Dict[str, str] = {p: t for p, t in ((p, _mtiacc_type(ty)) for p, ty in signature.items()) if t}
        try:
            unit, name = _source_of(fn, tuples)
            self.path = unit if isinstance(unit, str) else unit.path
            _check_signature(name, signature)
            self.kernel = kernel_for(unit, name, getattr(metadata, "num_stages", None),
                                     bool(getattr(metadata, "enable_fp_fusion", True)))
        except Exception as e:
            if not records.fallback_enabled():
                raise (surfaced(e) if isinstance(e, UserError) else e) from None
            self.fallback_reason = _reason(e)
        self.last_launch = None
        self.replay = Replay()

    def __call__(self, gridX, gridY, gridZ, stream, function, packed_metadata, launch_metadata,
                 launch_enter_hook, launch_exit_hook, *args):
        grid = (int(gridX), int(gridY), int(gridZ))
        if launch_enter_hook is not None:
            launch_enter_hook(launch_metadata)
        if min(grid) > 0:
            with records.in_kernel():
                self._launch(grid, args)
        if launch_exit_hook is not None:
            launch_exit_hook(launch_metadata)

    def _launch(self, grid, args) -> None:
        if self.fallback_reason is not None:
            return None if tuning.capturing() else self._on_host(grid, args)
        if any(self.tuple_types):
            args = [x for a, ty in zip(args, self.tuple_types) for x in closures.flat_values(a, ty)]
        args = [_unwrapped(a) for a in args]
        if tuning.capturing():     # autotuning's candidates, about to run in parallel (tuning.prefetch)
            return tuning.capture(self.kernel, args, grid, self.constants, self.types)
        launch = self.replay.lookup(grid, args)
        if launch is None:
            try:
                prepared = self.kernel.prepare(*args, grid=grid, constants=self.constants, types=self.types)
            except Exception as e:     # the kernel cannot run on the chip with these arguments
                if isinstance(e, CompileError) and clock.autotuning():
                    raise ConfigDoesNotCompile(surfaced(e)) from None
                if not records.fallback_enabled():
                    raise (surfaced(e) if isinstance(e, UserError) else e) from None
                self.fallback_reason = _reason(e)
                return self._on_host(grid, args)
            progress.compiled(self.name, prepared.cached)
            try:
                launch = tuning.measured(prepared)     # simulated already, with the other candidates
                if launch is None:
                    launch = prepared.execute(**run_limits())
            except UserError as e:     # a fault of the kernel on the chip: never hidden by a fallback
                raise surfaced(e) from None
            self.replay.record(launch)
        progress.simulated(self.name, getattr(getattr(launch, "stats", None), "cycles", None))
        clock.advance(launch.time_s)
        records.on_chip(self.path, self.name, launch, _tensor_bytes(args))
        self.last_launch = launch

    def _on_host(self, grid, args) -> None:
        from mtiacc.triton_backend.fallback import run_on_host
        t0 = time.perf_counter()
        run_on_host(self.py_fn or _reloaded(self.path, self.name), grid, args)
        progress.ran_on_host(self.name)
        records.fell_back(self.path, self.name, self.fallback_reason, time.perf_counter() - t0, _tensor_bytes(args))


def _tensor_bytes(args) -> int:
    """The bytes of the tensors among a launch's arguments (a tensor passed twice counted once)."""
    tensors = {id(a): a for a in args if hasattr(a, "element_size")}
    return sum(a.numel() * a.element_size() for a in tensors.values())


def _reloaded(path: str, name: str):
    """The Python function of kernel ``name`` in ``path``, loaded again (Triton's interpreter runs it)."""
    import importlib.util
    if not path:
        raise UserError(f"'{name}' cannot run on the chip, and its source file is not known to run it on the host")
    spec = importlib.util.spec_from_file_location(f"mtiacc_fallback_{abs(hash(path))}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    fn = getattr(module, name)
    while hasattr(fn, "fn"):
        fn = fn.fn
    return fn


def _reason(err: Exception) -> str:
    """A fallback's reason: mtiacc's diagnostic (its first line, with the location), or an internal error."""
    if isinstance(err, UserError):
        return err.render().splitlines()[0]
    return f"internal compiler error: {type(err).__name__}: {err}"
