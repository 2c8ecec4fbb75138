"""Inputs for examples/vector_add.py, and a check of its output.

    mkdir -p build
    mtiacc examples/vector_add.py -D BLOCK_SIZE=256 --grid 'cdiv(N, BLOCK_SIZE)' -o build/add.bin
    python examples/vector_add_inputs.py build/data.npz          # A = 1..N, B = N..1, C = 0, N = 1024
    mtiasim run build/add.bin --inputs build/data.npz -o build/out.npz
    python examples/vector_add_inputs.py --check build/out.npz   # C must be N + 1 everywhere
"""
import sys

import numpy as np

N = 1024


def main(argv):
    if argv[:1] == ["--check"]:
        c = np.load(argv[1])["C_ptr"]
        if not np.array_equal(c, np.full(N, N + 1, dtype=np.float32)):
            bad = np.flatnonzero(c != N + 1)
            sys.exit(f"vector add: wrong result at {bad.size} elements, first at {bad[0]}: {c[bad[0]]}")
        print(f"vector add: C == {N + 1} everywhere ({N} elements)")
        return
    a = np.arange(1, N + 1, dtype=np.float32)
    np.savez(argv[0], A_ptr=a, B_ptr=a[::-1].copy(), C_ptr=np.zeros(N, np.float32), N=np.int32(N))
    print(f"wrote {argv[0]}")


if __name__ == "__main__":
    main(sys.argv[1:])
