"""The ``cpu`` backend's driver: when it is active, the target, the device (one simulated chip), the launcher
and the benchmarker on the simulated clock.

Active when no GPU is usable (torch sees no CUDA or ROCm device) unless ``MTIACC_TRITON=0``;
``MTIACC_TRITON=1`` makes it active regardless (with another active driver, choose with
``TRITON_DEFAULT_BACKEND=cpu``).
"""
from __future__ import annotations

import os

from triton.backends.compiler import GPUTarget
from triton.backends.driver import DriverBase

from mtiacc.triton_backend.clock import SimulatedDevice, simulated_benchmarker
from mtiacc.triton_backend.clock import do_bench as simulated_do_bench
from mtiacc.triton_backend.compiler import ARCH, WARP_SIZE
from mtiacc.triton_backend import tuning
from mtiacc.triton_backend.launcher import MtiaLauncher

ENV = "MTIACC_TRITON"

_CPP_TYPES = {
    "i1": "bool", "i8": "int8_t", "i16": "int16_t", "i32": "int32_t", "i64": "int64_t",
    "u1": "bool", "u8": "uint8_t", "u16": "uint16_t", "u32": "uint32_t", "u64": "uint64_t",
    "fp16": "double", "bf16": "double", "fp32": "double", "f32": "double", "fp64": "double",
}


def _gpu_usable() -> bool:
    try:
        import torch
    except ImportError:
        return False
    try:
        return bool(torch.cuda.is_available())     # ROCm builds of torch answer here too
    except Exception:
        return False


# What a compiled kernel reports as its registers (``kernel.n_regs``): a program runs on one PE's scalar core,
# whose integer register file has 32 registers.  The device's ``max_num_regs`` is nominal: large enough that
# the occupancy Triton's tutorials compute, ``max_num_regs // (n_regs * warpSize * num_warps)``, is at least
# one program per PE for every num_warps up to 64 (programs beyond the 64 PEs run in later waves).
PROGRAM_REGS = 32
MAX_NUM_REGS = PROGRAM_REGS * WARP_SIZE * 64


class _Utils:
    """What ``CompiledKernel`` asks of ``driver.active.utils``: there is no module to load, the launcher
    compiles and runs the kernel."""

    def __init__(self):
        self._props = None

    def load_binary(self, name, kernel, shared, device):
        # (module, function, registers, spills, max threads per program)
        return (name, name, PROGRAM_REGS, 0, 1 << 20)

    def unload_module(self, module) -> None:
        pass

    def get_device_properties(self, device) -> dict:
        if self._props is None:
            from mtiacc.machine import load
            machine = load()      # the chip the launcher compiles for and simulates
            self._props = {"max_shared_mem": machine["pe.local_memory_bytes"],
                           "multiprocessor_count": machine["grid.x"] * machine["grid.y"],
                           "max_num_regs": MAX_NUM_REGS, "warpSize": WARP_SIZE, "sm_clock_rate": 0,
                           "mem_clock_rate": 0, "mem_bus_width": 0}
        return self._props


# Triton's knobs this backend relies on, set where the user has not set them: floating-point contraction on
# (Triton 3.9's default, which mtiacc's kernels are compiled and checked with); set, Triton no longer warns on
# every run that its default will change.
KNOBS = {"TRITON_DEFAULT_FP_FUSION": "1"}


def _set_knobs() -> None:
    for name, value in KNOBS.items():
        if os.environ.get(name) is None:
            os.environ[name] = value


def _complete_torch_device() -> None:
    """The torch device this driver reports is ``cpu``; programs written for GPUs call their device module's
    stream functions through it (``getattr(torch, DEVICE.type).set_stream(stream)``, Triton's tutorial 02).
    ``torch.cpu`` has ``Stream``, ``current_stream``, ``stream`` and ``synchronize``; the one it lacks,
    ``set_stream``, is added: the simulated chip runs launches in order on one stream, so choosing a stream
    changes nothing (a stream of another device is refused as CUDA's ``set_stream`` refuses it)."""
    try:
        import torch
    except ImportError:
        return
    if hasattr(torch.cpu, "set_stream"):
        return

    def set_stream(stream) -> None:
        if stream is not None and not isinstance(stream, torch.cpu.Stream):
            raise TypeError(f"torch.cpu.set_stream takes a torch.cpu.Stream, not {type(stream).__name__}")

    set_stream.__module__ = "torch.cpu"
    torch.cpu.set_stream = set_stream


def _install_do_bench() -> None:
    """``triton.testing.do_bench`` measures on the simulated clock while this driver is active
    (:func:`mtiacc.triton_backend.clock.do_bench`); ``perf_report`` benchmarks call it as they are."""
    import triton.testing
    if getattr(triton.testing.do_bench, "__module__", "") != simulated_do_bench.__module__:
        triton.testing.do_bench = simulated_do_bench


class MtiaDriver(DriverBase):
    """Triton's driver interface for mtiacc's simulator."""

    @classmethod
    def is_active(cls) -> bool:
        flag = os.environ.get(ENV, "").strip()
        if flag == "0":
            return False
        if flag == "1":
            return True
        return not _gpu_usable()

    def __init__(self):
        super().__init__()
        self.utils = _Utils()
        self.launcher_cls = MtiaLauncher
        _install_do_bench()
        tuning.install()        # the autotuner's configs compiled and simulated in parallel
        _set_knobs()
        _complete_torch_device()

    def get_current_target(self) -> GPUTarget:
        return GPUTarget("cpu", ARCH, WARP_SIZE)

    def get_active_torch_device(self):
        import torch
        return torch.device("cpu")

    def get_current_device(self) -> int:
        return 0

    def set_current_device(self, device) -> None:
        pass

    def get_current_stream(self, device=None) -> int:
        return 0

    def get_device_interface(self):
        return SimulatedDevice

    def get_benchmarker(self):
        return simulated_benchmarker

    def get_empty_cache_for_benchmark(self):
        return None       # each launch starts from a fresh simulated chip: no cache to flush

    def clear_cache(self, cache) -> None:
        pass

    def map_python_to_cpp_type(self, ty: str) -> str:
        if ty.startswith("*"):
            return "void*"
        return _CPP_TYPES.get(ty, ty)

    def allocate_default_profile_scratch(self, size: int, alignment: int, stream):
        import torch
        return torch.zeros(size, dtype=torch.int8)
