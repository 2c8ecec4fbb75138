"""Linear-scan register allocation: interference-free assignment, spills when registers run out."""
from mtiacc.codegen.machine.mir import LabelDef, MBuilder, Mem, MFunction, MInstr
from mtiacc.codegen.machine.regalloc import ALLOCATABLE, SCRATCH, allocate, linear_scan, live_intervals


def straight_line(n_live: int, constants: bool = False) -> MFunction:
    """``n_live`` values live at once, loaded from memory (or constants), then summed."""
    fn = MFunction("k")
    b = MBuilder(fn)
    if constants:
        regs = [b.li(i) for i in range(n_live)]
    else:
        regs = [b.x() for _ in range(n_live)]
        for i, r in enumerate(regs):
            b("ld", r, Mem("zero", 8 * i))
    acc = b.x()
    b("mv", acc, regs[0])
    for r in regs[1:]:
        b("add", acc, acc, r)
    b("ret")
    return fn


def overlapping(a, b) -> bool:
    return not (a.end < b.start or b.end < a.start)


def test_no_two_live_values_share_a_register():
    fn = straight_line(10)
    ivs = list(linear_scan(fn).values())
    for i, a in enumerate(ivs):
        for b in ivs[i + 1:]:
            if a.phys and b.phys and overlapping(a, b):
                assert a.phys != b.phys, (a, b)


def test_spills_when_registers_run_out():
    fn = straight_line(len(ALLOCATABLE["x"]) + 6)
    ivs = linear_scan(fn)
    spilled = [iv for iv in ivs.values() if iv.phys is None]
    assert len(spilled) >= 6
    assert fn.frame_bytes >= 8 * len(spilled) and fn.frame_bytes % 16 == 0
    allocate(fn)
    text = [i.op for i in fn.items if isinstance(i, MInstr)]
    assert "sd" in text and "ld" in text
    for ins in fn.items:
        if isinstance(ins, MInstr) and ins.op in ("ld", "sd") and "spill" in ins.comment + "reload":
            assert ins.args[0] in SCRATCH["x"]


def test_spilled_constants_are_rematerialized():
    """Constants go first, with no stack slot: each use gets its own `li` into a scratch register."""
    fn = straight_line(len(ALLOCATABLE["x"]) + 6, constants=True)
    allocate(fn)
    ops = [i for i in fn.items if isinstance(i, MInstr)]
    assert not any(i.op in ("ld", "sd") for i in ops) and fn.frame_bytes == 0
    remat = [i for i in ops if i.op == "li" and "rematerialize" in (i.comment or "")]
    assert len(remat) >= 6 and all(i.args[0] in SCRATCH["x"] for i in remat)
    assert sorted(i.args[1] for i in ops if i.op == "li") == list(range(len(ALLOCATABLE["x"]) + 6))


def test_loop_carried_value_lives_through_the_loop():
    fn = MFunction("k")
    b = MBuilder(fn)
    n = b.li(10)
    k = b.li(3)          # defined before the loop, used inside it: live across the back edge
    top = b.new_label("loop")
    b.label(top)
    t = b.x()
    b("add", t, n, k)
    b("addi", n, n, -1)
    b("bnez", n, top)
    b("ret")
    ivs = live_intervals(fn)
    branch_pos = [i for i, it in enumerate(x for x in fn.items if isinstance(x, MInstr)) if it.op == "bnez"][0]
    assert ivs[k.id].end >= branch_pos
    assert ivs[n.id].end >= branch_pos
    assert any(isinstance(x, LabelDef) for x in fn.items)


def test_spilled_kernel_computes_the_right_value(tmp_path):
    """The 30-parameter kernel of tests/filecheck/regalloc_spill.py spills; its result must not change."""
    import numpy as np

    from mtiacc.driver import Options, compile_kernel
    from mtiasim.runner import run
    from tests.conftest import ROOT
    src = ROOT / "tests" / "filecheck" / "regalloc_spill.py"
    comp = compile_kernel(str(src), Options(signature="*i32," + ",".join(["i32"] * 30), opt_level=1), "asm")
    assert "# spill" in comp.asm_text
    binary = compile_kernel(str(src), Options(signature="*i32," + ",".join(["i32"] * 30), opt_level=1)).binary
    path = tmp_path / "k.bin"
    path.write_bytes(binary)
    rng = np.random.default_rng(3)
    p = rng.integers(-1000, 1000, 30)
    data = {"Out": np.zeros(1, np.int32), **{f"p{i}": np.array(p[i], np.int32) for i in range(30)}}
    out = run(str(path), data, grid=(1,)).outputs["Out"]
    assert out[0] == sum(int(p[i]) * (i + 3) for i in range(30))


def test_defs_and_uses_are_the_isa_tables_for_every_scalar_row_and_pseudo():
    """A virtual register in a row's first operand is a def exactly when the table says the operand is written
    (stores, branches, mtia.dma.* and mtia.print read it), and a use when it is read; every other virtual register
    is a use (no scalar row writes an operand other than its first)."""
    from mtiacc.asm.isa import INSTRUCTIONS
    from mtiacc.asm.pseudo import PSEUDOS
    from mtiacc.codegen.machine.mir import Mem, VReg
    checked = 0
    for row in [*INSTRUCTIONS, *PSEUDOS]:
        classes = [next(iter(k.reg_classes().values()), None) if n not in ("mem", "smem", "vmem") else "m"
                   for n, k in zip(row.operand_names, row.operands)]
        if not classes or classes[0] not in ("x", "f") or "v" in classes:
            continue
        regs = [VReg(i + 1, c if c != "m" else "x") if c else None for i, c in enumerate(classes)]
        args = [Mem(r, 0) if c == "m" else (r if r is not None else 0) for r, c in zip(regs, classes)]
        ins = MInstr(row.name, args)
        written = "w" in row.access[0]
        assert ins.defs() == ([regs[0]] if written else []), row.name
        assert ins.uses() == [r for i, r in enumerate(regs) if r is not None and (i or "r" in row.access[0])], \
            row.name
        assert all("w" not in a for a in row.access[1:]), row.name
        checked += 1
    assert checked > 100


def test_a_double_store_reads_its_value():
    from mtiacc.codegen.machine.mir import Mem
    fn = MFunction("k")
    b = MBuilder(fn)
    v, base = b.f(), b.x()
    ins = b("fsd", v, Mem(base, 0))
    assert ins.defs() == [] and ins.uses() == [v, base]
