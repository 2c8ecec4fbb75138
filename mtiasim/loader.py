"""Load a kernel binary: read the ELF once, decode ``.text`` once into a per-pc list of ``Decoded`` rows."""
from __future__ import annotations

import bisect
import os
from typing import Any, Dict, List, Optional, Tuple

from mtiacc.diagnostics import SourceLocation, UserError


HALT_ADDRESS = 0x7FFFFFF0     # ra at launch: a program ends when it returns here (docs/architecture.md, "Kernel ABI")


def check_text_place(text_base: int, size: int, entry: int, filename: str) -> None:
    """``.text`` holds instructions, 4-byte aligned, below the halt address; the entry is one of them."""
    where = f"binary '{filename}'"
    if size == 0:
        raise UserError(f"{where}: .text is empty (no instructions)")
    if text_base % 4 or not (0 <= text_base and text_base + size <= HALT_ADDRESS):
        raise UserError(f"{where}: .text at 0x{text_base:x}..0x{text_base + size:x} must be 4-byte aligned and "
                        f"below the halt address 0x{HALT_ADDRESS:x}")
    if entry % 4 or not text_base <= entry < text_base + size:
        raise UserError(f"{where}: the entry address 0x{entry:x} is not an instruction of .text "
                        f"(0x{text_base:x}..0x{text_base + size:x}, 4-byte aligned)")


class Program:
    """A decoded kernel: ``decoded[k]`` is the instruction at ``text_base + 4 * k`` (``None`` if undecodable)."""

    def __init__(self, text: bytes, decoded: List[Any], errors: List[Optional[str]], text_base: int,
                 lines, meta: Dict[str, Any], symbols=None, name: str = "kernel", entry: Optional[int] = None):
        self.text = text
        self.entry = text_base if entry is None else entry
        self.decoded = decoded
        self.errors = errors
        self.text_base = text_base
        self.meta = meta or {}
        self.symbols = symbols or {}
        self.name = name
        recs = sorted(_line_record(r) for r in (lines or ()))
        self._line_offsets = [r[0] for r in recs]
        self._line_recs = recs
        src = self.meta.get("source") or {}
        self._source = {int(k): v for k, v in src.items()} if isinstance(src, dict) else {}

    @property
    def words(self) -> List[int]:
        return [int.from_bytes(self.text[i:i + 4], "little") for i in range(0, len(self.text) - 3, 4)]

    def location(self, pc: int) -> Tuple[Optional[SourceLocation], Optional[str]]:
        """The kernel source position of the instruction at ``pc`` and the embedded text of that line."""
        off = pc - self.text_base
        i = bisect.bisect_right(self._line_offsets, off) - 1
        if i < 0:
            return None, None
        _, line, col = self._line_recs[i]
        if line <= 0:
            return None, None
        file = self.meta.get("source_file") or f"<{self.name}>"
        return SourceLocation(str(file), int(line), max(int(col), 1)), self._source.get(int(line))

    def disassemble(self, k: int) -> str:
        d = self.decoded[k]
        word = int.from_bytes(self.text[4 * k:4 * k + 4], "little")
        if d is None:
            return f".word 0x{word:08x}"
        return disassemble(d, word, self.text_base + 4 * k)


def _line_record(r) -> Tuple[int, int, int]:
    if isinstance(r, (tuple, list)):
        return int(r[0]), int(r[1]), int(r[2]) if len(r) > 2 else 1
    return int(getattr(r, "offset")), int(getattr(r, "line")), int(getattr(r, "col", 1))


def disassemble(d, word: int, pc: int) -> str:
    """The instruction as assembly text: the assembler package's printer if it has one, else a generic form."""
    try:
        from mtiacc.asm.disasm import instruction_text
        return instruction_text(d, pc=pc)
    except Exception:  # noqa: BLE001 - a disassembly is only decoration on an error message
        pass
    fields = []
    for name in ("rd", "vd", "rs1", "vs1", "rs2", "vs2", "rs3", "vs3", "imm", "shamt", "vtypei", "rm", "vm"):
        v = getattr(d, name, None)
        if v is not None:
            fields.append(f"{name}={v}")
    return f"{d.spec.name} {', '.join(fields)}  (0x{word:08x})"


# Programs loaded from ELF bytes, by (bytes, filename): a process that launches a kernel many times (torch.compile,
# an autotuner) reads and decodes its binary once.  A Program is not changed after it is built.
_PROGRAMS: Dict[Tuple[bytes, Optional[str]], Program] = {}
_PROGRAMS_KEPT = 64
# decoded instruction words (``Decoded`` rows are values: kernels share most of their words)
_WORDS: Dict[int, Tuple[Any, Optional[str]]] = {}
_WORDS_KEPT = 1 << 16


def load_program(binary, filename: Optional[str] = None) -> Program:
    """``binary``: a path, the ELF bytes, or an ``mtiacc.asm.elf.Binary``."""
    if isinstance(binary, (bytes, bytearray)):
        key = (bytes(binary), filename)
        program = _PROGRAMS.get(key)
        if program is None:
            program = _load_program(key[0], filename)
            if len(_PROGRAMS) >= _PROGRAMS_KEPT:
                del _PROGRAMS[next(iter(_PROGRAMS))]      # the oldest
            _PROGRAMS[key] = program
        return program
    return _load_program(binary, filename)


def _decode(word: int) -> Tuple[Any, Optional[str]]:
    """``(Decoded, None)``, or ``(None, why)`` for a word that decodes to no instruction."""
    got = _WORDS.get(word)
    if got is not None:
        return got
    from mtiacc.asm.encoding import decode
    try:
        d = decode(word)
    except Exception as e:  # noqa: BLE001 - an undecodable word faults only if it executes
        got = (None, str(e) or "unknown instruction")
    else:
        got = (d, None if d is not None else "unknown instruction")
    if len(_WORDS) >= _WORDS_KEPT:
        _WORDS.clear()
    _WORDS[word] = got
    return got


def _load_program(binary, filename: Optional[str] = None) -> Program:
    from mtiacc.asm import elf as _elf

    if isinstance(binary, (str, os.PathLike)):
        filename = filename or os.fspath(binary)
        try:
            with open(binary, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            raise UserError(f"binary '{filename}' does not exist") from None
        except OSError as e:
            raise UserError(f"cannot read binary '{filename}': {e.strerror}") from None
        binary = _elf.read_elf(data, filename)
    elif isinstance(binary, (bytes, bytearray)):
        binary = _elf.read_elf(bytes(binary), filename or "<binary>")
    text = bytes(binary.text)
    if len(text) % 4:
        raise UserError(f"binary '{filename or '<binary>'}': .text is {len(text)} bytes, not a multiple of 4")
    decoded: List[Any] = []
    errors: List[Optional[str]] = []
    for i in range(0, len(text), 4):
        d, err = _decode(int.from_bytes(text[i:i + 4], "little"))
        decoded.append(d)
        errors.append(err)
    meta = dict(check_meta(binary.meta, filename or "<binary>"))
    text_base = int(getattr(binary, "text_addr", 0) or 0)
    entry = int(getattr(binary, "entry", text_base))
    check_text_place(text_base, len(text), entry, filename or "<binary>")
    return Program(text, decoded, errors, text_base, getattr(binary, "lines", ()), meta,
                   getattr(binary, "symbols", {}), name=str(meta.get("kernel", "kernel")), entry=entry)


# --- the metadata: checked against its schema (mtiacc/asm/metadata.py, the one place that declares it) before
# anything uses it, so a binary whose metadata does not fit is an error naming the file and the field.

def check_meta(meta: Any, filename: str) -> Dict[str, Any]:
    """``meta`` if it follows the schema; else a UserError ``binary 'F': metadata field 'X' ...``."""
    from mtiacc.asm.metadata import check_metadata
    return check_metadata(meta, filename)


def check_target(meta: Dict[str, Any], machine: str, machine_path: str, filename: str) -> None:
    """The binary was compiled for the machine it runs on."""
    target = meta.get("target")
    if target is not None and target != machine:
        raise UserError(f"binary '{filename}' was compiled for target '{target}'; the machine is '{machine}' "
                        f"({machine_path}); pass the matching --machine, or recompile with --machine")


# --- the inputs: an npz archive of named arrays, checked before numpy allocates anything it declares ----------

MAX_INPUT_BYTES = 512 << 20    # the arrays of an inputs archive, uncompressed (a small archive may expand a lot)


def _npy_header(f, what: str, name: str):
    """(shape, dtype) from the header of member ``name``; a UserError when it holds objects or lies about sizes."""
    from numpy.lib import format as npf
    version = npf.read_magic(f)
    shape, _fortran, dtype = (npf.read_array_header_1_0(f) if version == (1, 0) else
                              npf.read_array_header_2_0(f))
    if dtype.hasobject:
        raise UserError(f"{what}: array '{name}' holds Python objects (dtype {dtype}); the inputs are numeric "
                        "arrays (np.savez of numbers)")
    if any(d < 0 for d in shape):
        raise UserError(f"{what}: array '{name}' has a negative size in its shape {shape}")
    size = dtype.itemsize
    for d in shape:
        size *= d
    return shape, dtype, size


def read_npz(data, what: str, limit: int = MAX_INPUT_BYTES):
    """The arrays of an npz archive (a path or a binary file object), by name.

    Every member's header is read first: an archive whose arrays would take more than ``limit`` bytes, an array
    whose header claims more data than the member holds, or an array of Python objects is refused before numpy
    allocates anything.  Big-endian arrays are returned as they are (the runner converts them: read by value)."""
    import zipfile

    import numpy as np
    try:
        zf = zipfile.ZipFile(data)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as e:
        raise UserError(f"{what} is not a readable .npz archive ({e})") from None
    arrays = {}
    with zf:
        infos = zf.infolist()
        total = sum(info.file_size for info in infos)
        if total > limit:
            raise UserError(f"{what} holds {total:,} bytes of arrays uncompressed, more than the limit of "
                            f"{limit:,} (--max-input-bytes)")
        declared = 0
        for info in infos:
            name = info.filename[:-4] if info.filename.endswith(".npy") else info.filename
            try:
                with zf.open(info) as f:
                    shape, dtype, size = _npy_header(f, what, name)
                    declared += size
                    if declared > limit:
                        raise UserError(f"{what}: array '{name}' ({shape}, {dtype}) would make the arrays "
                                        f"{declared:,} bytes, more than the limit of {limit:,} (--max-input-bytes)")
                    rest = info.file_size - f.tell()
                    if size > rest:
                        raise UserError(f"{what}: array '{name}' is truncated: its header says {shape} of {dtype} "
                                        f"({size:,} bytes) but the archive holds {max(rest, 0):,}")
                with zf.open(info) as f:
                    arrays[name] = np.lib.format.read_array(f, allow_pickle=False)
            except UserError:
                raise
            except Exception as e:  # noqa: BLE001 - any failure of zipfile, zlib or numpy to decode the file
                raise UserError(f"{what} is not a readable .npz archive (member '{info.filename}': "
                                f"{type(e).__name__}: {e})") from None
    return arrays


def load_inputs(path: str, limit: int = MAX_INPUT_BYTES):
    """The arrays of the npz archive at ``path`` (``-``: standard input), by name (:func:`read_npz`)."""
    import io
    import zipfile
    if path == "-":   # an npz archive on standard input
        from mtiacc.files import read_bytes
        data = read_bytes(path, "inputs")
        if data[:6] == b"\x93NUMPY" or not zipfile.is_zipfile(io.BytesIO(data)):
            raise UserError("the inputs on standard input are not an .npz archive of named arrays "
                            "(write one with np.savez(f, NAME=array, ...))")
        return read_npz(io.BytesIO(data), "the inputs on standard input", limit)
    if not os.path.exists(path):
        raise UserError(f"inputs file '{path}' does not exist")
    if os.path.isdir(path):
        raise UserError(f"inputs file '{path}' is a directory, not a readable .npz archive")
    try:
        with open(path, "rb") as f:
            magic = f.read(6)
    except OSError as e:
        raise UserError(f"cannot read inputs file '{path}': {e.strerror}") from None
    if magic == b"\x93NUMPY":
        raise UserError(f"inputs file '{path}' is a single .npy array, not an .npz archive of named arrays "
                        "(write one with np.savez(path, NAME=array, ...))")
    if not zipfile.is_zipfile(path):
        raise UserError(f"inputs file '{path}' is not a readable .npz archive (not a zip of named .npy "
                        "arrays, as np.savez writes)")
    return read_npz(path, f"inputs file '{path}'", limit)
