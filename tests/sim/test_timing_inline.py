"""The simulator writes the scalar and the vector timing rule twice more, inline, for a whole wave (mtiasim/timing.py,
``TimingModel.INLINE``): on the examples, a run with the inline copies and one with the general rule only agree
cycle for cycle and counter for counter (a changed cost in one copy and not the other fails here)."""
import sys
from pathlib import Path

import pytest

from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run
from mtiasim.timing import TimingModel

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from benchmarks import behaviour  # noqa: E402

EXAMPLES = [e for e in behaviour._examples()
            if e[0] in ("vector_add", "softmax", "layer_norm_fwd", "layer_norm_bwd_dwdb", "gelu_silu_1")]


@pytest.mark.parametrize("example", [pytest.param(e, id=e[0]) for e in EXAMPLES])
@pytest.mark.parametrize("level", [0, 3])
def test_the_inline_rules_time_as_the_general_one(example, level, monkeypatch):
    name, file, kernel, sig, defines, grid, inputs = example
    opts = Options(kernel=kernel, signature=sig, opt_level=level, defines={k: str(v) for k, v in defines.items()})
    binary = compile_kernel(str(ROOT / "examples" / file), opts).binary
    fast = _simulated(run(binary, dict(inputs), grid=grid).stats)
    monkeypatch.setattr(TimingModel, "INLINE", False)
    general = _simulated(run(binary, dict(inputs), grid=grid).stats)
    assert fast["cycles"] > 0 and fast == general


def _simulated(stats) -> dict:
    """The run's statistics of the simulated machine (not the host's wall time)."""
    out = stats.to_json()
    out.pop("wall_seconds")
    return out
