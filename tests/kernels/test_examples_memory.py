"""The tutorial-style examples that read scalars and gather rows (examples/layer_norm.py forward and
backward, embedding_bag.py) against their numpy references, over several shapes including ragged ones."""
import numpy as np
import pytest

from tests.codegen.tensor.blocks.helpers import build, launch
from tests.codegen.tensor.blocks.test_examples import reference as load_reference
from tests.conftest import EXAMPLES

F32, I32 = np.float32, np.int32


def _build(name, kernel, sig, **defines):
    return build(kernel, sig, path=EXAMPLES / f"{name}.py", **defines)


LN_FWD = "*fp32,*fp32,*fp32,*fp32,*fp32,*fp32,i32,i32,fp32"


@pytest.mark.parametrize("M, N, block", [(3, 64, 64), (2, 100, 32), (4, 7, 16), (2, 300, 128)])
def test_layer_norm_forward_and_backward(tmp_path, M, N, block):
    rng = np.random.default_rng(M + N)
    x = (rng.standard_normal((M, N)) + 2).astype(F32)
    w = rng.uniform(0.5, 1.5, N).astype(F32)
    b = rng.standard_normal(N).astype(F32)
    eps = 1e-5
    y_ref, mean_ref, rstd_ref = load_reference("layer_norm")(x, w, b, eps)
    out = launch(tmp_path, _build("layer_norm", "layer_norm_fwd", LN_FWD, BLOCK_SIZE=block),
                 {"X": x.ravel(), "Y": np.zeros(M * N, F32), "W": w, "B": b, "Mean": np.zeros(M, F32),
                  "Rstd": np.zeros(M, F32), "stride": np.array(N, I32), "N": np.array(N, I32),
                  "eps": np.array(eps, F32)}, (M,))
    np.testing.assert_allclose(out["Mean"], mean_ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["Rstd"], rstd_ref, rtol=1e-4)
    np.testing.assert_allclose(out["Y"].reshape(M, N), y_ref, rtol=1e-4, atol=1e-5)

    bwd_ref = load_reference("layer_norm").__globals__["reference_bwd"]  # the same module's other function
    dy = rng.standard_normal((M, N)).astype(F32)
    mean, rstd = out["Mean"], out["Rstd"]
    dx_ref, dw_ref, db_ref = bwd_ref(dy, x, w, mean, rstd)
    out = launch(tmp_path, _build("layer_norm", "layer_norm_bwd_dx", "*fp32,*fp32,*fp32,*fp32,*fp32,*fp32,i32,i32",
                                  BLOCK_SIZE=block),
                 {"DX": np.zeros(M * N, F32), "DY": dy.ravel(), "X": x.ravel(), "W": w, "Mean": mean, "Rstd": rstd,
                  "stride": np.array(N, I32), "N": np.array(N, I32)}, (M,))
    np.testing.assert_allclose(out["DX"].reshape(M, N), dx_ref, rtol=1e-3, atol=1e-4)
    out = launch(tmp_path, _build("layer_norm", "layer_norm_bwd_dwdb",
                                  "*fp32,*fp32,*fp32,*fp32,*fp32,*fp32,i32,i32,i32", BLOCK_SIZE=block),
                 {"DW": np.zeros(N, F32), "DB": np.zeros(N, F32), "DY": dy.ravel(), "X": x.ravel(), "Mean": mean,
                  "Rstd": rstd, "M": np.array(M, I32), "N": np.array(N, I32), "stride": np.array(N, I32)},
                 (-(-N // block),))
    np.testing.assert_allclose(out["DW"], dw_ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(out["DB"], db_ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("bags, D, bag, block_d", [([3, 0, 5, 9], 16, 4, 16), ([1, 8, 2], 20, 8, 32)])
def test_embedding_bag(tmp_path, bags, D, bag, block_d):
    rng = np.random.default_rng(D)
    V = 40
    table = rng.standard_normal((V, D)).astype(F32)
    offsets = np.concatenate([[0], np.cumsum(bags)]).astype(I32)
    idx = rng.integers(0, V, offsets[-1]).astype(I32)
    B = len(bags)
    out = launch(tmp_path, _build("embedding_bag", "embedding_bag_kernel", "*fp32,*i32,*i32,*fp32,i32,i32",
                                  BAG=bag, BLOCK_D=block_d),
                 {"table": table.ravel(), "idx": idx, "offsets": offsets, "out": np.zeros(B * D, F32),
                  "D": np.array(D, I32), "stride": np.array(D, I32)}, (B,))
    np.testing.assert_allclose(out["out"].reshape(B, D), load_reference("embedding_bag")(table, idx, offsets),
                               rtol=1e-5, atol=1e-6)
