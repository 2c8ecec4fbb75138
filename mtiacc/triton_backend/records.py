"""What ran where: one record per kernel the ``cpu`` backend launched, and the fallback policy.

Each launch adds to its kernel's record: on the chip, its simulated time, the time the busiest resource alone
needs for what the kernel moved and computed (from the simulator's statistics), the bytes it moved from and to
DRAM, the bytes of the tensors it was given and its matrix-engine FLOPs; fallen back to the host, the reason
mtiacc gave.  :mod:`mtiacc.torch_backend` reads these records for its coverage report.

Fallback is off by default (a kernel mtiacc rejects raises mtiacc's error, as a Triton user expects); it is on
for the kernels of graphs compiled with ``torch.compile(backend="mtia")`` (while they compile and run:
:func:`fallback_scope`) unless ``MTIACC_FALLBACK=0``, and everywhere with ``MTIACC_FALLBACK=1``: a kernel that
cannot be compiled for the chip, or whose arguments mtiacc cannot pass, then runs on the host under Triton's
interpreter.
"""
from __future__ import annotations

import contextlib
import dataclasses
import os
import threading
from typing import Dict, Iterator, List, Optional, Tuple

FALLBACK_ENV = "MTIACC_FALLBACK"

_lock = threading.Lock()
_records: Dict[Tuple[str, str], "KernelRecord"] = {}
_local = threading.local()


@dataclasses.dataclass
class KernelRecord:
    """One kernel (by source file and name) and what its launches did."""

    name: str
    path: str
    on_chip: bool = True
    reason: Optional[str] = None
    launches: int = 0
    simulated_s: float = 0.0      # chip time of its launches on the simulator
    roofline_s: float = 0.0       # the bound resource's time alone, summed over launches
    bound: str = ""               # what bounds it: dram, sram, vector, dpe, local_memory
    dram_bytes: int = 0           # bytes its launches moved from and to DRAM (the simulator's count)
    tensor_bytes: int = 0         # bytes of the tensors its launches were given (each once a launch)
    dpe_flops: float = 0.0        # matrix-engine FLOPs of its launches
    host_s: float = 0.0           # host time of its fallback runs
    host_bytes: int = 0           # bytes of the tensors its fallback runs were given
    tuning_launches: int = 0      # launches that timed its configs (autotuning; not counted above)
    tuning_s: float = 0.0         # their simulated time

    @property
    def roofline_fraction(self) -> Optional[float]:
        if not self.on_chip or self.simulated_s <= 0:
            return None
        return self.roofline_s / self.simulated_s


def _record(path: str, name: str) -> KernelRecord:
    key = (path, name)
    rec = _records.get(key)
    if rec is None:
        rec = _records[key] = KernelRecord(name=name, path=path)
    return rec


def on_chip(path: str, name: str, launch, nbytes: int = 0) -> None:
    """A launch ran on the simulator, given tensors of ``nbytes`` bytes."""
    stats = launch.stats
    bound, roof_s, _ = stats.roofline()
    with _lock:
        rec = _record(path, name)
        if tuning_now():
            rec.tuning_launches += 1
            rec.tuning_s += launch.time_s
            return
        rec.launches += 1
        rec.simulated_s += launch.time_s
        rec.roofline_s += roof_s
        rec.bound = bound
        rec.dram_bytes += int(stats.dram_bytes)
        rec.tensor_bytes += int(nbytes)
        rec.dpe_flops += float(stats.dpe_flops)


def fell_back(path: str, name: str, reason: str, host_s: float, nbytes: int) -> None:
    """A launch ran on the host instead, for ``reason``, on tensors of ``nbytes`` bytes."""
    with _lock:
        rec = _record(path, name)
        rec.on_chip = False
        rec.reason = reason
        rec.launches += 1
        rec.host_s += host_s
        rec.host_bytes += nbytes


def kernels() -> List[KernelRecord]:
    with _lock:
        return [dataclasses.replace(r) for r in _records.values()]


def reset() -> None:
    with _lock:
        _records.clear()


def fallback_enabled() -> bool:
    flag = os.environ.get(FALLBACK_ENV, "")
    if flag in ("0", "1"):
        return flag == "1"
    return getattr(_local, "fallback", 0) > 0


@contextlib.contextmanager
def _counted(attr: str) -> Iterator[None]:
    """A nesting count of this thread's, raised for the block."""
    setattr(_local, attr, getattr(_local, attr, 0) + 1)
    try:
        yield
    finally:
        setattr(_local, attr, getattr(_local, attr) - 1)


def fallback_scope():
    """Kernels launched in this thread meanwhile fall back to the host rather than fail to compile."""
    return _counted("fallback")


def tuning():
    """Launches in this thread meanwhile time a kernel's configs (autotuning): recorded apart from its runs."""
    return _counted("tuning")


def tuning_now() -> bool:
    return getattr(_local, "tuning", 0) > 0


def in_kernel():
    """Marks the thread as inside a kernel launch: torch operations done to pass arguments are not the model's."""
    return _counted("depth")


def inside_kernel() -> bool:
    return getattr(_local, "depth", 0) > 0
