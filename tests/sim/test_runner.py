"""The runner API: parameters, scalars, grids, waves, dispatch coverage, layering."""
import ast
from pathlib import Path

import numpy as np
import pytest

from mtiacc.diagnostics import UserError
from mtiacc.asm.gridexpr import evaluate, parse_grid_option
from mtiasim.runner import run
from tests.sim.helpers import P, build

ROOT = Path(__file__).resolve().parents[2]

# out[linear] = pid_x + 100*pid_y + 10000*pid_z + 1e6 * (nprogs_x + 10*nprogs_y + 100*nprogs_z) + scalar
IDS = """
kernel:
    mtia.pid t0, 0
    mtia.pid t1, 1
    mtia.pid t2, 2
    mtia.nprogs t3, 0
    mtia.nprogs t4, 1
    mtia.nprogs t5, 2
    li a0, 100
    mul t1, t1, a0
    li a0, 10000
    mul t2, t2, a0
    add a1, t0, t1
    add a1, a1, t2
    li a0, 10
    mul a2, t4, a0
    li a0, 100
    mul a3, t5, a0
    add a2, a2, a3
    add a2, a2, t3
    li a0, 1000000
    mul a2, a2, a0
    add a1, a1, a2
    ld a4, 8(zero)
    add a1, a1, a4
    mtia.pid t0, 0
    mtia.pid t1, 1
    mtia.pid t2, 2
    mul t1, t1, t3
    mul t2, t2, t3
    mul t2, t2, t4
    add t0, t0, t1
    add t0, t0, t2
    slli t0, t0, 3
    ld s0, 0(zero)
    add s0, s0, t0
    sd a1, 64(zero)
    li t1, 64
    li t2, 8
    mtia.dma.out s0, t1, t2
    ret
"""


def ids_expected(gx, gy, gz, scalar):
    out = []
    for z in range(gz):
        for y in range(gy):
            for x in range(gx):
                out.append(x + 100 * y + 10000 * z + 1000000 * (gx + 10 * gy + 100 * gz) + scalar)
    return out


@pytest.mark.parametrize("grid", [(1,), (70,), (3, 5), (2, 3, 11), (64,), (65,)])
def test_pid_nprogs_and_waves(grid):
    b = build(IDS, params=[P("out", "*i64"), P("k", "i64")])
    g = tuple(list(grid) + [1] * (3 - len(grid)))
    n = g[0] * g[1] * g[2]
    r = run(b, {"out": np.zeros(n, np.int64), "k": np.array(7, np.int64)}, grid=grid)
    assert [int(v) for v in r.outputs["out"]] == ids_expected(*g, 7)
    assert r.stats.programs == n and r.stats.waves == -(-n // 64)
    assert r.stats.by_unit["custom"] == 9 * n and r.stats.by_unit["dma"] == n
    assert r.stats.instructions == sum(r.stats.by_unit.values()) == 41 * n  # li 1000000 is two instructions


def test_grid_from_metadata_and_arg_override():
    b = build(IDS, params=[P("out", "*i64"), P("k", "i64")], grid=["cdiv(k, 4)", "min(k, 2)", "1"],
              constexprs={"BLOCK": 4})
    r = run(b, {"out": np.zeros(100, np.int64), "k": np.array(7, np.int64)})
    assert r.stats.grid == (2, 2, 1)
    r = run(b, {"out": np.zeros(100, np.int64), "k": np.array(7, np.int64)}, args={"k": "13"})
    assert r.stats.grid == (4, 2, 1)
    assert int(r.outputs["out"][0]) == 1000000 * (4 + 20 + 100) + 13


def test_no_grid_anywhere_says_pass_grid():
    b = build(IDS, params=[P("out", "*i64"), P("k", "i64")])
    with pytest.raises(UserError, match="--grid"):
        run(b, {"out": np.zeros(1, np.int64), "k": np.array(1, np.int64)})


def test_input_errors():
    b = build(IDS, params=[P("out", "*i64"), P("k", "i64")])
    with pytest.raises(UserError) as e:
        run(b, {"k": np.array(1, np.int64), "other": np.zeros(2)}, grid=(1,))
    assert "'out'" in e.value.message and "'k', 'other'" in e.value.message
    with pytest.raises(UserError) as e:
        run(b, {"out": np.zeros(4, np.float64), "k": np.array(1, np.int64)}, grid=(1,))
    assert "'out'" in e.value.message and "int64" in e.value.message and "float64" in e.value.message
    with pytest.raises(UserError, match="scalar parameter 'k'.*--arg k=VALUE"):
        run(b, {"out": np.zeros(4, np.int64)}, grid=(1,))
    with pytest.raises(UserError, match="not an integer"):
        run(b, {"out": np.zeros(4, np.int64)}, grid=(1,), args={"k": "abc"})
    with pytest.raises(UserError, match="no parameter 'q'"):
        run(b, {"out": np.zeros(4, np.int64)}, grid=(1,), args={"k": "1", "q": "2"})
    b32 = build(IDS, params=[P("out", "*i64"), P("k", "i32")])
    with pytest.raises(UserError, match="does not fit"):
        run(b32, {"out": np.zeros(4, np.int64)}, grid=(1,), args={"k": str(2 ** 31)})


def test_scalar_slots_follow_the_abi():
    """ints sign-extended to 64 bits; fp32 as its bits in the low half; pointers as DRAM addresses."""
    k = """
    kernel:
        ld s0, 0(zero)
        li t1, 8
        li t2, 32
        mtia.dma.out s0, t1, t2
        ret
    """
    b = build(k, params=[P("out", "*i64"), P("a", "i32"), P("f", "fp32"), P("p", "*u8"), P("u", "u32")])
    r = run(b, {"out": np.zeros(4, np.int64), "a": np.array(-5, np.int32), "f": np.array(1.5, np.float32),
                "p": np.zeros(3, np.uint8), "u": np.array(0xFFFFFFFF, np.uint32)}, grid=(1,))
    out = [int(v) for v in r.outputs["out"]]
    assert out[0] == -5
    assert out[1] == int(np.float32(1.5).view(np.uint32))
    assert out[2] % 64 == 0 and out[2] > 0x10000000
    assert out[3] == 0xFFFFFFFF


def test_pointer_dtypes_bool_bf16_and_shapes_round_trip():
    k = "kernel:\n    ret\n"
    b = build(k, params=[P("m", "*i1"), P("h", "*bf16"), P("x", "*fp16")])
    m = np.array([[True, False], [False, True]])
    h = np.arange(6, dtype=np.uint16).reshape(2, 3)
    r = run(b, {"m": m, "h": h, "x": np.ones((2, 2, 2), np.float16)}, grid=(1,))
    assert r.outputs["m"].dtype == np.bool_ and (r.outputs["m"] == m).all()
    assert r.outputs["h"].shape == (2, 3) and r.outputs["x"].dtype == np.float16
    with pytest.raises(UserError, match="bf16.*uint16"):
        run(b, {"m": m, "h": h.astype(np.float32), "x": np.ones(2, np.float16)}, grid=(1,))


def test_grid_expression_evaluator_is_safe():
    env = {"N": 1000, "B": 256}
    assert evaluate("cdiv(N, B)", env) == 4
    assert evaluate("triton.cdiv(N, B) * 2 - 1", env) == 7
    assert evaluate("max(1, min(N // B, 3)) + N % 7", env) == 3 + 1000 % 7
    assert evaluate("N / B", env) == 3 and evaluate("-N / B", env) == -3     # C's division: toward zero
    for bad in ("__import__('os')", "N.bit_length()", "[1][0]", "N if N else B", "lambda: 1", "N ** B"):
        with pytest.raises(UserError):
            evaluate(bad, env)
    with pytest.raises(UserError, match="'M'"):
        evaluate("cdiv(M, B)", env)
    assert parse_grid_option("4") == (4, 1, 1)
    assert parse_grid_option("2,3") == (2, 3, 1)
    for bad in ("", "a", "1,2,3,4", "0", "1,,2"):
        with pytest.raises(UserError):
            parse_grid_option(bad)


def test_every_isa_row_has_an_implementation():
    """The dispatch table is derived from the ISA table: every family and op of every row is implemented."""
    from mtiacc.asm.encoding import decode, encode
    from mtiacc.asm.isa import INSTRUCTIONS, SEM_FAMILIES
    from mtiasim.semantics import FAMILIES, OPS, build_executor
    from mtiacc.machine.simulator import load_config
    from mtiasim.loader import Program
    from mtiasim.machine import Machine
    from mtiasim.memory import Dram
    from mtiasim.timing import TimingModel

    for fam, ops in SEM_FAMILIES.items():
        assert fam in FAMILIES, fam
        if OPS.get(fam) is not None:
            assert set(ops) <= set(OPS[fam]), (fam, set(ops) - set(OPS[fam]))
    cfg = load_config()
    words = []
    for spec in INSTRUCTIONS:
        vals = {a: 0 for a in spec.attrs}
        if "vtypei" in vals:
            vals["vtypei"] = 0b010000
        if "rm" in vals:
            vals["rm"] = 7
        if "vm" in vals:
            vals["vm"] = 1
        words.append(encode(spec, **vals))
    text = b"".join(w.to_bytes(4, "little") for w in words)
    decoded = [decode(w) for w in words]
    prog = Program(text, decoded, [None] * len(decoded), 0, [], {"params": []})
    import warnings
    warnings.simplefilter("ignore", RuntimeWarning)
    m = Machine(cfg, prog, 2, np.zeros((2, cfg.local_memory_bytes), np.uint8), Dram(0x10000000, 64, 1 << 20),
                TimingModel(cfg), 10)
    from mtiasim.faults import SimFault
    for k, d in enumerate(decoded):
        ex = build_executor(m, d, 4 * k)
        try:   # a faulting stub built for an unimplemented row says so
            ex(slice(None))
        except SimFault as f:
            assert "not implemented" not in f.message, d.spec.name
        except Exception as e:  # noqa: BLE001
            raise AssertionError(f"{d.spec.name}: {e!r}")


def test_every_timing_class_is_in_the_machine_description():
    from mtiacc.asm.isa import INSTRUCTIONS
    from mtiacc.machine.simulator import load_config
    cfg = load_config()
    assert {s.timing for s in INSTRUCTIONS} <= set(cfg.timing)


def test_mtiasim_imports_only_the_assembler_machine_diagnostics_and_files():
    bad = []
    for path in sorted((ROOT / "mtiasim").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for n in names:
                if n.split(".")[0] == "mtiacc" and not (n in ("mtiacc.diagnostics", "mtiacc.files")
                                                        or n.split(".")[:2] in (["mtiacc", "asm"], ["mtiacc", "machine"])):
                    bad.append(f"{path.name}:{node.lineno}: {n}")
    assert not bad, bad
