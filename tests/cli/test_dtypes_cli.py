"""Every element type through the command lines: ``mtiacc dtype_ops.py -s '*T,...'`` then ``mtiasim run --inputs
in.npz``, the npz holding each type's elements as numpy has them (bf16 as ``uint16`` bits, the fp8 formats as
``uint8`` bytes, i1 as ``bool``), the output npz compared bit for bit with numpy (tests/dtype_table.py).  An array
of another dtype is refused with the dtype the signature wants, never converted."""
from pathlib import Path

import numpy as np
import pytest

from tests.cli.helpers import clean, mtiacc, mtiasim
from tests.dtype_table import BY_TYPE, DTYPES, N, SCALARS, expected, expected_scalar, inputs, mismatches

KERNELS = Path(__file__).resolve().parents[1] / "kernels" / "dtype_ops.py"


def _compile(capsys, tmp_path, d):
    binary = tmp_path / f"ops_{d.ty}.bin"
    sig = f"*{d.ty},*{d.ty},*{d.z_ty},*i1,*{d.ty}"
    code, _, err = mtiacc(capsys, KERNELS, "-n", d.kernel, "-s", sig, "-D", f"N={N}", "-g", "1", "-o", binary)
    assert code == 0, err
    return binary


def _run(capsys, tmp_path, binary, **arrays):
    src, out = tmp_path / "in.npz", tmp_path / "out.npz"
    np.savez(src, **arrays)
    result = mtiasim(capsys, "run", binary, "--inputs", src, "-o", out)
    return result, out


@pytest.mark.parametrize("d", DTYPES, ids=lambda d: d.ty)
def test_every_type_through_the_command_lines(capsys, tmp_path, d):
    x, y = inputs(d)
    binary = _compile(capsys, tmp_path, d)
    (code, _, err), out = _run(capsys, tmp_path, binary, X=x, Y=y, Z=np.zeros(N, d.z_storage),
                               M=np.ones(N, np.bool_), W=np.zeros(N, d.storage))
    assert code == 0, err
    with np.load(out) as f:
        got = {k: f[k] for k in ("Z", "M", "W")}
        np.testing.assert_array_equal(f["X"], x)
    assert not mismatches(d, got, expected(d, x, y))


# (parameter type, the npz array's dtype, what the error names)
WRONG = [("bf16", np.float16, "expected an array of dtype uint16, got float16 (numpy has no bf16: the npz holds "
                               "bfloat16 elements as their uint16 bits)"),
         ("bf16", np.float32, "expected an array of dtype uint16, got float32"),
         ("i32", np.float32, "expected an array of dtype int32, got float32"),
         ("u16", np.int16, "expected an array of dtype uint16, got int16"),
         ("fp8e4nv", np.int8, "expected an array of dtype uint8, got int8 (numpy has no fp8e4nv: the npz holds "
                              "fp8e4nv elements as their bytes)"),
         ("fp16", np.uint16, "expected an array of dtype float16, got uint16"),
         ("i1", np.int16, "expected an array of dtype bool or int8 or uint8, got int16")]


@pytest.mark.parametrize("ty, given, message", WRONG, ids=[f"{w[1].__name__}-for-{w[0]}" for w in WRONG])
def test_an_array_of_another_dtype_is_refused_not_converted(capsys, tmp_path, ty, given, message):
    d = BY_TYPE[ty]
    binary = _compile(capsys, tmp_path, d)
    x, y = inputs(d)
    result, out = _run(capsys, tmp_path, binary, X=np.zeros(N, given), Y=y, Z=np.zeros(N, d.z_storage),
                       M=np.ones(N, np.bool_), W=np.zeros(N, d.storage))
    clean(result, f"parameter 'X' is *{ty}: {message}")
    assert not out.exists()


@pytest.mark.parametrize("byte_type", [np.uint8, np.int8])
def test_bytes_for_an_i1_pointer_are_true_when_nonzero(capsys, tmp_path, byte_type):
    """An npz of bytes for a ``*i1`` parameter: as Triton reads an i1 (its byte != 0)."""
    d = BY_TYPE["i1"]
    rng = np.random.default_rng(11)
    bx, by = (rng.integers(0, 256, N, dtype=np.uint8) for _ in range(2))
    bx[:64] = 0
    by[32:96] = 0
    binary = _compile(capsys, tmp_path, d)
    (code, _, err), out = _run(capsys, tmp_path, binary, X=bx.view(byte_type), Y=by.view(byte_type),
                               Z=np.zeros(N, np.bool_), M=np.ones(N, np.bool_), W=np.zeros(N, np.bool_))
    assert code == 0, err
    with np.load(out) as f:
        got = {k: f[k] for k in ("Z", "M", "W")}
    assert not mismatches(d, got, expected(d, bx != 0, by != 0))


@pytest.mark.parametrize("ty", list(SCALARS), ids=list(SCALARS))
@pytest.mark.parametrize("how", ["--arg", "npz"])
def test_a_scalar_of_every_type(capsys, tmp_path, ty, how):
    """A scalar parameter of each type, given by ``--arg s=VALUE`` or as a 0-d array in the npz (bf16 as a
    float32 value)."""
    d, s = BY_TYPE[ty], SCALARS[ty]
    binary = tmp_path / f"scalar_{ty}.bin"
    code, _, err = mtiacc(capsys, KERNELS, "-n", "add_scalar", "-s", f"*{ty},{ty},*{ty},*i1", "-D", f"N={N}",
                          "-g", "1", "-o", binary)
    assert code == 0, err
    x, _ = inputs(d)
    arrays = dict(X=x, Z=np.zeros(N, d.storage), M=np.ones(N, np.bool_))
    if how == "npz":
        arrays["s"] = np.array(s, np.float32 if ty == "bf16" else d.storage)
    src, out = tmp_path / "in.npz", tmp_path / "out.npz"
    np.savez(src, **arrays)
    extra = ["--arg", f"s={int(s) if isinstance(s, bool) else s}"] if how == "--arg" else []
    code, _, err = mtiasim(capsys, "run", binary, "--inputs", src, "-o", out, *extra)
    assert code == 0, err
    with np.load(out) as f:
        got = {k: f[k] for k in ("Z", "M")}
    assert not mismatches(d, got, expected_scalar(d, x, s))
