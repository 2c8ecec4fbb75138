"""The on-disk cache of compiled kernels.

A binary is stored under ``$MTIACC_CACHE_DIR`` (default ``~/.cache/mtiacc``) by a key that covers everything
its bytes depend on: the source text of the kernel's file and its path (the line table names it), the kernel's
name, the signature, the constexpr values, the options and the compiler's version (a hash of mtiacc's own
sources, so a changed compiler never serves a stale binary).  Entries are written whole or not at all (a
temporary file, then a rename), so concurrent processes can share the folder; each holds the SHA-256 of its binary, so a damaged one (truncated,
overwritten) is compiled again and replaced rather than served.  A folder that cannot be written (read-only) is
still read; what is compiled then goes to a temporary folder of the process (:func:`cache_dir`).
"""
from __future__ import annotations

import atexit
import functools
import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Dict, Optional

_PACKAGE = Path(__file__).resolve().parent.parent
MAGIC = b"mtiacc-cache-entry/1\n"     # then the SHA-256 of the binary, then the binary
_writable: Dict[str, Path] = {}


def configured_dir() -> Path:
    """The folder the user chose: ``$MTIACC_CACHE_DIR``, else ``~/.cache/mtiacc``."""
    return Path(os.environ.get("MTIACC_CACHE_DIR") or Path.home() / ".cache" / "mtiacc")


def cache_dir() -> Path:
    """Where the toolchain writes what it caches (binaries, the sources of nested kernels, Inductor's caches): the
    configured folder, or, when that cannot be written (a read-only file system, no permission), a temporary
    folder of this process, removed when it exits.  Entries already in a read-only folder are still read
    (:func:`load`)."""
    d = configured_dir()
    key = str(d)
    if key not in _writable:
        _writable[key] = d if _can_write(d) else _temporary()
    return _writable[key]


def _can_write(d: Path) -> bool:
    try:
        d.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=d, prefix=".probe-")
        os.close(fd)
        os.unlink(probe)
        return True
    except OSError:
        return False


def _temporary() -> Path:
    d = Path(tempfile.mkdtemp(prefix="mtiacc-cache-"))
    atexit.register(shutil.rmtree, d, True)
    return d


@functools.lru_cache(maxsize=None)
def compiler_version() -> str:
    """A digest of the compiler's own sources (the package's .py files and its target descriptions)."""
    h = hashlib.sha256()
    for p in sorted(_PACKAGE.rglob("*")):
        if p.suffix in (".py", ".yaml", ".lark") and "__pycache__" not in p.parts:
            h.update(str(p.relative_to(_PACKAGE)).encode())
            h.update(p.read_bytes())
    return h.hexdigest()[:16]


def key(source: str, kernel: str, signature: str, constexprs: dict, options: dict, path: str = "") -> str:
    """The entry's name.  ``path`` is the file the source was read from: a binary's line table names it, so the
    same text in another file is another entry (its errors point into that file)."""
    blob = json.dumps({"source": source, "path": path, "kernel": kernel, "signature": signature,
                       "constexprs": {k: repr(v) for k, v in sorted(constexprs.items())},
                       "options": options, "compiler": compiler_version()}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def _entry(folder: Path, k: str) -> Path:
    return folder / k[:2] / f"{k}.bin"


def load(k: str) -> Optional[bytes]:
    """The binary of entry ``k``, if an intact one is cached (in the folder written to, else the configured one).
    A damaged entry (truncated, overwritten: its digest does not match) is removed where possible and not served:
    the caller compiles again and :func:`store` replaces it."""
    for folder in dict.fromkeys((cache_dir(), configured_dir())):
        path = _entry(folder, k)
        try:
            data = path.read_bytes()
        except OSError:
            continue
        binary = _intact(data)
        if binary is not None:
            return binary
        try:
            path.unlink()
        except OSError:
            pass
    return None


def _intact(data: bytes) -> Optional[bytes]:
    head = len(MAGIC) + 32
    if len(data) < head or not data.startswith(MAGIC):
        return None
    binary = data[head:]
    return binary if hashlib.sha256(binary).digest() == data[len(MAGIC):head] else None


def store(k: str, binary: bytes) -> None:
    """Write entry ``k`` whole or not at all (a temporary file, then a rename), with the binary's digest."""
    folder = cache_dir() / k[:2]
    tmp = None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
        with os.fdopen(fd, "wb") as f:
            f.write(MAGIC + hashlib.sha256(binary).digest() + binary)
        os.replace(tmp, _entry(cache_dir(), k))
        tmp = None
    except OSError:
        pass    # a cache that cannot be written only costs a recompile
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
