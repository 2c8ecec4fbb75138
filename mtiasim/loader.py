"""Load a kernel binary: read the ELF once, decode ``.text`` once into a per-pc list of ``Decoded`` rows."""
from __future__ import annotations

import bisect
import os
from typing import Any, Dict, List, Optional, Tuple

from mtiacc.diagnostics import SourceLocation, UserError


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


def load_program(binary, filename: Optional[str] = None) -> Program:
    """``binary``: a path, the ELF bytes, or an ``mtiacc.asm.elf.Binary``."""
    from mtiacc.asm import elf as _elf
    from mtiacc.asm.encoding import decode

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
        word = int.from_bytes(text[i:i + 4], "little")
        try:
            d = decode(word)
        except Exception as e:  # noqa: BLE001 - an undecodable word faults only if it executes
            d, err = None, str(e) or "unknown instruction"
        else:
            err = None if d is not None else "unknown instruction"
        decoded.append(d)
        errors.append(err)
    meta = dict(check_meta(binary.meta, filename or "<binary>"))
    text_base = int(getattr(binary, "text_addr", 0) or 0)
    entry = int(getattr(binary, "entry", text_base))
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
                        f"({machine_path}); pass the matching --config, or recompile with --target")
