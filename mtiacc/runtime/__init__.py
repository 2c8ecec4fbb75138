"""Launching kernels from Python: ``mtiacc.load(path, name)[grid](*args, **kwargs)`` on numpy arrays and torch
CPU tensors (:mod:`.launcher`), with the signature inferred from the arguments (:mod:`.signature`) and compiled
binaries cached on disk (:mod:`.cache`).  This layer sits above the compiler and the simulator and uses both.
A :class:`Kernel` is a function of a file, or a :class:`KernelSource`: one as a running program holds it
(the Triton backend's), with :class:`Global` names among its captured values."""
from mtiacc.runtime.launcher import Kernel, Launch, load
from mtiacc.runtime.signature import TensorDescriptor

__all__ = ["Global", "Kernel", "KernelSource", "Launch", "TensorDescriptor", "load"]


def __getattr__(name: str):
    if name in ("Global", "KernelSource"):      # the frontend is imported when a kernel is compiled, not before
        from mtiacc.frontend import source
        return getattr(source, name)
    raise AttributeError(f"module 'mtiacc.runtime' has no attribute '{name}'")
