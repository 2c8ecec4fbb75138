"""How long a launch through Triton may run: the cycle cap and step budget every launch gets, and the
autotuner's candidates simulated in parallel (tuning.py) get the same."""
from __future__ import annotations

import os
from typing import Dict

from mtiacc.diagnostics import UserError

# How long a launch may run before it is taken for a runaway.  ``mtiasim run``'s defaults (10,000,000 cycles, 7.4 ms
# of the chip; 2,500,000 interpreter steps, about 10 s of this host) stop a looping binary promptly, and refuse
# what Triton's tutorials launch at their own sizes (tutorial 03's 4096^3 GEMM takes 15,000,000 cycles and more,
# 06's attention at 16384 tokens seconds of the chip).  A launch through Triton, as on a GPU, runs until it is
# done: up to 10^10 cycles (7.4 s of the chip) and 2.5 * 10^9 steps (hours of this host); Ctrl-C stops it sooner.
MAX_CYCLES_ENV, MAX_STEPS_ENV = "MTIACC_MAX_CYCLES", "MTIACC_MAX_STEPS"
DEFAULT_MAX_CYCLES = 10 ** 10
DEFAULT_MAX_STEPS = 2_500_000_000


def run_limits() -> Dict[str, int]:
    """The cycle cap and step budget of a launch (``MTIACC_MAX_CYCLES``, ``MTIACC_MAX_STEPS``, else the
    defaults above), as :meth:`mtiacc.runtime.launcher.Prepared.execute` takes them."""
    limits = {}
    for key, env, default in (("max_cycles", MAX_CYCLES_ENV, DEFAULT_MAX_CYCLES),
                              ("max_steps", MAX_STEPS_ENV, DEFAULT_MAX_STEPS)):
        text = os.environ.get(env, "").strip().replace("_", "")
        try:
            limits[key] = int(float(text)) if text else default
        except ValueError:
            raise UserError(f"{env}={os.environ[env]!r}: expected a number") from None
        if limits[key] <= 0:
            raise UserError(f"{env}={os.environ[env]!r}: expected a positive number")
    return limits
