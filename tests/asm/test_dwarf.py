"""DWARF line information in the kernel binary: our decoder reads back what we wrote, binutils' addr2line and
objdump find the kernel's source lines, and GNU as makes the same line rows from our GNU-syntax assembly."""
import bisect
import functools
import os
import subprocess

import pytest
from hypothesis import given, settings, strategies as st

from tests.asm._binutils import need
from tests.conftest import EXAMPLES
from mtiacc.asm.assembler import assemble
from mtiacc.asm.dwarf import debug_line, decode_line_table, line_program, sleb, uleb
from mtiacc.asm.elf import build_elf, read_elf
from mtiacc.asm.gnu import gnu_syntax
from mtiacc.driver import Options, compile_kernel

ADDR2LINE, OBJDUMP = "riscv64-linux-gnu-addr2line", "riscv64-linux-gnu-objdump"
AS, LD, OBJCOPY = "riscv64-linux-gnu-as", "riscv64-linux-gnu-ld", "riscv64-linux-gnu-objcopy"
SOFTMAX = EXAMPLES / "softmax.py"


@functools.lru_cache(maxsize=None)
def _softmax():
    out = compile_kernel(str(SOFTMAX), Options(defines={"BLOCK_SIZE": "1024"}, signature="*fp32,*fp32,i32,i32,i32"))
    return out.asm_text, out.binary


def _need(*tools):
    need(*tools)


def _compress(rows):
    """(offset, line, col) per instruction -> the rows where line or column changes."""
    out = []
    for off, line, col in rows:
        if not out or out[-1][1:] != (line, col):
            out.append((off, line, col))
    return out


def _in_effect(table_rows, address):
    """The (line, column) of the row in effect at ``address``."""
    addrs = [r.address for r in table_rows]
    r = table_rows[bisect.bisect_right(addrs, address) - 1]
    return r.line, r.column


# -- pure Python ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [0, 1, 63, 64, 127, 128, 300, 1 << 20, -1, -64, -65, -300])
def test_leb128(n):
    if n >= 0:
        assert uleb(n)[-1] < 0x80 and all(b >= 0x80 for b in uleb(n)[:-1])
    from mtiacc.asm.dwarf import _Reader
    data = sleb(n) + (uleb(n) if n >= 0 else b"")
    r = _Reader(data)
    assert r.sleb() == n
    if n >= 0:
        assert r.uleb() == n


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 600), st.integers(1, 3000), st.integers(0, 120)), max_size=40),
       st.integers(0, 0x1000))
def test_line_program_decodes_to_its_rows(steps, base):
    rows, off = [], 0
    for step, line, col in steps:
        off += 4 * step
        rows.append((off, line, col))
    size = off + 4
    table = decode_line_table(debug_line(rows, "/src", "k.py", base, size))
    assert table.version == 4 and table.include_directories == ["/src"] and table.file_names == [("k.py", 1)]
    *body, end = table.rows
    assert end.end_sequence and end.address == base + size
    assert [(r.address - base, r.line, r.column) for r in body] == _compress(rows)
    assert all(r.file == 1 for r in body)


def test_line_program_uses_special_opcodes_for_small_steps():
    # set_address (11 bytes); a row by a special opcode (no advance), the next by one (line +1, address +4);
    # advance_pc to the end; end_sequence
    prog = line_program([(0, 1, 0), (4, 2, 0)], 0, 8)
    assert prog == bytes([0, 9, 2]) + bytes(8) + bytes([13 + 5, 13 + (1 + 5) + 14 * 4, 2, 4, 0, 1, 1])


def test_binary_line_table_matches_the_private_one():
    _asm, binary = _softmax()
    b = read_elf(binary)
    table = decode_line_table(b.sections[".debug_line"])
    assert table.include_directories == [str(SOFTMAX.parent)] and table.file_names == [("softmax.py", 1)]
    assert table.rows[-1].end_sequence and table.rows[-1].address == len(b.text)
    assert [r.address for r in table.rows] == sorted(r.address for r in table.rows)
    for off, line, col in b.lines:
        assert _in_effect(table.rows[:-1], off) == (line, col), off
    assert len(table.rows) - 1 == len(_compress(b.lines)) < len(b.lines)
    # the compile unit names the file and the kernel
    info = b.sections[".debug_info"]
    assert str(SOFTMAX).encode() + b"\0" in info and b"softmax_kernel\0" in info


def test_no_debug_sections_without_lines_or_file():
    prog = assemble("k:\n\taddi a0, a0, 1\n\tret\n")
    b = read_elf(build_elf(prog.code, entry_symbol="k", symbols=prog.symbols, meta={"kernel": "k"},
                           lines=prog.lines))
    assert not any(name.startswith(".debug") for name in b.sections)
    assert ".mtia.lines" in b.sections and b.symbols == {"k": 0}


# -- binutils -------------------------------------------------------------------------------------------------------
def test_addr2line_names_the_kernel_and_its_lines(tmp_path):
    _need(ADDR2LINE)
    _asm, binary = _softmax()
    path = tmp_path / "softmax.bin"
    path.write_bytes(binary)
    b = read_elf(binary)
    picks = b.lines[:: max(1, len(b.lines) // 12)] + [b.lines[-1]]
    r = subprocess.run([ADDR2LINE, "-f", "-e", str(path)] + [hex(off) for off, _l, _c in picks],
                       capture_output=True, text=True)
    assert r.returncode == 0 and not r.stderr, r.stderr
    out = r.stdout.splitlines()
    assert out[0::2] == ["softmax_kernel"] * len(picks)
    assert out[1::2] == [f"{SOFTMAX}:{line}" for _o, line, _c in picks]
    assert len({line for _o, line, _c in picks}) > 3


def test_objdump_interleaves_the_source(tmp_path):
    _need(OBJDUMP)
    _asm, binary = _softmax()
    path = tmp_path / "softmax.bin"
    path.write_bytes(binary)
    r = subprocess.run([OBJDUMP, "-S", "-l", str(path)], capture_output=True, text=True)
    assert r.returncode == 0 and not r.stderr, r.stderr
    source = SOFTMAX.read_text().splitlines()
    lines = {line for _o, line, _c in read_elf(binary).lines}
    for line in lines:
        assert f"{SOFTMAX}:{line}" in r.stdout, line          # -l: the file:line above its instructions
        assert source[line - 1].rstrip() in r.stdout, line    # -S: the line itself
    before, _sep, after = r.stdout.partition("<softmax_kernel>:")
    assert after and source[min(lines) - 1].strip() in after


def test_gnu_as_makes_the_same_line_rows(tmp_path):
    """GNU as turns our `.loc` lines into its own .debug_line: the same (address, line, column) rows (linked at
    address 0, since the object's address advances are relocations)."""
    _need(AS, LD, OBJCOPY)
    asm, binary = _softmax()
    src, obj, exe, dbg = tmp_path / "k.s", tmp_path / "k.o", tmp_path / "k.elf", tmp_path / "k.debug_line"
    src.write_text(gnu_syntax(asm))
    subprocess.run([AS, "-o", str(obj), str(src)], check=True)
    subprocess.run([LD, "--no-relax", "-Ttext=0", "-e", "0", "-o", str(exe), str(obj)], check=True)
    subprocess.run([OBJCOPY, f"--dump-section=.debug_line={dbg}", str(exe), str(tmp_path / "copy.o")], check=True)

    def rows(data):
        by_addr = {}
        for r in decode_line_table(data).rows:
            by_addr[r.address] = (r.line, r.column, r.end_sequence)   # the last row at an address wins
        return sorted(by_addr.items())

    gnu = decode_line_table(dbg.read_bytes())
    assert gnu.file_names[0][0] == os.path.basename(SOFTMAX)
    assert rows(dbg.read_bytes()) == rows(read_elf(binary).sections[".debug_line"])
