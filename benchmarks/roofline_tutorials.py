"""``bench_roofline.py --tutorials DIR``: Triton's tutorial kernels as their files have them, against the roofline.

The kernels are read from DIR (never copied here): 01 vector add, 02 fused softmax, 05 layer norm (forward), 03
matrix multiplication (fp16), 08 grouped GEMM and 09 persistent matmul (its non-TMA persistent kernel: this
backend reports no TMA), at the sizes their benchmarks or ``__main__`` run, with the launch parameters their host code computes on
this backend (the device's properties as ``mtiacc.triton_backend.driver`` reports them from the machine
description: 64 PEs, 384 KB of local memory).  Each kernel runs three ways on the same inputs:

* **CLI**: ``python -m mtiacc.cli FILE -n KERNEL -s SIG -D ...`` at its default flags, the binary run by mtiasim;
* **mtiacc.load**: the Python API at its defaults;
* **Triton**: the tutorial's own host code (``add``, ``softmax``, ``layer_norm``, ``matmul``, ``group_gemm_fn``,
  ``matmul_persistent``; :mod:`tutorial_host` loads the file's definitions without its demonstration) launching
  through Triton with the ``cpu`` backend (mtiacc), timed on the simulated clock.  An autotuned kernel is given
  the one config the other two compile (``kernel.configs = [config]``; Triton's autotuner does not time a lone
  config), which the row names: the first of the tutorial's configs for this target, or for 03 the one this
  backend's autotuner picks at the row's size (timing all eight takes it minutes).

Roofline: the larger of the time the bytes each kernel cannot avoid (inputs read once, outputs written once)
take at the DRAM bandwidth and the time its FLOPs take at the matrix engine's peak (fp16, 2 x dpe.macs_per_cycle
a PE a cycle), both from the machine YAML (``mtiasim.roofline.peaks``).  Every output is checked against numpy
before a number is printed, and a ratio above 100% stops the run (a roofline or a count that is wrong).
"""
from __future__ import annotations

import contextlib
import dataclasses
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
F16, F32, I32 = np.float16, np.float32, np.int32


@dataclasses.dataclass
class Case:
    name: str
    file: str
    kernel: str
    signature: str
    consts: Dict[str, object]          # -D values (the constexprs the host code passes; a config's come with it)
    grid: Tuple[int, ...]
    inputs: Dict[str, object]          # numpy arrays and scalars, by parameter name
    bytes: int                         # what the kernel cannot avoid moving
    flops: float                       # matrix-engine work (0: none)
    check: Callable[[Dict[str, np.ndarray]], None]   # outputs by parameter name
    triton: Optional[Callable] = None  # (tutorial module) -> (call, check of what the call returned)
    config: Optional[int] = None       # the autotune config compiled (--config N), None: not autotuned
    config_kwargs: Dict[str, int] = dataclasses.field(default_factory=dict)   # its constexprs (mtiacc.load's)
    note: str = ""
    api_only: Optional[str] = None     # why CLI and mtiacc.load cannot run it (None: they can)


def _softmax_check(x, y, m, n):
    z = np.exp(x.reshape(m, n).astype(np.float64) - x.reshape(m, n).max(axis=1, keepdims=True))
    np.testing.assert_allclose(y.reshape(m, n), z / z.sum(axis=1, keepdims=True), rtol=1e-4, atol=1e-7)


def _layer_norm_ref(x, w, b, eps=1e-5):
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1, keepdims=True)
    rstd = 1 / np.sqrt(((x64 - mean) ** 2).mean(axis=1, keepdims=True) + eps)
    return (x64 - mean) * rstd * w + b, mean.ravel(), rstd.ravel()


def _gemm_check(a, b, c, m, n):
    ref = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(np.asarray(c, np.float32).reshape(m, n), ref, rtol=1e-2, atol=2e-2 * np.sqrt(a.shape[1]))


def _torch(a):
    import torch
    return torch.from_numpy(np.ascontiguousarray(a))


def _only_config(kernel, index: int):
    """Triton's autotuner given the one config ``index`` of ``kernel`` (an ``Autotuner``): it runs it untimed."""
    kernel.configs = [kernel.configs[index]]
    kernel.cache.clear()
    return kernel.configs[0]


def basic_cases(folder: Path, quick: bool, pes: int, lmem: int) -> List[Case]:
    """01, 02, 05."""
    rng = np.random.default_rng(7)
    cases = []
    n = 1 << 16 if quick else 1 << 20                      # 01: size 2^12 .. 2^28 in its benchmark
    x, y = rng.random(n, dtype=F32), rng.random(n, dtype=F32)

    def t01(mod, x=x, y=y):
        got = {}
        return (lambda: got.update(out=mod.add(_torch(x), _torch(y))),
                lambda: np.testing.assert_array_equal(got["out"].numpy(), x + y))
    cases.append(Case(f"01 vector add 2^{n.bit_length() - 1}", "01-vector-add.py", "add_kernel",
                      "*fp32,*fp32,*fp32,i32", {"BLOCK_SIZE": 1024}, ((n + 1023) // 1024,),
                      {"x_ptr": x, "y_ptr": y, "output_ptr": np.zeros(n, F32), "n_elements": n}, 3 * 4 * n, 0,
                      lambda out, x=x, y=y: np.testing.assert_array_equal(out["output_ptr"], x + y), t01))
    m, c = (256, 1024) if quick else (4096, 4096)         # 02: M = 4096, N = 128 * i in its benchmark
    xs = rng.standard_normal(m * c).astype(F32)

    def t02(mod, xs=xs, m=m, c=c):
        got = {}
        return (lambda: got.update(out=mod.softmax(_torch(xs.reshape(m, c)))),
                lambda: _softmax_check(xs, got["out"].numpy(), m, c))
    # the host code: BLOCK_SIZE = next_power_of_2(n_cols); num_stages = 4 if SIZE_SMEM > 200000 else 2;
    # num_programs = min(NUM_SM * occupancy, n_rows) with one program a PE
    cases.append(Case(f"02 fused softmax {m}x{c}", "02-fused-softmax.py", "softmax_kernel",
                      "*fp32,*fp32,i32,i32,i32,i32",
                      {"BLOCK_SIZE": 1 << (c - 1).bit_length(), "num_stages": 4 if lmem > 200000 else 2},
                      (min(pes, m),),
                      {"output_ptr": np.zeros(m * c, F32), "input_ptr": xs, "input_row_stride": c,
                       "output_row_stride": c, "n_rows": m, "n_cols": c}, 2 * 4 * m * c, 0,
                      lambda out, xs=xs, m=m, c=c: _softmax_check(xs, out["output_ptr"], m, c), t02))
    m, c = (256, 1024) if quick else (4096, 4096)         # 05: M = 4096, N = 512 * i in its benchmark
    xl = rng.standard_normal((m, c)).astype(F32)
    w, b = rng.uniform(0.5, 1.5, c).astype(F32), rng.standard_normal(c).astype(F32)

    def ln_check(out, xl=xl, w=w, b=b, m=m, c=c):
        ref, mean, rstd = _layer_norm_ref(xl, w, b)
        np.testing.assert_allclose(out["Y"].reshape(m, c), ref, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(out["Mean"], mean, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(out["Rstd"], rstd, rtol=1e-4, atol=1e-5)

    def t05(mod, xl=xl, w=w, b=b, c=c):
        got = {}
        return (lambda: got.update(out=mod.layer_norm(_torch(xl), (c,), _torch(w), _torch(b), 1e-5)),
                lambda: np.testing.assert_allclose(got["out"].numpy(), _layer_norm_ref(xl, w, b)[0], rtol=1e-4,
                                                   atol=1e-4))
    # the host code: BLOCK_SIZE = min(65536 // element_size, next_power_of_2(N)); grid (M,)
    cases.append(Case(f"05 layer norm fwd {m}x{c}", "05-layer-norm.py", "_layer_norm_fwd_fused",
                      "*fp32,*fp32,*fp32,*fp32,*fp32,*fp32,i32,i32,fp32",
                      {"BLOCK_SIZE": min(65536 // 4, 1 << (c - 1).bit_length())}, (m,),
                      {"X": xl.ravel(), "Y": np.zeros(m * c, F32), "W": w, "B": b, "Mean": np.zeros(m, F32),
                       "Rstd": np.zeros(m, F32), "stride": c, "N": c, "eps": F32(1e-5)},
                      4 * (2 * m * c + 2 * c + 2 * m), 0, ln_check, t05))
    return cases


def _gemm_inputs(rng, m, n, k):
    return (rng.random((m, k), dtype=F32) - 0.5).astype(F16), (rng.random((k, n), dtype=F32) - 0.5).astype(F16)


def gemm_cases(folder: Path, quick: bool, pes: int) -> List[Case]:
    """03, 08, 09."""
    rng = np.random.default_rng(8)
    cases = []
    sig = "*fp16,*fp16,*fp16,i32,i32,i32,i32,i32,i32,i32,i32,i32"
    # 03: M = N = K = 128 * i, i = 2 .. 32 in its benchmark; its configs on a target neither CUDA nor HIP are the
    # HIP list.  Config 6 (256 x 128 x 64, GROUP_SIZE_M 4) is the one this backend's autotuner picks at 2048^3
    # (TRITON_PRINT_AUTOTUNING=1 shows each config's simulated time: 5619 us for the first, 32 x 32 x 64, down to
    # 1035 us for this one; the last, 256 x 256, does not fit local memory); timing all eight takes the autotuner
    # about 7 minutes of host time, so the run here compiles the one it picks
    s = 256 if quick else 2048
    a, b = _gemm_inputs(rng, s, s, s)
    bm3, bn3 = 256, 128

    def strides(m, n, k):
        return {"M": m, "N": n, "K": k, "stride_am": k, "stride_ak": 1, "stride_bk": n, "stride_bn": 1,
                "stride_cm": n, "stride_cn": 1}

    def t03(mod, a=a, b=b, s=s):
        _only_config(mod.matmul_kernel, 6)
        got = {}
        return (lambda: got.update(out=mod.matmul(_torch(a), _torch(b))),
                lambda: _gemm_check(a, b, got["out"].numpy(), s, s))
    cases.append(Case(f"03 matmul fp16 {s}^3", "03-matrix-multiplication.py", "matmul_kernel", sig,
                      {"ACTIVATION": '""'}, (-(-s // bm3) * -(-s // bn3),),
                      {"a_ptr": a.ravel(), "b_ptr": b.ravel(), "c_ptr": np.zeros(s * s, F16), **strides(s, s, s)},
                      2 * (3 * s * s), 2.0 * s ** 3, lambda out, a=a, b=b, s=s: _gemm_check(a, b, out["c_ptr"], s, s),
                      t03, config=6, config_kwargs=dict(BLOCK_SIZE_M=256, BLOCK_SIZE_N=128, BLOCK_SIZE_K=64, GROUP_SIZE_M=4),
                      note="config 6 (256x128x64): the autotuner's pick at 2048^3"))
    # 08: its unit test's group (1024, 512, 256, 128 cubes); the kernel reads the operands' addresses from tables
    # the host fills with data_ptr()
    sizes = (128, 64) if quick else (1024, 512, 256, 128)
    group = [_gemm_inputs(rng, g, g, g) for g in sizes]

    def t08(mod, group=group):
        _only_config(mod.grouped_matmul_kernel, 0)
        got = {}
        return (lambda: got.update(out=mod.group_gemm_fn([_torch(x) for x, _ in group], [_torch(y) for _, y in group])),
                lambda: [_gemm_check(x, y, c.numpy(), x.shape[0], y.shape[1]) for (x, y), c in zip(group, got["out"])])
    cases.append(Case(f"08 grouped GEMM fp16 {'+'.join(f'{g}^3' for g in sizes)}", "08-grouped-gemm.py",
                      "grouped_matmul_kernel", "", {}, (), {}, sum(2 * 3 * g * g for g in sizes),
                      sum(2.0 * g ** 3 for g in sizes), None, t08, config=0,
                      note="config 0 (128x128x32, NUM_SM 84); the A, B, C tables hold the host's data_ptr()",
                      api_only="its operands' addresses are read from tables of data_ptr(): Triton only"))
    # 09: its __main__ runs M = N = 8192, K = 512 (fp16); the persistent kernel without TMA, its first config
    # (128 x 128 x 64, GROUP_SIZE_M 8), one program a PE (NUM_SMS = the device's 64)
    m9, n9, k9 = (256, 256, 128) if quick else (8192, 8192, 512)
    a9, b9 = _gemm_inputs(rng, m9, n9, k9)
    tiles = -(-m9 // 128) * -(-n9 // 128)

    def t09(mod, a=a9, b=b9, m=m9, n=n9, k=k9):
        # matmul_persistent's launch, with NUM_SMS the device's multiprocessor count (its host code asks
        # torch.cuda for it: CUDA's, not this device's)
        import torch
        import triton
        kernel = mod.matmul_kernel_persistent
        _only_config(kernel, 0)
        sms = triton.runtime.driver.active.utils.get_device_properties(0)["multiprocessor_count"]
        ta, tb, got = _torch(a), _torch(b), {}

        def call():
            c = got["out"] = torch.empty((m, n), dtype=torch.float16)
            grid = lambda META: (min(sms, triton.cdiv(m, META["BLOCK_SIZE_M"]) * triton.cdiv(n, META["BLOCK_SIZE_N"])),)  # noqa: E731
            kernel[grid](ta, tb, c, m, n, k, ta.stride(0), ta.stride(1), tb.stride(0), tb.stride(1), c.stride(0),
                         c.stride(1), NUM_SMS=sms)
        return call, lambda: _gemm_check(a, b, got["out"].numpy(), m, n)
    cases.append(Case(f"09 persistent matmul fp16 {m9}x{n9}x{k9}", "09-persistent-matmul.py",
                      "matmul_kernel_persistent", sig, {"NUM_SMS": pes}, (min(pes, tiles),),
                      {"a_ptr": a9.ravel(), "b_ptr": b9.ravel(), "c_ptr": np.zeros(m9 * n9, F16),
                       **strides(m9, n9, k9)},
                      2 * (m9 * k9 + k9 * n9 + m9 * n9), 2.0 * m9 * n9 * k9,
                      lambda out, a=a9, b=b9, m=m9, n=n9: _gemm_check(a, b, out["c_ptr"], m, n), t09, config=0,
                      config_kwargs=dict(BLOCK_SIZE_M=128, BLOCK_SIZE_N=128, BLOCK_SIZE_K=64, GROUP_SIZE_M=8),
                      note="config 0 (128x128x64); Triton: matmul_persistent's launch"))
    return cases


def _scalar_inputs(inputs):
    return {k: (v if isinstance(v, np.ndarray) else np.array(v, F32 if isinstance(v, (float, np.floating)) else I32))
            for k, v in inputs.items()}


def _cli(case: Case, path: str, flags, overrides=()) -> Tuple[int, float]:
    from mtiasim.runner import run
    with tempfile.TemporaryDirectory(prefix="mtiacc-tut-") as tmp:
        out = Path(tmp) / "k.bin"
        cmd = [sys.executable, "-m", "mtiacc.cli", path, "-n", case.kernel, "-s", case.signature, "-o", str(out),
               *flags, *([f"--config={case.config}"] if case.config is not None else [])]
        cmd += [f"-D{k}={v}" for k, v in case.consts.items()]
        p = subprocess.run(cmd, cwd=str(ROOT), capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
        if p.returncode:
            raise RuntimeError(p.stderr.strip() or f"mtiacc exited with {p.returncode}")
        binary = out.read_bytes()
    t0 = time.perf_counter()
    res = run(binary, _scalar_inputs(case.inputs), grid=case.grid, max_cycles=1e11, overrides=tuple(overrides))
    case.check(res.outputs)
    return res.stats.cycles, time.perf_counter() - t0


def _api(case: Case, path: str, options) -> Tuple[int, float]:
    import mtiacc
    args = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in case.inputs.items()}
    consts = {k: (v.strip('"') if isinstance(v, str) else v) for k, v in case.consts.items()}
    consts.update(case.config_kwargs)
    if case.config is not None:
        options = dict(options, config=case.config)
    t0 = time.perf_counter()
    launch = mtiacc.load(path, case.kernel, **options)[case.grid](**args, **consts)
    case.check({k: v for k, v in args.items() if isinstance(v, np.ndarray)})
    return launch.cycles, time.perf_counter() - t0


@contextlib.contextmanager
def _triton_machine(overrides):
    """While it is open, the Triton backend's launches compile for and run on the built-in machine changed by
    ``overrides`` (``--set KEY=VALUE`` texts): its launcher makes each kernel with them (``mtiacc.runtime.Kernel``'s
    ``overrides=``, as ``mtiacc.load`` takes them) and the device properties the host code reads (PEs, local
    memory) are that machine's.  Nothing changes without overrides."""
    if not overrides:
        yield
        return
    import triton
    from mtiacc.machine import load
    from mtiacc.runtime import Kernel
    from mtiacc.triton_backend import launcher
    made = {}

    def kernel_for(unit, name, num_stages, fp_fusion=True):
        key = (unit if isinstance(unit, str) else unit.digest_text(), name, num_stages, fp_fusion)
        if key not in made:
            opts = {"overrides": tuple(overrides)}
            if num_stages is not None:
                opts["num_stages"] = int(num_stages)
            if not fp_fusion:
                opts["fp_fusion"] = False
            made[key] = Kernel(unit, name, **opts)
        return made[key]

    utils = triton.runtime.driver.active.utils
    saved_for, saved_props = launcher.kernel_for, dict(utils.get_device_properties(0))
    machine = load(None, tuple(overrides))
    launcher.kernel_for = kernel_for
    utils._props = dict(saved_props, max_shared_mem=machine["pe.local_memory_bytes"],
                        multiprocessor_count=machine["grid.x"] * machine["grid.y"])
    try:
        yield
    finally:
        launcher.kernel_for, utils._props = saved_for, saved_props


def _triton(case: Case, path: str, overrides=()) -> Tuple[float, float]:
    """Simulated seconds of the launches the tutorial's host code made, and the host seconds it took."""
    from mtiacc.triton_backend import clock
    from tutorial_host import load_definitions
    with _triton_machine(overrides):
        call, check = case.triton(load_definitions(path))
        t0 = time.perf_counter()
        ms, n = clock.measure(call)
    if n != 1:
        raise RuntimeError(f"the host code made {n} launches on the chip, not one")
    check()
    return ms * 1e-3, time.perf_counter() - t0


def _triton_available() -> Optional[str]:
    """None when Triton's ``cpu`` backend (mtiacc) is the active one, else why the Triton column is empty."""
    try:
        import torch  # noqa: F401
        import triton  # noqa: F401
    except ImportError:
        return "triton/torch not installed (pip install -e '.[torch]')"
    from mtiacc.triton_backend.driver import MtiaDriver
    return None if MtiaDriver.is_active() else "another Triton backend is active"


def tutorial_rows(folder: Path, quick: bool = False, opt=None, only=None, overrides=()) -> List[dict]:
    """Per tutorial kernel: its roofline and, per path (CLI, mtiacc.load, Triton), the simulated time, or why
    there is none.  ``overrides`` (``--set KEY=VALUE`` texts) change the machine of every path."""
    from mtiacc.machine.simulator import load_config
    from mtiasim.roofline import peaks
    overrides = tuple(overrides or ())
    cfg = load_config(None, overrides)
    pk = peaks(cfg)
    cases = basic_cases(folder, quick, cfg.n_pes, cfg.local_memory_bytes) + gemm_cases(folder, quick, cfg.n_pes)
    if only:
        cases = [c for c in cases if c.name.startswith(tuple(only))]
    cli_flags, api_options = ((), {}) if opt is None else ((f"-O{opt}",), {"opt_level": opt})
    if overrides:
        api_options = dict(api_options, overrides=overrides)
    no_triton = _triton_available()
    if "MTIACC_CACHE_DIR" not in os.environ:        # every path compiles: no binary from an earlier run
        import atexit
        import shutil
        os.environ["MTIACC_CACHE_DIR"] = tempfile.mkdtemp(prefix="mtiacc-bench-cache-")
        atexit.register(shutil.rmtree, os.environ["MTIACC_CACHE_DIR"], True)
    rows = []
    for case in cases:
        path = str(folder / case.file)
        roof_s = max(case.bytes / pk["dram_bw"], case.flops / pk["dpe_flops"])
        row = dict(name=case.name, mbytes=case.bytes / 1e6, gflop=case.flops / 1e9, roof_us=roof_s * 1e6,
                   note=case.note, paths={})
        for label, fn in (("CLI", lambda: _cli(case, path, cli_flags, overrides)), ("load", lambda: _api(case, path, api_options)),
                          ("Triton", lambda: _triton(case, path, overrides))):
            if label != "Triton" and case.api_only:
                row["paths"][label] = (None, case.api_only)
                continue
            if label == "Triton" and no_triton:
                row["paths"][label] = (None, no_triton)
                continue
            try:
                t, host = fn()
            except Exception as e:          # a kernel the path cannot run: its first line, in the row
                row["paths"][label] = (None, f"{type(e).__name__}: {str(e).splitlines()[0][:300]}")
                continue
            sim_s = t / cfg.clock_hz if label != "Triton" else t
            ratio = roof_s / sim_s
            if ratio > 1.0:
                raise AssertionError(f"{case.name} through {label}: {100 * ratio:.1f}% of its roofline (above 100%: "
                                     "the roofline or the simulated time is wrong)")
            row["paths"][label] = (sim_s, f"{host:.0f} s host")
        rows.append(row)
        print(f"  {case.name}: done", file=sys.stderr, flush=True)
    return rows


def print_tutorial_rows(rows: List[dict]) -> None:
    labels = ("CLI", "load", "Triton")
    print(f"\nTriton's tutorial kernels, unmodified: roofline = max(bytes at DRAM bandwidth, FLOPs at the DPE peak); "
          "'-': the path cannot run it (reason below)")
    print(f"{'kernel':<44} {'MB moved':>9} {'GFLOP':>7} {'roofline us':>12}"
          + "".join(f" {lab + ' us':>11} {lab:>7}" for lab in labels) + "  config")
    reasons = []
    for r in rows:
        line = f"{r['name']:<44} {r['mbytes']:>9.2f} {r['gflop']:>7.2f} {r['roof_us']:>12.1f}"
        for lab in labels:
            sim_s, why = r["paths"][lab]
            if sim_s is None:
                line += f" {'-':>11} {'-':>7}"
                reasons.append(f"  {r['name']}, {lab}: {why}")
            else:
                line += f" {sim_s * 1e6:>11.1f} {100 * r['roof_us'] * 1e-6 / sim_s:>6.1f}%"
        print(line + (f"  {r['note']}" if r["note"] else ""))
    for why in dict.fromkeys(reasons):
        print(why)
