"""The machine passes on hand-written machine code: each peephole rule, and the scheduler's dependences."""
from mtiacc.codegen.machine.mir import Label, LabelDef, Mem, MFunction, MInstr, VMem, format_operand
from mtiacc.codegen.machine.peephole import peephole_function
from mtiacc.codegen.machine.schedule import effects, lmul_of, schedule_block
from mtiacc.target import load_target


def fn_of(*items):
    fn = MFunction("k")
    fn.items = [MInstr(i[0], list(i[1:])) if isinstance(i, tuple) else i for i in items]
    return fn


def text(fn):
    return [f"{it.label.name}:" if isinstance(it, LabelDef) else
            " ".join([it.op] + [format_operand(a) for a in it.args]) for it in fn.items]


def test_self_moves_and_constants_into_immediates():
    fn = fn_of(("li", "a1", 256), ("mv", "a2", "a2"), ("mulw", "a2", "a0", "a1"), ("li", "a3", 12),
               ("add", "a4", "a2", "a3"), ("sub", "a5", "a4", "a3"), ("sw", "a5", Mem("zero", 0)), ("ret",))
    peephole_function(fn)
    assert text(fn) == ["slliw a2 a0 8", "addi a4 a2 12", "addi a5 a4 -12", "sw a5 0(zero)", "ret"]


def test_constant_too_wide_for_an_immediate_stays():
    fn = fn_of(("li", "a3", 4096), ("add", "a4", "a2", "a3"), ("sw", "a4", Mem("zero", 0)), ("ret",))
    peephole_function(fn)
    assert text(fn)[:2] == ["li a3 4096", "add a4 a2 a3"]


def test_live_values_are_not_removed():
    fn = fn_of(("li", "a3", 5), ("add", "a4", "a2", "a3"), ("sw", "a3", Mem("zero", 0)),
               ("sw", "a4", Mem("zero", 8)), ("ret",))
    peephole_function(fn)
    assert text(fn)[0] == "li a3 5"


def test_repeated_vsetvli_goes():
    fn = fn_of(("vsetvli", "a1", "a0", "e32, m8, ta, ma"), ("vle32.v", "v8", VMem("a2")),
               ("vsetvli", "zero", "a1", "e32, m8, ta, ma"), ("vse32.v", "v8", VMem("a3")),
               ("vsetvli", "zero", "a1", "e8, m2, ta, ma"), ("ret",))
    peephole_function(fn)
    assert [t.split()[0] for t in text(fn)].count("vsetvli") == 2


def test_effects_from_the_isa_table():
    e = effects(MInstr("mtia.dma.in", ["a0", "a1", "a2"]))
    assert {"a0", "a1", "a2"} <= e.uses and "a0" not in e.defs and "MEM" in e.defs
    e = effects(MInstr("vfadd.vv", ["v24", "v8", "v16"]))
    assert e.defs == _group("v24") and _group("v8") | _group("v16") | {"VTYPE"} <= e.uses and e.timing == "VFALU"
    assert effects(MInstr("frobnicate", [])).barrier


def test_schedule_fills_the_load_latency_and_keeps_dependences():
    t = load_target()
    block = [MInstr("vle32.v", ["v8", VMem("s10")]), MInstr("vle32.v", ["v16", VMem("s11")]),
             MInstr("vfadd.vv", ["v24", "v8", "v16"]), MInstr("vse32.v", ["v24", VMem("a0")]),
             MInstr("sub", ["s9", "s9", "a1"]), MInstr("slli", ["t0", "a1", 2]),
             MInstr("add", ["s10", "s10", "t0"]), MInstr("bnez", ["s9", Label(".L")])]
    out = [i.op + " " + str(i.args[0]) for i in schedule_block(block, t.latency)]
    assert out[-1] == "bnez s9"
    assert out.index("vfadd.vv v24") > out.index("sub s9")          # independent work fills the gap
    assert out.index("add s10") > out.index("vle32.v v8")            # write after read kept
    assert out.index("vse32.v v24") > out.index("vfadd.vv v24")
    assert sorted(out) == sorted(i.op + " " + str(i.args[0]) for i in block)


# ----------------------------------------------------------------------------------------- the table's view
_REGS = {"x": ("a1", "a2", "a3", "a4"), "f": ("fa1", "fa2", "fa3", "fa4"), "v": ("v8", "v16", "v24", "v24")}
_IMPLICIT = {"load": ({"MEM"}, set()), "store": ({"MEM"}, {"MEM"}), "io": ({"MEM"}, {"MEM"}),
             "dma": ({"MEM"}, {"MEM", "DMA"}), "engine": ({"MEM"}, {"MEM", "ENGINE"}), "vtype": ({"VTYPE"}, set()),
             "setvl": (set(), {"VTYPE"}),
             "atomic": ({"MEM", "DMA", "ENGINE"}, {"MEM", "DMA", "ENGINE"})}   # ordered with every memory effect


def _group(reg: str) -> set:
    """The registers a vector operand stands for where LMUL is not known: its aligned group of eight."""
    if reg[0] == "v" and reg[1:].isdigit():
        r = int(reg[1:]) // 8 * 8
        return {f"v{k}" for k in range(r, r + 8)}
    return {reg}


def _instr_and_expected(row):
    """An instruction with a distinct register in each register operand, and the (defs, uses) the table says."""
    args, defs, uses = [], set(), set()
    for i, (name, kind, access) in enumerate(zip(row.operand_names, row.operands, row.access)):
        if name in ("mem", "smem", "vmem"):
            args.append(Mem("s1", 0) if name != "vmem" else VMem("s1"))
            uses.add("s1")
            continue
        if name in ("vm", "v0"):
            args.append("v0.t" if name == "vm" else "v0")
            reg = "v0"
        elif kind.reg_classes():
            reg = _REGS[next(iter(kind.reg_classes().values()))][i]
            args.append(reg)
        else:
            args.append(Label(".L") if name.endswith("target") else 1)
            continue
        regs = _group(reg)
        if "w" in access:
            defs |= regs
        if "r" in access:
            uses |= regs
    for e in row.effects:
        reads, writes = _IMPLICIT.get(e, (set(), set()))
        uses |= reads
        defs |= writes
    return MInstr(row.name, args), defs, uses


def test_scheduler_effects_are_the_tables_for_every_row_and_pseudo():
    from mtiacc.asm.isa import INSTRUCTIONS
    from mtiacc.asm.pseudo import PSEUDOS
    for row in [*INSTRUCTIONS, *PSEUDOS]:
        ins, defs, uses = _instr_and_expected(row)
        if row.name == "mtia.dma.cfg":   # a DMA engine register: ordered among DMA commands, not memory accesses
            defs, uses = defs - {"MEM"}, uses - {"MEM"}
        e = effects(ins)
        assert (e.defs, e.uses, e.timing, e.barrier) == (defs, uses, row.timing, False), row.name


def test_spills_and_reloads_are_apart_from_memory_traffic():
    """sp-based spills and reloads order among themselves (STACK), not with DMA or engine commands."""
    reload = effects(MInstr("ld", ["t4", Mem("sp", 16)], comment="reload %x3"))
    spill = effects(MInstr("sd", ["t4", Mem("sp", 16)], comment="spill %x3"))
    other = effects(MInstr("ld", ["t4", Mem("s1", 16)]))
    assert "STACK" in reload.uses and "MEM" not in reload.uses
    assert "STACK" in spill.defs and "MEM" not in spill.defs
    assert "MEM" in other.uses


def test_vector_multiply_add_waits_for_its_accumulator():
    e = effects(MInstr("vfmacc.vf", ["v8", "fa0", "v16"]))
    assert e.defs == _group("v8") and _group("v8") | _group("v16") | {"fa0", "VTYPE"} == e.uses


def test_vector_registers_follow_the_lmul_in_effect():
    """After `vsetvli ... m4`, v8 and v12 are two groups (before, groups of eight: one), so independent work at
    LMUL 4 interleaves; a widening op spans twice LMUL; a fractional LMUL, one register."""
    e = effects(MInstr("vfadd.vv", ["v12", "v4", "v28"]), 4)
    assert e.defs == {"v12", "v13", "v14", "v15"} and {"v4", "v7", "v28", "v31"} <= e.uses and "v8" not in e.uses
    assert effects(MInstr("vzext.vf2", ["v8", "v4"]), 4).defs == {f"v{k}" for k in range(8, 16)}
    assert lmul_of(MInstr("vsetvli", ["t0", "a0", "e32, m4, ta, ma"])) == 4
    assert lmul_of(MInstr("vsetvli", ["t0", "a0", "e16, mf2, ta, ma"])) == 1
    t = load_target()
    block = [MInstr("vsetvli", ["t0", "a0", "e32, m4, ta, ma"]),
             MInstr("vmulhu.vx", ["v8", "v4", "s3"]), MInstr("vxor.vx", ["v8", "v8", "t6"]),
             MInstr("vmul.vx", ["v12", "v4", "s3"]), MInstr("vxor.vx", ["v12", "v12", "t5"])]
    out = [str(i.args[0]) + " " + i.op for i in schedule_block(block, t.latency)]
    # the second chain's multiply goes between the first chain's multiply and the xor waiting for it
    assert out.index("v12 vmul.vx") < out.index("v8 vxor.vx"), out
