"""`mtiacc opt` and the pass-manager flags, in process through mtiacc.cli.main."""
import contextlib
import io

import pytest

from mtiacc.cli import main
from mtiacc.opt import pipeline_for_level
from tests.conftest import EXAMPLES

VECTOR_ADD = str(EXAMPLES / "vector_add.py")


def cli(*args):
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main([str(a) for a in args])
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def ir_file(tmp_path):
    code, out, _ = cli(VECTOR_ADD, "--emit=ir", "-O0", "-D", "BLOCK_SIZE=64")
    assert code == 0
    p = tmp_path / "k.mtir"
    p.write_text(out)
    return p


def test_emit_ir_at_o0_is_the_frontend_output_with_its_access_plan():
    """... and its local-memory plan on the function."""
    from mtiacc.driver import plan_local_memory
    from mtiacc.frontend import compile_file
    from mtiacc.ir.text.printer import print_ir
    from mtiacc.opt.access_plan import AccessPlan
    from mtiacc.target import load_target
    _, out, _ = cli(VECTOR_ADD, "--emit=ir", "-O0", "-D", "BLOCK_SIZE=64")
    module = compile_file(VECTOR_ADD, defines={"BLOCK_SIZE": "64"}).module
    AccessPlan().run(module)
    plan_local_memory(module, load_target())
    assert out == print_ir(module) and out.count('access = "contiguous"') == 3 and "lmem_peak = " in out


def test_opt_round_trips_and_runs_passes(ir_file, tmp_path):
    code, out, err = cli("opt", ir_file)
    assert code == 0 and out == ir_file.read_text(), err
    dest = tmp_path / "o.mtir"
    code, _, err = cli("opt", ir_file, "--passes=canonicalize,cse,loop-unroll{max-trip=16},dce", "-o", dest)
    assert code == 0, err
    assert '"tt.store"' in dest.read_text()


@pytest.mark.parametrize("level", range(4))
def test_access_plan_runs_last_at_every_level(level):
    """access-plan runs after the pipeline's IR passes at every level (--disable-pass cannot remove it), it is
    the last pass --emit=ir runs, and --time-passes / --print-ir-after show it."""
    code, _, err = cli(VECTOR_ADD, "--emit=ir", f"-O{level}", "-D", "BLOCK_SIZE=64", "--disable-pass=access-plan")
    assert code != 0 and "'access-plan' cannot be disabled" in err
    _, out, err = cli(VECTOR_ADD, "--emit=ir", f"-O{level}", "-D", "BLOCK_SIZE=64",
                      "--time-passes", "--print-ir-after=access-plan")
    # -O3 loops over a PE's programs and pipelines that loop: the first loads, then two copies of the body
    assert out.count('access = "contiguous"') == (9 if level == 3 else 3)
    assert "IR Dump After access-plan" in err
    rows = [line for line in err.splitlines() if "%)" in line]
    assert rows[-2].endswith("access-plan") and rows[-1].endswith("Total")


def test_dump_pipeline():
    for level in range(4):
        code, out, _ = cli("--dump-pipeline", f"-O{level}")
        assert code == 0 and out == pipeline_for_level(level, codegen=True) + "\n"
        _, out, _ = cli("opt", "--dump-pipeline", f"-O{level}")   # IR in, IR out: the optimizations only
        assert out == pipeline_for_level(level) + "\n"
    _, out, _ = cli("--dump-pipeline", "-O0")
    assert out == "inline,carry-pointer-offsets,contract-fma,split-dots,band-accumulators,stream-blocks,dot-accumulators,access-plan,legalize-fp8\n"
    _, out, _ = cli("--dump-pipeline", "-O1")
    assert out == ("inline,carry-pointer-offsets,contract-fma,canonicalize,dce,split-dots,band-accumulators,stream-blocks,transposed-loads,pipeline-dots,pipeline-loads,"
                   "issue-dots-early,dce,dot-accumulators,"
                   "access-plan,legalize-fp8,machine-peephole\n")
    _, out, _ = cli("--dump-pipeline", "-O3", "--disable-pass=licm", "--disable-pass=machine-schedule")
    assert "licm" not in out and "machine-schedule" not in out and "sccp" in out
    _, out, _ = cli("opt", "--dump-pipeline", "--passes=cse,loop-unroll{factor=2}")
    assert out == "cse,loop-unroll{factor=2}\n"


def test_required_passes_run_show_and_cannot_be_disabled():
    _, out, _ = cli("--dump-pipeline", "--passes=machine-peephole,cse")   # in the order they run
    assert out == "inline,carry-pointer-offsets,cse,dot-accumulators,access-plan,legalize-fp8,machine-peephole\n"
    _, again, _ = cli("--dump-pipeline", "--passes=" + out.strip())      # the dump can be given back
    assert again == out
    code, _, err = cli(VECTOR_ADD, "-D", "BLOCK_SIZE=64", "--disable-pass=inline")
    assert code == 2 and "--disable-pass: 'inline' cannot be disabled: code generation needs it" in err
    code, _, err = cli("--dump-pipeline", "--passes=cse,legalize-fp8,dce")
    assert code == 2 and "'legalize-fp8' runs in every compile at a fixed place" in err and "Traceback" not in err
    _, out, err = cli(VECTOR_ADD, "--emit=asm", "-O0", "-D", "BLOCK_SIZE=64", "--time-passes",
                      "--print-ir-after=carry-pointer-offsets", "--print-ir-after=legalize-fp8")
    assert "IR Dump After carry-pointer-offsets" in err and "IR Dump After legalize-fp8" in err
    for name in ("inline", "carry-pointer-offsets", "access-plan", "legalize-fp8"):
        assert f"  {name}\n" in err
    _, out, _ = cli("opt", "--dump-pipeline", "--passes=legalize-fp8", "--disable-pass=inline")
    assert out == "legalize-fp8\n"   # mtiacc opt requires nothing


def test_print_ir_before_after_and_change(ir_file):
    _, out, err = cli("opt", ir_file, "--passes=cse,canonicalize,dce", "--print-ir-before=cse", "--print-ir-after=dce")
    assert "// -----// IR Dump Before cse //----- //" in err
    assert "// -----// IR Dump After dce //----- //" in err and "After canonicalize" not in err
    _, _, err = cli("opt", ir_file, "--passes=cse,canonicalize,dce", "--print-ir-after-all")
    assert err.count("IR Dump After") == 3
    sccp_case = EXAMPLES.parent / "tests" / "filecheck" / "sccp.mlir"
    _, _, err = cli("opt", sccp_case, "--passes=cse,sccp,licm", "--print-ir-after-change")
    assert "After sccp" in err and "After cse" not in err   # cse finds nothing to merge there


def test_machine_passes_print_and_disable():
    _, out, err = cli(VECTOR_ADD, "--emit=asm", "-O2", "-D", "BLOCK_SIZE=64", "--print-ir-after=machine-peephole")
    assert "// -----// IR Dump After machine-peephole //----- //" in err and "\tmtia.dma.wait" in err
    _, with_pass, _ = cli(VECTOR_ADD, "--emit=asm", "-O2", "-D", "BLOCK_SIZE=64")
    _, without, _ = cli(VECTOR_ADD, "--emit=asm", "-O2", "-D", "BLOCK_SIZE=64", "--disable-pass=machine-peephole")
    # pid * BLOCK_SIZE (a power of two): a shift with the pass, a multiply without it
    assert "mulw" not in with_pass and "slliw" in with_pass and "mulw" in without


def test_time_passes_table():
    code, _, err = cli(VECTOR_ADD, "--emit=asm", "-O3", "-D", "BLOCK_SIZE=64", "--time-passes")
    assert code == 0 and "Pass execution timing report" in err
    for name in ("sccp", "licm", "machine-schedule", "Total"):
        assert name in err


def test_flag_errors_are_clean(ir_file, tmp_path):
    code, _, err = cli("opt", ir_file, "--passes=frobnicate")
    assert code == 2 and "unknown pass 'frobnicate'" in err and "Traceback" not in err
    code, _, err = cli(VECTOR_ADD, "--disable-pass=nope", "-D", "BLOCK_SIZE=64")
    assert code == 2 and "--disable-pass: unknown pass 'nope'" in err
    code, _, err = cli("opt", tmp_path / "missing.mtir")
    assert code == 3 and "missing.mtir' does not exist" in err


def test_verifier_error_names_the_op_location_and_pass(tmp_path):
    bad = tmp_path / "bad.mtir"
    bad.write_text('"builtin.module"() ({\n  "tt.func"() {sym_name = "k", function_type = () -> (), '
                   'arg_names = []} ({\n    "tt.return"() {operandSegmentSizes = [0]} : () -> ()\n'
                   '    %x = "arith.constant"() {value = 1} : () -> i32\n  }) : () -> ()\n}) : () -> ()\n')
    code, _, err = cli("opt", bad, "--passes=cse")
    assert code == 3 and "bad.mtir:3:5: error: IR verification failed before the pipeline: 'tt.return' op" in err
    assert "^" in err


GELU = str(EXAMPLES / "gelu_silu.py")


def test_fuse_elementwise_flags():
    args = (GELU, "--emit=ir", "-O2", "-D", "BLOCK_SIZE=64", "-D", "ACTIVATION=0")
    _, fused, _ = cli(*args)
    assert fused.count('"tt.fused_elementwise"') == 1 and '"math.erf"(' in fused
    _, plain, _ = cli(*args, "--disable-pass=fuse-elementwise")
    assert '"tt.fused_elementwise"' not in plain and '"math.erf"(' in plain
    _, out, err = cli(*args, "--print-ir-before=fuse-elementwise", "--print-ir-after=fuse-elementwise")
    assert "IR Dump Before" in err and "IR Dump After" in err
    before, after = err.split("IR Dump After")
    assert '"tt.fused_elementwise"' not in before and '"tt.fused_elementwise"' in after
    _, out, _ = cli("--dump-pipeline", "-O2")
    assert "fuse-elementwise" in out
    _, out, _ = cli("--dump-pipeline", "-O1")
    assert "fuse-elementwise" not in out


def test_opt_runs_fuse_elementwise_on_ir_text(tmp_path):
    _, ir, _ = cli(GELU, "--emit=ir", "-O1", "-D", "BLOCK_SIZE=64", "-D", "ACTIVATION=1")
    p = tmp_path / "k.mtir"
    p.write_text(ir)
    code, out, err = cli("opt", p, "--passes=fuse-elementwise,dce")
    assert code == 0, err
    assert out.count('"tt.fused_elementwise"') == 1 and '"math.exp"' in out
