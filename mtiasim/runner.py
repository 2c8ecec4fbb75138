"""Run a kernel binary on the simulated machine: ``run(binary, inputs, grid, args) -> RunResult``.

Pointer parameters take numpy arrays (any shape, C order) placed in DRAM per the ABI, and so do tensor
descriptor parameters (``tensordesc<fp16[64, 64]>``: the array's shape and strides follow its pointer); scalar
parameters come from 0-d arrays in ``inputs`` or from ``args`` strings (which win).  Programs run in waves of one program per PE
(program linear id -> PE ``linear % n_pes``), each wave simulated in lockstep.  A binary whose metadata says
``persistent: N`` launches only the grid's first ``N`` programs: the kernel loops over programs ``p``,
``p + N``, ... itself (``mtiacc``'s ``persistent-programs`` pass).
"""
from __future__ import annotations

import contextlib
import dataclasses
import gc
import re
import struct
import time
from typing import Dict, List, Optional, Tuple

import numpy as np

from mtiacc.asm.gridexpr import check_grid_sizes, evaluate
from mtiacc.diagnostics import KernelFault, UserError
from mtiacc.machine.simulator import MachineConfig, load_config

from .loader import Program, check_target, load_program
from .machine import Machine
from .memory import Dram
from .stats import STALLS, Stats
from .sync.progress import DEFAULT_MAX_CYCLES, DEFAULT_MAX_STEPS, WAVE_STEPS
from .timing import TimingModel, ceil_cycles, finish_cycles


POINTER_DTYPES = {
    "fp16": (np.float16,), "fp32": (np.float32,), "fp64": (np.float64,), "bf16": (np.uint16,),
    "i8": (np.int8,), "i16": (np.int16,), "i32": (np.int32,), "i64": (np.int64,),
    "u8": (np.uint8,), "u16": (np.uint16,), "u32": (np.uint32,), "u64": (np.uint64,),
    "i1": (np.bool_, np.int8, np.uint8),
    # fp8 buffers hold the formats' bytes (numpy has no fp8): uint8 arrays
    **{t: (np.uint8,) for t in ("fp8e4nv", "fp8e5", "fp8e4b15", "fp8e4b8", "fp8e5b16")},
}
INT_SCALARS = {"i1": (0, 1), "i8": (-(1 << 7), (1 << 7) - 1), "i16": (-(1 << 15), (1 << 15) - 1),
               "i32": (-(1 << 31), (1 << 31) - 1), "i64": (-(1 << 63), (1 << 63) - 1),
               "u8": (0, (1 << 8) - 1), "u16": (0, (1 << 16) - 1), "u32": (0, (1 << 32) - 1),
               "u64": (0, (1 << 64) - 1)}
FLOAT_SCALARS = {"fp16": np.float16, "bf16": None, "fp32": np.float32, "fp64": np.float64}


@dataclasses.dataclass
class RunResult:
    outputs: Dict[str, np.ndarray]
    stats: Stats
    trace: Optional[list] = None            # Chrome trace events (run(..., trace=True))
    profile: Optional[np.ndarray] = None    # core PE-cycles per instruction (run(..., profile=True))
    program: Optional[Program] = None
    counts: Optional[np.ndarray] = None     # executions (PE-instructions) per instruction
    unused_inputs: Tuple[str, ...] = ()     # input arrays that match no parameter (the CLI warns)
    # of ``profile``: DMA-wait stalls charged to the load or store that issued the transfer (+ there, - at the
    # waits); ``profile - profile_moved`` is where the programs spent the cycles (the trace's line spans)
    profile_moved: Optional[np.ndarray] = None


def _params(meta) -> List[dict]:
    params = meta.get("params")
    if not isinstance(params, list):
        raise UserError("the binary's metadata has no parameter list ('params')")
    for p in params:
        if not isinstance(p, dict) or "name" not in p or "type" not in p:
            raise UserError("the binary's metadata has a malformed parameter entry: " + repr(p))
    return params


def _scalar_value(name: str, ty: str, value, source: str):
    """A Python int/float for scalar parameter ``name`` of Triton type ``ty``."""
    if ty in INT_SCALARS:
        lo, hi = INT_SCALARS[ty]
        if isinstance(value, str):
            v = value.strip()
            if ty == "i1" and v.lower() in ("true", "false"):
                iv = int(v.lower() == "true")
            else:
                try:
                    iv = int(v, 0)
                except ValueError:
                    raise UserError(f"{source}: '{value}' is not an integer (parameter '{name}' is {ty})") from None
        else:
            a = np.asarray(value)
            if a.dtype.kind not in "biu":
                raise UserError(f"{source}: parameter '{name}' is {ty} but the value has dtype {a.dtype}")
            iv = int(a)
        if not lo <= iv <= hi:
            raise UserError(f"{source}: {iv} does not fit parameter '{name}' ({ty}: {lo}..{hi})")
        return iv
    if ty in FLOAT_SCALARS:
        if isinstance(value, str):
            try:
                return float(value)
            except ValueError:
                raise UserError(f"{source}: '{value}' is not a number (parameter '{name}' is {ty})") from None
        a = np.asarray(value)
        if a.dtype.kind not in "fiub":
            raise UserError(f"{source}: parameter '{name}' is {ty} but the value has dtype {a.dtype}")
        return float(a)
    raise UserError(f"parameter '{name}' has type '{ty}', which mtiasim does not support")


def _scalar_slot(ty: str, v) -> bytes:
    if ty in INT_SCALARS:
        return struct.pack("<q" if not ty.startswith("u") else "<Q", v)
    if ty == "fp32":
        return struct.pack("<f", v) + b"\0" * 4
    if ty == "fp64":
        return struct.pack("<d", v)
    if ty == "fp16":
        return np.float16(v).tobytes() + b"\0" * 6
    if ty == "bf16":
        bits = int(np.float32(v).view(np.uint32))
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16  # round to nearest even
        return struct.pack("<H", bits & 0xFFFF) + b"\0" * 6
    raise UserError(f"unsupported scalar type '{ty}'")


def native_order(arr: np.ndarray) -> np.ndarray:
    """``arr`` in the machine's (little-endian) byte order: a big-endian ``>f4`` array has the dtype the
    signature asks for, but its bytes would be read backwards."""
    if arr.dtype.byteorder == ">" or (arr.dtype.byteorder == "=" and np.little_endian is False):
        return arr.astype(arr.dtype.newbyteorder("<"))
    return arr


def _available(inputs) -> str:
    names = sorted(inputs)
    return ", ".join(f"'{n}'" for n in names) if names else "nothing"


_TENSORDESC = re.compile(r"tensordesc\s*<\s*(\w+)\s*\[([\d\s,]*)\]\s*>")


def _descriptor_input(name: str, ty: str, inputs) -> Tuple[str, np.ndarray, List[bytes]]:
    """A tensor descriptor parameter (``tensordesc<fp16[64, 64]>``): its pointer type and array, placed in DRAM
    as a pointer parameter's, and the slots after the base pointer: the array's shape (i32), then its strides in elements
    (i64), as Triton's ``TensorDescriptor.from_tensor`` takes them (the C-order copy in DRAM: the last is 1)."""
    m = _TENSORDESC.fullmatch(ty.strip())
    if m is None or not m.group(2).strip():
        raise UserError(f"parameter '{name}' has type '{ty}', which mtiasim does not support")
    elem, block = m.group(1), [int(d) for d in m.group(2).split(",")]
    arr = _pointer_array(name, ty, elem, inputs, "tensor descriptor parameter")
    if arr.ndim != len(block):
        raise UserError(f"parameter '{name}' is {ty}: its block has {len(block)} dimension"
                        f"{'s' if len(block) != 1 else ''}, so the array must have as many; got shape "
                        f"{tuple(arr.shape)}")
    if any(d >= 1 << 31 for d in arr.shape):
        raise UserError(f"parameter '{name}' ({ty}): a descriptor's shape is 32-bit; got shape {tuple(arr.shape)}")
    strides = [int(np.prod(arr.shape[k + 1:], dtype=np.int64)) for k in range(arr.ndim)]
    slots = [struct.pack("<q", d) for d in arr.shape] + [struct.pack("<q", st) for st in strides]
    return "*" + elem, arr, slots


def _pointer_array(name: str, ty: str, elem: str, inputs, what: str) -> np.ndarray:
    """The input array of pointer-like parameter ``name`` (type ``ty``, elements ``elem``), its dtype checked."""
    if elem not in POINTER_DTYPES:
        raise UserError(f"parameter '{name}' has type '{ty}', which mtiasim does not support")
    if name not in inputs:
        raise UserError(f"the inputs have no array for {what} '{name}' ({ty}); they have {_available(inputs)}")
    arr = native_order(np.asarray(inputs[name]))     # a big-endian array is read by value
    ok = POINTER_DTYPES[elem]
    if arr.dtype.type not in ok:
        exp = " or ".join(np.dtype(t).name for t in ok)
        bits = {"bf16": "bfloat16 elements as their uint16 bits"}.get(elem) or \
            (f"{elem} elements as their bytes" if elem.startswith("fp8") else None)
        raise UserError(f"parameter '{name}' is {ty}: expected an array of dtype {exp}, got {arr.dtype}"
                        + (f" (numpy has no {elem}: the npz holds {bits})" if bits else ""))
    return arr


def prepare(program: Program, cfg: MachineConfig, inputs: Dict[str, np.ndarray],
            args: Optional[Dict[str, str]], place: Optional[Dict[str, str]] = None,
            pointer_at: Optional[Dict[str, Tuple[str, int]]] = None):
    """Check the inputs against the parameters; return (dram, args blob, scalar env, pointer params).

    ``pointer_at`` maps a pointer parameter to ``(buffer, byte offset)``: its value is that far into the buffer of
    the parameter ``buffer`` (itself, or another one whose memory it shares; it then needs no input array)."""
    params = _params(program.meta)
    pointer_at = dict(pointer_at or {})
    args = dict(args or {})
    known = {p["name"] for p in params}
    for k in args:
        if k not in known:
            raise UserError(f"--arg {k}: the kernel has no parameter '{k}' (parameters: "
                            f"{', '.join(p['name'] for p in params) or 'none'})")
    pointers = []
    scalars = {}
    slots = []
    for p in params:
        name, ty = p["name"], str(p["type"])
        if ty.startswith("tensordesc"):
            if name in args or name in pointer_at:
                raise UserError(f"parameter '{name}' is a tensor descriptor ({ty}); its data comes from an array "
                                f"in the inputs")
            ptr_ty, arr, desc_slots = _descriptor_input(name, ty, inputs)
            pointers.append((name, ptr_ty, arr))
            slots.append((name, 0))
            slots.extend(desc_slots)
        elif ty.startswith("*"):
            if name in args:
                raise UserError(f"--arg {name}: '{name}' is a pointer parameter; its data comes from the npz")
            owner, offset = pointer_at.get(name, (name, 0))
            slots.append((owner, int(offset)))
            if owner != name:
                continue
            pointers.append((name, ty, _pointer_array(name, ty, ty[1:], inputs, "pointer parameter")))
        else:
            if name in args:
                v = _scalar_value(name, ty, args[name], f"--arg {name}")
            elif name in inputs:
                a = np.asarray(inputs[name])
                if a.ndim != 0 and a.size != 1:
                    raise UserError(f"scalar parameter '{name}' ({ty}) needs a 0-d array in the inputs, got shape "
                                    f"{a.shape}")
                v = _scalar_value(name, ty, a.reshape(()), f"input '{name}'")
            else:
                raise UserError(f"scalar parameter '{name}' ({ty}) has no value: pass --arg {name}=VALUE or add a "
                                f"0-d array '{name}' to the inputs (they have {_available(inputs)})")
            scalars[name] = v
            slots.append(_scalar_slot(ty, v))
    dram = Dram(cfg.dram_base, cfg.dram_buffer_gap, cfg.dram_bytes)
    dram.layout([(name, arr.nbytes) for name, _, arr in pointers])
    # the binary's own placement (an atomic the kernel performs in SRAM: metadata "place"), then --place
    placed = {str(k): str(v) for k, v in (program.meta.get("place") or {}).items()}
    _place(dram, cfg, {**placed, **(place or {})}, [p["name"] for p in params])
    if cfg.llc_bytes:           # the DRAM buffers' cache, empty at the start of the run (mtiasim/llc.py)
        from .llc import Llc
        dram.llc = Llc(cfg.llc_bytes, len(dram.data), cfg.llc_line_bytes, bool(cfg.llc_line_fill))
    for name, _, arr in pointers:
        dram.view(name)[:] = np.ascontiguousarray(arr).reshape(-1).view(np.uint8)
    blob = b""
    for s in slots:
        if isinstance(s, tuple):
            owner, offset = s
            try:
                blob += struct.pack("<Q", dram.buffer(owner).addr + offset)
            except KeyError:
                raise UserError(f"pointer parameter shares the memory of '{owner}', which is not a pointer "
                                f"parameter with an array") from None
        else:
            blob += s
    return dram, blob, scalars, pointers


def _place(dram: Dram, cfg: MachineConfig, place: Dict[str, str], names) -> None:
    """Mark buffers that live in the on-chip SRAM (``--place NAME=sram``, or the binary's ``place``); DRAM is the
    default."""
    from .dma import LEVELS
    sram = 0
    for name, where in place.items():
        where = str(where).lower()
        if where not in LEVELS:
            raise UserError(f"--place {name}={where}: a buffer lives in 'dram' or 'sram'")
        try:
            b = dram.buffer(name)
        except KeyError:
            raise UserError(f"--place {name}={where}: the kernel has no pointer parameter '{name}' (pointer "
                            f"parameters: {', '.join(b.name for b in dram.buffers) or 'none'})") from None
        b.level = LEVELS.index(where)
        if b.level == 1:
            sram += b.size
    lls = cfg.sram_bytes - cfg.llc_bytes
    if sram > lls:
        raise UserError(f"the buffers placed in SRAM need {sram} bytes; the machine's SRAM has {lls}"
                        + (f" outside its LLC ({cfg.llc_bytes} bytes of {cfg.sram_bytes})" if cfg.llc_bytes else ""))


def resolve_grid(program: Program, grid, scalars, shapes=None) -> Tuple[int, int, int]:
    if grid is not None:
        g = tuple(int(v) for v in grid)
        if not 1 <= len(g) <= 3:
            raise UserError(f"grid {grid!r} must have 1 to 3 dimensions")
    else:
        exprs = program.meta.get("grid")
        if not exprs:
            raise UserError("the binary does not say its launch grid: pass --grid X[,Y[,Z]]")
        if not isinstance(exprs, (list, tuple)) or not 1 <= len(exprs) <= 3:
            raise UserError(f"the binary's grid {exprs!r} must be a list of 1 to 3 expressions")
        env = dict(program.meta.get("constexprs") or {})
        env.update(scalars)
        g = tuple(evaluate(e, env, shapes) for e in exprs)
    if any(v < 0 for v in g):
        raise UserError(f"the launch grid {g} has a negative size")
    check_grid_sizes(g, f"the launch grid {g}" if grid is not None else
                     f"the binary's launch grid {program.meta.get('grid')} = {g}")
    return tuple(list(g) + [1] * (3 - len(g)))


_LM_CACHE: Dict[Tuple[int, int], np.ndarray] = {}


def _local_memory(rows: int, size: int) -> np.ndarray:
    """Zeroed per-PE local memories.  The array is reused across runs: first-touch page faults of a fresh
    25 MB array cost far more than clearing one that is already mapped."""
    lm = _LM_CACHE.get((rows, size))
    if lm is None:
        _LM_CACHE.clear()
        lm = _LM_CACHE[(rows, size)] = np.zeros((rows, size), np.uint8)
    else:
        lm.fill(0)
    return lm


def run(binary, inputs: Dict[str, np.ndarray], grid=None, args: Optional[Dict[str, str]] = None,
        config_path: Optional[str] = None, max_steps: int = DEFAULT_MAX_STEPS, config: Optional[MachineConfig] = None,
        place: Optional[Dict[str, str]] = None, trace: bool = False, profile: bool = False, seed: int = 0,
        max_cycles: float = DEFAULT_MAX_CYCLES, pointer_at: Optional[Dict[str, Tuple[str, int]]] = None,
        timeout: Optional[float] = None, sanitize: bool = False, overrides=()) -> RunResult:
    """Simulate ``binary`` (a path, ELF bytes, a ``Binary`` or a loaded :class:`Program`) on ``inputs``.

    ``place`` maps pointer parameters to ``"dram"`` (default) or ``"sram"``; ``trace`` collects Chrome trace
    events (``RunResult.trace``); ``profile`` counts core cycles per instruction (``RunResult.profile``);
    ``seed`` orders programs whose atomics reach a memory in the same cycle; a run longer than ``max_cycles``
    simulated cycles stops with an error naming where each program was (checked within a wave and between waves);
    a run of more than ``max_steps`` interpreter steps, counted across its waves (each also counting
    ``WAVE_STEPS``), stops too, and a grid whose waves alone would take more is refused before it runs;
    ``pointer_at`` places pointer parameters inside buffers (views, arguments sharing memory: see :func:`prepare`); a run taking more than ``timeout``
    seconds of host time stops with the same report as ``max_cycles``'s; ``sanitize`` checks the run for integer
    division by zero, reads of local memory never written, races between programs, missing DMA waits and DMA
    transfers nothing orders (:mod:`mtiasim.sanitize`), and raises :class:`~mtiasim.sanitize.SanitizerError` (its ``result`` is this
    run's) when it finds any.
    The machine is ``config``, else machine file ``config_path`` (default: the built-in mtia2i) with
    ``overrides`` (``--set KEY=VALUE`` texts or a ``{key: value}`` mapping, :func:`mtiacc.machine.load`).

    The cycle collector is off while the run builds and runs its machines (:func:`_collector_paused`)."""
    with _collector_paused():
        return _run(binary, inputs, grid, args, config_path, max_steps, config, place, trace, profile, seed,
                    max_cycles, pointer_at, timeout, sanitize, overrides)


@contextlib.contextmanager
def _collector_paused():
    """The cycle collector off for the block, as it was after.  A run allocates tens of thousands of container
    objects (each instruction's executors, bound once per machine) and frees them by reference counting or all
    at once after the run; in a process that holds a large heap (torch's, a model's) every collection the
    allocations trigger walks that heap, which cost more host time than building the executors (a tiny BERT
    under torch.compile: 1.2 s of its 3.4 s of simulation).  What the run leaves behind is collected by the next
    collection after it."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _run(binary, inputs, grid, args, config_path, max_steps, config, place, trace, profile, seed, max_cycles,
         pointer_at, timeout, sanitize, overrides) -> RunResult:
    t0 = time.perf_counter()
    cfg = config or load_config(config_path, overrides)
    program = binary if isinstance(binary, Program) else load_program(binary)
    check_target(program.meta, cfg.name, cfg.path, binary if isinstance(binary, str) else program.name)
    dram, blob, scalars, pointers = prepare(program, cfg, inputs, args, place, pointer_at)
    gx, gy, gz = resolve_grid(program, grid, scalars, {name: np.shape(arr) for name, _, arr in pointers})
    total = gx * gy * gz
    n_pes = cfg.n_pes
    # a persistent binary: its first `slots` programs each run programs p, p + slots, ... (the kernel's loop)
    slots = program.meta.get("persistent")
    launched = min(total, slots) if slots else total
    _check_grid_budget((gx, gy, gz), launched, n_pes, max_steps)
    args_base = int(program.meta.get("args_base", 0) or 0)
    want = program.meta.get("lmem_bytes")
    if isinstance(want, int) and want > cfg.local_memory_bytes:
        raise UserError(f"the binary was compiled for {want} bytes of local memory per PE; the machine "
                        f"({cfg.path}) has {cfg.local_memory_bytes}")
    if args_base < 0 or args_base + len(blob) > cfg.local_memory_bytes:
        raise UserError(f"the argument block ({len(blob)} bytes at local address {args_base}) does not fit in "
                        f"local memory")
    timing = TimingModel(cfg)
    used = min(n_pes, max(launched, 1))
    local_memory = _local_memory(used, cfg.local_memory_bytes)
    machines: Dict[int, Machine] = {}
    stats = Stats(programs=total, grid=(gx, gy, gz), clock_hz=cfg.clock_hz, launch_cycles=cfg.job_launch_cycles)
    stats.machine = {"dram_bw": cfg.dram_bw_bytes_per_s, "sram_bw": cfg.sram_bw_bytes_per_s,
                     "lm_bw": cfg.local_memory_bw_bytes_per_s, "n_pes": n_pes,
                     "se_rate": cfg.se.elements_per_cycle,
                     "vector_peak_flops_fp32": 2 * cfg.datapath_bits / 32 * cfg.clock_hz * n_pes,
                     "dpe_peak_flops": 2 * cfg.dpe.peak_macs * cfg.clock_hz * n_pes}
    z = lambda: np.zeros(used)  # noqa: E731
    stats.pe_programs = np.zeros(used, np.int64)
    stats.pe_finish, stats.pe_core, stats.pe_vector_busy, stats.pe_dma_busy = z(), z(), z(), z()
    stats.pe_lm_bytes, stats.pe_vector_min, stats.pe_dpe_busy, stats.pe_dpe_min = z(), z(), z(), z()
    stats.pe_se_busy, stats.pe_se_elements, stats.pe_mlu_busy = z(), z(), z()
    stats.pe_stalls = {k: z() for k in STALLS}
    waves = [] if trace else None
    san = None
    if sanitize:
        from .sanitize import Sanitizer, attach
        san = Sanitizer(program, cfg, dram, pointers, (gx, gy, gz), total, used)
    cycles = float(stats.launch_cycles)
    n_waves = -(-launched // n_pes)
    for start in range(0, launched, n_pes):
        P = min(n_pes, launched - start)
        left = max_steps - stats.steps - WAVE_STEPS * (stats.waves + 1)
        if left <= 0:
            raise KernelFault(f"the run executed more than {max_steps} instruction steps without finishing, counted "
                              f"across its waves ({WAVE_STEPS} for each wave's setup): {stats.waves:,} of its "
                              f"{n_waves:,} waves ran (raise --max-steps if the kernel really is this long)")
        m = machines.get(P)
        if m is None:
            m = machines[P] = Machine(cfg, program, P, local_memory[:P], dram, timing, max_steps, max_cycles)
            if profile:
                m.enable_profile()
            if trace:
                from .tracerec import enable_trace
                enable_trace(m)
            if san is not None:
                attach(m, san)
        m.max_steps, m.step_budget = left, max_steps
        m.sched.deadline = None if timeout is None else t0 + timeout
        m.dma.trace = [] if trace else None
        m.reset(np.arange(start, start + P), (gx, gy, gz), blob, args_base, seed=seed, wave=stats.waves,
                offset=cycles, later=(start + P, launched))
        if trace:
            m.recorder.reset()
            m.se_recorder.reset()
        if san is not None:
            san.start_wave(m, args_base, len(blob))
        try:
            stats.steps += m.run()
        except KernelFault as fault:
            if san is None or not len(san.findings):
                raise
            from .sanitize import SanitizerError
            raise SanitizerError(san.findings, fault=fault) from None
        fin = finish_cycles(m)
        if trace:
            m.recorder.close_lines(m.cyc)
        wave = ceil_cycles(float(fin.max()))
        _account_wave(stats, m, P, fin, wave)
        if waves is not None:
            waves.append({"offset": cycles, "start": start, "P": P, "finish": fin.copy(), "cycles": wave,
                          "dma": m.dma.trace_events(), "segments": [list(tl.segs) for tl in m.dma.lines],
                          "vector": m.recorder.vector_spans(), "dma_wait": m.recorder.wait_spans(),
                          "lines": m.recorder.line_spans(), "dpe": m.engine_recorder.vector_spans(),
                          "dpe_wait": m.engine_recorder.wait_spans(), "se": m.se_recorder.vector_spans()})
        stats.wave_cycles.append(wave)
        stats.wave_pes.append(P)
        cycles += wave
        stats.waves += 1
        if cycles > max_cycles and start + P < launched:     # checked within a wave too (sync/progress.py)
            raise KernelFault(f"the run passed --max-cycles ({max_cycles:.0f} cycles) without finishing: "
                              f"{cycles:.0f} cycles after {stats.waves:,} of its {n_waves:,} waves (a grid too "
                              f"large to simulate, or a runaway; raise --max-cycles if the kernel really runs this "
                              f"long)")
    stats.cycles = ceil_cycles(cycles)
    if slots and total > launched:   # the programs each slot ran, on the PE it ran on
        stats.pe_programs[:] = 0
        for s in range(launched):
            stats.pe_programs[s % n_pes] += -(-(total - s) // slots)
    prof = np.zeros(len(program.decoded)) if profile else None
    moved = np.zeros(len(program.decoded)) if profile else None
    counts = np.zeros(len(program.decoded), np.int64)
    for m in machines.values():
        counts += np.asarray(m.counts, np.int64)
        stats.dma_bytes_in += m.dma_bytes_in
        stats.dma_bytes_out += m.dma_bytes_out
        if prof is not None:
            prof += m.profile
            moved += m.profile_moved
        for k, c in enumerate(m.counts):
            if not c:
                continue
            d = program.decoded[k]
            unit = str(getattr(d.spec, "unit", "other"))
            stats.by_unit[unit] = stats.by_unit.get(unit, 0) + c
            cls = str(d.spec.timing)
            stats.by_timing_class[cls] = stats.by_timing_class.get(cls, 0) + c
            stats.issue_busy[unit] = stats.issue_busy.get(unit, 0.0) + c * timing.cost(cls, d.spec.name)[0]
            stats.instructions += c
    outputs = {}
    for name, ty, arr in pointers:
        raw = dram.view(name)
        # a view of the run's own DRAM array (fresh per run): no copy of possibly large buffers
        out = raw.view(arr.dtype if arr.dtype != np.bool_ else np.uint8).reshape(arr.shape)
        if arr.dtype == np.bool_:
            out = out != 0
        outputs[name] = out
    stats.wall_seconds = time.perf_counter() - t0
    events = None
    if waves is not None:
        from .trace import build_trace
        events = build_trace(stats, waves, cfg, program._source)
    unused = tuple(sorted(set(inputs) - {p["name"] for p in _params(program.meta)}))
    result = RunResult(outputs, stats, events, prof, program, counts, unused, moved)
    if san is not None and len(san.findings):
        from .sanitize import SanitizerError
        raise SanitizerError(san.findings, result)
    return result


def _check_grid_budget(grid: Tuple[int, int, int], launched: int, n_pes: int, max_steps: int) -> None:
    """Refuse, before it runs, a grid whose waves alone would take more than the step budget."""
    waves = -(-launched // n_pes)
    need = waves * WAVE_STEPS
    if need <= max_steps:
        return
    raise KernelFault(f"the launch grid {grid} is too large to simulate: {launched:,} programs run in {waves:,} "
                      f"waves of {n_pes}, at least {need:,} instruction steps ({WAVE_STEPS} for each wave's setup), "
                      f"past --max-steps ({max_steps}); launch fewer programs, or raise --max-steps "
                      f"(about {need / DEFAULT_MAX_STEPS * 10:,.0f} s of host time here)")


def _account_wave(stats: Stats, m: Machine, P: int, fin: np.ndarray, wave: int) -> None:
    """Add one wave's per-PE figures (slot ``j`` of a wave runs on PE ``j``)."""
    acc = m.acc
    stats.pe_programs[:P] += 1
    stats.pe_finish[:P] += fin
    st = stats.pe_stalls
    st["dependence"][:P] += acc["dep"]
    st["structural"][:P] += acc["struct"]
    st["dma_wait"][:P] += acc["dma"]
    st["dpe_wait"][:P] += acc["dpe"]
    st["atomic_wait"][:P] += acc["amo"]
    st["synchronization"][:P] += wave - fin
    stats.pe_core[:P] += m.cyc - acc["dep"] - acc["struct"] - acc["dma"] - acc["dpe"] - acc["amo"]
    stats.pe_vector_busy[:P] += acc["vbusy"]
    stats.pe_dma_busy[:P] += m.dma.busy_by_pe()
    lv = m.dma.bytes_by_pe()
    stats.dram_bytes += int(lv[0].sum())
    stats.sram_bytes += int(lv[1].sum())
    stats.pe_lm_bytes[:P] += acc["lm"] + lv[0] + lv[1] + m.ts.engine.lm
    stats.pe_vector_min[:P] += acc["vmin"]
    eng = m.ts.engine
    stats.pe_dpe_busy[:P] += eng.busy
    stats.pe_mlu_busy[:P] += eng.mlu_busy
    stats.pe_dpe_min[:P] += eng.mmin
    stats.pe_se_busy[:P] += acc["sebusy"]
    stats.pe_se_elements[:P] += acc["seelems"]
    stats.dpe_macs += float(eng.macs.sum())
    stats.flops += float(acc["flops"].sum()) + 2.0 * float(eng.macs.sum())
    stats.vector_flops += float(acc["vflops"].sum())
    stats.dma_transfers += m.dma.n_transfers
    units = m.atomics
    stats.atomics += units.count
    stats.atomic_round_trip += units.round_trips
    stats.atomic_contention += units.contention
