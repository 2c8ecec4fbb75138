"""An autotuned kernel with heuristics, compiled unmodified and run on the simulator against numpy:
the default config through the language harness, another config chosen with --config."""
import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run
from tests.language.harness import HEADER, launch

SOURCE = """
def block_configs():
    return [triton.Config({"BLOCK": b}, num_warps=w) for b, w in ((32, 2), (64, 4), (128, 8))]


@triton.autotune(configs=block_configs(), key=["n"], prune_configs_by={"top_k": 2}, reset_to_zero=["Y"])
@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0,
                    "SCALE": lambda args: 2.0 if args["BLOCK"] >= 64 else 0.5})
@triton.jit
def scaled_relu(X, Y, n, BLOCK: tl.constexpr, EVEN: tl.constexpr, SCALE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        x = tl.load(X + offs)
    else:
        x = tl.load(X + offs, mask=offs < n, other=0.0)
    tl.store(Y + offs, tl.maximum(x, 0.0) * SCALE, mask=offs < n)
"""


def want(x, scale):
    return np.maximum(x, 0).astype(np.float32) * np.float32(scale)


@pytest.mark.parametrize("n", [96, 100])
def test_default_config_matches_numpy(n):
    """Config 0 (BLOCK=32); n given by -D, so EVEN is computed (96 % 32 == 0, 100 % 32 != 0)."""
    x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    out = launch(SOURCE, "*fp32,*fp32", {"X": x, "Y": np.zeros(n, np.float32)}, grid=(-(-n // 32),),
                 defines=(("n", str(n)),)).outputs["Y"]
    np.testing.assert_array_equal(out, want(x, 0.5))


def test_chosen_config_matches_numpy(tmp_path):
    """Config 2 (BLOCK=128, SCALE=2.0); n a constant of the signature (Triton's AOT form); EVEN false."""
    n = 200
    src = tmp_path / "k.py"
    src.write_text(HEADER + SOURCE)
    result = compile_kernel(str(src), Options(signature=f"*fp32,*fp32,{n}", config=2))
    assert result.meta["constexprs"] == {"n": n, "BLOCK": 128, "EVEN": False, "SCALE": 2.0}
    assert result.meta["tuning"]["config"]["index"] == 2 and result.meta["tuning"]["config"]["num_warps"] == 8
    x = np.random.default_rng(1).standard_normal(n).astype(np.float32)
    out = run(result.binary, {"X": x, "Y": np.zeros(n, np.float32)}, grid=(2,)).outputs["Y"]
    np.testing.assert_array_equal(out, want(x, 2.0))
