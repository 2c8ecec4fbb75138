"""Inputs for the examples, and a check of their outputs against numpy.

    python examples/inputs.py EXAMPLE IN.npz                    # write small seeded inputs for EXAMPLE
    python examples/inputs.py EXAMPLE --check IN.npz OUT.npz    # compare what mtiasim wrote with numpy

EXAMPLE is the example's file name without .py (softmax, row_sum, ...); each example's docstring shows the
whole sequence: compile, write the inputs, run, check.  (vector_add has its own, examples/vector_add_inputs.py.)
"""
import math
import sys

import numpy as np

f32 = np.float32


def _rng():
    return np.random.default_rng(2024)


def _rows(rows, cols):
    return _rng().standard_normal((rows, cols)).astype(f32)


# --- each example: write(rng) -> the inputs; expect(inputs) -> {output name: (wanted array, rtol, atol)} -----

def embedding_bag():
    rng = _rng()
    table = rng.standard_normal((50, 40)).astype(f32)
    offsets = np.array([0, 3, 3, 10, 17, 30], np.int32)          # five bags, the second empty
    idx = rng.integers(0, 50, offsets[-1]).astype(np.int32)
    return {"table": table, "idx": idx, "offsets": offsets, "out": np.zeros((5, 40), f32), "D": np.int32(40),
            "stride": np.int32(40)}


def expect_embedding_bag(i):
    out = np.zeros_like(i["out"], np.float64)
    for b in range(len(i["offsets"]) - 1):
        out[b] = i["table"][i["idx"][i["offsets"][b]:i["offsets"][b + 1]]].astype(np.float64).sum(axis=0)
    return {"out": (out, 1e-5, 1e-5)}


def gelu_silu():
    x = np.linspace(-6, 6, 700, dtype=f32)
    return {"X": x, "Y": np.zeros_like(x), "N": np.int32(x.size)}


def expect_gelu_silu(i):   # ACTIVATION=0: exact GELU
    x = i["X"].astype(np.float64)
    erf = np.vectorize(math.erf)
    return {"Y": (0.5 * x * (1 + erf(x / math.sqrt(2))), 1e-5, 1e-6)}


def layer_norm():
    x = _rows(6, 300)
    rng = _rng()
    return {"X": x, "Y": np.zeros_like(x), "W": rng.uniform(0.5, 1.5, 300).astype(f32),
            "B": rng.standard_normal(300).astype(f32), "Mean": np.zeros(6, f32), "Rstd": np.zeros(6, f32),
            "stride": np.int32(300), "N": np.int32(300), "eps": f32(1e-5)}


def expect_layer_norm(i):
    x = i["X"].astype(np.float64)
    mean = x.mean(axis=1)
    rstd = 1 / np.sqrt(x.var(axis=1) + float(i["eps"]))
    y = (x - mean[:, None]) * rstd[:, None] * i["W"] + i["B"]
    return {"Y": (y, 1e-4, 1e-5), "Mean": (mean, 1e-4, 1e-6), "Rstd": (rstd, 1e-4, 1e-6)}


def loop_scale():
    x = _rng().standard_normal(600).astype(f32)
    return {"X": x, "Y": np.zeros_like(x), "N": np.int32(600), "scale": f32(0.25), "ITERS": np.int32(3)}


def expect_loop_scale(i):   # STEPS=4
    x = i["X"].astype(np.float64)
    acc = np.zeros_like(x)
    for _ in range(4):
        acc = acc * 0.5 + x
    for _ in range(int(i["ITERS"])):
        acc = acc + x * (float(i["scale"]) * 2 + 1)
    return {"Y": (acc, 1e-5, 1e-5)}


def matmul_nodot():
    rng = _rng()
    a, b = rng.standard_normal((20, 13)).astype(f32), rng.standard_normal((13, 12)).astype(f32)
    return {"A": a, "B": b, "C": np.zeros((20, 12), f32), "M": np.int32(20), "N": np.int32(12), "K": np.int32(13)}


def expect_matmul_nodot(i):
    return {"C": (i["A"].astype(np.float64) @ i["B"], 1e-5, 1e-5)}


def mtia_double_buffer(programs=64, tiles=4, block=1024):
    n = programs * tiles * block
    x = _rng().standard_normal(n).astype(f32)
    return {"x_ptr": x, "y_ptr": np.zeros_like(x), "n": np.int32(n)}


def expect_mtia_double_buffer(i):   # SiLU
    x = i["x_ptr"].astype(np.float64)
    return {"y_ptr": ((x / (1 + np.exp(-x))).astype(f32), 1e-5, 1e-6)}


def rms_norm():
    x = _rows(5, 300)
    return {"X": x, "Y": np.zeros_like(x), "W": _rng().uniform(0.5, 1.5, 300).astype(f32), "stride": np.int32(300),
            "N": np.int32(300), "eps": f32(1e-6)}


def expect_rms_norm(i):
    x = i["X"].astype(np.float64)
    return {"Y": (x / np.sqrt((x * x).mean(axis=1, keepdims=True) + float(i["eps"])) * i["W"], 1e-5, 1e-6)}


def row_argmax():
    x = _rows(7, 500)
    return {"X": x, "OUT": np.zeros(7, np.int32), "N": np.int32(500), "stride": np.int32(500)}


def expect_row_argmax(i):
    return {"OUT": (i["X"].argmax(axis=1), 0, 0)}


def row_cumsum():
    x = _rows(6, 200)
    return {"X": x, "Y": np.zeros_like(x), "N": np.int32(200), "stride": np.int32(200)}


def expect_row_cumsum(i):
    return {"Y": (np.cumsum(i["X"].astype(np.float64), axis=1), 1e-4, 1e-5)}


def row_sum():
    x = _rows(6, 150)
    return {"X": x, "Y": np.zeros(6, f32), "M": np.int32(6), "N": np.int32(150)}


def expect_row_sum(i):
    return {"Y": (i["X"].astype(np.float64).sum(axis=1), 1e-5, 1e-5)}


def softmax():
    x = _rows(6, 300)
    return {"output_ptr": np.zeros_like(x), "input_ptr": x, "input_row_stride": np.int32(300),
            "output_row_stride": np.int32(300), "n_cols": np.int32(300)}


def expect_softmax(i):
    x = i["input_ptr"].astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return {"output_ptr": (e / e.sum(axis=1, keepdims=True), 1e-5, 1e-7)}


def transpose():
    x = _rows(20, 37)
    return {"X": x, "Y": np.zeros((37, 20), f32), "M": np.int32(20), "N": np.int32(37), "stride_xm": np.int32(37),
            "stride_xn": np.int32(1), "stride_ym": np.int32(20), "stride_yn": np.int32(1)}


def expect_transpose(i):
    return {"Y": (i["X"].T, 0, 0)}


EXAMPLES = ["embedding_bag", "gelu_silu", "layer_norm", "loop_scale", "matmul_nodot", "mtia_double_buffer", "rms_norm",
            "row_argmax", "row_cumsum", "row_sum", "softmax", "transpose"]


def check(name, inputs, outputs):
    """The problems, one line each (none: the outputs are right)."""
    problems = []
    for key, (want, rtol, atol) in globals()[f"expect_{name}"](inputs).items():
        if key not in outputs:
            problems.append(f"{name}: the outputs have no '{key}'")
            continue
        got = outputs[key]
        if got.shape != want.shape:
            problems.append(f"{name}: '{key}' has shape {got.shape}, expected {want.shape}")
            continue
        bad = ~np.isclose(got, want, rtol=rtol, atol=atol)
        if bad.any():
            k = np.flatnonzero(bad)[0]
            problems.append(f"{name}: '{key}' differs from numpy at {bad.sum()} of {bad.size} elements, first at "
                            f"{np.unravel_index(k, bad.shape)}: {got.flat[k]!r}, expected {want.flat[k]!r}")
    return problems


def main(argv):
    if len(argv) < 2 or argv[0] not in EXAMPLES or (argv[1] == "--check" and len(argv) != 4):
        sys.exit(__doc__.strip().split("\n\n")[1] + f"\n\nEXAMPLE: {', '.join(EXAMPLES)}")
    name = argv[0]
    if argv[1] == "--check":
        try:
            with np.load(argv[2]) as i, np.load(argv[3]) as o:
                problems = check(name, dict(i), dict(o))
        except KeyError as e:
            sys.exit(f"{name}: {argv[2]} holds no array {e}: not the inputs this script wrote for {name}")
        except (OSError, ValueError) as e:
            sys.exit(f"{name}: cannot read the archives: {e}")
        if problems:
            sys.exit("\n".join(problems))
        print(f"{name}: the outputs match numpy")
        return
    np.savez(argv[1], **globals()[name]())
    print(f"wrote {argv[1]}")


if __name__ == "__main__":
    main(sys.argv[1:])
