"""mtiasim: the instruction-level, cycle-timed simulator of the chip.  ``mtiasim.run(binary, inputs, grid=...)``
(:func:`mtiasim.runner.run`) simulates a kernel binary and returns its outputs and statistics."""


def run(binary, inputs, **kwargs):
    """Simulate ``binary`` on ``inputs``; see :func:`mtiasim.runner.run` for the keyword arguments."""
    from mtiasim.runner import run as _run
    return _run(binary, inputs, **kwargs)
