"""Shared pieces of the atomics tests: compiling a kernel and running it on the simulator with a seed."""
from __future__ import annotations

from mtiasim import runner
from tests.language.harness import build


def run(source: str, signature: str, inputs: dict, grid=(1,), defines: tuple = (), seed: int = 0):
    """Compile ``source`` and run it; ``seed`` orders programs whose atomics meet in the same cycle."""
    return runner.run(str(build(source, signature, defines)), inputs, grid=grid, seed=seed).outputs
