"""Embedding bag (sum mode): out[b, :] = sum of table[idx[k], :] over the bag's indices
k in [offsets[b], offsets[b + 1]); one bag per program, BAG indices at a time, gathering a
[BAG, BLOCK_D] tile of table rows per step.

    mkdir -p build
    mtiacc examples/embedding_bag.py -D BAG=8 -D BLOCK_D=64 --signature '*fp32,*i32,*i32,*fp32,i32,i32' \\
        --grid 'offsets.shape[0] - 1' -o build/embedding_bag.bin
    python examples/inputs.py embedding_bag build/embedding_bag.npz   # small seeded inputs
    mtiasim run build/embedding_bag.bin --inputs build/embedding_bag.npz -o build/embedding_bag.out.npz
    python examples/inputs.py embedding_bag --check build/embedding_bag.npz build/embedding_bag.out.npz
"""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def embedding_bag_kernel(table, idx, offsets, out, D, stride, BAG: tl.constexpr, BLOCK_D: tl.constexpr):
    bag = tl.program_id(0)
    start = tl.load(offsets + bag)
    end = tl.load(offsets + bag + 1)
    cols = tl.arange(0, BLOCK_D)
    cmask = cols < D
    acc = tl.zeros([BLOCK_D], dtype=tl.float32)
    for k in range(start, end, BAG):
        offs = k + tl.arange(0, BAG)
        kmask = offs < end
        rows = tl.load(idx + offs, mask=kmask, other=0)
        vals = tl.load(table + rows[:, None] * stride + cols[None, :],
                       mask=kmask[:, None] & cmask[None, :], other=0.)
        acc += tl.sum(vals, axis=0)
    tl.store(out + bag * D + cols, acc, mask=cmask)


def reference(table: np.ndarray, idx: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    out = np.zeros((len(offsets) - 1, table.shape[1]), np.float64)
    for b in range(len(offsets) - 1):
        out[b] = table[idx[offsets[b]:offsets[b + 1]]].astype(np.float64).sum(axis=0)
    return out.astype(np.float32)
