"""Blocks of rank 4 and 5: tensor descriptors of 1 to 5 dimensions with ragged edges, and the shape ops,
reductions and scans on such blocks, against numpy."""
import numpy as np
import pytest

from tests.language.harness import launch

RNG = np.random.default_rng(7)


def _descriptor_kernel(n: int) -> str:
    dims = "ABCDE"[:n]
    offs = [f"o{k}" for k in range(n)]
    blocks = [f"B{k}" for k in range(n)]
    strides = [" * ".join(dims[k + 1:]) or "1" for k in range(n)]
    params = ", ".join(list(dims) + offs + [f"{b}: tl.constexpr" for b in blocks])
    return f'''
@triton.jit
def desc_kernel(src, dst, {params}):
    d = tl.make_tensor_descriptor(src, shape=[{", ".join(dims)}], strides=[{", ".join(strides)}],
                                  block_shape=[{", ".join(blocks)}])
    x = d.load([{", ".join(offs)}])
    out = tl.make_tensor_descriptor(dst, shape=[{", ".join(dims)}], strides=[{", ".join(strides)}],
                                    block_shape=[{", ".join(blocks)}])
    out.store([{", ".join(offs)}], x * 2.0 + 1.0)
'''


CASES = [((40,), (-5,), (16,)), ((40,), (30,), (32,)),
         ((9, 20), (6, -3), (4, 16)),
         ((5, 3, 21), (3, -1, 9), (4, 2, 16)),
         ((5, 3, 6, 20), (3, 1, -2, 8), (4, 2, 4, 16)),
         ((3, 2, 3, 5, 19), (2, 1, -1, 3, 4), (2, 1, 2, 4, 16)),
         ((2, 2, 2, 2, 16), (0, 0, 0, 0, 0), (2, 2, 2, 2, 16))]


@pytest.mark.parametrize("shape, offsets, block", CASES, ids=[f"{len(c[0])}d-{i}" for i, c in enumerate(CASES)])
def test_descriptors_of_one_to_five_dimensions_with_ragged_edges(shape, offsets, block):
    n = len(shape)
    src = RNG.standard_normal(shape).astype(np.float32)
    dst = np.zeros(shape, np.float32)
    sig = "*fp32,*fp32," + ",".join(["i32"] * (2 * n))
    inputs = {"src": src, "dst": dst, **{"ABCDE"[k]: np.array(shape[k], np.int32) for k in range(n)},
              **{f"o{k}": np.array(offsets[k], np.int32) for k in range(n)}}
    r = launch(_descriptor_kernel(n), sig, inputs, defines=tuple((f"B{k}", str(block[k])) for k in range(n)))
    want = np.zeros(shape, np.float32)
    inside = tuple(slice(max(o, 0), max(min(o + b, s), 0)) for o, b, s in zip(offsets, block, shape))
    want[inside] = src[inside] * 2 + 1
    np.testing.assert_array_equal(r.outputs["dst"], want)


OPS5 = '''
@triton.jit
def ops5(src, dst, OP: tl.constexpr, AX: tl.constexpr):
    i = tl.arange(0, 2)[:, None, None, None, None] * 128 + tl.arange(0, 2)[None, :, None, None, None] * 64 \\
        + tl.arange(0, 2)[None, None, :, None, None] * 32 + tl.arange(0, 2)[None, None, None, :, None] * 16 \\
        + tl.arange(0, 16)[None, None, None, None, :]
    x = tl.load(src + i)
    if OP == 0:
        tl.store(dst + tl.arange(0, 256), tl.reshape(tl.permute(x, (4, 3, 2, 1, 0)), (256,)))
    elif OP == 1:
        tl.store(dst + tl.arange(0, 256 // x.shape[AX]), tl.reshape(tl.sum(x, axis=AX), (256 // x.shape[AX],)))
    elif OP == 2:
        tl.store(dst + tl.arange(0, 256 // x.shape[AX]), tl.reshape(tl.max(x, axis=AX), (256 // x.shape[AX],)))
    elif OP == 3:
        tl.store(dst + i, tl.cumsum(x, axis=AX))
    elif OP == 4:
        tl.store(dst + i, tl.where(x > 0, x, x * 0.5) + tl.sum(x, axis=0)[None, :, :, :, :])
    elif OP == 5:
        tl.store(dst + i, tl.flip(tl.sort(x), 2))
'''


@pytest.mark.parametrize("op, axis", [(0, 0), (1, 0), (1, 2), (1, 4), (2, 1), (2, 3), (3, 1), (3, 4), (4, 0),
                                      (5, 0)])
def test_shape_ops_reductions_and_scans_on_rank_5_blocks(op, axis):
    s = RNG.standard_normal((2, 2, 2, 2, 16)).astype(np.float32)
    want = {0: lambda: s.transpose(4, 3, 2, 1, 0).reshape(-1), 1: lambda: s.sum(axis).reshape(-1),
            2: lambda: s.max(axis).reshape(-1), 3: lambda: np.cumsum(s, axis),
            4: lambda: np.where(s > 0, s, s * 0.5) + s.sum(0)[None], 5: lambda: np.sort(s, -1)[:, :, ::-1]}[op]()
    r = launch(OPS5, "*fp32,*fp32", {"src": s, "dst": np.zeros(256, np.float32)},
               defines=(("OP", str(op)), ("AX", str(axis))))
    got = r.outputs["dst"][:want.size].reshape(want.shape)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-5)
