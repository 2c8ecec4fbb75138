"""A sweep's results: the content-addressed cache of simulations, the journal a running sweep appends to, and
the output file written whole at the end.

* A simulation's result depends on the binary, the inputs, the machine, the run's settings and the simulator:
  its cache key hashes all five (the simulator by a digest of its sources), so a result is reused exactly when
  running again could not change it.  Entries live under ``$MTIACC_CACHE_DIR/sweep`` and are written whole.
* While a sweep runs, each finished row is appended to ``OUT.jsonl.partial``; ``--resume`` reads it (and a
  finished ``OUT.jsonl``) and runs only the points without a row.  At the end ``OUT.jsonl`` is written whole, in
  the spec's order, and the journal removed.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Dict, Iterable, Optional

from mtiacc.files import write_whole
from mtiacc.runtime.cache import cache_dir

_SIM = Path(__file__).resolve().parent.parent.parent / "mtiasim"


@functools.lru_cache(maxsize=None)
def simulator_version() -> str:
    h = hashlib.sha256()
    for p in sorted(_SIM.rglob("*.py")):
        if "__pycache__" not in p.parts:
            h.update(str(p.relative_to(_SIM)).encode())
            h.update(p.read_bytes())
    return h.hexdigest()[:16]


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sim_key(binary: bytes, inputs_digest: str, machine_digest: str, settings: dict) -> str:
    blob = json.dumps({"binary": digest(binary), "inputs": inputs_digest, "machine": machine_digest,
                       "settings": settings, "simulator": simulator_version()}, sort_keys=True)
    return digest(blob.encode())


def _entry(key: str) -> Path:
    return cache_dir() / "sweep" / key[:2] / f"{key}.json"


def cached(key: str) -> Optional[dict]:
    try:
        row = json.loads(_entry(key).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return row if isinstance(row, dict) and row.get("status") in ("ok", "error") else None


def store(key: str, result: dict) -> None:
    path = _entry(key)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(result, f)
        os.replace(tmp, path)
    except OSError:
        pass    # a cache that cannot be written only costs a rerun


def row(point: dict, result: dict) -> dict:
    """The output row of a point: the issue's fixed field order."""
    ok = result.get("status") == "ok"
    return {"point": point, "status": "ok" if ok else "error",
            "cycles": result.get("cycles") if ok else None, "time_s": result.get("time_s") if ok else None,
            "roofline_fraction": result.get("roofline_fraction") if ok else None,
            "error": None if ok else result.get("error") or "unknown error"}


class Journal:
    """``OUT.jsonl.partial``: the rows finished so far, one JSON object a line, flushed as they come."""

    def __init__(self, out: str):
        self.path = out + ".partial"
        self._f = None

    def done(self, out: str) -> Dict[str, dict]:
        """Rows already finished, by the point's canonical text: the journal's and a finished output's."""
        found: Dict[str, dict] = {}
        for path in (out, self.path):
            try:
                with open(path, encoding="utf-8") as f:
                    for line in f:
                        try:
                            r = json.loads(line)
                        except ValueError:
                            continue   # a line cut short when a sweep was killed
                        if isinstance(r, dict) and isinstance(r.get("point"), dict) and "status" in r:
                            found[json.dumps(r["point"], sort_keys=True)] = r
            except OSError:
                continue
        return found

    def append(self, r: dict) -> None:
        if self._f is None:
            self._f = open(self.path, "a", encoding="utf-8")
        self._f.write(json.dumps(r) + "\n")
        self._f.flush()

    def finish(self) -> None:
        if self._f is not None:
            self._f.close()
            self._f = None
        try:
            os.unlink(self.path)
        except OSError:
            pass

    def close(self) -> None:
        if self._f is not None:
            self._f.close()
            self._f = None


def write_rows(out: str, rows: Iterable[dict]) -> None:
    text = "".join(json.dumps(r) + "\n" for r in rows)
    write_whole(out, text.encode("utf-8"))
