"""The kernel binary: ELF64 little-endian, EM_RISCV, ET_EXEC (see docs/architecture.md).

Sections: ``.text`` (AX), ``.mtia.meta`` (UTF-8 JSON), ``.mtia.lines`` (u32 offset, u32 line, u32 column
records), ``.riscv.attributes`` (Tag_RISCV_arch with ``v``, so binutils' objdump decodes the vector
instructions without flags), DWARF 4 ``.debug_abbrev``, ``.debug_info`` and ``.debug_line`` (the same lines for
``addr2line`` and ``objdump -S``: :mod:`mtiacc.asm.dwarf`; when the source file and lines are known),
``.symtab``, ``.strtab``, ``.shstrtab``; one PT_LOAD program header for ``.text``.

:func:`read_elf` validates what it reads and raises :class:`BinaryFormatError` with a one-line message.
"""
from __future__ import annotations

import dataclasses
import json
import struct
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ..diagnostics import UserError
from .dwarf import debug_sections, uleb

EM_RISCV = 243
ET_EXEC = 2
EF_RISCV_FLOAT_ABI_SINGLE = 0x2
SHT_PROGBITS, SHT_SYMTAB, SHT_STRTAB, SHT_NOBITS = 1, 2, 3, 8
SHT_RISCV_ATTRIBUTES = 0x70000003
SHF_ALLOC, SHF_EXECINSTR = 0x2, 0x4
STB_LOCAL, STB_GLOBAL = 0, 1
STT_NOTYPE, STT_FUNC = 0, 2
PT_LOAD, PF_X, PF_R = 1, 1, 4
FORMAT_VERSION = 1
TEXT_ADDR = 0
# The ISA the binaries use (V implies D, which GNU tools then expect in the string); VLEN = 512.
ARCH = ("rv64i2p1_m2p0_a2p1_f2p2_d2p2_v1p0_zicsr2p0_zifencei2p0_zve32f1p0_zve32x1p0_zve64d1p0_zve64f1p0_zve64x1p0"
        "_zvl128b1p0_zvl256b1p0_zvl32b1p0_zvl512b1p0_zvl64b1p0")
TAG_FILE, TAG_RISCV_STACK_ALIGN, TAG_RISCV_ARCH = 1, 4, 5

_EHDR = struct.Struct("<16sHHIQQQIHHHHHH")
_PHDR = struct.Struct("<IIQQQQQQ")
_SHDR = struct.Struct("<IIQQQQIIQQ")
_SYM = struct.Struct("<IBBHQQ")
_LINE = struct.Struct("<III")


class BinaryFormatError(UserError):
    """A file that is not a valid mtiacc kernel binary."""


@dataclasses.dataclass
class Binary:
    text: bytes
    text_addr: int
    meta: Dict[str, Any]
    lines: List[Tuple[int, int, int]]   # (text offset, line, column)
    symbols: Dict[str, int]             # name -> .text offset
    entry: int                          # address of the kernel's first instruction (e_entry)
    sections: Dict[str, bytes] = dataclasses.field(default_factory=dict)   # every section's contents, by name

    @property
    def kernel(self) -> str:
        return self.meta.get("kernel", "")


def riscv_attributes(arch: str = ARCH) -> bytes:
    """A ``.riscv.attributes`` section: format 'A', vendor "riscv", a Tag_File sub-subsection."""
    attrs = uleb(TAG_RISCV_STACK_ALIGN) + uleb(16) + uleb(TAG_RISCV_ARCH) + arch.encode() + b"\0"
    file_sub = uleb(TAG_FILE) + struct.pack("<I", 1 + 4 + len(attrs)) + attrs
    vendor = b"riscv\0"
    return b"A" + struct.pack("<I", 4 + len(vendor) + len(file_sub)) + vendor + file_sub


class _StrTab:
    def __init__(self):
        self.data = bytearray(b"\0")
        self.index: Dict[str, int] = {"": 0}

    def add(self, s: str) -> int:
        if s not in self.index:
            self.index[s] = len(self.data)
            self.data += s.encode() + b"\0"
        return self.index[s]


def _align(n: int, a: int) -> int:
    return (n + a - 1) // a * a


def build_elf(code: bytes, *, entry_symbol: str, symbols: Mapping[str, int], meta: Mapping[str, Any],
              lines: Sequence[Tuple[int, int, int]], text_addr: int = TEXT_ADDR,
              source_file: Optional[str] = None) -> bytes:
    """The kernel binary: ``code`` at ``text_addr``, ``entry_symbol`` as the FUNC GLOBAL entry (``e_entry``).

    ``lines`` (text offset, line, column) go to ``.mtia.lines`` and, naming ``source_file`` (default: the
    metadata's), to the DWARF sections."""
    if entry_symbol not in symbols:
        raise ValueError(f"entry symbol {entry_symbol!r} is not among the symbols")
    if len(code) % 4:
        raise ValueError(f"code size {len(code)} is not a multiple of 4")
    meta = dict(meta)
    meta.setdefault("format_version", FORMAT_VERSION)
    meta_bytes = json.dumps(meta, ensure_ascii=False).encode("utf-8")
    lines_bytes = b"".join(_LINE.pack(o, ln, c) for o, ln, c in lines)

    strtab = _StrTab()
    syms = [_SYM.pack(0, 0, 0, 0, 0, 0)]
    entry_off = symbols[entry_symbol]
    for name, off in sorted(symbols.items(), key=lambda kv: (kv[1], kv[0])):
        if name != entry_symbol:
            syms.append(_SYM.pack(strtab.add(name), STB_LOCAL << 4 | STT_NOTYPE, 0, 1, text_addr + off, 0))
    first_global = len(syms)
    syms.append(_SYM.pack(strtab.add(entry_symbol), STB_GLOBAL << 4 | STT_FUNC, 0, 1, text_addr + entry_off,
                          len(code) - entry_off))
    symtab = b"".join(syms)

    source_file = source_file if source_file is not None else meta.get("source_file")
    debug = debug_sections(source_file, lines, text_addr=text_addr, text_size=len(code), function=entry_symbol,
                           function_offset=entry_off) if isinstance(source_file, str) and source_file and lines \
        else {}

    shstrtab = _StrTab()
    # (name, type, flags, data, align, link, info, entsize)
    sections = [
        (".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, code, 4, 0, 0, 0),
        (".mtia.meta", SHT_PROGBITS, 0, meta_bytes, 1, 0, 0, 0),
        (".mtia.lines", SHT_PROGBITS, 0, lines_bytes, 4, 0, 0, _LINE.size),
        (".riscv.attributes", SHT_RISCV_ATTRIBUTES, 0, riscv_attributes(), 1, 0, 0, 0),
        *((name, SHT_PROGBITS, 0, data, 1, 0, 0, 0) for name, data in debug.items()),
        (".symtab", SHT_SYMTAB, 0, symtab, 8, 0, first_global, _SYM.size),
        (".strtab", SHT_STRTAB, 0, bytes(strtab.data), 1, 0, 0, 0),
        (".shstrtab", SHT_STRTAB, 0, b"", 1, 0, 0, 0),
    ]
    strtab_index = 1 + [s[0] for s in sections].index(".strtab")     # after the null section header
    sections = [s[:5] + (strtab_index,) + s[6:] if s[0] == ".symtab" else s for s in sections]
    for s in sections:
        shstrtab.add(s[0])
    sections[-1] = sections[-1][:3] + (bytes(shstrtab.data),) + sections[-1][4:]

    out = bytearray(_EHDR.size + _PHDR.size)
    headers = [bytes(_SHDR.size)]
    text_off = 0
    for name, typ, flags, data, align, link, info, entsize in sections:
        off = _align(len(out), max(align, 16 if name == ".text" else 1))
        out += bytes(off - len(out)) + data
        if name == ".text":
            text_off = off
        addr = text_addr if name == ".text" else 0
        headers.append(_SHDR.pack(shstrtab.index[name], typ, flags, addr, off, len(data), link, info, align,
                                  entsize))
    shoff = _align(len(out), 8)
    out += bytes(shoff - len(out)) + b"".join(headers)

    ident = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)
    out[0:_EHDR.size] = _EHDR.pack(ident, ET_EXEC, EM_RISCV, 1, text_addr + entry_off, _EHDR.size, shoff,
                                   EF_RISCV_FLOAT_ABI_SINGLE, _EHDR.size, _PHDR.size, 1, _SHDR.size,
                                   len(headers), len(headers) - 1)
    out[_EHDR.size:_EHDR.size + _PHDR.size] = _PHDR.pack(PT_LOAD, PF_R | PF_X, text_off, text_addr, text_addr,
                                                         len(code), len(code), 16)
    return bytes(out)


def read_elf(data: bytes, filename: str = "<binary>") -> Binary:
    """Read and validate a kernel binary (raises :class:`BinaryFormatError`)."""

    def fail(msg: str) -> BinaryFormatError:
        return BinaryFormatError(f"{filename}: {msg}")

    if len(data) < 4 or data[:4] != b"\x7fELF":
        raise fail("not an ELF file")
    if len(data) < _EHDR.size:
        raise fail(f"truncated ELF header ({len(data)} bytes)")
    ident, _etype, machine, _ver, entry, _phoff, shoff, _flags, _ehsize, _phentsize, _phnum, shentsize, shnum, \
        shstrndx = _EHDR.unpack_from(data)
    if ident[4] != 2:
        raise fail("not a 64-bit ELF file (ELFCLASS64 expected)")
    if ident[5] != 1:
        raise fail("not a little-endian ELF file")
    if machine != EM_RISCV:
        raise fail(f"built for machine {machine}, not RISC-V ({EM_RISCV})")
    if shentsize != _SHDR.size:
        raise fail(f"bad section header size {shentsize} (expected {_SHDR.size})")
    if shnum == 0 or shoff + shnum * shentsize > len(data):
        raise fail("section header table out of bounds (truncated file?)")
    if shstrndx >= shnum:
        raise fail(f"section name table index {shstrndx} out of range")
    raw = [_SHDR.unpack_from(data, shoff + i * shentsize) for i in range(shnum)]
    _n, _t, _f, _a, str_off, str_size, *_rest = raw[shstrndx]
    if str_off + str_size > len(data):
        raise fail("section .shstrtab out of bounds")
    names = data[str_off:str_off + str_size]

    def cstr(table: bytes, off: int, what: str) -> str:
        end = table.find(b"\0", off)
        if off >= len(table) or end < 0:
            raise fail(f"{what} name offset {off} out of bounds")
        return table[off:end].decode("utf-8", "replace")

    sections: Dict[str, Tuple[int, bytes, int, int]] = {}  # name -> (type, data, addr, link)
    for i, (name_off, typ, _flags, addr, off, size, link, _info, _align_, _entsize) in enumerate(raw):
        if i == 0:
            continue
        name = cstr(names, name_off, "section")
        if typ != SHT_NOBITS and off + size > len(data):
            raise fail(f"section {name} out of bounds (offset {off:#x} + size {size:#x} > file size "
                       f"{len(data):#x})")
        sections[name] = (typ, b"" if typ == SHT_NOBITS else data[off:off + size], addr, link)
    for required in (".text", ".mtia.meta", ".mtia.lines"):
        if required not in sections:
            raise fail(f"missing section {required}")

    _typ, text, text_addr, _link = sections[".text"]
    try:
        meta = json.loads(sections[".mtia.meta"][1].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise fail(f"section .mtia.meta is not valid JSON ({e})") from None
    except RecursionError:
        raise fail("section .mtia.meta is not valid JSON (nested too deeply)") from None
    if not isinstance(meta, dict):
        raise fail("section .mtia.meta is not a JSON object")
    version = meta.get("format_version")
    if version != FORMAT_VERSION:
        raise fail(f"unsupported format version {version!r} (this tool reads version {FORMAT_VERSION})")

    lines_data = sections[".mtia.lines"][1]
    if len(lines_data) % _LINE.size:
        raise fail(f"section .mtia.lines size {len(lines_data)} is not a multiple of {_LINE.size}")
    lines = [_LINE.unpack_from(lines_data, i) for i in range(0, len(lines_data), _LINE.size)]

    symbols: Dict[str, int] = {}
    if ".symtab" in sections:
        _t, symtab, _a, link = sections[".symtab"]
        if not 0 < link < shnum:
            raise fail(f"section .symtab links to section {link}, out of range")
        strtab_off, strtab_size = raw[link][4], raw[link][5]
        strtab = data[strtab_off:strtab_off + strtab_size]
        if len(symtab) % _SYM.size:
            raise fail(f"section .symtab size {len(symtab)} is not a multiple of {_SYM.size}")
        for i in range(_SYM.size, len(symtab), _SYM.size):
            name_off, info, _other, shndx, value, _size = _SYM.unpack_from(symtab, i)
            if info & 0xF in (STT_NOTYPE, STT_FUNC) and name_off:
                symbols[cstr(strtab, name_off, "symbol")] = value - text_addr
    if not text_addr <= entry < text_addr + max(len(text), 1):
        raise fail(f"entry address {entry:#x} is outside .text")
    return Binary(text=text, text_addr=text_addr, meta=meta, lines=lines, symbols=symbols, entry=entry,
                  sections={name: sec[1] for name, sec in sections.items()})
