"""DWARF 4 line information for the kernel binary, so that ``addr2line``, ``objdump -S`` and debuggers find the
kernel's source lines (mtiasim keeps reading the private ``.mtia.lines`` table).

:func:`debug_sections` builds ``.debug_line`` (one sequence over ``.text``, a row wherever the line or column
changes), ``.debug_abbrev`` and ``.debug_info`` (a compile unit naming the source file and its directory, with
``DW_AT_stmt_list`` and the text range, and the kernel as its one subprogram).  :func:`decode_line_table` reads a
``.debug_line`` back into rows (version 2 to 4; what the tests and tools of this project need).
"""
from __future__ import annotations

import dataclasses
import os
import struct
from typing import Dict, List, Sequence, Tuple

PRODUCER = "mtiacc"
VERSION = 4
ADDRESS_SIZE = 8
# The line program's parameters: GNU as's (instructions advance by 1-byte units; special opcodes as it uses them).
MIN_INSN_LENGTH, LINE_BASE, LINE_RANGE, OPCODE_BASE = 1, -5, 14, 13
STANDARD_OPCODE_LENGTHS = (0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1)

DW_LNS_copy, DW_LNS_advance_pc, DW_LNS_advance_line, DW_LNS_set_file, DW_LNS_set_column = 1, 2, 3, 4, 5
DW_LNS_negate_stmt, DW_LNS_set_basic_block, DW_LNS_const_add_pc, DW_LNS_fixed_advance_pc = 6, 7, 8, 9
DW_LNE_end_sequence, DW_LNE_set_address = 1, 2
DW_TAG_compile_unit, DW_TAG_subprogram = 0x11, 0x2E
DW_CHILDREN_no, DW_CHILDREN_yes = 0, 1
DW_AT_name, DW_AT_stmt_list, DW_AT_low_pc, DW_AT_high_pc, DW_AT_language = 0x03, 0x10, 0x11, 0x12, 0x13
DW_AT_comp_dir, DW_AT_producer, DW_AT_decl_file, DW_AT_decl_line, DW_AT_external = 0x1B, 0x25, 0x3A, 0x3B, 0x3F
DW_FORM_addr, DW_FORM_data2, DW_FORM_data4, DW_FORM_data8, DW_FORM_string = 0x01, 0x05, 0x06, 0x07, 0x08
DW_FORM_udata, DW_FORM_sec_offset, DW_FORM_flag_present = 0x0F, 0x17, 0x19
DW_LANG_Python = 0x0014

# abbreviation code -> (tag, children, ((attribute, form), ...))
ABBREVS = {
    1: (DW_TAG_compile_unit, DW_CHILDREN_yes,
        ((DW_AT_producer, DW_FORM_string), (DW_AT_language, DW_FORM_data2), (DW_AT_name, DW_FORM_string),
         (DW_AT_comp_dir, DW_FORM_string), (DW_AT_stmt_list, DW_FORM_sec_offset), (DW_AT_low_pc, DW_FORM_addr),
         (DW_AT_high_pc, DW_FORM_data8))),
    2: (DW_TAG_subprogram, DW_CHILDREN_no,
        ((DW_AT_name, DW_FORM_string), (DW_AT_external, DW_FORM_flag_present), (DW_AT_decl_file, DW_FORM_udata),
         (DW_AT_decl_line, DW_FORM_udata), (DW_AT_low_pc, DW_FORM_addr), (DW_AT_high_pc, DW_FORM_data8))),
}


def uleb(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def sleb(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        done = (n == 0 and not byte & 0x40) or (n == -1 and byte & 0x40)
        out.append(byte | (0 if done else 0x80))
        if done:
            return bytes(out)


def _cstr(s: str) -> bytes:
    return s.encode("utf-8") + b"\0"


def _unit(body: bytes) -> bytes:
    return struct.pack("<I", len(body)) + body


def line_program(rows: Sequence[Tuple[int, int, int]], text_addr: int, text_size: int) -> bytes:
    """The opcodes for ``rows`` of (text offset, line, column), in offset order: a row where the line or the
    column changes, the sequence ending at the end of ``.text``."""
    out = bytearray(b"\0" + uleb(1 + ADDRESS_SIZE) + bytes([DW_LNE_set_address])
                    + text_addr.to_bytes(ADDRESS_SIZE, "little"))
    addr, line, col = 0, 1, 0
    last = None
    for offset, ln, c in rows:
        if (ln, c) == last:
            continue
        last = (ln, c)
        if c != col:
            out += bytes([DW_LNS_set_column]) + uleb(c)
            col = c
        d_addr, d_line = offset - addr, ln - line
        if d_addr < 0:
            raise ValueError(f"line rows out of address order at offset {offset}")
        special = (d_line - LINE_BASE) + LINE_RANGE * (d_addr // MIN_INSN_LENGTH) + OPCODE_BASE
        if LINE_BASE <= d_line < LINE_BASE + LINE_RANGE and special <= 255:
            out.append(special)
        else:
            if d_line:
                out += bytes([DW_LNS_advance_line]) + sleb(d_line)
            if d_addr:
                out += bytes([DW_LNS_advance_pc]) + uleb(d_addr // MIN_INSN_LENGTH)
            out.append(DW_LNS_copy)
        addr, line = offset, ln
    if text_size > addr:
        out += bytes([DW_LNS_advance_pc]) + uleb((text_size - addr) // MIN_INSN_LENGTH)
    out += b"\0" + uleb(1) + bytes([DW_LNE_end_sequence])
    return bytes(out)


def debug_line(rows: Sequence[Tuple[int, int, int]], directory: str, filename: str, text_addr: int,
               text_size: int) -> bytes:
    """A version 4 ``.debug_line`` unit: one include directory, one file (number 1) in it."""
    header = bytes([MIN_INSN_LENGTH, 1, 1]) + struct.pack("<bBB", LINE_BASE, LINE_RANGE, OPCODE_BASE) \
        + bytes(STANDARD_OPCODE_LENGTHS)
    header += _cstr(directory) + b"\0"                       # include_directories
    header += _cstr(filename) + uleb(1) + uleb(0) + uleb(0) + b"\0"   # file_names: dir 1, no time, no size
    program = line_program(rows, text_addr, text_size)
    return _unit(struct.pack("<H", VERSION) + struct.pack("<I", len(header)) + header + program)


def debug_abbrev() -> bytes:
    out = bytearray()
    for code, (tag, children, attrs) in ABBREVS.items():
        out += uleb(code) + uleb(tag) + bytes([children])
        for at, form in attrs:
            out += uleb(at) + uleb(form)
        out += b"\0\0"
    return bytes(out + b"\0")


def debug_info(*, name: str, comp_dir: str, function: str, decl_line: int, text_addr: int,
               text_size: int, function_offset: int) -> bytes:
    addr = lambda a: a.to_bytes(ADDRESS_SIZE, "little")   # noqa: E731
    cu = uleb(1) + _cstr(PRODUCER) + struct.pack("<H", DW_LANG_Python) + _cstr(name) + _cstr(comp_dir) \
        + struct.pack("<I", 0) + addr(text_addr) + struct.pack("<Q", text_size)
    sub = uleb(2) + _cstr(function) + uleb(1) + uleb(decl_line) + addr(text_addr + function_offset) \
        + struct.pack("<Q", text_size - function_offset)
    body = struct.pack("<HIB", VERSION, 0, ADDRESS_SIZE) + cu + sub + b"\0"
    return _unit(body)


def debug_sections(source_file: str, rows: Sequence[Tuple[int, int, int]], *, text_addr: int, text_size: int,
                   function: str, function_offset: int = 0) -> Dict[str, bytes]:
    """``.debug_abbrev``, ``.debug_info`` and ``.debug_line`` for ``.text`` compiled from ``source_file``.

    The file is named by its absolute path, split into the directory and the base name, so the tools find the
    source wherever they run."""
    path = os.path.abspath(source_file)
    directory, filename = os.path.split(path)
    decl_line = next((ln for off, ln, _c in rows if off >= function_offset), 0)   # the entry's: the `def` line
    return {
        ".debug_abbrev": debug_abbrev(),
        ".debug_info": debug_info(name=path, comp_dir=directory, function=function, decl_line=decl_line,
                                  text_addr=text_addr, text_size=text_size, function_offset=function_offset),
        ".debug_line": debug_line(rows, directory, filename, text_addr, text_size),
    }


# ----------------------------------------------------------------------------------------------------------------
# Reading a line table back
# ----------------------------------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class LineRow:
    address: int
    file: int
    line: int
    column: int
    end_sequence: bool = False


@dataclasses.dataclass
class LineTable:
    version: int
    include_directories: List[str]
    file_names: List[Tuple[str, int]]    # (name, directory index)
    rows: List[LineRow]


class _Reader:
    def __init__(self, data: bytes, pos: int = 0):
        self.data, self.pos = data, pos

    def fixed(self, fmt: str):
        value = struct.unpack_from("<" + fmt, self.data, self.pos)[0]
        self.pos += struct.calcsize("<" + fmt)
        return value

    def _leb(self, signed: bool) -> int:
        value = shift = 0
        while True:
            byte = self.data[self.pos]
            self.pos += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return value - (1 << shift) if signed and byte & 0x40 else value

    def uleb(self) -> int:
        return self._leb(False)

    def sleb(self) -> int:
        return self._leb(True)

    def cstr(self) -> str:
        end = self.data.index(b"\0", self.pos)
        s = self.data[self.pos:end].decode("utf-8")
        self.pos = end + 1
        return s


def decode_line_table(data: bytes) -> LineTable:
    """The first unit of a ``.debug_line`` section (DWARF 2 to 4, 32-bit format), its rows in order."""
    r = _Reader(data)
    length = r.fixed("I")
    end = r.pos + length
    version = r.fixed("H")
    if not 2 <= version <= 4:
        raise ValueError(f"line table version {version} is not 2 to 4")
    header_length = r.fixed("I")
    program = r.pos + header_length
    min_insn = r.fixed("B")
    if version >= 4:
        r.fixed("B")                     # maximum_operations_per_instruction
    default_is_stmt, line_base, line_range, opcode_base = r.fixed("B"), r.fixed("b"), r.fixed("B"), r.fixed("B")
    lengths = [r.fixed("B") for _ in range(opcode_base - 1)]
    dirs = []
    while r.data[r.pos]:
        dirs.append(r.cstr())
    r.pos += 1
    files = []
    while r.data[r.pos]:
        name = r.cstr()
        files.append((name, r.uleb()))
        r.uleb(), r.uleb()
    r.pos = program
    del default_is_stmt
    rows: List[LineRow] = []
    addr, file, line, col = 0, 1, 1, 0
    while r.pos < end:
        op = r.fixed("B")
        if op >= opcode_base:
            adj = op - opcode_base
            addr += adj // line_range * min_insn
            line += line_base + adj % line_range
            rows.append(LineRow(addr, file, line, col))
        elif op == 0:
            size = r.uleb()
            sub_end = r.pos + size
            sub = r.fixed("B")
            if sub == DW_LNE_end_sequence:
                rows.append(LineRow(addr, file, line, col, end_sequence=True))
                addr, file, line, col = 0, 1, 1, 0
            elif sub == DW_LNE_set_address:
                addr = int.from_bytes(r.data[r.pos:sub_end], "little")
            r.pos = sub_end
        elif op == DW_LNS_copy:
            rows.append(LineRow(addr, file, line, col))
        elif op == DW_LNS_advance_pc:
            addr += r.uleb() * min_insn
        elif op == DW_LNS_advance_line:
            line += r.sleb()
        elif op == DW_LNS_set_file:
            file = r.uleb()
        elif op == DW_LNS_set_column:
            col = r.uleb()
        elif op == DW_LNS_const_add_pc:
            addr += (255 - opcode_base) // line_range * min_insn
        elif op == DW_LNS_fixed_advance_pc:
            addr += r.fixed("H")
        else:                            # negate_stmt, basic_block, ...: skip their operands
            for _ in range(lengths[op - 1]):
                r.uleb()
    return LineTable(version, dirs, files, rows)
