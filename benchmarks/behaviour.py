"""A record of what the compiler's output does: every example and every corpus kernel, at -O0 and -O3.

For each (kernel, level) it records a digest of every output array, the simulated cycles and the
instructions executed.  Two records compared side by side show whether a change altered behaviour:

    python benchmarks/behaviour.py --corpus ../shared/corpus --out before.json
    ... change the compiler ...
    python benchmarks/behaviour.py --corpus ../shared/corpus --out after.json --compare before.json

``make bench-behaviour`` runs the examples (and the corpus, when CORPUS names its folder).  With ``--sanitize`` each
run is also checked by ``mtiasim run --sanitize``; a kernel's findings are recorded (``findings``: one line each)
beside its outputs and cycles, which the sanitizer does not change.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

from mtiacc.diagnostics import UserError
from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run
from mtiasim.sanitize import SanitizerError

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
LEVELS = (0, 3)
SCALARS = {"i1": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
           "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
           "fp16": np.float16, "fp32": np.float32, "fp64": np.float64}


def _f32(rng, n, scale=1.0):
    return (rng.standard_normal(n) * scale).astype(np.float32)


def _examples():
    """(name, file, kernel, signature, defines, grid, inputs) for each example."""
    rng = np.random.default_rng(1234)
    i32 = lambda v: np.array(v, np.int32)  # noqa: E731
    f32 = lambda v: np.array(v, np.float32)  # noqa: E731
    M, N = 6, 100
    x, w, b = _f32(rng, M * N), rng.uniform(0.5, 1.5, N).astype(np.float32), _f32(rng, N)
    mean, rstd = _f32(rng, M), rng.uniform(0.5, 2, M).astype(np.float32)
    table = _f32(rng, 40 * 24)
    idx = rng.integers(0, 40, 30).astype(np.int32)
    offs = np.array([0, 3, 3, 10, 19, 30], np.int32)
    yield ("vector_add", "vector_add.py", "add_kernel", "*fp32,*fp32,*fp32,i32", {"BLOCK_SIZE": 256}, (4,),
           {"A_ptr": _f32(rng, 1000), "B_ptr": _f32(rng, 1000), "C_ptr": np.zeros(1000, np.float32), "N": i32(1000)})
    for act in (0, 1):
        yield (f"gelu_silu_{act}", "gelu_silu.py", "gelu_silu_kernel", "*fp32,*fp32,i32",
               {"ACTIVATION": act, "BLOCK_SIZE": 128}, (8,),
               {"X": _f32(rng, 1000, 3), "Y": np.zeros(1000, np.float32), "N": i32(1000)})
    yield ("softmax", "softmax.py", "softmax_kernel", "*fp32,*fp32,i32,i32,i32", {"BLOCK_SIZE": 128}, (M,),
           {"output_ptr": np.zeros(M * N, np.float32), "input_ptr": x, "input_row_stride": i32(N),
            "output_row_stride": i32(N), "n_cols": i32(N)})
    yield ("rms_norm", "rms_norm.py", "rms_norm_kernel", "*fp32,*fp32,*fp32,i32,i32,fp32", {"BLOCK_SIZE": 128},
           (M,), {"X": x, "Y": np.zeros(M * N, np.float32), "W": w, "stride": i32(N), "N": i32(N), "eps": f32(1e-5)})
    yield ("layer_norm_fwd", "layer_norm.py", "layer_norm_fwd", "*fp32,*fp32,*fp32,*fp32,*fp32,*fp32,i32,i32,fp32",
           {"BLOCK_SIZE": 128}, (M,), {"X": x, "Y": np.zeros(M * N, np.float32), "W": w, "B": b,
                                       "Mean": np.zeros(M, np.float32), "Rstd": np.zeros(M, np.float32),
                                       "stride": i32(N), "N": i32(N), "eps": f32(1e-5)})
    yield ("layer_norm_bwd_dx", "layer_norm.py", "layer_norm_bwd_dx", "*fp32,*fp32,*fp32,*fp32,*fp32,*fp32,i32,i32",
           {"BLOCK_SIZE": 128}, (M,), {"DX": np.zeros(M * N, np.float32), "DY": _f32(rng, M * N), "X": x, "W": w,
                                       "Mean": mean, "Rstd": rstd, "stride": i32(N), "N": i32(N)})
    yield ("layer_norm_bwd_dwdb", "layer_norm.py", "layer_norm_bwd_dwdb",
           "*fp32,*fp32,*fp32,*fp32,*fp32,*fp32,i32,i32,i32", {"BLOCK_SIZE": 32}, (4,),
           {"DW": np.zeros(N, np.float32), "DB": np.zeros(N, np.float32), "DY": _f32(rng, M * N), "X": x,
            "Mean": mean, "Rstd": rstd, "M": i32(M), "N": i32(N), "stride": i32(N)})
    yield ("loop_scale", "loop_scale.py", "loop_scale", "*fp32,*fp32,i32,fp32,i32", {"STEPS": 3, "BLOCK": 128}, (4,),
           {"X": _f32(rng, 500), "Y": np.zeros(500, np.float32), "N": i32(500), "scale": f32(0.25), "ITERS": i32(3)})
    yield ("matmul_nodot", "matmul_nodot.py", "matmul_nodot_kernel", "*fp32,*fp32,*fp32,i32,i32,i32",
           {"BLOCK_M": 8, "BLOCK_N": 8, "BLOCK_K": 16}, (2, 2),
           {"A": _f32(rng, 13 * 9), "B": _f32(rng, 9 * 11), "C": np.zeros(13 * 11, np.float32),
            "M": i32(13), "N": i32(11), "K": i32(9)})
    yield ("row_argmax", "row_argmax.py", "row_argmax_kernel", "*fp32,*i32,i32,i32", {"BLOCK_N": 1024}, (M,),
           {"X": x, "OUT": np.zeros(M, np.int32), "N": i32(N), "stride": i32(N)})
    yield ("row_cumsum", "row_cumsum.py", "row_cumsum_kernel", "*fp32,*fp32,i32,i32", {"BLOCK_N": 128}, (M,),
           {"X": x, "Y": np.zeros(M * N, np.float32), "N": i32(N), "stride": i32(N)})
    yield ("row_sum", "row_sum.py", "row_sum", "*fp32,*fp32,i32,i32", {"BLOCK": 64}, (M,),
           {"X": x, "Y": np.zeros(M, np.float32), "M": i32(M), "N": i32(N)})
    yield ("transpose", "transpose.py", "transpose_kernel", "*fp32,*fp32,i32,i32,i32,i32,i32,i32",
           {"BLOCK_M": 16, "BLOCK_N": 16}, (2, 2),
           {"X": _f32(rng, 30 * 17), "Y": np.zeros(30 * 17, np.float32), "M": i32(30), "N": i32(17),
            "stride_xm": i32(17), "stride_xn": i32(1), "stride_ym": i32(30), "stride_yn": i32(1)})
    yield ("embedding_bag", "embedding_bag.py", "embedding_bag_kernel", "*fp32,*i32,*i32,*fp32,i32,i32",
           {"BAG": 4, "BLOCK_D": 32}, (5,),
           {"table": table, "idx": idx, "offsets": offs, "out": np.zeros(5 * 24, np.float32),
            "D": i32(24), "stride": i32(24)})


def _corpus(folder: Path):
    for mpath in sorted(folder.glob("*.json")):
        meta = json.loads(mpath.read_text())
        if "params" not in meta:
            continue
        params = meta["params"]
        sig = [meta["signature"][p] for p in params]
        data = np.load(folder / f"{meta['key']}.npz")
        inputs = {}
        for p, s in zip(params, sig):
            inputs[p] = data["in__" + p] if s.startswith("*") else np.array(
                meta["scalars"][p], dtype=SCALARS.get(s, np.int64))
        defines = dict(meta.get("config", {}))
        for k, v in meta.get("constants", {}).items():
            if k in meta["arg_names"] and k not in params and isinstance(v, (int, float, bool)):
                defines[k] = int(v) if isinstance(v, bool) else v
        yield (meta["key"], str(folder / f"{meta['key']}.py"), meta["kernel"], ",".join(sig), defines,
               tuple(meta["grid"]), inputs)


def measure(path: str, kernel: str, sig: str, defines: dict, grid, inputs: dict, level: int,
            sanitize: bool = False) -> dict:
    opts = Options(kernel=kernel, signature=sig, opt_level=level, defines={k: str(v) for k, v in defines.items()})
    try:
        binary = compile_kernel(path, opts).binary
    except UserError as e:
        return {"status": "compile", "why": str(e).splitlines()[0][:200]}
    findings = None
    try:
        res = run(binary, dict(inputs), grid=grid, sanitize=sanitize)
    except SanitizerError as e:
        findings = [f"{f.kind}: {f.message} (x{f.count})" for f in e.findings]
        if e.result is None:
            return {"status": "run", "why": e.fault.message.splitlines()[0][:200], "findings": findings}
        res = e.result
    except UserError as e:
        return {"status": "run", "why": str(e).splitlines()[0][:200]}
    digest = hashlib.sha256()
    for name in sorted(res.outputs):
        digest.update(name.encode())
        digest.update(np.ascontiguousarray(res.outputs[name]).tobytes())
    out = {"status": "ok", "outputs": digest.hexdigest()[:16], "cycles": int(res.stats.cycles),
           "instructions": int(res.stats.instructions)}
    if findings:
        out["findings"] = findings
    return out


def _plain(r):
    """A record without its sanitizer findings (compared apart)."""
    return r if r is None or "findings" not in r else {k: v for k, v in r.items() if k != "findings"}


def compare(before: dict, after: dict) -> int:
    """Print one row per (kernel, level) that differs; returns the number of output changes."""
    changed_outputs = 0
    rows = []
    for key in sorted(set(before) | set(after)):
        a, b = before.get(key), after.get(key)
        a, b = _plain(a), _plain(b)
        if a == b:
            continue
        if a is None or b is None or a.get("status") != b.get("status") or a.get("outputs") != b.get("outputs"):
            changed_outputs += 1
            rows.append(f"  OUTPUT {key}: {a} -> {b}")
            continue
        rows.append(f"  {key}: cycles {a['cycles']} -> {b['cycles']} ({b['cycles'] / max(a['cycles'], 1):.3f}), "
                    f"instructions {a['instructions']} -> {b['instructions']}")
    same = len(set(before) & set(after)) - len(rows)
    print(f"{same} of {len(set(before) | set(after))} (kernel, level) pairs identical; {len(rows)} differ, "
          f"{changed_outputs} in outputs or status")
    print("\n".join(rows))
    return changed_outputs


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", help="a folder of corpus kernels (NAME.py, NAME.json, NAME.npz)")
    ap.add_argument("--out", help="write the record (JSON) here")
    ap.add_argument("--compare", help="a previous record to compare with")
    ap.add_argument("-k", default="", help="only kernels whose name contains this")
    ap.add_argument("--sanitize", action="store_true", help="check every run as mtiasim run --sanitize does and "
                    "record its findings")
    a = ap.parse_args(argv)
    cases = [(n, str(EXAMPLES / f), k, s, d, g, i) for n, f, k, s, d, g, i in _examples()]
    if a.corpus:
        cases += list(_corpus(Path(a.corpus)))
    record = {}
    for name, path, kernel, sig, defines, grid, inputs in cases:
        if a.k not in name:
            continue
        for level in LEVELS:
            r = measure(path, kernel, sig, defines, grid, inputs, level, a.sanitize)
            record[f"{name} -O{level}"] = r
            print(f"{name[:70]:70s} -O{level} {r.get('status')} {r.get('cycles', r.get('why', ''))}", flush=True)
            for f in r.get("findings", ()):
                print(f"    {f}", flush=True)
    if a.out:
        Path(a.out).write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    found = sum(1 for r in record.values() if r.get("findings"))
    if a.sanitize:
        print(f"sanitizer: findings in {found} of {len(record)} (kernel, level) runs")
    if a.compare:
        return 1 if compare(json.loads(Path(a.compare).read_text()), record) else 0
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
