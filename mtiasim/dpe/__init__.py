"""The matrix engine's timing model (its functional semantics are :mod:`mtiasim.semantics.dpe`)."""
from .engine import DpeTiming

__all__ = ["DpeTiming"]
