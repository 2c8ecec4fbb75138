"""Triton's ahead-of-time compiler's spellings (`python -m triton.tools.compile`), accepted beside ours:
-n/--kernel-name, -s/--signature with one entry per parameter (a constexpr's entry is its value), `:1` hints,
-g/--grid with C's `/`."""
from pathlib import Path

import numpy as np
import pytest

from mtiacc.diagnostics import UserError
from mtiacc.asm.gridexpr import evaluate
from mtiasim.runner import run
from tests.cli.helpers import clean, mtiacc

VECTOR_ADD = str(Path(__file__).resolve().parents[2] / "examples" / "vector_add.py")


def compiled(capsys, tmp_path, *flags, name="k.bin"):
    out = tmp_path / name
    rc, _, err = mtiacc(capsys, VECTOR_ADD, "-o", out, *flags)
    assert rc == 0, err
    return out.read_bytes()


def test_tritons_spelling_compiles_the_same_binary_as_ours(capsys, tmp_path):
    theirs = compiled(capsys, tmp_path, "-n", "add_kernel", "-s", "*fp32:16, *fp32:16, *fp32:16, i32, 256",
                      "-g", "N / 256 + 1, 1, 1", name="theirs.bin")
    ours = compiled(capsys, tmp_path, "--kernel", "add_kernel", "--signature", "*fp32,*fp32,*fp32,i32",
                    "-D", "BLOCK_SIZE=256", "--grid", "N / 256 + 1, 1, 1", name="ours.bin")
    assert theirs == ours
    also = compiled(capsys, tmp_path, "--kernel-name", "add_kernel", "--signature",
                    "*fp32, *fp32, *fp32, i32, 256", "--grid", "N / 256 + 1, 1, 1", name="also.bin")
    assert also == ours


def test_a_triton_grid_launches_as_c_divides(capsys, tmp_path):
    binary = compiled(capsys, tmp_path, "-n", "add_kernel", "-s", "*fp32, *fp32, *fp32, i32, 128",
                      "-g", "(N + 127) / 128, 1, 1")
    rng = np.random.default_rng(7)
    a, b = rng.standard_normal(300).astype(np.float32), rng.standard_normal(300).astype(np.float32)
    r = run(binary, {"A_ptr": a, "B_ptr": b, "C_ptr": np.zeros(300, np.float32), "N": np.int32(300)})
    assert r.stats.programs == 3 and r.stats.grid == (3, 1, 1)
    np.testing.assert_array_equal(r.outputs["C_ptr"], a + b)


def test_a_hint_of_one_makes_the_argument_the_constant_one(capsys, tmp_path):
    """Triton: `i32:1` specializes the argument to 1 (it leaves the argument list)."""
    from mtiacc.asm.elf import read_elf
    meta = read_elf(compiled(capsys, tmp_path, "-s", "*fp32, *fp32, *fp32, i32:1", "-D", "BLOCK_SIZE=16")).meta
    assert [p["name"] for p in meta["params"]] == ["A_ptr", "B_ptr", "C_ptr"]
    assert meta["constexprs"] == {"N": 1, "BLOCK_SIZE": 16}


@pytest.mark.parametrize("flags, fragments", [
    (["-s", "*fp32, *fp32, *fp32, i32, i32"],
     ["signature entry 5 ('i32') is constexpr parameter 'BLOCK_SIZE': give its value"]),
    (["-s", "*fp32, *fp32, *fp32, i32, 256", "-D", "BLOCK_SIZE=128"],
     ["signature entry 5 gives constexpr 'BLOCK_SIZE' the value 256, but -D BLOCK_SIZE=128 another"]),
    (["-s", "*fp32, *fp32, i32", "-D", "BLOCK_SIZE=128"],
     ["the signature has 3 entries but kernel 'add_kernel' has 4 non-constexpr parameters",
      "note: or, as Triton's AOT compiler takes it, one entry per parameter (5), a constexpr's entry its value"]),
    (["-n", "nope", "-D", "BLOCK_SIZE=128"], ["no @triton.jit function 'nope'"]),
])
def test_tritons_spelling_errors(capsys, tmp_path, flags, fragments):
    out = tmp_path / "k.bin"
    clean(mtiacc(capsys, VECTOR_ADD, "-o", out, *flags), *fragments, code=3)
    assert not out.exists()


@pytest.mark.parametrize("expr, value", [("7 / 2", 3), ("-7 / 2", -3), ("7 / -2", -3), ("-8 / -2", 4),
                                         ("N / 256 + 1", 4), ("(N + 255) / 256", 4), ("N / 256 * 2", 6)])
def test_slash_divides_integers_toward_zero_as_c_does(expr, value):
    assert evaluate(expr, {"N": 1000}) == value


def test_slash_by_zero():
    with pytest.raises(UserError, match="divides by zero"):
        evaluate("N / (N - N)", {"N": 3})
