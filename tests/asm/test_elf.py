"""ELF writer/reader: round trip, layout facts binutils relies on, and every BinaryFormatError."""
import json
import struct

import pytest

from mtiacc.asm.assembler import assemble
from mtiacc.asm.elf import EM_RISCV, BinaryFormatError, build_elf, read_elf
from mtiacc.diagnostics import UserError

SRC = """\
    .file 1 "kernel.py"
    .globl kernel
kernel:
    .loc 1 7 5
    mtia.pid a0, 0
.Lloop:
    .loc 1 8 9
    vsetvli t0, a1, e32, m8, ta, ma
    bnez a0, .Lloop
    ret
"""
META = {"format_version": 1, "kernel": "kernel", "target": "mtia2i", "params": [{"name": "x", "type": "*fp32"}],
        "constexprs": {"BLOCK": 128}, "grid": None, "lmem_bytes": 393216, "args_base": 0,
        "source_file": "kernel.py", "source": {"7": "pid = tl.program_id(0)", "8": "x = 1  # é"}}


def _elf(meta=META):
    p = assemble(SRC)
    return p, build_elf(p.code, entry_symbol="kernel", symbols=p.symbols, meta=meta, lines=p.lines)


def test_round_trip():
    p, data = _elf()
    b = read_elf(data, "k.elf")
    assert b.text == p.code and b.text_addr == 0 and b.entry == 0
    assert b.meta == META and b.kernel == "kernel"
    assert b.lines == p.lines == [(0, 7, 5), (4, 8, 9), (8, 8, 9), (12, 8, 9)]
    assert b.symbols == {"kernel": 0, ".Lloop": 4}


def test_header_facts():
    _, data = _elf()
    assert data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1
    e_type, e_machine = struct.unpack_from("<HH", data, 16)
    e_flags = struct.unpack_from("<I", data, 48)[0]
    assert (e_type, e_machine, e_flags) == (2, EM_RISCV, 0x2)
    assert struct.unpack_from("<H", data, 56)[0] == 1  # one program header


def test_format_version_is_added_when_missing():
    _, data = _elf({"kernel": "kernel"})
    assert read_elf(data).meta["format_version"] == 1


def _section(data, name):
    shoff = struct.unpack_from("<Q", data, 40)[0]
    shnum, shstrndx = struct.unpack_from("<HH", data, 60)
    str_off = struct.unpack_from("<Q", data, shoff + shstrndx * 64 + 24)[0]
    for i in range(shnum):
        hdr = shoff + i * 64
        name_off = struct.unpack_from("<I", data, hdr)[0]
        if data[str_off + name_off:].split(b"\0", 1)[0].decode() == name:
            return hdr
    raise KeyError(name)


def _patch(data, offset, fmt, value):
    data = bytearray(data)
    struct.pack_into(fmt, data, offset, value)
    return bytes(data)


def _replace_meta(data, meta_bytes):
    hdr = _section(data, ".mtia.meta")
    off, size = struct.unpack_from("<QQ", data, hdr + 24)
    padded = meta_bytes.ljust(size)
    assert len(padded) == size
    return data[:off] + padded + data[off + size:]


def _corruptions():
    _, good = _elf()
    return [
        (b"hello world", "not an ELF file"),
        (b"", "not an ELF file"),
        (good[:40], "truncated ELF header"),
        (good[:4] + b"\x01" + good[5:], "not a 64-bit ELF file"),
        (good[:5] + b"\x02" + good[6:], "not a little-endian ELF file"),
        (_patch(good, 18, "<H", 62), "built for machine 62, not RISC-V (243)"),
        (good[:len(good) - 100], "section header table out of bounds"),
        (_patch(good, _section(good, ".mtia.lines") + 32, "<Q", 1 << 20), "section .mtia.lines out of bounds"),
        (_patch(good, _section(good, ".text") + 24, "<Q", len(good)), "section .text out of bounds"),
        (_patch(good, _section(good, ".mtia.meta"), "<I", 0), "missing section .mtia.meta"),
        (_patch(good, _section(good, ".mtia.lines") + 32, "<Q", 5), "is not a multiple of 12"),
        (_replace_meta(good, json.dumps({**META, "format_version": 2}, ensure_ascii=False).encode()),
         "unsupported format version 2"),
        (_replace_meta(good, b"{not json"), "section .mtia.meta is not valid JSON"),
    ]


@pytest.mark.parametrize("data,message", _corruptions())
def test_binary_format_errors(data, message):
    with pytest.raises(BinaryFormatError) as info:
        read_elf(data, "bad.elf")
    e = info.value
    assert isinstance(e, UserError)
    assert message in e.message and e.message.startswith("bad.elf: ")
    assert "\n" not in e.message


def test_build_rejects_unknown_entry():
    with pytest.raises(ValueError):
        build_elf(b"\x13\0\0\0", entry_symbol="nope", symbols={"k": 0}, meta={}, lines=[])
