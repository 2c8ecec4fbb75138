"""``kernel[grid](*args, **kwargs)`` on numpy arrays (and torch CPU tensors): compile, simulate, write back.

:func:`load` reads a kernel from a file by name (parsing it, never running it).  A launch binds the arguments to
the kernel's parameters as Python does, infers the signature from them (:mod:`.signature`), evaluates ``grid``
(a tuple, or a callable over the arguments by name, as in Triton), compiles once per signature and constexpr
values (the binary is cached on disk: :mod:`.cache`), runs the grid on the simulator and writes what the kernel
stored back into the caller's arrays.  It returns a :class:`Launch` with the simulated time and statistics;
``kernel.last_launch`` keeps the latest one.
"""
from __future__ import annotations

import ast
import dataclasses
import functools
import os
from typing import Callable, Collection, Dict, FrozenSet, List, Mapping, Optional, Tuple

import numpy as np

from mtiacc.diagnostics import UserError, surfaced
from mtiacc.runtime import cache
from mtiacc.runtime.signature import Buffer, DescriptorArg, as_annotated, classify, span_at


def _api(fn):
    """A public entry point: a :class:`UserError` leaves it with the whole diagnostic as its text (location, source
    line, caret, notes) and a traceback that ends here, not in the compiler's or the simulator's frames (as Triton's
    ``CompilationError`` does)."""
    @functools.wraps(fn)
    def entry(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except UserError as e:
            raise surfaced(e) from None
    return entry


@dataclasses.dataclass
class Launch:
    """One launch: the simulator's result (``outputs``, ``stats``), with the simulated time at hand."""

    result: object
    grid: Tuple[int, int, int]
    signature: str
    cached: bool

    @property
    def stats(self):
        return self.result.stats

    @property
    def cycles(self) -> int:
        return self.result.stats.cycles

    @property
    def time_s(self) -> float:
        """Simulated seconds on the chip (job launch included)."""
        return self.result.stats.time_s


@dataclasses.dataclass
class _Param:
    name: str
    constexpr: bool
    default: object = None
    has_default: bool = False
    annotation: Optional[str] = None    # the type its annotation names, as a signature spells it ("*i32", "i64")


def _define_text(name: str, v) -> str:
    if v is None or isinstance(v, (bool, int, float, str)):
        return repr(v)
    if isinstance(v, (tuple, list)):   # a tuple constexpr (torch.Size too): its elements' texts
        return "(" + "".join(_define_text(name, x) + ", " for x in v) + ")"
    if isinstance(v, np.generic):
        return repr(v.item())
    qual = getattr(v, "name", None) or str(v)          # tl.float16, torch.float16 -> their names
    return str(qual).replace("torch.", "")


class Kernel:
    """A ``@triton.jit`` function of a file, ready to launch: ``kernel[grid](*args, **kwargs)``."""

    def __init__(self, path, name: Optional[str] = None, **options):
        """``path``: the kernel's file, or a :class:`mtiacc.frontend.source.KernelSource` (a function as a
        running program holds it, compiled as written in its file)."""
        from mtiacc.frontend.entry import choose_kernel_def
        from mtiacc.frontend.source import KernelSource
        if isinstance(path, KernelSource):
            self.unit, self.path, self.source = path, path.path, path.digest_text()
        else:
            self.path = self.unit = os.path.abspath(path)
            try:
                with open(self.path, encoding="utf-8") as f:
                    self.source = f.read()
            except OSError as e:
                raise UserError(f"cannot read '{path}': {e.strerror}") from None
        fn, scope = choose_kernel_def(self.unit, name)
        self.name = fn.name
        self.options = _machine_options(dict(options))
        self.params = self._parameters(fn, scope)
        self.last_launch: Optional[Launch] = None
        self._binaries: Dict[str, Tuple[bytes, bool]] = {}
        self._written: Dict[str, Optional[FrozenSet[str]]] = {}

    @staticmethod
    def _parameters(fn: ast.FunctionDef, scope) -> List[_Param]:
        from mtiacc.frontend.visitor.module_scan import const_eval, is_constexpr_annotation
        args = fn.args.posonlyargs + fn.args.args
        first_default = len(args) - len(fn.args.defaults)
        out = []
        for i, a in enumerate(args):
            p = _Param(a.arg, is_constexpr_annotation(a.annotation, scope))
            if a.annotation is not None and not p.constexpr:
                p.annotation = _annotated_type(a.annotation, scope)
            if i >= first_default:
                p.has_default = True
                try:
                    p.default = const_eval(fn.args.defaults[i - first_default], scope)
                except Exception:       # a default the launcher need not know (a dtype): the compiler reads it
                    p.default = _UNKNOWN
            out.append(p)
        return out

    def __getitem__(self, grid) -> Callable[..., Launch]:
        def launch(*args, **kwargs) -> Launch:
            try:
                return self.run(*args, grid=grid, **kwargs)
            except UserError as e:
                raise surfaced(e) from None
        return launch

    def __repr__(self) -> str:
        return f"<mtiacc.Kernel {self.name} of {self.path}>"

    # ------------------------------------------------------------------------------------------------------
    def bind(self, args, kwargs) -> Dict[str, object]:
        names = [p.name for p in self.params]
        if len(args) > len(names):
            raise UserError(f"{self.name}() takes {len(names)} arguments, got {len(args)}")
        bound = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names:
                raise UserError(f"{self.name}() has no parameter '{k}' (parameters: {', '.join(names)})")
            if k in bound:
                raise UserError(f"{self.name}() got two values for parameter '{k}'")
            bound[k] = v
        for p in self.params:
            if p.name not in bound and not p.has_default:
                raise UserError(f"{self.name}() is missing the argument '{p.name}'")
        return bound

    @_api
    def run(self, *args, grid, seed: int = 0, max_cycles: Optional[float] = None, constants: Collection[str] = (),
            sanitize: bool = False, max_steps: Optional[int] = None, **kwargs) -> Launch:
        """Launch on the simulator.  ``constants`` names parameters (besides the constexpr ones) compiled as the
        constant value they are given, as Triton specializes an argument equal to 1; ``sanitize`` checks the run
        as ``mtiasim run --sanitize`` does (:meth:`Prepared.execute`)."""
        return self.prepare(*args, grid=grid, constants=constants, **kwargs).execute(
            seed=seed, max_cycles=max_cycles, sanitize=sanitize, max_steps=max_steps)

    @_api
    def prepare(self, *args, grid, constants: Collection[str] = (), types: Optional[Mapping[str, str]] = None,
                compile: bool = True, **kwargs) -> "Prepared":
        """Everything of a launch before the simulator runs: bind the arguments, infer the signature, compile
        (or find the binary in the cache) and evaluate the grid.  An error here means the kernel cannot run on
        the chip with these arguments; an error from :meth:`Prepared.execute` is a fault of the kernel.
        ``types`` gives parameters' types as a signature spells them (``{"X": "*i32"}``: Triton's signature,
        from the Triton backend): they are the kernel's, as an annotation's are, never worked out again from
        the arguments (an array of another element type is read by its bits).  With ``compile=False`` nothing is
        compiled: the launch's ``binary`` is empty, and its ``compile_request`` says what to compile
        (:meth:`compile_job`, :meth:`install_binary`), so that it can be compiled elsewhere."""
        bound = self.bind(args, kwargs)
        defines: Dict[str, str] = {}
        signature: List[str] = []
        p = Prepared(self)
        for param in self.params:
            if param.name not in bound:
                continue                      # a defaulted parameter: the compiler takes the default
            v = bound[param.name]
            if param.constexpr or v is None or param.name in constants:
                defines[param.name] = _define_text(param.name, v)
                continue
            ty, val = classify(param.name, v)
            want = (types or {}).get(param.name) or param.annotation
            if want is not None and want != ty:
                ty, val = _as_annotation(param.name, want, ty, val)
            signature.append(ty)
            if isinstance(val, DescriptorArg):
                p.descriptors[param.name] = val.array
                p.inputs[param.name] = np.ascontiguousarray(val.array)
            elif isinstance(val, Buffer):
                p.buffers[param.name] = val
                p.inputs[param.name] = (val.span.view(val.dtype) if val.span.size % val.dtype.itemsize == 0
                                        else val.span)
                p.pointer_at[param.name] = (param.name, val.offset)
            else:
                p.scalars[param.name] = repr(float(val)) if ty.startswith("fp") or ty == "bf16" else str(int(val))
        order = [q.name for q in self.params]
        p.signature = ",".join(signature)
        groups = _share_memory(p.buffers, p.inputs, p.pointer_at)
        if groups:      # sharing only read parameters orders nothing: the plain compile serves (the same key)
            written = self.written_parameters(p.signature, defines)
            groups = [g for g in groups if written is None or written.intersection(g)]
        aliases = tuple(" ".join(sorted(g, key=order.index)) for g in groups)
        p.compile_request = (p.signature, dict(defines), aliases)
        if compile:
            p.binary, p.cached = self._binary(p.signature, defines, aliases)
        meta = {q.name: (bound[q.name] if q.name in bound else q.default) for q in self.params}
        g = grid(meta) if callable(grid) else grid
        g = (g,) if isinstance(g, (int, np.integer)) else tuple(int(x) for x in g)
        if not 1 <= len(g) <= 3:
            raise UserError(f"the grid {g} must have 1 to 3 dimensions")
        p.grid = g
        return p

    def _binary(self, signature: str, defines: Dict[str, str], aliases: Tuple[str, ...] = ()) -> Tuple[bytes, bool]:
        memo = _memo(signature, defines, aliases)
        if memo in self._binaries:
            return self._binaries[memo][0], True
        from mtiacc.driver import compile_kernel
        k = self.cache_key(signature, defines, aliases)
        binary = cache.load(k)
        cached = binary is not None
        if binary is None:
            unit, opts = self.compile_job(signature, defines, aliases)
            binary = compile_kernel(unit, opts).binary
            cache.store(k, binary)
        self._binaries[memo] = (binary, cached)
        return binary, cached

    def written_parameters(self, signature: str, defines: Mapping[str, str]) -> Optional[FrozenSet[str]]:
        """The pointer parameters the kernel may write through for ``signature`` and ``defines``, from the
        frontend's IR alone (``ir/analysis/pointers.py``: ``written_parameters``; None: it may write through any),
        once per signature and constexprs: a launch whose shared memory only read parameters take compiles the
        plain kernel (no ``may_alias``)."""
        memo = "written|" + _memo(signature, dict(defines), ())
        if memo not in self._written:
            from mtiacc.driver import written_parameters
            self._written[memo] = written_parameters(*self.compile_job(signature, defines))
        return self._written[memo]

    def cache_key(self, signature: str, defines: Mapping[str, str], aliases: Tuple[str, ...] = ()) -> str:
        """The disk cache's key of the binary for ``signature``, constexpr values ``defines`` and the groups of
        parameters the launch passes shared memory for (``aliases``, none: the key as without them)."""
        keyed = dict(self.options)
        if aliases:
            keyed["may_alias"] = list(aliases)
        if "target" in keyed or "overrides" in keyed:      # the machine's values, not its file's name
            from mtiacc.machine import load as load_machine
            keyed["machine"] = load_machine(keyed.get("target"), keyed.get("overrides", ())).digest
        return cache.key(self.source, self.name, signature, dict(defines), keyed, self.path)

    def compile_job(self, signature: str, defines: Mapping[str, str], aliases: Tuple[str, ...] = ()):
        """What :func:`mtiacc.driver.compile_kernel` takes to compile this kernel for ``signature``, ``defines``
        and ``aliases`` (``Options.may_alias``: the launch passes memory these parameters share): ``(unit,
        options)``, plain data another process can compile from (it reads the kernel's file at its path)."""
        from mtiacc.driver import Options
        return self.unit, Options(kernel=self.name, defines=dict(defines), signature=signature,
                                  may_alias=tuple(aliases), **self.options)

    def local_memory(self, signature: str, defines: Mapping[str, str] = None) -> Tuple[int, int, Tuple[str, ...]]:
        """The compiler's local-memory plan of this kernel for ``signature``: (the most bytes its blocks take at
        once, the bytes a PE's local memory has for blocks, what the local-memory ladder cut to fit: each loop's
        ``ladder`` attribute and the function's ``lmem_backoff``), from the IR passes alone, no instruction
        selected (``lmem_peak`` and ``lmem_capacity`` on the function in ``--emit=ir``)."""
        from mtiacc.driver import compile_kernel
        unit, opts = self.compile_job(signature, dict(defines or {}))
        module = compile_kernel(unit, opts, stop_after="ir").frontend.module
        func = [op for op in module.body.block.ops if op.name == "tt.func"][-1]
        cuts = tuple(op.attrs["ladder"] for op in func.walk() if "ladder" in op.attrs)
        if "lmem_backoff" in func.attrs:
            cuts += (f"lmem_backoff = {func.attrs['lmem_backoff']}",)
        return func.attrs["lmem_peak"], func.attrs["lmem_capacity"], cuts

    def install_binary(self, signature: str, defines: Mapping[str, str], binary: bytes,
                       aliases: Tuple[str, ...] = ()) -> None:
        """A binary compiled elsewhere from :meth:`compile_job`: kept as this process's own compile would keep it
        (in memory, and in the disk cache), so the launch that needs it compiles nothing."""
        cache.store(self.cache_key(signature, defines, aliases), binary)
        self._binaries[_memo(signature, dict(defines), aliases)] = (binary, False)


@dataclasses.dataclass
class Prepared:
    """A launch ready to run (:meth:`Kernel.prepare`): the binary, the grid, and the arguments as the simulator
    takes them."""

    kernel: "Kernel"
    signature: str = ""
    binary: bytes = b""
    cached: bool = False
    grid: Tuple[int, ...] = (1,)
    inputs: Dict[str, np.ndarray] = dataclasses.field(default_factory=dict)
    scalars: Dict[str, str] = dataclasses.field(default_factory=dict)
    pointer_at: Dict[str, Tuple[str, int]] = dataclasses.field(default_factory=dict)
    buffers: Dict[str, Buffer] = dataclasses.field(default_factory=dict)
    descriptors: Dict[str, np.ndarray] = dataclasses.field(default_factory=dict)
    # (signature, constexprs, parameter groups passed shared memory: Options.may_alias) the binary is of
    compile_request: Optional[Tuple[str, Dict[str, str], Tuple[str, ...]]] = None

    @_api
    def execute(self, seed: int = 0, max_cycles: Optional[float] = None, sanitize: bool = False,
                max_steps: Optional[int] = None) -> Launch:
        """Run the grid on the simulator and write what the kernel stored back into the caller's arrays.

        With ``sanitize`` the run is checked for integer division by zero, reads of local memory never written and
        races between programs (:mod:`mtiasim.sanitize`); findings raise :class:`~mtiasim.sanitize.SanitizerError`
        after the outputs are written back (a run that stopped at a fault writes nothing back, as without)."""
        from mtiasim.runner import run as simulate
        from mtiasim.sanitize import SanitizerError
        kw = {} if max_cycles is None else {"max_cycles": max_cycles}
        if max_steps is not None:      # the run's step budget (mtiasim run --max-steps)
            kw["max_steps"] = max_steps
        try:
            opts = self.kernel.options
            result = simulate(self.binary, self.inputs, grid=self.grid, args=self.scalars, seed=seed,
                              pointer_at=self.pointer_at, sanitize=sanitize, config_path=opts.get("target"),
                              overrides=opts.get("overrides", ()), **kw)
        except SanitizerError as e:
            if e.result is not None:
                self._write_back(e.result)
            raise
        return self.finish(result)

    def finish(self, result) -> Launch:
        """The launch whose simulator result is ``result`` (this launch's, simulated here or elsewhere): what the
        kernel stored is written back into the caller's arrays."""
        self._write_back(result)
        g = self.grid
        launch = Launch(result, tuple(list(g) + [1] * (3 - len(g))), self.signature, self.cached)
        self.kernel.last_launch = launch
        return launch

    def _write_back(self, result) -> None:
        """Copy what the kernel left in each buffer into the caller's memory.  A read-only array the kernel wrote
        is an error (its new values could not be delivered), never silently left as it was."""
        unwritable = []
        for name, buf in self.buffers.items():
            if name not in result.outputs:
                continue                      # its memory came back with the argument it shares it with
            out = result.outputs[name]
            raw = np.ascontiguousarray(out).reshape(-1).view(np.uint8)
            if not buf.span.size:
                continue
            if buf.readonly:
                if not np.array_equal(buf.span, raw):
                    unwritable.append(name)
                continue
            buf.span[:] = raw
        for name, arr in self.descriptors.items():
            if arr.flags.writeable:
                arr[...] = result.outputs[name]
            elif not np.array_equal(arr, result.outputs[name]):
                unwritable.append(name)
        if unwritable:
            names = ", ".join(f"'{n}'" for n in unwritable)
            raise UserError(f"the kernel wrote to argument{'s' if len(unwritable) > 1 else ''} {names}, "
                            f"{'a read-only array' if len(unwritable) == 1 else 'read-only arrays'}: its values "
                            f"could not be written back (pass a writable array, e.g. np.array(a) or "
                            f"a.copy())")


def _as_annotation(name: str, ann: str, ty: str, val):
    """An argument of type ``ty`` whose parameter has type ``ann`` (its annotation's, or Triton's signature's):
    that type, and the value as the kernel sees it (an array's bits reinterpreted; a scalar that fits the type)."""
    if isinstance(val, Buffer):
        if not ann.startswith("*"):
            raise UserError(f"argument '{name}' is an array ({ty}), but parameter '{name}' is annotated "
                            f"{ann}, a scalar")
        return ann, as_annotated(name, ann, val, ty)
    if isinstance(val, DescriptorArg) or ty.startswith("*"):
        return ty, val
    if ann.startswith("*"):
        raise UserError(f"argument '{name}' is a {type(val).__name__} ({ty}), but parameter '{name}' "
                        f"is annotated {ann}, a pointer: pass an array")
    if ann.startswith("fp") or ann == "bf16":
        return ann, val
    if isinstance(val, (float, np.floating)) and not float(val).is_integer():
        raise UserError(f"argument '{name}' = {val!r} is not an integer, but parameter '{name}' is "
                        f"annotated {ann}")
    return ann, val


def _memo(signature: str, defines: Mapping[str, str], aliases: Tuple[str, ...]) -> str:
    """A kernel's in-memory key of a binary (the key before ``aliases`` when there are none)."""
    return f"{signature}|{sorted(defines.items())}" + (f"|{list(aliases)}" if aliases else "")


def _share_memory(buffers: Dict[str, Buffer], inputs: Dict[str, np.ndarray],
                  pointer_at: Dict[str, Tuple[str, int]]) -> List[List[str]]:
    """Arguments whose memory overlaps (``kernel(x, x)``, two views of one array) become one buffer, so what the
    kernel writes through one pointer it reads through the other, as on the chip.  Returns the groups of names
    that share memory, for the compile that must not hold them apart (``Options.may_alias``)."""
    spans = sorted((b.span.__array_interface__["data"][0], b.span.size, name) for name, b in buffers.items()
                   if b.span.size)
    groups: List[List[Tuple[int, int, str]]] = []
    for lo, n, name in spans:
        if groups and lo < max(a + m for a, m, _ in groups[-1]):
            groups[-1].append((lo, n, name))
        else:
            groups.append([(lo, n, name)])
    shared = []
    for g in groups:
        if len(g) == 1:
            continue
        shared.append([name for _a, _m, name in g])
        lo = g[0][0]
        hi = max(a + m for a, m, _ in g)
        owner = g[0][2]
        offsets = {name: a - lo + buffers[name].offset for a, _m, name in g}
        dt = buffers[owner].dtype
        if (hi - lo) % dt.itemsize:
            raise UserError(f"arguments {', '.join(n for _, _, n in g)} share memory in a way mtiacc cannot pass "
                            f"as one buffer of {dt}")
        union = span_at(lo, hi - lo, [buffers[name].span for _a, _m, name in g])
        inputs[owner] = union.view(dt)
        buffers[owner] = Buffer(union, offsets[owner], dt)
        for _a, _m, name in g:
            pointer_at[name] = (owner, offsets[name])
            if name != owner:
                inputs.pop(name, None)
                buffers.pop(name)
    return shared


def _annotated_type(ann: ast.expr, scope) -> Optional[str]:
    """The Triton type a parameter's annotation names (``tl.pointer_type(tl.int32)``: ``*i32``), or None (no type,
    or one the compiler reports itself)."""
    from mtiacc.diagnostics import CompileError
    from mtiacc.frontend.source import SourceFile
    from mtiacc.frontend.visitor.params import _annotation_type, param_type_name
    try:
        t = _annotation_type(ann, scope, SourceFile("<annotation>", ""))
    except (CompileError, ValueError):
        return None
    name = param_type_name(t) if t is not None else None
    return None if name is None or name.startswith("tensordesc") else name


class _Unknown:
    def __repr__(self) -> str:
        return "<default>"


_UNKNOWN = _Unknown()


def _machine_options(options: dict) -> dict:
    """``machine=`` (a built-in name or a machine YAML) and ``overrides=`` (``["KEY=VALUE", ...]`` or
    ``{key: value}``) as the compiler's ``target`` and ``overrides``, checked now (the simulator runs the same
    machine)."""
    machine = options.pop("machine", None)
    if machine is not None:
        options["target"] = str(machine)
    if "overrides" in options:
        ov = options["overrides"] or ()
        ov = tuple(ov.items()) if isinstance(ov, dict) else (ov,) if isinstance(ov, str) else tuple(ov)
        if ov:
            options["overrides"] = ov
        else:
            del options["overrides"]
    if "target" in options or "overrides" in options:
        from mtiacc.machine import load as load_machine
        load_machine(options.get("target"), options.get("overrides", ()))
    return options


@_api
def load(path: str, name: Optional[str] = None, **options) -> Kernel:
    """The ``@triton.jit`` function ``name`` of file ``path`` (the only one when ``name`` is omitted), ready to
    launch: ``load("add.py", "add_kernel")[(n // 1024,)](x, y, out, n, BLOCK_SIZE=1024)``.  ``options`` are the
    compiler's (:class:`mtiacc.driver.Options`: ``opt_level`` ...); ``machine=`` (a built-in name or a machine
    YAML) and ``overrides=`` (``["memory.dram.bw_bytes_per_s=409.6e9"]`` or ``{key: value}``) choose the machine
    the kernel is compiled for and simulated on."""
    return Kernel(path, name, **options)
