"""Run one kernel of the model: its inputs, its reference, mtiacc at -O0 and -O3, mtiasim, and the verdict."""
from __future__ import annotations

import signal
import tempfile
import traceback
import zlib
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Optional

import numpy as np

from . import emit
from . import model as m
from .evaluate import Indeterminate, evaluate, from_storage, to_storage

LEVELS = (0, 3)
# -O3 unrolls every loop of constant bounds (up to 16 trips) before licm sees it: a kernel with one also runs at
# -O2, where licm decides whether the loop runs (a loop that never runs must keep its loads)
LEVELS_CONSTANT_LOOPS = (0, 2, 3)
KINDS = ("pass", "skip", "mismatch", "compile-error", "fault", "sanitizer", "internal", "timeout")


@dataclass
class Verdict:
    kind: str                       # one of KINDS
    level: Optional[int] = None     # the -O level that failed
    detail: str = ""

    @property
    def failed(self) -> bool:
        return self.kind not in ("pass", "skip")

    def same_failure(self, other: "Verdict") -> bool:
        """The minimizer keeps a step only when the failure stays of this kind (and level)."""
        return other.kind == self.kind and (other.level == self.level or self.kind == "timeout")


def accesses(k: m.Kernel) -> Dict[str, m.Access]:
    """The access of every buffer (each has one), index buffers included."""
    out: Dict[str, m.Access] = {}
    for s in m.walk_stmts(k.body):
        for e in m.stmt_exprs(s):
            for n in m.walk_expr(e):
                if isinstance(n, m.Load):
                    out[n.buf] = n.access
                    if n.access.index_buf:
                        out[n.access.index_buf] = n.access
        if isinstance(s, m.Store):
            out[s.buf] = s.access
            if s.access.index_buf:
                out[s.access.index_buf] = s.access
    return out


def random_values(dtype: str, n: int, rng) -> np.ndarray:
    """Seeded values of ``dtype`` in its storage type: mostly small (dyadic for floats), some anywhere."""
    if dtype == "int1":
        return rng.integers(0, 2, n).astype(np.bool_)
    if m.is_float(dtype):
        small = rng.integers(-48, 49, n) / 8.0
        wide = rng.uniform(-6, 6, n)
        x = np.where(rng.random(n) < 0.7, small, wide)
        return to_storage(_bf16(x), dtype) if dtype == "bfloat16" else x.astype(m.DTYPES[dtype][1])
    info = np.iinfo(m.DTYPES[dtype][1])
    lo, hi = (0, 16) if info.min == 0 else (-9, 9)
    small = rng.integers(lo, hi + 1, n)
    wide = rng.integers(max(info.min, -(1 << 62)), min(info.max, 1 << 62), n, dtype=np.int64)
    return np.where(rng.random(n) < 0.75, small, wide).astype(m.DTYPES[dtype][1])


def with_ties(x: np.ndarray, rng) -> np.ndarray:
    """float32 ``x`` with about a quarter of its elements replaced by exact ties of a narrower format: the bits
    below bf16's (16), fp16's (13) or an fp8 format's (21, 20) last kept bit are exactly half of it, the kept
    last bit 0 or 1 (both ways of rounding to even), some with all kept bits 1 (the carry into the exponent)."""
    n = x.size
    pick = rng.random(n) < 0.25
    drop = rng.choice(np.array([16, 13, 21, 20], np.uint32), n)
    exp = rng.integers(124, 131, n).astype(np.uint32)          # 2**-3 .. 2**3: normal in every format
    mant = rng.integers(0, 1 << 23, n).astype(np.uint32)
    mant = np.where(rng.random(n) < 0.1, np.uint32((1 << 23) - 1), mant)
    mant = (mant >> drop << drop) | (np.uint32(1) << (drop - 1))
    mant = np.where(rng.random(n) < 0.5, mant ^ (np.uint32(1) << drop), mant) & np.uint32((1 << 23) - 1)
    bits = (rng.integers(0, 2, n).astype(np.uint32) << 31) | (exp << 23) | mant
    return np.where(pick, bits.view(np.float32), x.astype(np.float32))


def _bf16(x):
    from .evaluate import bf16_round
    return bf16_round(np.asarray(x, np.float32))


def make_inputs(k: m.Kernel) -> Dict[str, np.ndarray]:
    acc = accesses(k)
    out: Dict[str, np.ndarray] = {}
    for b in k.buffers:
        rng = np.random.default_rng([k.seed, zlib.crc32(b.name.encode())])    # stable when others go
        a = acc.get(b.name)
        if b.role == "atomic":
            out[b.name] = np.zeros(8, np.int32)
            continue
        if a is None:
            out[b.name] = np.zeros(1, m.DTYPES[b.dtype][1])
            continue
        n = m.numel(k, a.shape)
        if b.role == "index":
            if a.kind == "scatter":
                out[b.name] = np.concatenate([rng.permutation(n) for _ in range(k.grid)]).astype(np.int32)
            else:
                out[b.name] = rng.integers(0, m.span(k, a), n * k.grid).astype(np.int32)
            continue
        size = k.grid * m.span(k, a)
        if b.role == "out":
            out[b.name] = to_storage(np.full(size, 3, np.float32), b.dtype) if m.is_float(b.dtype) \
                else np.full(size, 3, m.DTYPES[b.dtype][1])
        else:
            out[b.name] = random_values(b.dtype, size, rng)
            if b.dtype == "float32":
                out[b.name] = with_ties(out[b.name], np.random.default_rng([k.seed, zlib.crc32(b.name.encode()), 1]))
    for name, t, v in k.args:
        out[name] = np.array(v, m.DTYPES[t][1])
    return out


class _Timeout(Exception):
    pass


@contextmanager
def time_limit(seconds: Optional[float]):
    """Raise :class:`_Timeout` after ``seconds`` of this process's CPU time (``ITIMER_PROF``), not of the wall
    clock: on a shared machine a kernel waits for a core as long as the load makes it, and only its own work may
    count against it (a hang in the compiler or the simulator still spends CPU, and is caught)."""
    if not seconds:
        yield
        return

    def on_alarm(signum, frame):
        raise _Timeout()
    old = signal.signal(signal.SIGPROF, on_alarm)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)


def compare(k: m.Kernel, expected, outputs) -> Optional[str]:
    """None when every known element matches within its bound, else a description of the first difference."""
    for name, (want, err, unk) in expected.items():
        dtype = k.buffer(name).dtype
        got = outputs[name]
        if m.is_float(dtype):
            with np.errstate(invalid="ignore"):     # NaN, inf - inf where an element is unknown (or equal)
                g = from_storage(got, dtype).astype(np.float64)
                w = from_storage(want, dtype).astype(np.float64)
                tol = 2 * err + 2 * m.UNIT[dtype] * np.abs(w) * (err > 0)
                bad = ~unk & ~((g == w) | (np.abs(g - w) <= tol))
        else:
            g, w = got, want
            bad = ~unk & (got != want)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            return (f"{name}[{i}]: got {g.reshape(-1)[i]!r}, want {w.reshape(-1)[i]!r}"
                    + (f" (bound {err.reshape(-1)[i]:.3g})" if m.is_float(dtype) else "")
                    + f"; {int(bad.sum())} of {bad.size} elements differ")
    return None


def levels_for(k: m.Kernel):
    """The -O levels ``k`` is checked at: -O2 too where a loop has constant bounds (``LEVELS_CONSTANT_LOOPS``)."""
    loops = [s for s in m.walk_stmts(k.body) if isinstance(s, m.For) and not s.static]
    return LEVELS_CONSTANT_LOOPS if any(isinstance(s.hi, int) for s in loops) else LEVELS


def check(k: m.Kernel, workdir: Optional[str] = None, timeout: float = 60.0, levels=None,
          sanitize: bool = False) -> Verdict:
    """Compile ``k`` at each level, run it (with ``sanitize``, under ``mtiasim run --sanitize``: a finding in a
    UB-free kernel is a failure of kind "sanitizer"), compare with the reference; ``timeout`` is in seconds of
    CPU time per level (:func:`time_limit`)."""
    import mtiacc
    import mtiasim
    from mtiacc.diagnostics import CompileError, UserError
    from mtiasim.sanitize import SanitizerError
    inputs = make_inputs(k)
    try:
        expected = evaluate(k, inputs)
    except Indeterminate as e:
        return Verdict("skip", detail=str(e))
    path = Path(workdir or tempfile.mkdtemp(prefix="mtiafuzz-")) / f"{k.name}.py"
    path.write_text(emit.source(k))
    sig, cx = emit.signature(k), emit.constexprs(k)
    for lvl in levels or levels_for(k):
        try:
            with time_limit(timeout):
                try:
                    comp = mtiacc.compile(str(path), k.name, signature=sig, constexprs=cx, opt_level=lvl)
                except CompileError as e:
                    return Verdict("compile-error", lvl, e.render().splitlines()[0])
                try:
                    # no host-time --timeout (wall clock: a loaded machine would make it fire): max_cycles bounds
                    # the run in simulated time, time_limit the host's work
                    res = mtiasim.run(comp.binary, {n: a.copy() for n, a in inputs.items()}, grid=(k.grid,),
                                      max_cycles=2_000_000, sanitize=sanitize)
                except SanitizerError as e:
                    return Verdict("sanitizer", lvl, str(e).splitlines()[0])
                except UserError as e:
                    return Verdict("fault", lvl, str(e).splitlines()[0])
        except _Timeout:
            return Verdict("timeout", lvl, f"more than {timeout} s of CPU time")
        except Exception as e:      # noqa: BLE001 - an internal error of the tools is a finding
            tb = traceback.extract_tb(e.__traceback__)
            where = f"{Path(tb[-1].filename).name}:{tb[-1].lineno}" if tb else "?"
            return Verdict("internal", lvl, f"{type(e).__name__}: {e} at {where}".splitlines()[0][:300])
        diff = compare(k, expected, res.outputs)
        if diff:
            return Verdict("mismatch", lvl, diff)
    return Verdict("pass")
