"""The on-disk cache of compiled kernels.

A binary is stored under ``$MTIACC_CACHE_DIR`` (default ``~/.cache/mtiacc``) by a key that covers everything
its bytes depend on: the source text of the kernel's file and its path (named by the line table), the kernel's name, the signature, the constexpr
values, the options and the compiler's version (a hash of mtiacc's own sources, so a changed compiler never
serves a stale binary).  Entries are written whole or not at all (a temporary file, then a rename), so
concurrent processes can share the folder.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Optional

_PACKAGE = Path(__file__).resolve().parent.parent


def cache_dir() -> Path:
    return Path(os.environ.get("MTIACC_CACHE_DIR") or Path.home() / ".cache" / "mtiacc")


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


def load(k: str) -> Optional[bytes]:
    path = cache_dir() / k[:2] / f"{k}.bin"
    try:
        return path.read_bytes()
    except OSError:
        return None


def store(k: str, binary: bytes) -> None:
    folder = cache_dir() / k[:2]
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
        with os.fdopen(fd, "wb") as f:
            f.write(binary)
        os.replace(tmp, folder / f"{k}.bin")
    except OSError:
        pass    # a cache that cannot be written only costs a recompile
