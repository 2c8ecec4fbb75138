"""Output and input files as both tools treat them: written whole or not at all, with the permissions the
user's umask gives a new file, and ``-`` meaning standard output (or standard input)."""
from __future__ import annotations

import errno
import io
import os
import sys
from typing import BinaryIO, Callable, Dict, Union

from mtiacc.diagnostics import UserError

STDIO = "-"


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def check_writable(path: str) -> None:
    """Fail before work whose result could not be written (a missing folder, a folder as the file, no write
    permission): a long run should not end in an error it could have given at its start."""
    directory = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise UserError(f"cannot write '{path}': Is a directory")
    if not os.path.isdir(directory):
        raise UserError(f"cannot write '{path}': No such file or directory")
    if not os.access(directory, os.W_OK):
        raise UserError(f"cannot write '{path}': Permission denied")


def _new_temporary(folder: str):
    """``(fd, path)`` of a new file ``.mtia-*.tmp`` in ``folder``, mode ``0600``, open for writing: what
    ``tempfile.mkstemp`` makes, without importing ``tempfile`` (with ``random``, ``shutil``, ``bz2`` and ``lzma``:
    ~6 ms of every compile)."""
    for _ in range(100):
        tmp = os.path.join(folder, f".mtia-{os.getpid()}-{os.urandom(6).hex()}.tmp")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no unused temporary file name", folder)


def write_whole(path: str, data: Union[bytes, Callable[[BinaryIO], None]], what: str = "output") -> None:
    """Write ``data`` (bytes, or a function writing to a binary file) to ``path``: ``-`` is standard output;
    a file is written to a temporary file in the same folder and renamed, so it is whole or absent, and
    gets mode ``0666 & ~umask`` as any new file would (a temporary file is created ``0600``)."""
    if path == STDIO:
        out = sys.stdout.buffer
        if callable(data):
            buf = io.BytesIO()
            data(buf)
            data = buf.getvalue()
        out.write(data)
        out.flush()
        return
    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = _new_temporary(folder)
    except OSError as e:
        raise UserError(f"cannot write '{path}': {e.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            if callable(data):
                data(f)
            else:
                f.write(data)
            os.fchmod(f.fileno(), 0o666 & ~_umask())
        os.replace(tmp, path)
    except OSError as e:
        raise UserError(f"cannot write '{path}': {e.strerror}") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def save_npz(f: BinaryIO, arrays: Dict[str, object]) -> None:
    """What ``np.savez(f, **arrays)`` writes, for any array names (``np.savez`` takes ``file`` and
    ``allow_pickle`` as its own arguments, so a parameter so named could not be saved through it)."""
    import zipfile

    import numpy as np
    with zipfile.ZipFile(f, "w", zipfile.ZIP_STORED, allowZip64=True) as zf:
        for name, arr in arrays.items():
            with zf.open(name + ".npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, np.asanyarray(arr), allow_pickle=False)


def read_bytes(path: str, what: str) -> bytes:
    """The bytes of ``path`` (``-``: standard input)."""
    if path == STDIO:
        return sys.stdin.buffer.read()
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        raise UserError(f"{what} '{path}' does not exist") from None
    except IsADirectoryError:
        raise UserError(f"{what} '{path}' is a directory") from None
    except OSError as e:
        raise UserError(f"cannot read {what} '{path}': {e.strerror}") from None
