"""Launching kernels from Python: ``mtiacc.load(path, name)[grid](*args, **kwargs)`` on numpy arrays and torch
CPU tensors (:mod:`.launcher`), with the signature inferred from the arguments (:mod:`.signature`) and compiled
binaries cached on disk (:mod:`.cache`).  This layer sits above the compiler and the simulator and uses both."""
from mtiacc.runtime.launcher import Kernel, Launch, load
from mtiacc.runtime.signature import TensorDescriptor

__all__ = ["Kernel", "Launch", "TensorDescriptor", "load"]
