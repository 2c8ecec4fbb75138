"""A Triton backend named ``cpu`` that runs unmodified Triton programs on the mtiacc simulator.

Triton finds it through the ``triton.backends`` entry point and imports :mod:`.compiler` (the
``BaseBackend``: options, and stages that keep Triton's TTIR) and :mod:`.driver` (the ``DriverBase``: the
target, the launcher, the simulated clock for ``do_bench`` and ``@triton.autotune``).  The kernel itself is
compiled by mtiacc from its Python source when it is first launched (:mod:`.launcher`), through
:mod:`mtiacc.runtime`, and runs on the simulator on the torch tensors' memory.

``MTIACC_TRITON=0`` turns the backend off; ``MTIACC_TRITON=1`` turns it on even where a GPU is usable.
Nothing in mtiacc imports this package: only Triton does.
"""
