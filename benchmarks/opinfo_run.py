"""One process's share of ``benchmarks/opinfo.py``: OpInfo entries through ``torch.compile(backend="mtia")``.

    python benchmarks/opinfo_run.py --ops KEY,KEY [--dtypes float32] [--limit-samples N] [--timeout S] --out F

Each entry (``KEY`` is the op's name, with ``.variant`` for a variant test) runs every sample input of every
chosen dtype it supports: eagerly, then compiled with ``fullgraph=True`` (``torch._dynamo.reset()`` and the
coverage report reset before each sample), and the two compared with ``torch.testing.assert_close`` at OpInfo's
tolerances.  One JSON line per entry is appended to ``--out`` as soon as the entry is done, so the parent keeps
what finished if this process is killed.  An entry taking longer than ``--timeout`` seconds is stopped (SIGALRM)
and its remaining samples are counted as timed out.

A sample's status:

- ``chip``: the compiled result matches eager and every kernel ran on the simulator, nothing on the host;
- ``host``: it matches, but some of the work ran on the host: ``host`` lists the aten calls Inductor left to
  aten (``aten:NAME``) and the kernels mtiacc could not compile (``kernel:NAME: reason``);
- ``wrong``: the compiled result differs from eager beyond the tolerances (``detail`` says by how much) and, in
  float16 and bfloat16, is also further from the op computed in float64 from the same inputs than eager's result
  is, beyond one rounding of the dtype (a sample that passes only by that measure has ``reference``: the
  precise dtype), and differs too once both go through the sample's ``output_process_fn_grad`` (a sample that
  passes only that way, as OpInfo's ``test_compare_cpu`` compares, has ``processed``: eigenvectors' signs);
- ``error``: compiling or running raised (``detail``: the exception's type and first line);
- ``uncapturable``: dynamo cannot capture the op as one graph (``Unsupported``: graph breaks; ``UserError``:
  guards on data-dependent values), counted apart;
- ``skipped``: eager itself raises on the sample, or the op draws random numbers (two eager runs under two
  seeds differ), so there is nothing to compare against.
"""
from __future__ import annotations

import argparse
import copy
import json
import os
import signal
import sys
import time
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STARTUP_S = 180      # importing torch and OpInfo's database, and the first compile, on a loaded machine
DTYPES = ("float32", "float16", "bfloat16", "int32", "int64", "bool")


class Timeout(BaseException):   # not caught by the compiler's own `except Exception`
    pass


def _load_op_db():
    warnings.filterwarnings("ignore")
    from torch.testing._internal.common_methods_invocations import op_db
    return op_db


def op_key(op) -> str:
    return op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")


def first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}"[:300]


def tolerance(op, dtype):
    """(atol, rtol) from the op's ``toleranceOverride`` decorators that apply to the CPU and ``dtype`` (in any of
    its tests: they are few and mostly agree; the largest wins, never below assert_close's defaults for the
    dtype), or None: assert_close's defaults."""
    import torch
    from torch.testing._internal.common_device_type import toleranceOverride
    best = None
    for d in getattr(op, "decorators", ()) or ():
        decs = getattr(d, "decorators", None)
        if decs is None:
            continue
        if getattr(d, "device_type", None) not in (None, "cpu"):
            continue
        dts = getattr(d, "dtypes", None)
        if dts is not None and dtype not in dts:
            continue
        for dec in decs:
            if isinstance(dec, toleranceOverride) and dtype in dec.d:
                t = dec.d[dtype]
                best = (t.atol, t.rtol) if best is None else (max(best[0], t.atol), max(best[1], t.rtol))
    if best is None:
        return None
    # never tighter than assert_close's defaults for the dtype
    from torch.testing._comparison import default_tolerances
    rtol, atol = default_tolerances(torch.empty((), dtype=dtype))
    return max(best[0], atol), max(best[1], rtol)


def _outputs_equal(a, b) -> bool:
    import torch
    try:
        torch.testing.assert_close(a, b, equal_nan=True, rtol=0, atol=0)
        return True
    except Exception:   # noqa: BLE001 - any difference, or outputs of different structure
        return False


def _host_work(rep) -> list:
    host = [f"aten:{e['name']}" for e in rep["aten_ops"]]
    host += [f"kernel:{f['name']}: {(f['reason'] or '').splitlines()[0] if f['reason'] else ''}"
             for f in rep["fallbacks"]]
    return host


def run_sample(op, sample, dtype) -> dict:
    import torch
    import torch._dynamo
    import mtiacc.torch_backend as tb

    def f(inp, args, kwargs):
        return op.op(inp, *args, **kwargs)

    operands = (sample.input, tuple(sample.args), dict(sample.kwargs))
    try:
        torch.manual_seed(0)
        expected = f(*copy.deepcopy(operands))
    except Timeout:
        raise
    except Exception as e:  # noqa: BLE001 - OpInfo has samples eager rejects on some dtypes
        return {"status": "skipped", "detail": f"eager raises: {first_line(e)}"}
    try:
        torch.manual_seed(1)
        again = f(*copy.deepcopy(operands))
    except Exception:  # noqa: BLE001
        again = None
    if not _outputs_equal(expected, again):
        return {"status": "skipped", "detail": "random: two eager runs under two seeds differ"}

    torch._dynamo.reset()
    tb.reset()
    aten = set()
    compiled = torch.compile(f, backend=_recording_backend(aten), fullgraph=True)
    try:
        torch.manual_seed(0)
        actual = compiled(*copy.deepcopy(operands))
    except Timeout:
        raise
    except (torch._dynamo.exc.Unsupported, torch._dynamo.exc.UserError) as e:   # graph breaks, data-dependent guards
        return {"status": "uncapturable", "detail": first_line(e) + _context(e)}
    except Exception as e:  # noqa: BLE001 - the row says what went wrong
        return {"status": "error", "detail": first_line(e), "aten": sorted(aten)}
    rep = tb.report()
    tol = tolerance(op, dtype)
    kw = {"atol": tol[0], "rtol": tol[1]} if tol else {}
    judged = processed = None
    try:
        torch.testing.assert_close(actual, expected, equal_nan=True, **kw)
    except Exception as e:  # noqa: BLE001 - a mismatch, or outputs of another structure or dtype
        processed = _processed_match(sample, actual, expected, kw)
        judged = None if processed else _against_precise(op, f, operands, dtype, actual, expected, tol)
        if judged is None and not processed:
            return {"status": "wrong", "detail": first_line(e) + _mismatch(e), "tolerance": tol,
                    "kernels": rep["kernels_total"], "aten": sorted(aten)}
    host = _host_work(rep)
    out = {"status": "host" if host else "chip", "kernels": rep["kernels_total"], "aten": sorted(aten)}
    if judged:
        out["reference"] = judged
    if processed:
        out["processed"] = True
    if host:
        out["host"] = host
    return out


REDUCED = ("float16", "bfloat16")


def _processed_match(sample, actual, expected, kw) -> bool:
    """Whether ``actual`` matches ``expected`` once both go through the sample's ``output_process_fn_grad``: the
    outputs defined only up to a choice (eigenvectors' and singular vectors' signs, the columns ``full_matrices``
    adds past the singular values) reduced to what is defined (their magnitudes, ``U @ Vh``, the first columns),
    as OpInfo's ``test_compare_cpu`` compares two implementations.  Identity for most samples (then the raw
    mismatch stands)."""
    import torch
    fn = getattr(sample, "output_process_fn_grad", None)
    if fn is None:
        return False
    try:
        torch.testing.assert_close(fn(actual), fn(expected), equal_nan=True, **kw)
    except Exception:  # noqa: BLE001 - still a mismatch
        return False
    return True


def _upcast(obj, dtype, precise):
    """``obj`` (a sample's operands: tensors in tuples, lists and dicts) with every tensor of ``dtype`` converted to
    ``precise``."""
    import torch
    if isinstance(obj, torch.Tensor):
        return obj.to(precise) if obj.dtype == dtype else obj
    if isinstance(obj, (tuple, list)):
        return type(obj)(_upcast(o, dtype, precise) for o in obj)
    if isinstance(obj, dict):
        return {k: _upcast(v, dtype, precise) for k, v in obj.items()}
    return obj


def _against_precise(op, f, operands, dtype, actual, expected, tol):
    """For half precision, where eager's own rounding differs from a compiled kernel's: the name of the precise
    dtype (``float64``, or ``float32`` for an op without it) when ``actual`` is as close to the op computed in that
    dtype from the same inputs as eager's half-precision ``expected`` is, within one more rounding of ``dtype``,
    else None.  As PyTorch's reference tests judge reduced precision (``test_ops._ref_test_helper``), a result
    is right when it is no further from the precise one than eager's; elementwise here:
    ``|actual - precise| <= |expected - precise| + atol + rtol * |precise|``, (atol, rtol) OpInfo's tolerances
    for ``dtype`` or assert_close's defaults.  Non-floating outputs must equal eager's, and NaNs be where
    eager's are."""
    import torch
    from torch.testing._comparison import default_tolerances
    if str(dtype).replace("torch.", "") not in REDUCED:
        return None
    supported = op.supported_dtypes("cpu")
    precise = torch.float64 if torch.float64 in supported else torch.float32 if torch.float32 in supported else None
    if precise is None:
        return None
    try:
        torch.manual_seed(0)
        ref = f(*_upcast(copy.deepcopy(operands), dtype, precise))
    except Exception:  # noqa: BLE001 - no precise result to judge by
        return None
    if tol is None:
        rtol, atol = default_tolerances(torch.empty((), dtype=dtype))
    else:
        atol, rtol = tol
    flat_a, spec_a = torch.utils._pytree.tree_flatten(actual)
    flat_e, spec_e = torch.utils._pytree.tree_flatten(expected)
    flat_r, spec_r = torch.utils._pytree.tree_flatten(ref)
    if not (spec_a == spec_e == spec_r):
        return None
    for a, e, r in zip(flat_a, flat_e, flat_r):
        if not isinstance(a, torch.Tensor):
            a, e, r = (torch.as_tensor(v) for v in (a, e, r))
        if a.shape != e.shape or a.dtype != e.dtype or r.shape != e.shape:
            return None
        if not e.is_floating_point():
            if not torch.equal(a, e):
                return None
            continue
        a, e, r = a.double(), e.double(), r.double()
        nan = torch.isnan(e)
        if not torch.equal(nan, torch.isnan(a)):
            return None
        same_inf = torch.isinf(e) & (a == e)
        ok = nan | same_inf | (a == e) | ((a - r).abs() <= (e - r).abs() + atol + rtol * r.abs())
        if not bool(ok.all()):
            return None
    return str(precise).replace("torch.", "")


def aten_overloads(gm, example_inputs) -> set:
    """The ATen overloads (``aten.add.Tensor``) dynamo's graph ``gm`` calls: the graph run once on copies of its
    example inputs under a dispatch mode that notes each operator reaching the dispatcher (what AOTAutograd
    traces, before Inductor's decompositions).  Empty if the graph cannot run eagerly."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    seen = set()

    class Note(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.add(str(func.overloadpacket._qualified_op_name).replace("::", ".") + "." + func._overloadname)
            return func(*args, **(kwargs or {}))

    inputs = [x.detach().clone() if isinstance(x, torch.Tensor) else x for x in example_inputs]
    try:
        with Note():
            torch.manual_seed(0)
            gm(*inputs)
    except Exception:  # noqa: BLE001 - eager ran the same function before; a graph that will not rerun counts none
        return set()
    return seen


def _recording_backend(aten: set):
    """The ``mtia`` backend, noting first into ``aten`` which ATen overloads each graph dynamo hands it calls."""
    from torch._dynamo.backends.registry import lookup_backend
    mtia = lookup_backend("mtia")

    def backend(gm, example_inputs):
        aten.update(aten_overloads(gm, example_inputs))
        return mtia(gm, example_inputs)
    return backend


def _context(e) -> str:
    """Dynamo's debug context of an Unsupported (what it would not trace: the function, the operator)."""
    for ln in str(e).splitlines():
        if "Developer debug context:" in ln:
            return " (" + ln.split("Developer debug context:", 1)[1].strip()[:200] + ")"
    return ""


def _mismatch(e) -> str:
    lines = [ln.strip() for ln in str(e).splitlines() if "Mismatched elements" in ln or "Greatest absolute" in ln]
    return (" | " + " | ".join(lines)) if lines else ""


def run_op(op, dtypes, limit, timeout) -> dict:
    import torch
    supported = op.supported_dtypes("cpu")
    res = {"op": op_key(op), "name": op.name, "variant": op.variant_test_name, "dtypes": {}}
    t0 = time.time()

    def alarm(signum, frame):
        raise Timeout()

    signal.signal(signal.SIGALRM, alarm)
    signal.alarm(max(1, int(timeout)))
    try:
        for dname in dtypes:
            dtype = getattr(torch, dname)
            if dtype not in supported:
                continue
            rows = res["dtypes"][dname] = []
            try:
                samples = op.sample_inputs(device="cpu", dtype=dtype, requires_grad=False)
                for i, sample in enumerate(samples):
                    if limit is not None and i >= limit:
                        break
                    rows.append(run_sample(op, sample, dtype))
            except Timeout:
                rows.append({"status": "error", "detail": f"timeout: the op took more than {timeout:.0f} s"})
                break
            except Exception as e:  # noqa: BLE001 - sample generation itself failed
                rows.append({"status": "error", "detail": f"sample inputs: {first_line(e)}"})
    except Timeout:
        pass
    finally:
        signal.alarm(0)
    res["seconds"] = round(time.time() - t0, 2)
    return res


def run_chunk(keys, dtypes, limit, timeout) -> list:
    """The results of the OpInfo entries ``keys``, in a process of their own (an executor's job).

    A process that dies or hangs (no entry finished within ``timeout`` and a grace period) is killed; its
    current entry is an error and the entries after it run in a new process."""
    import subprocess
    import tempfile
    results, todo = {}, list(keys)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([ROOT, env.get("PYTHONPATH", "")])
    while todo:
        fd, out = tempfile.mkstemp(prefix="opinfo-", suffix=".jsonl")
        os.close(fd)
        cmd = [sys.executable, os.path.abspath(__file__), "--ops", ",".join(todo), "--dtypes", ",".join(dtypes),
               "--timeout", str(timeout), "--out", out]
        if limit is not None:
            cmd += ["--limit-samples", str(limit)]
        err = tempfile.TemporaryFile()   # a file, not a pipe: a chatty process never blocks on it
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=err)
        done, last, why = 0, time.time(), None
        while True:
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
            n = _read_lines(out, results)
            if n > done:
                done, last = n, time.time()
            if proc.returncode is not None:
                if n < len(todo):
                    err.seek(0)
                    tail = err.read().decode(errors="replace").strip().splitlines()
                    why = f"the process died (exit {proc.returncode}): {tail[-1] if tail else ''}"[:300]
                break
            if time.time() - last > timeout + STARTUP_S:
                proc.kill()
                proc.wait()
                _read_lines(out, results)
                why = f"timeout: hung for more than {timeout:.0f} s"
                break
        err.close()
        os.unlink(out)
        todo = [k for k in todo if k not in results]
        if todo:
            results[todo[0]] = {"op": todo[0], "error": why or "the process ended without a result"}
            todo = todo[1:]
    return [results[k] for k in keys]


_DB = {}


def run_inline(keys, dtypes, limit, timeout) -> list:
    """The results of the OpInfo entries ``keys``, in this process (``--executor inline``: tests, debugging)."""
    import torch._dynamo
    os.environ.setdefault("MTIACC_QUIET", "1")
    if not _DB:
        _DB.update((op_key(op), op) for op in _load_op_db())
    out = []
    for key in keys:
        out.append(run_op(_DB[key], dtypes, limit, timeout))
        torch._dynamo.reset()
    return out


def _read_lines(path, results) -> int:
    n = 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.endswith("\n"):
                r = json.loads(line)
                results[r["op"]] = r
                n += 1
    return n


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ops", required=True, help="op keys, comma-separated")
    p.add_argument("--dtypes", default="float32")
    p.add_argument("--limit-samples", type=int, default=None)
    p.add_argument("--timeout", type=float, default=600)
    p.add_argument("--out", required=True)
    a = p.parse_args(argv)
    os.environ.setdefault("MTIACC_QUIET", "1")
    keys = a.ops.split(",")
    by_key = {op_key(op): op for op in _load_op_db()}
    import torch
    torch.set_num_threads(1)
    for key in keys:
        op = by_key.get(key)
        res = run_op(op, a.dtypes.split(","), a.limit_samples, a.timeout) if op else \
            {"op": key, "error": "no such OpInfo entry"}
        with open(a.out, "a", encoding="utf-8") as f:
            f.write(json.dumps(res) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
