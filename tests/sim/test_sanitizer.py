"""`mtiasim run --sanitize`: integer division by zero (scalar and vector), reads of local memory never written,
races between programs (and none when they cooperate through atomics), nothing on a clean kernel, and the
command line's report and exit code."""
import textwrap

import numpy as np
import pytest

from mtiacc.diagnostics import ExitCode, KernelFault
from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run
from mtiasim.sanitize import SanitizerError
from tests.cli.helpers import clean, mtiasim
from tests.sim.helpers import P, build

DIV = '''
import triton
import triton.language as tl


@triton.jit
def div_kernel(A, B, C, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    a = tl.load(A + offs, mask=m)
    b = tl.load(B + offs, mask=m)
    tl.store(C + offs, a // b, mask=m)
'''

STORE = '''
import triton
import triton.language as tl


@triton.jit
def total_kernel(X, OUT, BLOCK: tl.constexpr):
    x = tl.load(X + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK))
    s = tl.sum(x, axis=0)
    {update}
'''


def _compile(tmp_path, source, name, defines, signature=None):
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(source))
    return compile_kernel(str(path), Options(defines=defines, signature=signature)).binary, str(path)


def _div_inputs(b):
    a = np.arange(1, len(b) + 1, dtype=np.int32) * 7
    return {"A": a, "B": b, "C": np.zeros_like(a), "N": np.array(len(b), np.int32)}


def test_a_clean_kernel_with_a_ragged_tail_has_no_findings(tmp_path):
    binary, _ = _compile(tmp_path, DIV, "div", {"BLOCK": "64"}, "*i32,*i32,*i32,i32")
    b = np.random.default_rng(0).integers(1, 9, 100).astype(np.int32)     # 100: the second block is partial
    r = run(binary, _div_inputs(b), grid=(2,), sanitize=True)
    np.testing.assert_array_equal(r.outputs["C"], _div_inputs(b)["A"] // b)


def test_vector_integer_division_by_a_zero_element(tmp_path):
    binary, path = _compile(tmp_path, DIV, "div", {"BLOCK": "64"}, "*i32,*i32,*i32,i32")
    b = np.ones(100, np.int32)
    b[70] = 0                   # program 1, element 6 of its block
    with pytest.raises(SanitizerError) as e:
        run(binary, _div_inputs(b), grid=(2,), sanitize=True)
    err = e.value
    assert err.exit_code == ExitCode.KERNEL_FAULT
    assert [f.kind for f in err.findings] == ["division by zero"]
    text = err.render()
    assert f"{path}:12:" in text and "tl.store(C + offs, a // b, mask=m)" in text
    assert "division by zero: vdiv" in text and "element 6" in text and "497 by 0" in text    # a = 71 * 7
    assert "in program (1, 0, 0)" in text
    assert err.result.outputs["C"][70] == -1          # RISC-V: x / 0 is all ones, the run went on


SCALAR_DIV = """
kernel:
    ld s0, 0(zero)
    mtia.pid t0, 0
    li t1, 100
    divw t2, t1, t0          # program 0 divides by zero
    sd t2, 64(zero)
    li t3, 64
    li t4, 8
    slli t5, t0, 3
    add s0, s0, t5
    mtia.dma.out s0, t3, t4
    mtia.dma.wait
    ret
"""


def test_scalar_division_by_zero_names_the_program_the_line_and_the_operands():
    binary = build(SCALAR_DIV, params=[P("out", "*i64")], source={7: "    q = 100 // pid"},
                   lines=[(0, 7, 9)])
    with pytest.raises(SanitizerError) as e:
        run(binary, {"out": np.zeros(4, np.int64)}, grid=(4,), sanitize=True)
    text = e.value.render()
    assert text.startswith("kernel.py:7:9: error: division by zero: divw divides 100 by 0 (the result is -1")
    assert "    q = 100 // pid" in text and "in program (0, 0, 0)" in text and "divw" in text
    assert len(e.value.findings) == 1


UNINIT_SCALAR = """
kernel:
    ld s0, 0(zero)
    mtia.pid t5, 0
    slli t6, t5, 3
    add s0, s0, t6           # out[pid]
    ld t0, 1024(zero)        # never written
    sd t0, 64(zero)
    li t3, 64
    li t4, 8
    mtia.dma.out s0, t3, t4
    ret
"""

UNINIT_VECTOR = """
kernel:
    ld s0, 0(zero)
    li t0, 4
    vsetvli t1, t0, e64, m1, ta, ma
    li t2, 4096
    vle64.v v8, (t2)         # four elements never written
    li t3, 8192
    vse64.v v8, (t3)
    li t4, 32
    mtia.dma.out s0, t3, t4  # ... reach DRAM
    mtia.dma.wait
    ret
"""


def test_a_scalar_load_of_local_memory_never_written():
    binary = build(UNINIT_SCALAR, params=[P("out", "*i64")], source={3: "    x = tl.load(p)"},
                   lines=[(0x10, 3, 5), (0x14, 0, 0)])
    with pytest.raises(SanitizerError) as e:
        run(binary, {"out": np.zeros(2, np.int64)}, grid=(2,), sanitize=True)
    (f,) = e.value.findings
    assert f.kind == "uninitialized read" and f.count == 2       # both programs
    text = e.value.render()
    assert text.startswith("kernel.py:3:5: error: uninitialized read: ld of 8 bytes at local address 0x400 "
                           "reads 8 bytes of local memory that the program never wrote\n    x = tl.load(p)\n")


def test_garbage_loaded_into_vectors_is_reported_when_a_dma_writes_it_out():
    binary = build(UNINIT_VECTOR, params=[P("out", "*i64")])
    with pytest.raises(SanitizerError) as e:
        run(binary, {"out": np.zeros(4, np.int64)}, grid=(1,), sanitize=True)
    (f,) = e.value.findings
    assert "mtia.dma.out (a DMA out) at local address 0x2000 reads 32 bytes" in e.value.render()


def test_local_memory_does_not_carry_over_to_the_next_program_on_a_pe():
    # every program but 64 writes local 1024 before reading it; 64 runs next on PE 0, after program 0
    asm = UNINIT_SCALAR.replace("    ld t0, 1024(zero)", "    li t2, 64\n    beq t5, t2, skip\n"
                                "    sd s0, 1024(zero)\nskip:\n    ld t0, 1024(zero)")
    binary = build(asm, params=[P("out", "*i64")])
    run(binary, {"out": np.zeros(64, np.int64)}, grid=(64,), sanitize=True)     # one wave: clean
    with pytest.raises(SanitizerError) as e:
        run(binary, {"out": np.zeros(65, np.int64)}, grid=(65,), sanitize=True)
    (f,) = e.value.findings
    assert f.count == 1 and "in program (64, 0, 0) (linear id 64, PE 0)" in e.value.render()


def test_programs_storing_to_the_same_address_race(tmp_path):
    binary, path = _compile(tmp_path, STORE.format(update="tl.store(OUT, s)"), "total", {"BLOCK": "32"},
                            "*fp32,*fp32")
    x = np.random.default_rng(1).standard_normal(128).astype(np.float32)
    with pytest.raises(SanitizerError) as e:
        run(binary, {"X": x, "OUT": np.zeros(1, np.float32)}, grid=(4,), sanitize=True)
    (f,) = e.value.findings
    text = e.value.render()
    assert f.kind == "data race" and f"{path}:10:" in text
    assert "program (1, 0, 0) (linear id 1, PE 1) writes DRAM 0x" in text
    # both accesses named by the instruction and the kernel's operation that issued it
    assert ("('OUT'[0]) with mtia.dma.out (tl.store), which program (0, 0, 0) (linear id 0, PE 0) wrote with "
            "mtia.dma.out (tl.store), with no atomic or fence between the two") in text
    assert f"wrote it at {path}:10:" in text


def test_the_same_update_with_an_atomic_does_not_race(tmp_path):
    binary, _ = _compile(tmp_path, STORE.format(update="tl.atomic_add(OUT, s)"), "total", {"BLOCK": "32"},
                         "*fp32,*fp32")
    x = np.random.default_rng(1).standard_normal(128).astype(np.float32)
    r = run(binary, {"X": x, "OUT": np.zeros(1, np.float32)}, grid=(4,), sanitize=True)
    np.testing.assert_allclose(r.outputs["OUT"][0], x.sum(), rtol=1e-5)


# program 0 writes DATA[0] with a DMA, then sets the flag; program 1 waits for the flag, then reads DATA[0]
HANDOFF = """
kernel:
    ld s0, 0(zero)           # flag
    ld s1, 8(zero)           # data
    mtia.pid t0, 0
    li t5, 64
    li t6, 8
    bnez t0, reader
    sd t5, 64(zero)
    mtia.dma.out s1, t5, t6
    li t2, 1
    {publish}
    ret
reader:
    {wait}
    mtia.dma.in t5, s1, t6
    mtia.dma.wait
    ret
"""
SPIN = "spin:\n    amoor.w.aq a0, zero, (s0)\n    beqz a0, spin"


def _handoff(publish, wait):
    binary = build(HANDOFF.format(publish=publish, wait=wait), params=[P("flag", "*i32"), P("data", "*i64")])
    return run(binary, {"flag": np.zeros(1, np.int32), "data": np.zeros(1, np.int64)}, grid=(2,), sanitize=True)


def test_a_flag_handoff_through_atomics_is_not_a_race():
    _handoff("amoswap.w.rl zero, t2, (s0)", SPIN)


def test_the_handoff_without_synchronization_is_a_race():
    with pytest.raises(SanitizerError) as e:
        _handoff("sw t2, 72(zero)", "nop")
    assert "program (1, 0, 0) (linear id 1, PE 1) reads DRAM" in e.value.render()
    assert "('data'[0])" in e.value.render()


def test_the_command_line_writes_the_outputs_reports_every_finding_and_exits_4(tmp_path, capsys):
    binary, path = _compile(tmp_path, DIV, "div", {"BLOCK": "64"}, "*i32,*i32,*i32,i32")
    (tmp_path / "k.bin").write_bytes(binary)
    b = np.ones(100, np.int32)
    b[[3, 70]] = 0
    np.savez(tmp_path / "in.npz", **_div_inputs(b))
    out = tmp_path / "out.npz"
    err = clean(mtiasim(capsys, "run", tmp_path / "k.bin", "--inputs", tmp_path / "in.npz", "--grid", "2",
                        "-o", out, "--sanitize"), f"{path}:12:", "division by zero",
                code=ExitCode.KERNEL_FAULT)
    assert "did it 2 times in all (reported once)" in err         # programs 0 and 1, one instruction
    assert err.rstrip().endswith("error: sanitizer: 1 finding: 1 division by zero")
    assert np.load(out)["C"][3] == -1
    code, _out, err = mtiasim(capsys, "run", tmp_path / "k.bin", "--inputs", tmp_path / "in.npz", "--grid", "2",
                              "-o", out)
    assert code == 0 and "division" not in err                   # without --sanitize: RISC-V semantics, silent


# a division by zero makes an index -1: the store runs out of bounds
OOB = '''
import triton
import triton.language as tl


@triton.jit
def oob_kernel(A, B, C, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    q = tl.load(A + offs) // tl.load(B + offs)
    tl.store(C + q, offs)
'''


def _oob_inputs(zero_at=None):
    b = np.ones(16, np.int32)
    if zero_at is not None:
        b[zero_at] = 0
    return {"A": np.arange(16, dtype=np.int32), "B": b, "C": np.zeros(16, np.int32)}


def test_findings_before_a_fault_are_reported_then_the_fault(tmp_path):
    binary, path = _compile(tmp_path, OOB, "oob", {"BLOCK": "16"}, "*i32,*i32,*i32")
    with pytest.raises(SanitizerError) as e:
        run(binary, _oob_inputs(zero_at=5), grid=(1,), sanitize=True)
    err = e.value
    assert err.exit_code == ExitCode.KERNEL_FAULT and err.result is None
    assert [f.kind for f in err.findings] == ["division by zero"]
    assert "out-of-bounds DMA write" in err.fault.message
    text = err.render()
    # the store's DMA is reported at the store (10:5)
    div, oob = text.index(f"{path}:9:9: error: division by zero"), text.index(f"{path}:10:5: error: out-of-bounds")
    assert div < oob and "divides 5 by 0" in text
    assert text.rstrip().endswith("sanitizer: 1 finding: 1 division by zero, found before the run stopped at the "
                                  "fault above")


def test_a_fault_without_findings_is_the_plain_fault(tmp_path):
    binary, _ = _compile(tmp_path, OOB, "oob", {"BLOCK": "16"}, "*i32,*i32,*i32")
    inputs = _oob_inputs()
    inputs["A"][3] = 99             # out of bounds, no division by zero
    with pytest.raises(KernelFault) as e:
        run(binary, inputs, grid=(1,), sanitize=True)
    assert not isinstance(e.value, SanitizerError) and "out-of-bounds DMA write" in e.value.message


def test_the_command_line_prints_the_findings_then_the_fault(tmp_path, capsys):
    binary, path = _compile(tmp_path, OOB, "oob", {"BLOCK": "16"}, "*i32,*i32,*i32")
    (tmp_path / "k.bin").write_bytes(binary)
    np.savez(tmp_path / "in.npz", **_oob_inputs(zero_at=5))
    err = clean(mtiasim(capsys, "run", tmp_path / "k.bin", "--inputs", tmp_path / "in.npz", "--grid", "1",
                        "-o", tmp_path / "out.npz", "--sanitize"), code=ExitCode.KERNEL_FAULT)
    assert err.index("division by zero: vdiv") < err.index("out-of-bounds DMA write")
    code, _out, err = mtiasim(capsys, "run", tmp_path / "k.bin", "--inputs", tmp_path / "in.npz", "--grid", "1",
                              "-o", tmp_path / "out.npz")
    assert code == ExitCode.KERNEL_FAULT and "division" not in err and "out-of-bounds DMA write" in err


# ------------------------------------------------------------------------------------------------------------
# The MLU's transpose moves the bytes' state with the data
def test_a_ragged_transpose_through_the_mlu_is_clean(tmp_path):
    from pathlib import Path
    m, n = 30, 17
    path = Path(__file__).resolve().parents[2] / "examples" / "transpose.py"
    c = compile_kernel(str(path), Options(signature="*fp32,*fp32,i32,i32,i32,i32,i32,i32",
                                          defines={"BLOCK_M": "16", "BLOCK_N": "16"}))
    assert "mtia.mlu.trans" in c.asm_text
    x = np.random.default_rng(5).standard_normal((m, n)).astype(np.float32)
    i32 = np.int32
    r = run(c.binary, {"X": x.ravel(), "Y": np.zeros(m * n, np.float32), "M": i32(m), "N": i32(n),
                       "stride_xm": i32(n), "stride_xn": i32(1), "stride_ym": i32(m), "stride_yn": i32(1)},
            grid=(2, 2), sanitize=True)
    np.testing.assert_array_equal(r.outputs["Y"].reshape(n, m), x.T)


def test_a_transpose_of_a_half_written_block_leaves_its_unwritten_half_unwritten():
    # a 2 x 2 block of 4-byte elements whose first row alone is written: its transpose's second column is not
    asm = """
    kernel:
        ld s0, 0(zero)
        li t0, 4096
        sd zero, 0(t0)
        li t1, 8192
        li t2, 0x20002
        mtia.mlu.trans.e32 t1, t0, t2
        li t3, 16
        mtia.dma.out s0, t1, t3
        mtia.dma.wait
        ret
    """
    with pytest.raises(SanitizerError) as e:
        run(build(asm, params=[P("out", "*i32")]), {"out": np.zeros(4, np.int32)}, grid=(1,), sanitize=True)
    (f,) = e.value.findings
    assert f.message == ("mtia.dma.out (a DMA out) at local address 0x2004 reads 8 bytes of local memory that "
                         "the program never wrote")


# ------------------------------------------------------------------------------------------------------------
# A race names the operations that made both accesses (issue: a report once pointed at `tl.program_id(0)`)
OVERLAP = '''
import triton
import triton.language as tl


@triton.jit
def overlap_kernel(X, Y, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < N)
    tl.store(Y + pid * (BLOCK // 2) + tl.arange(0, BLOCK), x, mask=offs < N)
'''


@pytest.mark.parametrize("level", [0, 3])
def test_a_race_names_the_store_of_each_program_at_every_level(tmp_path, level):
    path = tmp_path / "overlap.py"
    path.write_text(textwrap.dedent(OVERLAP))
    c = compile_kernel(str(path), Options(signature="*fp32,*fp32,i32", defines={"BLOCK": "64"}, opt_level=level))
    with pytest.raises(SanitizerError) as e:
        run(c.binary, {"X": np.ones(250, np.float32), "Y": np.zeros(250, np.float32), "N": np.int32(250)},
            grid=(4,), sanitize=True)
    (f,) = e.value.findings
    lines = e.value.render().splitlines()
    assert lines[0].startswith(f"{path}:11:5: error: data race: program (1, 0, 0) (linear id 1, PE 1) writes "
                               f"DRAM 0x"), lines[0]
    assert lines[0].endswith("with mtia.dma.out (tl.store), which program (0, 0, 0) (linear id 0, PE 0) wrote "
                             "with mtia.dma.out (tl.store), with no atomic or fence between the two"), lines[0]
    assert lines[1:3] == ["    tl.store(Y + pid * (BLOCK // 2) + tl.arange(0, BLOCK), x, mask=offs < N)", "    ^"]
    assert f"wrote it at {path}:11:5: tl.store(" in e.value.render()
