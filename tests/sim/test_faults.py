"""Faults are user errors with the kernel's source line, the program id, the pc and the instruction."""
import numpy as np
import pytest

from mtiacc.diagnostics import UserError
from mtiasim.runner import run
from tests.sim.helpers import P, build

SOURCE = {3: "def kernel(A_ptr, N):", 7: "    x = tl.load(A_ptr + offs)", 9: "    tl.store(A_ptr + offs, x)"}

DMA_KERNEL = """
kernel:
    .loc 1 7 9
    ld s0, 0(zero)
    mtia.pid t0, 0
    slli t1, t0, 12
    add s0, s0, t1
    li a1, 4096
    li t2, 4096
    mtia.dma.in a1, s0, t2
    .loc 1 9 5
    mtia.dma.wait
    ret
"""


def fault_of(binary, inputs, grid, **kw):
    with pytest.raises(UserError) as e:
        run(binary, inputs, grid=grid, **kw)
    return e.value


def test_out_of_bounds_dma_names_buffer_line_program_and_instruction():
    b = build(DMA_KERNEL, params=[P("A_ptr", "*fp32")], source=SOURCE)
    err = fault_of(b, {"A_ptr": np.zeros(1024, np.float32)}, (3,))   # program 1 reads past 4096 bytes
    text = err.render()
    assert err.message == ("out-of-bounds DMA read of 4096 bytes at DRAM 0x10001000 "
                           "(buffer 'A_ptr' is 0x10000000..0x10001000)")
    assert str(err.loc) == "kernel.py:7:9"
    lines = text.splitlines()
    assert lines[0].startswith("kernel.py:7:9: error: out-of-bounds DMA read")
    assert lines[1] == SOURCE[7] and lines[2] == " " * 8 + "^"      # embedded source, caret at column 9
    assert "note: in program (1, 0, 0)" in text
    assert "mtia.dma.in a1, s0, t2" in text
    assert "out of bounds" in text


def test_out_of_bounds_dma_write_and_gap_addresses():
    k = """
    kernel:
        ld s0, 0(zero)
        li t1, 5000
        add s0, s0, t1
        li a1, 0
        li t2, 16
        mtia.dma.out s0, a1, t2
        ret
    """
    b = build(k, params=[P("A_ptr", "*i32"), P("B_ptr", "*i32")])
    err = fault_of(b, {"A_ptr": np.zeros(1024, np.int32), "B_ptr": np.zeros(4, np.int32)}, (1,))
    assert err.message.startswith("out-of-bounds DMA write of 16 bytes at DRAM 0x10001388")
    assert "buffer 'A_ptr'" in err.message


@pytest.mark.parametrize("body,message", [
    ("li t0, 393216\n    lw a0, 0(t0)", "out-of-bounds load of 4 bytes at local address 0x60000"),
    ("li t0, -8\n    sd a0, 0(t0)", "out-of-bounds store of 8 bytes at local address 0xfffffffffffffff8"),
    ("li t0, 2\n    lw a0, 0(t0)", "misaligned load of 4 bytes at local address 0x2"),
    ("ebreak", "kernel trap"),
    ("li t0, 4096\n    jr t0", "jump outside the program: pc 0x1000"),
    ("li t0, 6\n    jr t0", "misaligned jump target"),
    ("vadd.vv v1, v2, v3", "illegal vtype"),
    ("li t0, 393200\n    vsetvli t1, zero, e32, m1, ta, ma\n    vle32.v v1, (t0)",
     "out-of-bounds vector load of 4 bytes at local address 0x60000"),
    ("li t0, 3\n    vsetvli t1, zero, e16, m1, ta, ma\n    vse16.v v1, (t0)", "misaligned vector store"),
])
def test_local_memory_and_control_faults(body, message):
    b = build(f"kernel:\n    .loc 1 9 5\n    {body}\n    ret\n", source=SOURCE)
    err = fault_of(b, {}, (2,))
    assert message in err.message
    assert str(err.loc) == "kernel.py:9:5"
    assert any(n.startswith("in program (0, 0, 0)") for n in err.notes)
    assert any(n.startswith("at pc 0x") for n in err.notes)


def test_fault_reports_the_right_program_when_only_one_misbehaves():
    k = """
    kernel:
        mtia.pid t0, 0
        mtia.pid t2, 1
        mtia.nprogs t3, 0
        mul t2, t2, t3
        add t0, t0, t2
        li t1, 5
        bne t0, t1, fine
        ebreak
    fine:
        ret
    """
    err = fault_of(build(k), {}, (4, 3))
    assert err.message == "kernel trap (ebreak)"
    assert "in program (1, 1, 0) (linear id 5, PE 5)" in err.notes[0]
    assert "ebreak" in err.notes[1]


def test_illegal_instruction_word():
    from mtiacc.asm.elf import build_elf
    from mtiacc.asm.assembler import assemble
    prog = assemble("kernel:\n    nop\n    .word 0xffffffff\n    ret\n", "t.s")
    b = build_elf(prog.code, entry_symbol="kernel", symbols=prog.symbols,
                  meta={"format_version": 1, "kernel": "kernel", "target": "mtia2i", "params": [], "grid": None}, lines=[])
    err = fault_of(b, {}, (1,))
    assert "illegal instruction 0xffffffff" in err.message
    assert any("at pc 0x4" in n for n in err.notes)


def test_runaway_loop_is_stopped_by_max_steps():
    err = fault_of(build("kernel:\nspin:\n    j spin\n"), {}, (2,), max_steps=1000)
    assert "more than 1000 instruction steps" in err.message and "--max-steps" in err.message


def test_unknown_binary_file():
    with pytest.raises(UserError, match="does not exist"):
        run("/nonexistent/k.bin", {}, grid=(1,))
    from mtiacc.asm.elf import BinaryFormatError
    with pytest.raises(BinaryFormatError):
        run(b"not an elf", {}, grid=(1,))
