"""Inputs a hostile user tries (issue 16): each is a clear ``error:`` (or works), never an internal error,
and no partial output is left behind."""
import sys

import numpy as np
import pytest

from mtiacc.cli import main as mtiacc_main
from tests.cli.helpers import clean, mtiacc, mtiasim

HEAD = "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
COPY = HEAD + ("def k(X, Y, BLOCK: tl.constexpr):\n"
               "    o = tl.arange(0, BLOCK)\n"
               "    x = tl.load(X + o)\n"
               "    tl.store(Y + o, EXPR)\n")


def kernel(tmp_path, expr="x", text=None, name="k.py"):
    src = tmp_path / name
    src.write_text(text if text is not None else COPY.replace("EXPR", expr), encoding="utf-8")
    return src


def compile_and_run(capsys, tmp_path, src, arrays, level="-O2", grid="1", defines=("BLOCK=16",)):
    binary = tmp_path / "k.bin"
    rc, _, err = mtiacc(capsys, src, "-o", binary, level, *sum((["-D", d] for d in defines), []))
    assert rc == 0, err
    inp = tmp_path / "in.npz"
    np.savez(inp, **arrays)
    out = tmp_path / "out.npz"
    rc, _, err = mtiasim(capsys, "run", binary, "--inputs", inp, "--grid", grid, "-o", out)
    assert rc == 0, err
    with np.load(out) as z:
        return {k: z[k] for k in z.files}


# --- literals and nesting ----------------------------------------------------------------------------

@pytest.mark.parametrize("level", ["-O0", "-O3"])
def test_a_float_literal_beyond_fp32_rounds_to_infinity_as_in_triton(capsys, tmp_path, level):
    """`x * 1e39` was an internal error (struct.pack); Triton types 1e39 as fp64 but the literal does not
    take part in the promotion, so the product is fp32 and 1e39 becomes inf."""
    x = np.array([1, -1, 0, 2] * 4, np.float32)
    got = compile_and_run(capsys, tmp_path, kernel(tmp_path, "x * 1e39"),
                          {"X": x, "Y": np.zeros(16, np.float32)}, level)["Y"]
    with np.errstate(over="ignore", invalid="ignore"):
        np.testing.assert_array_equal(got, x * np.float32(np.inf))


def test_an_integer_literal_beyond_64_bits_is_an_error_at_it(capsys, tmp_path):
    """Triton: "Nonrepresentable integer"; was an internal error."""
    src = kernel(tmp_path, "x + 2**200")
    err = clean(mtiacc(capsys, src, "-D", "BLOCK=16", "-o", tmp_path / "k.bin"), "does not fit in 64 bits")
    assert err.startswith(f"{src}:9:21: error: ")
    assert not (tmp_path / "k.bin").exists()


@pytest.mark.parametrize("limit", [1000, 3000], ids=["parser", "lowering"])
@pytest.mark.parametrize("expr", ["x" + " + x" * 5000, "-" * 5000 + "x"])
def test_an_expression_too_deep_for_pythons_parser(capsys, tmp_path, expr, limit):
    """ast.parse raised RecursionError: an internal error with no location.  With the recursion limit a host
    process may have raised (3,000; Python's default is 1,000, which tests run earlier in the process may have
    raised), the parser takes it and the lowering's stack runs out instead, at a node that depends on the stack:
    the error is at the statement either way."""
    src = kernel(tmp_path, expr)
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(limit)
    try:
        err = clean(mtiacc(capsys, src, "-D", "BLOCK=16", "-o", tmp_path / "k.bin"), "nested too deeply",
                    "for the compiler" if limit > 1000 else "for Python's parser")
    finally:
        sys.setrecursionlimit(old)
    assert err.startswith(f"{src}:9:5: error: ")


# --- outputs -----------------------------------------------------------------------------------------

def test_pointer_parameters_named_like_numpy_savez_arguments(capsys, tmp_path):
    """Writing the outputs with np.savez(f, **arrays) failed: 'file' and 'allow_pickle' are its own
    arguments (an internal error after the whole run)."""
    src = kernel(tmp_path, text=COPY.replace("EXPR", "x").replace("X", "file").replace("Y", "allow_pickle"))
    x = np.arange(16, dtype=np.float32)
    binary = tmp_path / "k.bin"
    assert mtiacc(capsys, src, "-o", binary, "-D", "BLOCK=16")[0] == 0
    inp = tmp_path / "in.npz"
    inp.write_bytes(b"")
    from mtiacc.files import save_npz
    with open(inp, "wb") as f:
        save_npz(f, {"file": x, "allow_pickle": np.zeros(16, np.float32)})
    out = tmp_path / "out.npz"
    rc, _, err = mtiasim(capsys, "run", binary, "--inputs", inp, "--grid", "1", "-o", out)
    assert rc == 0, err
    with np.load(out) as z:
        np.testing.assert_array_equal(z["allow_pickle"], x)
        np.testing.assert_array_equal(z["file"], x)


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_outputs_respect_the_umask(capsys, tmp_path, umask):
    """Outputs were created 0600 (the temporary file's mode) whatever the umask."""
    import os
    old = os.umask(umask)
    try:
        src = kernel(tmp_path)
        assert mtiacc(capsys, src, "-o", tmp_path / "k.bin", "-D", "BLOCK=16")[0] == 0
        assert mtiacc(capsys, src, "--emit=asm", "-o", tmp_path / "k.s", "-D", "BLOCK=16")[0] == 0
        inp = tmp_path / "in.npz"
        np.savez(inp, X=np.zeros(16, np.float32), Y=np.zeros(16, np.float32))
        assert mtiasim(capsys, "run", tmp_path / "k.bin", "--inputs", inp, "--grid", "1",
                       "-o", tmp_path / "o.npz")[0] == 0
    finally:
        os.umask(old)
    for name in ("k.bin", "k.s", "o.npz"):
        assert (tmp_path / name).stat().st_mode & 0o777 == 0o666 & ~umask, name


# --- launch grids ------------------------------------------------------------------------------------

VECTOR_ADD = kernel.__globals__["__file__"].rsplit("/tests/", 1)[0] + "/examples/vector_add.py"


@pytest.mark.parametrize("stored, flag", [("N*N*N*N*N", None), (None, "99999999999999999999999"),
                                          (None, "1,4294967296")])
def test_a_grid_beyond_int32_programs(capsys, tmp_path, stored, flag):
    """A grid expression whose value overflows 64 bits was an internal error."""
    binary = tmp_path / "add.bin"
    grid = ["--grid", stored] if stored else []
    assert mtiacc(capsys, VECTOR_ADD, "-D", "BLOCK_SIZE=256", "-o", binary, *grid)[0] == 0
    a = np.arange(1024, dtype=np.float32)
    inp = tmp_path / "in.npz"
    np.savez(inp, A_ptr=a, B_ptr=a, C_ptr=a, N=np.array(2**31 - 1, np.int32))
    out = tmp_path / "o.npz"
    err = clean(mtiasim(capsys, "run", binary, "--inputs", inp, "-o", out, *(["--grid", flag] if flag else [])),
                "programs; at most 2147483647")
    assert err.startswith("error: ") and not out.exists()


# --- machine descriptions ----------------------------------------------------------------------------

MACHINE = kernel.__globals__["__file__"].rsplit("/tests/", 1)[0] + "/mtiacc/machine/mtia2i.yaml"


@pytest.mark.parametrize("text, fragments", [
    ("hello world\n", ["t.yaml:1:1: error: machine description: the file is not a YAML mapping"]),
    ('"""doc\n', ["t.yaml:", "not valid YAML"]),
    ("pe: 3\n", ["t.yaml:1:5: error: machine description: 'pe' must be a mapping (of local_memory_bw_bytes_per_s, "
                "local_memory_bytes, stack_bytes, vector), got '3'"]),
    ("MACHINE:local_memory_bytes: -4096", ["'pe.local_memory_bytes' must be a positive integer, a multiple of 8 "
                                           "(bytes), got -4096"]),
    ("MACHINE:local_memory_bytes: lots", ["'pe.local_memory_bytes' must be a positive integer, a multiple of 8 "
                                          "(bytes), got 'lots'"]),
    ("MACHINE:stack_bytes: 999999999", ["the stack (999999999 bytes, 'pe.stack_bytes') does not fit"]),
])
def test_target_files_that_are_not_a_target(capsys, tmp_path, text, fragments):
    target = tmp_path / "t.yaml"
    if text.startswith("MACHINE:"):
        key, value = text[len("MACHINE:"):].split(": ")
        lines = [f"  {key}: {value}" if line.startswith(f"  {key}:") else line
                 for line in open(MACHINE).read().splitlines()]
        text = "\n".join(lines) + "\n"
    target.write_text(text)
    out = tmp_path / "k.bin"
    err = clean(mtiacc(capsys, kernel(tmp_path), "-D", "BLOCK=16", "--target", target, "-o", out), *fragments)
    assert "error: " in err.splitlines()[0] and not out.exists()


# --- binaries whose metadata does not fit its schema ----------------------------------------------------

@pytest.fixture(scope="module")
def add_bin(tmp_path_factory):
    out = tmp_path_factory.mktemp("bin") / "add.bin"
    try:
        mtiacc_main([VECTOR_ADD, "-o", str(out), "-D", "BLOCK_SIZE=256"])
    except SystemExit as e:
        assert not e.code
    return out


def with_meta(path, tmp_path, change):
    from mtiacc.asm.elf import build_elf, read_elf
    b = read_elf(path.read_bytes(), str(path))
    meta = dict(b.meta)
    change(meta)
    out = tmp_path / "bad.bin"
    out.write_bytes(build_elf(b.text, entry_symbol=b.kernel, symbols=b.symbols, meta=meta, lines=b.lines))
    return out


def add_inputs(tmp_path):
    a = np.arange(1024, dtype=np.float32)
    path = tmp_path / "in.npz"
    np.savez(path, A_ptr=a, B_ptr=a, C_ptr=a, N=np.array(1024, np.int32))
    return path


def _set(key, value):
    return lambda m: m.__setitem__(key, value)


def _param(i, key, value):
    return lambda m: m["params"][i].__setitem__(key, value)


@pytest.mark.parametrize("change, fragments", [
    (_set("args_base", "zero"), ["'args_base' must be a non-negative integer below 2**40", "got 'zero'"]),
    (_set("args_base", 1.5), ["'args_base' must be a non-negative integer"]),
    (_set("lmem_bytes", -4096), ["'lmem_bytes' must be a non-negative integer below 2**40", "got -4096"]),
    (_set("lmem_bytes", 2**70), ["'lmem_bytes' must be a non-negative integer below 2**40"]),
    (lambda m: m.pop("params"), ["metadata field 'params' is missing"]),
    (lambda m: m.pop("kernel"), ["metadata field 'kernel' is missing"]),
    (_set("kernel", ""), ["'kernel' must be a string"]),
    (_param(0, "extra", 1), ["'params[0].extra' must be absent"]),
    (_param(0, "name", "A ptr"), ["'params[0].name' must be a parameter name"]),
    (_set("constexprs", {"not a name": 1}), ["metadata field 'constexprs key 'not a name''"]),
    (_set("grid", []), ["'grid' must be null or a list of 1 to 3 expressions"]),
    (_set("grid", ["1", "1", "1", "1"]), ["'grid' must be null or a list of 1 to 3 expressions"]),
    (_set("grid", [-4]), ["'grid' must be null or a list of 1 to 3 expressions"]),
    (_set("source", {"x1": "a"}), ["'source key 'x1'' must be a line number"]),
    (_set("source_file", 3), ["'source_file' must be a string"]),
    (_set("strings", [{"kind": "print", "args": [{"type": "fp32", "shape": [-1]}]}]),
     ["'strings[0].args[0].shape[0]' must be a size"]),
    (_set("strings", [{"kind": "assert", "shape": [1 << 20, 1 << 20]}]),
     ["'strings[0].shape' must be a shape of at most 2**31-1 elements"]),
    (_set("strings", [{"kind": "exit"}]), ["'strings[0]' must be a device_print or device_assert entry"]),
    (_set("tuning", [1]), ["'tuning' must be an object"]),
    (_param(0, "name", 7), ["'params[0].name' must be a parameter name", "got 7"]),
    (_param(1, "type", None), ["'params[1].type' must be a type"]),
    (_param(1, "name", "A_ptr"), ["names parameter 'A_ptr' twice"]),
    (_set("params", {"A_ptr": "*fp32"}), ["'params' must be a list"]),
    (_set("grid", "cdiv(N, 256)"), ["'grid' must be null or a list"]),
    (_set("source", ["x"]), ["'source' must be an object"]),
    (_set("kernel", ["add"]), ["'kernel' must be a string"]),
    (_set("target", "mtia3"), ["compiled for target 'mtia3'; the machine is 'mtia2i'"]),
    (lambda m: m.pop("target"), ["metadata field 'target' is missing"]),
])
def test_binary_metadata_that_does_not_fit_its_schema(capsys, add_bin, tmp_path, change, fragments):
    """Wrong JSON types were internal errors; a negative local-memory size, duplicate parameter names and
    another target's binary were accepted."""
    binary = with_meta(add_bin, tmp_path, change)
    out = tmp_path / "o.npz"
    err = clean(mtiasim(capsys, "run", binary, "--inputs", add_inputs(tmp_path), "--grid", "4", "-o", out),
                *fragments)
    assert err.startswith(f"error: binary '{binary}'") and not out.exists()


def test_a_big_endian_input_array_is_read_by_value(capsys, add_bin, tmp_path):
    """A '>f4' array passed the dtype check and its bytes were used as they are (each value read backwards)."""
    a = np.arange(1024, dtype=">f4")
    inp = tmp_path / "in.npz"
    np.savez(inp, A_ptr=a, B_ptr=a, C_ptr=np.zeros(1024, ">f4"), N=np.array(1024, ">i4"))
    out = tmp_path / "o.npz"
    rc, _, err = mtiasim(capsys, "run", add_bin, "--inputs", inp, "--grid", "4", "-o", out)
    assert rc == 0, err
    with np.load(out) as z:
        np.testing.assert_array_equal(z["C_ptr"], 2 * np.arange(1024, dtype=np.float32))


# --- code generation limits --------------------------------------------------------------------------

def test_a_spill_area_beyond_addi_immediates(capsys, tmp_path):
    """80 pointers live across a sum of their blocks need a 2 KiB+ spill area: `addi sp, sp, -2144` and
    spill slots past 2047(sp) were assembler range errors (a code generation bug shown as an assembler
    error).  The pointers are computed (`P + Z`, Z = 0), so that they take slots: a spilled parameter is
    loaded from the argument block again instead."""
    n = 80
    text = HEAD + (f"def k(Z, {', '.join(f'P{i}' for i in range(n))}, BLOCK: tl.constexpr):\n"
                   "    o = tl.arange(0, BLOCK)\n"
                   + "".join(f"    q{i} = P{i} + Z\n    x{i} = tl.load(q{i} + o)\n" for i in range(n))
                   + f"    s = {' + '.join(f'x{i}' for i in range(n))}\n"
                   + "".join(f"    tl.store(q{i} + o, x{i} + s)\n" for i in range(n)))
    rc, asm, err = mtiacc(capsys, kernel(tmp_path, text=text), "-D", "BLOCK=16", "--emit=asm")
    assert rc == 0, err
    assert "sp, sp, -2048" in asm and "2047(sp)" in asm   # the frame and the far slots, in steps
    rng = np.random.default_rng(0)
    xs = {f"P{i}": rng.integers(-8, 8, 16).astype(np.float32) for i in range(n)}
    got = compile_and_run(capsys, tmp_path, tmp_path / "k.py", {**xs, "Z": np.array(0, np.int32)})
    total = sum(xs.values())
    for name, x in xs.items():
        np.testing.assert_array_equal(got[name], x + total, err_msg=name)


def test_a_kernel_with_a_non_ascii_name(capsys, tmp_path):
    """`def kérnel` is legal Python; the assembler said "unexpected character 'é'" (GNU as takes such
    names as they are, UTF-8 bytes in the symbol table)."""
    src = kernel(tmp_path, text=COPY.replace("def k(", "def kérnel(").replace("EXPR", "x * 2"))
    x = np.arange(16, dtype=np.float32)
    got = compile_and_run(capsys, tmp_path, src, {"X": x, "Y": np.zeros(16, np.float32)})
    np.testing.assert_array_equal(got["Y"], 2 * x)
    rc, out, err = mtiacc(capsys, "disasm", tmp_path / "k.bin")
    assert rc == 0 and "kernel kérnel" in out and "kérnel:" in out, err


# --- manners -----------------------------------------------------------------------------------------

def _python_m(module, *args, stdin=None):
    import os
    import subprocess
    import sys
    from tests.conftest import ROOT
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("MTIA_DEBUG", None)
    return subprocess.run([sys.executable, "-m", module, *map(str, args)], input=stdin, capture_output=True,
                          env=env, timeout=600)


@pytest.mark.parametrize("module", ["mtiacc", "mtiasim"])
def test_python_m_and_version(module):
    """`python -m mtiacc` did not exist; neither tool had --version."""
    proc = _python_m(module, "--version")
    assert proc.returncode == 0 and proc.stdout.decode().startswith(f"{module} "), proc.stderr
    proc = _python_m(module, "--help")
    assert proc.returncode == 0 and b"Usage:" in proc.stdout


def test_mtiacc_help_lists_its_subcommands():
    proc = _python_m("mtiacc", "--help")
    assert b"mtiacc opt" in proc.stdout and b"mtiacc disasm" in proc.stdout


def test_dash_is_standard_output_and_input(tmp_path):
    """`-o -` created a file named '-'; `--inputs -` and `mtiacc opt -` / `disasm -` read a file named '-'."""
    src = kernel(tmp_path, "x + 1.0")
    binary = _python_m("mtiacc", src, "-D", "BLOCK=16", "-o", "-")
    assert binary.returncode == 0 and binary.stdout.startswith(b"\x7fELF"), binary.stderr
    asm = _python_m("mtiacc", src, "-D", "BLOCK=16", "--emit=asm", "-o", "-")
    assert asm.returncode == 0 and b"mtia.dma" in asm.stdout
    ir = _python_m("mtiacc", src, "-D", "BLOCK=16", "--emit=ir", "-O0", "-o", "-")
    opt = _python_m("mtiacc", "opt", "-", "--passes=cse", "-o", "-", stdin=ir.stdout)
    assert opt.returncode == 0 and b"tt.store" in opt.stdout, opt.stderr
    dis = _python_m("mtiacc", "disasm", "-", stdin=binary.stdout)
    assert dis.returncode == 0 and b"kernel k" in dis.stdout, dis.stderr
    assert not (tmp_path / "-").exists() and not list(tmp_path.glob("-*"))
    (tmp_path / "k.bin").write_bytes(binary.stdout)
    import io
    buf = io.BytesIO()
    np.savez(buf, X=np.arange(16, dtype=np.float32), Y=np.zeros(16, np.float32))
    run = _python_m("mtiasim", "run", tmp_path / "k.bin", "--inputs", "-", "--grid", "1", "-o", "-", "--stats",
                    stdin=buf.getvalue())
    assert run.returncode == 0, run.stderr
    with np.load(io.BytesIO(run.stdout)) as z:   # stdout holds the archive alone; the statistics went to stderr
        np.testing.assert_array_equal(z["Y"], np.arange(16, dtype=np.float32) + 1)
    assert b"simulated cycles" in run.stderr
    bad = _python_m("mtiasim", "run", tmp_path / "k.bin", "--inputs", "-", "--grid", "1", stdin=b"junk")
    assert bad.returncode == 3 and b"standard input" in bad.stderr and b"Traceback" not in bad.stderr


def test_an_inputs_archive_bigger_than_the_limit_uncompressed_is_refused_before_it_is_read(tmp_path):
    from mtiacc.diagnostics import UserError
    from mtiasim.cli import MAX_INPUT_BYTES, load_inputs
    path = tmp_path / "big.npz"
    np.savez_compressed(path, x=np.zeros(4096, np.int32))       # 16 KB of zeros, a few hundred bytes on disk
    with pytest.raises(UserError) as e:
        load_inputs(str(path), limit=10_000)
    assert e.value.message.startswith(f"inputs file '{path}' holds 16,")
    assert e.value.message.endswith("more than the limit of 10,000 (--max-input-bytes)")
    assert load_inputs(str(path))["x"].shape == (4096,) and MAX_INPUT_BYTES == 512 << 20
