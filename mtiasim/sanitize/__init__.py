"""``mtiasim run --sanitize``: division by zero, reads of local memory never written, races between programs, missing
DMA waits and DMA transfers nothing orders (``waits``).

A sanitized run wraps the executors of the instructions it checks (``hooks.attach``); a plain run's machines are
never touched, so it costs nothing when off.  ``state.Sanitizer`` holds the shadow state and the rules,
``report`` the findings and their diagnostics.
"""
from .hooks import attach
from .report import SanitizerError
from .state import Sanitizer

__all__ = ["Sanitizer", "SanitizerError", "attach"]
