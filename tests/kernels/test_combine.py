"""tl.reduce / tl.associative_scan with @triton.jit combine functions, float("inf") constants:
differential tests against numpy, IR round trip and verifier, errors."""
from pathlib import Path

import numpy as np
import pytest

from mtiacc.diagnostics import CompileError
from mtiacc.driver import Options, compile_kernel
from tests.codegen.tensor.blocks.helpers import build, launch

K = Path(__file__).resolve().parent / "combine_kernels.py"


def _run(tmp_path, name, sig, data, opt=2, grid=(1,), **defines):
    return launch(tmp_path, build(name, sig, opt_level=opt, path=K, **defines), data, grid)


@pytest.mark.parametrize("opt", [0, 2])
@pytest.mark.parametrize("M, N", [(4, 8), (2, 32), (8, 1)])
def test_reduce_argmax_tuple(tmp_path, opt, M, N):
    rng = np.random.default_rng(M * N)
    x = rng.integers(-3, 4, (M, N)).astype(np.float32)  # many ties: the first index must win
    out = _run(tmp_path, "reduce_argmax_rows", "*fp32,*fp32,*i32",
               {"X": x.ravel(), "V": np.zeros(M, np.float32), "I": np.full(M, -1, np.int32)}, opt, M=M, N=N)
    np.testing.assert_array_equal(out["V"], x.max(1))
    np.testing.assert_array_equal(out["I"], x.argmax(1))


@pytest.mark.parametrize("M, N", [(4, 8), (16, 64)])
def test_vector_and_scalar_paths_agree(tmp_path, M, N):
    """32-bit operands take the vector path (rows as strided lanes), 64-bit indices the scalar one."""
    asm = compile_kernel(str(K), Options(kernel="reduce_argmax_rows", signature="*fp32,*fp32,*i32",
                                         defines={"M": str(M), "N": str(N)}), stop_after="asm").asm_text
    assert "vlse32.v" in asm
    x = np.random.default_rng(N).integers(-3, 4, (M, N)).astype(np.float32)
    data = {"X": x.ravel(), "V": np.zeros(M, np.float32)}
    vec = _run(tmp_path, "reduce_argmax_rows", "*fp32,*fp32,*i32", {**data, "I": np.zeros(M, np.int32)}, M=M, N=N)
    sca = _run(tmp_path, "reduce_argmax_rows_i64", "*fp32,*fp32,*i64", {**data, "I": np.zeros(M, np.int64)},
               M=M, N=N)
    np.testing.assert_array_equal(vec["V"], sca["V"])
    np.testing.assert_array_equal(vec["I"], x.argmax(1))
    np.testing.assert_array_equal(sca["I"], x.argmax(1))


@pytest.mark.parametrize("M, N", [(4, 8), (8, 2)])
def test_reduce_axis0_keepdims(tmp_path, M, N):
    rng = np.random.default_rng(1)
    x = rng.uniform(0.5, 1.5, (M, N)).astype(np.float32)
    out = _run(tmp_path, "reduce_axis0_keepdims", "*fp32,*fp32", {"X": x.ravel(), "Y": np.zeros(N, np.float32)},
               M=M, N=N)
    want = x[0].copy()
    for r in range(1, M):
        want = (want * x[r]).astype(np.float32)
    np.testing.assert_array_equal(out["Y"], want)


def test_reduce_all_axes_and_method(tmp_path):
    M, N = 4, 16
    x = np.random.default_rng(2).integers(-100, 100, (M, N)).astype(np.int32)
    out = _run(tmp_path, "reduce_all_to_scalar", "*i32,*i32", {"X": x.ravel(), "Y": np.zeros(M + 1, np.int32)},
               M=M, N=N)
    assert out["Y"][0] == x.sum()
    np.testing.assert_array_equal(out["Y"][1:], x.sum(1))


@pytest.mark.parametrize("M, N", [(4, 16), (2, 64)])
def test_welford_three_operands(tmp_path, M, N):
    x = np.random.default_rng(3).standard_normal((M, N)).astype(np.float32)
    out = _run(tmp_path, "welford_rows", "*fp32,*fp32,*fp32",
               {"X": x.ravel(), "MEAN": np.zeros(M, np.float32), "VAR": np.zeros(M, np.float32)}, M=M, N=N)
    np.testing.assert_allclose(out["MEAN"], x.mean(1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["VAR"], x.var(1), rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("M, N", [(4, 8), (1, 16)])
def test_scan_forward_and_reverse(tmp_path, reverse, M, N):
    x = np.random.default_rng(4).integers(-50, 50, (M, N)).astype(np.int32)
    out = _run(tmp_path, "scan_rows", "*i32,*i32,*i32",
               {"X": x.ravel(), "Y": np.zeros(M * N, np.int32), "Z": np.zeros(M * N, np.int32)},
               M=M, N=N, REVERSE=int(reverse))
    want = np.cumsum(x[:, ::-1], 1)[:, ::-1] if reverse else np.cumsum(x, 1)
    np.testing.assert_array_equal(out["Y"].reshape(M, N), want)
    np.testing.assert_array_equal(out["Z"].reshape(M, N), np.cumsum(x, 0))


def test_scan_tuple_and_running_argmax(tmp_path):
    N = 32
    x = np.random.default_rng(5).integers(-5, 6, N).astype(np.float32)
    out = _run(tmp_path, "scan_pairs_1d", "*fp32,*fp32,*fp32",
               {"X": x, "A": np.zeros(N, np.float32), "B": np.zeros(N, np.float32)}, N=N)
    np.testing.assert_array_equal(out["A"], np.cumsum(x))
    np.testing.assert_array_equal(out["B"], np.cumsum(2 * x))
    out = _run(tmp_path, "running_max_index", "*fp32,*fp32,*i32",
               {"X": x, "V": np.zeros(N, np.float32), "I": np.zeros(N, np.int32)}, N=N)
    np.testing.assert_array_equal(out["V"], np.maximum.accumulate(x))
    np.testing.assert_array_equal(out["I"], [int(np.argmax(x[:k + 1])) for k in range(N)])


@pytest.mark.parametrize("n", [1, 5, 16])
def test_float_specials(tmp_path, n):
    B = 16
    x = np.random.default_rng(n).standard_normal(B).astype(np.float32)
    out = _run(tmp_path, "float_specials", "*fp32,*fp32,i32",
               {"X": x, "Y": np.zeros(B + 1, np.float32), "N": np.array(n, np.int32)}, BLOCK=B)
    y = out["Y"]
    m = x[:n].max()
    want = np.where(x[:n] == m, np.inf, x[:n])
    np.testing.assert_array_equal(y[:n], want)
    assert np.isnan(y[n:B]).all()
    assert y[B] == -np.inf


def test_ir_round_trip_and_verifier():
    from mtiacc.ir.text.parser import parse_ir
    from mtiacc.ir.text.printer import print_ir
    from mtiacc.ir.verifier import verify_module
    text = compile_kernel(str(K), Options(kernel="reduce_argmax_rows", signature="*fp32,*fp32,*i32", opt_level=0,
                                          defines={"M": "4", "N": "8"}), stop_after="ir").ir_text
    assert '"tt.reduce"(%x, %idx) {axis = 1} ({' in text and '"tt.reduce.return"' in text
    module = parse_ir(text)
    verify_module(module)
    assert print_ir(module) == text
    bad = text.replace('"tt.reduce.return"(%', '"tt.scan.return"(%')
    with pytest.raises(CompileError, match="combine region must end with 'tt.reduce.return'|"
                                           "must end the combine region of a 'tt.scan'"):
        verify_module(parse_ir(bad))
    bad = text.replace('(%x, %idx) {axis = 1}', '(%x, %idx) {axis = 1, kind = "max"}')
    with pytest.raises(CompileError, match="has both a built-in 'kind' and a combine region"):
        verify_module(parse_ir(bad))
    bad = text.replace('(%x, %idx) {axis = 1}', '(%x, %idx) {axis = 2}')
    with pytest.raises(CompileError, match="axis 2 is out of range for a block of rank 2"):
        verify_module(parse_ir(bad))


@pytest.mark.parametrize("M", [8, 13])
def test_reduce_inside_a_loop(tmp_path, M):
    N, ROWS = 16, 4
    x = np.random.default_rng(M).standard_normal((M, N)).astype(np.float32)
    out = _run(tmp_path, "reduce_in_loop", "*fp32,*i32,i32",
               {"X": x.ravel(), "Y": np.zeros(ROWS, np.int32), "M": np.array(M, np.int32)}, N=N, ROWS=ROWS)
    # lane j sees rows j, j + ROWS, ...; it keeps the first row with the largest maximum
    want = []
    for j in range(ROWS):
        best = max(range(j, M, ROWS), key=lambda r: (x[r].max(), -r))
        want.append(best * N + int(x[best].argmax()))
    np.testing.assert_array_equal(out["Y"], want)


@pytest.mark.parametrize("opt", [0, 2])
def test_control_flow_in_a_combine_function(tmp_path, opt):
    """`if s > 100: s = 100` inside the combine function is a branch; elements combine in order."""
    x = np.array([30, 50, 40, -20, 90, 5, -200, 60], np.int32)
    out = _run(tmp_path, "combine_with_if", "*i32,*i32", {"X": x, "Y": np.zeros(8, np.int32)}, opt, N=8)
    want, acc = [], None
    for v in x:
        acc = int(v) if acc is None else min(acc + int(v), 100)
        want.append(acc)
    np.testing.assert_array_equal(out["Y"], want)


@pytest.mark.parametrize("n", [3, 9])
def test_python_min_max_abs(tmp_path, n):
    G = 4
    x = np.arange(-8, 8, 2).astype(np.float32)
    out = _run(tmp_path, "python_min_max", "*fp32,*fp32,i32",
               {"X": x, "Y": np.zeros(8, np.float32), "N": np.array(n, np.int32)}, G=G)
    lim = min(G, n - 2)
    np.testing.assert_array_equal(out["Y"], np.abs(np.maximum(np.maximum(x, -lim), min(3, G)) + G - 10))
