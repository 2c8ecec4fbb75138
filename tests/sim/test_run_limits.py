"""A runaway stops by the run's limits, counted across waves (an instruction-step budget and the cycle cap), and a
grid too large to simulate is refused before it runs; a float literal outside its type's range is warned of.
Not timed: each test asserts the error and the limit it names."""
import numpy as np
import pytest

from mtiacc.diagnostics import KernelFault
from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import WAVE_STEPS, run
from mtiasim.sync.progress import DEFAULT_MAX_STEPS

TINY = '''
import triton
import triton.language as tl


@triton.jit
def tiny_kernel(X):
    tl.store(X + tl.program_id(0) % 64, tl.program_id(0))
'''

SPIN = '''
import triton
import triton.language as tl


@triton.jit
def spin_kernel(X, N):
    i = 1
    while i < N:
        i = i * 1
    tl.store(X, i)
'''


def _binary(tmp_path, text, name, signature):
    p = tmp_path / f"{name}.py"
    p.write_text(text)
    return compile_kernel(str(p), Options(signature=signature)).binary, str(p)


def test_a_grid_too_large_to_simulate_is_refused_up_front(tmp_path):
    binary, _ = _binary(tmp_path, TINY, "tiny", "*i32")
    with pytest.raises(KernelFault) as e:
        run(binary, {"X": np.zeros(64, np.int32)}, grid=(10 ** 9,))
    msg = e.value.message
    assert msg.startswith("the launch grid (1000000000, 1, 1) is too large to simulate: 1,000,000,000 programs run "
                          "in 15,625,000 waves of 64, at least 2,343,750,000 instruction steps"), msg
    assert f"past --max-steps ({DEFAULT_MAX_STEPS})" in msg


def test_the_step_budget_counts_across_waves(tmp_path):
    binary, _ = _binary(tmp_path, TINY, "tiny", "*i32")
    x = np.zeros(64, np.int32)
    r = run(binary, {"X": x}, grid=(64 * 40,))                  # 40 waves of some 15 steps: within the default
    assert r.stats.waves == 40
    budget = 40 * WAVE_STEPS + 20 * 15     # the waves' setups fit, their steps do not: it stops half-way
    with pytest.raises(KernelFault) as e:
        run(binary, {"X": x}, grid=(64 * 40,), max_steps=budget)
    msg = e.value.message
    assert msg.startswith(f"the run executed more than {budget} instruction steps without finishing, counted "
                          f"across its waves ({WAVE_STEPS} for each wave's setup): "), msg
    assert "of its 40 waves ran" in msg and "--max-steps" in msg


def test_the_cycle_cap_counts_across_waves(tmp_path):
    binary, _ = _binary(tmp_path, TINY, "tiny", "*i32")
    x = np.zeros(64, np.int32)
    full = run(binary, {"X": x}, grid=(64 * 40,)).stats.cycles
    cap = full // 2                     # no wave comes near it; the waves together pass it
    with pytest.raises(KernelFault) as e:
        run(binary, {"X": x}, grid=(64 * 40,), max_cycles=cap)
    msg = e.value.message
    assert msg.startswith(f"the run passed --max-cycles ({cap} cycles) without finishing: "), msg
    assert "of its 40 waves" in msg


def test_a_runaway_loop_stops_at_the_step_budget_with_its_place(tmp_path):
    binary, path = _binary(tmp_path, SPIN, "spin", "*i32,i32")
    with pytest.raises(KernelFault) as e:
        run(binary, {"X": np.zeros(1, np.int32)}, grid=(1,), args={"N": "5"}, max_steps=50_000)
    err = e.value
    assert err.message.startswith("the run executed more than 50000 instruction steps without finishing, counted "
                                  "across its waves"), err.message
    assert err.loc is not None and err.loc.file == path and err.loc.line in (9, 10)


def test_the_cli_default_is_the_budget(tmp_path):
    from click.testing import CliRunner

    from mtiasim.cli import cli
    out = CliRunner().invoke(cli, ["run", "--help"]).output
    assert f"[default: {DEFAULT_MAX_STEPS}]" in out.replace("\n", " ").replace("  ", " ") or \
        str(DEFAULT_MAX_STEPS) in out


LITERAL = '''
import triton
import triton.language as tl


@triton.jit
def lit_kernel(X, Y, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    tl.store(Y + offs, x * {lit})
'''


@pytest.mark.parametrize("lit, sig, warned", [("1e39", "*fp32,*fp32", "fp32"), ("-4e38", "*fp32,*fp32", "fp32"),
                                              ("70000.0", "*fp16,*fp16", "fp16"), ("3e38", "*fp32,*fp32", None),
                                              ("1e39", "*fp64,*fp64", None)])
def test_a_float_literal_outside_its_types_range_is_warned_of(tmp_path, capsys, lit, sig, warned):
    from mtiacc import diagnostics
    diagnostics._warned.clear()
    path = tmp_path / "lit.py"
    path.write_text(LITERAL.format(lit=lit))
    compile_kernel(str(path), Options(signature=sig, defines={"BLOCK": "16"}))
    err = capsys.readouterr().err
    if warned is None:
        assert "warning" not in err, err
        return
    lines = err.splitlines()
    value = repr(float(lit))
    assert lines[0] == (f"{path}:10:24: warning: the constant {value} is outside the range of {warned} (largest "
                        f"finite value {65504 if warned == 'fp16' else 3.40282e+38:g}): it becomes "
                        f"{'-' if lit.startswith('-') else ''}inf"), lines[0]
    assert lines[1] == f"    tl.store(Y + offs, x * {lit})" and lines[2] == " " * 23 + "^" + "~" * (3 + len(lit))


def test_the_launcher_takes_the_budget(tmp_path, monkeypatch):
    import mtiacc
    monkeypatch.setenv("MTIACC_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "spin.py"
    path.write_text(SPIN)
    with pytest.raises(KernelFault) as e:
        mtiacc.load(str(path))[(1,)](np.zeros(1, np.int32), 5, max_steps=40_000)
    assert "more than 40000 instruction steps" in str(e.value) and f"{path}:" in str(e.value)
