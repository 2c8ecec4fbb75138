"""Run a kernel binary on the simulated machine: ``run(binary, inputs, grid, args) -> RunResult``.

Pointer parameters take numpy arrays (any shape, C order) placed in DRAM per the ABI; scalar parameters come from
0-d arrays in ``inputs`` or from ``args`` strings (which win).  Programs run in waves of one program per PE
(program linear id -> PE ``linear % n_pes``), each wave simulated in lockstep.
"""
from __future__ import annotations

import dataclasses
import struct
import time
from typing import Dict, List, Optional, Tuple

import numpy as np

from mtiacc.diagnostics import UserError

from .config import MachineConfig, load_config
from .gridexpr import evaluate
from .loader import Program, load_program
from .machine import Machine
from .memory import Dram
from .timing import TimingModel, ceil_cycles, finish_cycles

POINTER_DTYPES = {
    "fp16": (np.float16,), "fp32": (np.float32,), "fp64": (np.float64,), "bf16": (np.uint16,),
    "i8": (np.int8,), "i16": (np.int16,), "i32": (np.int32,), "i64": (np.int64,),
    "u8": (np.uint8,), "u16": (np.uint16,), "u32": (np.uint32,), "u64": (np.uint64,),
    "i1": (np.bool_, np.int8, np.uint8),
}
INT_SCALARS = {"i1": (0, 1), "i8": (-(1 << 7), (1 << 7) - 1), "i16": (-(1 << 15), (1 << 15) - 1),
               "i32": (-(1 << 31), (1 << 31) - 1), "i64": (-(1 << 63), (1 << 63) - 1),
               "u8": (0, (1 << 8) - 1), "u16": (0, (1 << 16) - 1), "u32": (0, (1 << 32) - 1),
               "u64": (0, (1 << 64) - 1)}
FLOAT_SCALARS = {"fp16": np.float16, "bf16": None, "fp32": np.float32, "fp64": np.float64}


@dataclasses.dataclass
class Stats:
    programs: int = 0
    waves: int = 0
    grid: Tuple[int, int, int] = (1, 1, 1)
    instructions: int = 0
    by_unit: Dict[str, int] = dataclasses.field(default_factory=dict)
    by_timing_class: Dict[str, int] = dataclasses.field(default_factory=dict)
    cycles: int = 0
    launch_cycles: int = 0
    wave_cycles: List[int] = dataclasses.field(default_factory=list)
    clock_hz: float = 1.0
    dram_bytes_in: int = 0
    dram_bytes_out: int = 0
    steps: int = 0
    wall_seconds: float = 0.0

    @property
    def time_us(self) -> float:
        return self.cycles / self.clock_hz * 1e6

    @property
    def dram_bytes(self) -> int:
        return self.dram_bytes_in + self.dram_bytes_out


@dataclasses.dataclass
class RunResult:
    outputs: Dict[str, np.ndarray]
    stats: Stats


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


def _available(inputs) -> str:
    names = sorted(inputs)
    return ", ".join(f"'{n}'" for n in names) if names else "nothing"


def prepare(program: Program, cfg: MachineConfig, inputs: Dict[str, np.ndarray],
            args: Optional[Dict[str, str]]):
    """Check the inputs against the parameters; return (dram, args blob, scalar env, pointer params)."""
    params = _params(program.meta)
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
        if ty.startswith("*"):
            if name in args:
                raise UserError(f"--arg {name}: '{name}' is a pointer parameter; its data comes from the npz")
            base = ty[1:]
            if base not in POINTER_DTYPES:
                raise UserError(f"parameter '{name}' has type '{ty}', which mtiasim does not support")
            if name not in inputs:
                raise UserError(f"the inputs have no array for pointer parameter '{name}' ({ty}); they have "
                                f"{_available(inputs)}")
            arr = np.asarray(inputs[name])
            ok = POINTER_DTYPES[base]
            if arr.dtype.type not in ok:
                exp = " or ".join(np.dtype(t).name for t in ok)
                raise UserError(f"parameter '{name}' is {ty}: expected an array of dtype {exp}, got {arr.dtype}")
            pointers.append((name, ty, arr))
            slots.append(None)
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
    for name, _, arr in pointers:
        dram.view(name)[:] = np.ascontiguousarray(arr).reshape(-1).view(np.uint8)
    blob = b""
    pi = 0
    for s in slots:
        if s is None:
            blob += struct.pack("<Q", dram.buffers[pi].addr)
            pi += 1
        else:
            blob += s
    return dram, blob, scalars, pointers


def resolve_grid(program: Program, grid, scalars) -> Tuple[int, int, int]:
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
        g = tuple(evaluate(e, env) for e in exprs)
    if any(v < 0 for v in g):
        raise UserError(f"the launch grid {g} has a negative size")
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
        config_path: Optional[str] = None, max_steps: int = 50_000_000, config: Optional[MachineConfig] = None
        ) -> RunResult:
    """Simulate ``binary`` (a path, ELF bytes, a ``Binary`` or a loaded :class:`Program`) on ``inputs``."""
    t0 = time.perf_counter()
    cfg = config or load_config(config_path)
    program = binary if isinstance(binary, Program) else load_program(binary)
    dram, blob, scalars, pointers = prepare(program, cfg, inputs, args)
    gx, gy, gz = resolve_grid(program, grid, scalars)
    total = gx * gy * gz
    n_pes = cfg.n_pes
    args_base = int(program.meta.get("args_base", 0) or 0)
    want = program.meta.get("lmem_bytes")
    if isinstance(want, int) and want > cfg.local_memory_bytes:
        raise UserError(f"the binary was compiled for {want} bytes of local memory per PE; the machine "
                        f"({cfg.path}) has {cfg.local_memory_bytes}")
    if args_base < 0 or args_base + len(blob) > cfg.local_memory_bytes:
        raise UserError(f"the argument block ({len(blob)} bytes at local address {args_base}) does not fit in "
                        f"local memory")
    timing = TimingModel(cfg)
    local_memory = _local_memory(min(n_pes, max(total, 1)), cfg.local_memory_bytes)
    machines: Dict[int, Machine] = {}
    stats = Stats(programs=total, grid=(gx, gy, gz), clock_hz=cfg.clock_hz, launch_cycles=cfg.job_launch_cycles)
    cycles = float(stats.launch_cycles)
    for start in range(0, total, n_pes):
        P = min(n_pes, total - start)
        m = machines.get(P)
        if m is None:
            m = machines[P] = Machine(cfg, program, P, local_memory[:P], dram, timing, max_steps)
        m.reset(np.arange(start, start + P), (gx, gy, gz), blob, args_base)
        stats.steps += m.run()
        wave = ceil_cycles(float(finish_cycles(m).max()))
        stats.wave_cycles.append(wave)
        cycles += wave
        stats.waves += 1
    stats.cycles = ceil_cycles(cycles)
    for m in machines.values():
        stats.dram_bytes_in += m.dma_bytes_in
        stats.dram_bytes_out += m.dma_bytes_out
        for k, c in enumerate(m.counts):
            if not c:
                continue
            d = program.decoded[k]
            unit = str(getattr(d.spec, "unit", "other"))
            stats.by_unit[unit] = stats.by_unit.get(unit, 0) + c
            cls = str(d.spec.timing)
            stats.by_timing_class[cls] = stats.by_timing_class.get(cls, 0) + c
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
    return RunResult(outputs, stats)
