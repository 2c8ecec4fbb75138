"""A Chrome / Perfetto trace of a run (the JSON "trace event format": ``{"traceEvents": [...]}``).

One process per PE with a thread (track) per unit: ``core`` (one span per program, from its wave's start to its
last activity; then ``idle (wave sync)`` until the wave ends; nested in a program, one span per run of its
instructions from one source line, ``line 17: tl.store(...)``, and ``dma wait`` / ``dpe wait`` spans where
``mtia.dma.wait`` / ``mtia.dpe.wait`` stalled), ``dma`` (one span per transfer, with its bytes and memory level),
``vector`` (PEs that ran vector instructions: the vector unit's busy spans, merged when less than
:data:`mtiasim.tracerec.MERGE_GAP` cycles apart; ``args.busy_cycles`` is the busy time within a span), ``dpe``
(PEs that used the matrix engine: its busy spans, streaming and accumulator transfers, merged the same way), ``se``
(PEs that used the SIMD engine, ``mtia.se.*``: its busy spans, merged the same way);
and a ``chip`` process: job launch, the waves, and counter
tracks of DRAM and SRAM bandwidth in use.  Times are microseconds of simulated time.  What is recorded while a wave
runs is in :mod:`mtiasim.tracerec`.

The trace has a bounded size: once it holds :data:`MAX_EVENTS` events, later waves keep only their wave and
program spans, and an instant event on the ``chip`` track (and ``otherData.truncated``) says from which wave on
the detail was left out.
"""
from __future__ import annotations

import json

from .dma import LEVELS

CHIP_PID = 1000
TIDS = {"core": 1, "dma": 2, "vector": 3, "dpe": 4, "se": 5}
MAX_EVENTS = 100_000     # about 15 MB of JSON; beyond it, waves keep only their wave and program spans


def line_name(line: int, source) -> str:
    if line <= 0:
        return "(no source line)"
    text = " ".join(str(source.get(line, "")).split())
    if len(text) > 60:
        text = text[:57] + "..."
    return f"line {line}: {text}" if text else f"line {line}"


def build_trace(stats, waves, cfg, source=None) -> list:
    us = 1e6 / cfg.clock_hz
    source = source or {}
    names = {}
    ev = [{"ph": "M", "name": "process_name", "pid": CHIP_PID, "tid": 0, "args": {"name": "chip"}},
          {"ph": "M", "name": "thread_name", "pid": CHIP_PID, "tid": 0, "args": {"name": "job"}},
          {"ph": "X", "name": "job launch", "cat": "launch", "pid": CHIP_PID, "tid": 0, "ts": 0.0,
           "dur": stats.launch_cycles * us}]
    pes = max((w["P"] for w in waves), default=0)
    used = {"vector": {int(p) for w in waves for p, *_ in w.get("vector", ())},
            "dpe": {int(p) for w in waves for p, *_ in w.get("dpe", ())},
            "se": {int(p) for w in waves for p, *_ in w.get("se", ())}}
    for p in range(pes):
        ev.append({"ph": "M", "name": "process_name", "pid": p, "tid": 0, "args": {"name": f"PE {p}"}})
        ev.append({"ph": "M", "name": "process_sort_index", "pid": p, "tid": 0, "args": {"sort_index": p}})
        for name, tid in TIDS.items():
            if name not in used or p in used[name]:
                ev.append({"ph": "M", "name": "thread_name", "pid": p, "tid": tid, "args": {"name": name}})
    truncated = None
    for k, w in enumerate(waves):
        off = w["offset"]
        if truncated is None and len(ev) >= MAX_EVENTS:
            truncated = k
            ev.append({"ph": "i", "s": "g", "name": f"trace detail left out from wave {k} on (at most {MAX_EVENTS} "
                       f"events)", "pid": CHIP_PID, "tid": 0, "ts": off * us})
        ev.append({"ph": "X", "name": f"wave {k}", "cat": "wave", "pid": CHIP_PID, "tid": 0, "ts": off * us,
                   "dur": w["cycles"] * us, "args": {"programs": w["P"], "first_program": w["start"]}})
        for p in range(w["P"]):
            f = float(w["finish"][p])
            ev.append({"ph": "X", "name": f"program {w['start'] + p}", "cat": "program", "pid": p,
                       "tid": TIDS["core"], "ts": off * us, "dur": f * us, "args": {"linear_id": w["start"] + p}})
            if w["cycles"] - f > 0:
                ev.append({"ph": "X", "name": "idle (wave sync)", "cat": "sync", "pid": p, "tid": TIDS["core"],
                           "ts": (off + f) * us, "dur": (w["cycles"] - f) * us})
        if truncated is not None:
            continue
        for p, t0, t1, n, lv in w["dma"]:
            ev.append({"ph": "X", "name": f"dma {LEVELS[lv]} {int(n)} B", "cat": "dma", "pid": int(p),
                       "tid": TIDS["dma"], "ts": (off + t0) * us, "dur": (t1 - t0) * us,
                       "args": {"bytes": int(n), "level": LEVELS[lv]}})
        for p, t0, t1, busy in w.get("vector", ()):
            ev.append({"ph": "X", "name": "vector", "cat": "vector", "pid": int(p), "tid": TIDS["vector"],
                       "ts": (off + t0) * us, "dur": (t1 - t0) * us,
                       "args": {"busy_cycles": busy, "utilization": busy / (t1 - t0) if t1 > t0 else 1.0}})
        for unit in ("dpe", "se"):
            for p, t0, t1, busy in w.get(unit, ()):
                ev.append({"ph": "X", "name": unit, "cat": unit, "pid": int(p), "tid": TIDS[unit],
                           "ts": (off + t0) * us, "dur": (t1 - t0) * us,
                           "args": {"busy_cycles": busy, "utilization": busy / (t1 - t0) if t1 > t0 else 1.0}})
        for p, line, t0, t1 in w.get("lines", ()):
            name = names.get(line) or names.setdefault(line, line_name(line, source))
            ev.append({"ph": "X", "name": name, "cat": "line", "pid": int(p), "tid": TIDS["core"],
                       "ts": (off + t0) * us, "dur": (t1 - t0) * us, "args": {"line": int(line)}})
        for kind in ("dma", "dpe"):
            for p, t0, stall in w.get(f"{kind}_wait", ()):
                ev.append({"ph": "X", "name": f"{kind} wait", "cat": f"{kind}_wait", "pid": int(p),
                           "tid": TIDS["core"], "ts": (off + t0) * us, "dur": stall * us,
                           "args": {"stall_cycles": stall}})
        for lv, segs in enumerate(w["segments"]):
            for a, b, r in segs:
                ev.append({"ph": "C", "name": f"{LEVELS[lv]} GB/s", "pid": CHIP_PID, "tid": 0, "ts": (off + a) * us,
                           "args": {"GB/s": r * cfg.clock_hz / 1e9}})
                ev.append({"ph": "C", "name": f"{LEVELS[lv]} GB/s", "pid": CHIP_PID, "tid": 0, "ts": (off + b) * us,
                           "args": {"GB/s": 0.0}})
    return ev


def write_trace(path: str, events: list) -> None:
    doc = {"traceEvents": events, "displayTimeUnit": "ns"}
    cut = [e["name"] for e in events if e.get("ph") == "i" and e["name"].startswith("trace detail left out")]
    if cut:
        doc["otherData"] = {"truncated": cut[0]}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)
