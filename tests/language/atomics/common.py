"""Shared pieces of the atomics tests: running kernels on the simulator with a seed, and whether it has atomics."""
from __future__ import annotations

import inspect

import pytest

from mtiasim import runner
from tests.language.harness import build


def simulator_has_atomics() -> bool:
    try:
        from mtiasim.semantics import FAMILIES
    except ImportError:
        return False
    return "amo" in FAMILIES and "fence" in FAMILIES


needs_atomics = pytest.mark.skipif(not simulator_has_atomics(),
                                   reason="the simulator does not run the atomic instructions yet")


def run(source: str, signature: str, inputs: dict, grid=(1,), defines: tuple = (), seed: int = 0):
    """Compile ``source`` and run it; ``seed`` orders the programs' interleaving where the simulator takes one."""
    kwargs = {"grid": grid}
    if "seed" in inspect.signature(runner.run).parameters:
        kwargs["seed"] = seed
    return runner.run(str(build(source, signature, defines)), inputs, **kwargs).outputs
