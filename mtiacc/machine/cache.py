"""The checked values of a machine file read before, kept on disk, so that a compile need not read YAML.

Reading a machine file costs a compile ~20 ms, most of it the import of the YAML reader.  Once a file has been
read and checked, its values are written to a record, ``$MTIACC_CACHE_DIR/machines/NAME-KEY.json`` (by default
under ``~/.cache/mtiacc``, the folder of the compiled-binary cache), with the key they were made under: the
file's path, the CRC-32 and size of its bytes, and those of the schema and the reader that checked them.  The
next read of the same bytes by the same schema and reader takes the record; any other change reads the YAML
again (and a file with a problem is read, and reported, every time: only checked values are recorded).  A record
that cannot be read, or a folder that cannot be written, costs only that read.
"""
from __future__ import annotations

import json
import os
import zlib
from pathlib import Path
from typing import Callable, Dict, List, Optional

FORMAT = 1
_HERE = Path(__file__).resolve().parent
_CHECKERS = ("schema.py", "loader.py")        # what decides the values of a file's text


def folder() -> Path:
    """Where records are kept: ``$MTIACC_CACHE_DIR/machines``, else ``~/.cache/mtiacc/machines``."""
    return Path(os.environ.get("MTIACC_CACHE_DIR") or Path.home() / ".cache" / "mtiacc") / "machines"


def _fingerprint(data: bytes) -> str:
    return f"{zlib.crc32(data):08x}-{len(data)}"


def _key(path: str, data: bytes) -> Optional[List[object]]:
    try:
        checkers = [_fingerprint((_HERE / name).read_bytes()) for name in _CHECKERS]
    except OSError:
        return None
    return [FORMAT, os.path.abspath(path), _fingerprint(data), *checkers]


def _valid(values) -> bool:
    return isinstance(values, list) and all(
        isinstance(kv, list) and len(kv) == 2 and isinstance(kv[0], str)
        and isinstance(kv[1], (int, float, str, bool)) for kv in values)


def read_values(path: str, read_file: Callable[[str], Dict[str, object]]) -> Dict[str, object]:
    """``read_file(path)`` (the checked values of machine file ``path``), from the file's record when it has one
    made under the same key."""
    try:
        data = Path(path).read_bytes()
    except OSError:
        return read_file(path)          # it reports what is wrong
    key = _key(path, data)
    if key is None:
        return read_file(path)
    record = folder() / f"{Path(path).stem}-{zlib.crc32(json.dumps(key).encode()):08x}.json"
    try:
        stored = json.loads(record.read_text(encoding="utf-8"))
        if stored.get("key") == key and _valid(stored.get("values")):
            return dict(stored["values"])
    except (OSError, ValueError, AttributeError):
        pass
    values = read_file(path)
    try:
        if Path(path).read_bytes() == data:     # not changed while it was read: the values are those of ``key``
            _write(record, {"key": key, "values": [[k, v] for k, v in values.items()]})
    except OSError:
        pass
    return values


def _write(record: Path, content: dict) -> None:
    """Write ``record`` whole or not at all (processes compiling at once may write the same record)."""
    record.parent.mkdir(parents=True, exist_ok=True)
    tmp = record.with_name(f".{record.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(json.dumps(content), encoding="utf-8")
        os.replace(tmp, record)
    finally:
        if tmp.exists():
            tmp.unlink()
