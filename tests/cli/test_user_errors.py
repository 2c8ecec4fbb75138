"""The tools' error paths as a user hits them: a wrong npz, a bad binary, garbage flags, files that are
not Python.  Each mistake is one message (``file:line:col: error: ...`` where there is a source, else
``error: ...``), a non-zero exit, no traceback, and no output file left behind (an old one untouched)."""
import numpy as np
import pytest

from mtiacc.cli import main as mtiacc_main
from tests.conftest import EXAMPLES
from tests.cli.helpers import clean, mtiacc, mtiasim

VECTOR_ADD = EXAMPLES / "vector_add.py"
N = 1024


@pytest.fixture(scope="module")
def add_bin(tmp_path_factory):
    d = tmp_path_factory.mktemp("bin")
    out = d / "add.bin"
    code = 0
    try:
        mtiacc_main([str(VECTOR_ADD), "-o", str(out), "-D", "BLOCK_SIZE=256"])
    except SystemExit as e:
        code = e.code
    assert code in (0, None) and out.exists()
    return out


def inputs(path, **over):
    a = np.arange(1, N + 1, dtype=np.float32)
    data = {"A_ptr": a, "B_ptr": a[::-1].copy(), "C_ptr": np.zeros(N, np.float32), "N": np.array(N, np.int32)}
    data.update(over)
    np.savez(path, **{k: v for k, v in data.items() if v is not None})
    return path


# --- mtiasim run: inputs --------------------------------------------------------------------------

@pytest.mark.parametrize("over, fragments", [
    ({"B_ptr": None}, ["'B_ptr'"]),
    ({"A_ptr": np.zeros(N, np.float16)}, ["'A_ptr'", "float32", "float16"]),
    ({"N": np.array(3.5)}, ["'N'", "i32", "float64"]),
    ({"N": np.array([N, 2], np.int32)}, ["'N'", "0-d", "(2,)"]),
    ({"A_ptr": np.zeros(10, np.float32)}, ["out of bounds", "'A_ptr'", "smaller than the kernel expects"]),
    ({"A_ptr": np.array(["x"] * 4, dtype=object)}, ["array 'A_ptr' holds Python objects (dtype object)"]),
])
def test_wrong_npz_contents(capsys, add_bin, tmp_path, over, fragments):
    out = tmp_path / "o.npz"
    clean(mtiasim(capsys, "run", add_bin, "--inputs", inputs(tmp_path / "i.npz", **over), "--grid", "4",
                  "-o", out), *fragments, code=4 if "out of bounds" in fragments else 3)
    assert not out.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".mtia-")]


def test_an_input_matching_no_parameter_is_a_warning(capsys, add_bin, tmp_path):
    """A misspelt key ('C_pr') is named on stderr; the run goes on and the output is written."""
    out = tmp_path / "o.npz"
    rc, stdout, err = mtiasim(capsys, "run", add_bin, "--inputs", inputs(tmp_path / "i.npz", C_pr=np.zeros(3)),
                              "--grid", "4", "-o", out)
    assert rc == 0 and out.exists() and "Traceback" not in err
    assert f"i.npz: warning: 'C_pr' matches no parameter of the kernel (parameters: A_ptr, B_ptr, C_ptr, N)" in err
    rc, _, err = mtiasim(capsys, "run", add_bin, "--inputs", inputs(tmp_path / "j.npz"), "--grid", "4", "-o", out)
    assert rc == 0 and "warning" not in err


@pytest.mark.parametrize("content, fragments", [
    ("npy", ["a single .npy array", "np.savez"]),          # was an internal error (np.load gave an ndarray)
    (b"hello\n", ["not a readable .npz", "np.savez"]),    # was a message about pickled data
    (b"", ["not a readable .npz"]),
    ("truncated", ["not a readable .npz"]),
    ("dir", ["is a directory"]),
    ("missing", ["does not exist"]),
])
@pytest.mark.parametrize("command", ["run", "profile"])
def test_inputs_that_are_not_an_npz(capsys, add_bin, tmp_path, content, fragments, command):
    path = tmp_path / "in.npz"
    if content == "npy":
        path = tmp_path / "in.npy"
        np.save(path, np.zeros(4, np.float32))
    elif content == "truncated":
        inputs(path)
        path.write_bytes(path.read_bytes()[:300])
    elif content == "dir":
        path.mkdir()
    elif content != "missing":
        path.write_bytes(content)
    out = tmp_path / "o.npz"
    extra = ["-o", out] if command == "run" else []
    err = clean(mtiasim(capsys, command, add_bin, "--inputs", path, "--grid", "4", *extra), *fragments, code=3)
    assert err.startswith("error: ") and str(path.name) in err
    assert not out.exists()


# --- mtiasim run: binaries -----------------------------------------------------------------------

@pytest.mark.parametrize("make, fragments", [
    (lambda b: b[:100], ["truncated"]),
    (lambda b: b[:len(b) // 2], ["out of bounds"]),
    (lambda b: b"#!/bin/sh\necho hi\n", ["not an ELF file"]),
    (lambda b: b"", ["not an ELF file"]),
    (lambda b: b[:-60] + b"\xff" * 60, ["out of bounds"]),
])
def test_bad_binaries(capsys, add_bin, tmp_path, make, fragments):
    binary = tmp_path / "bad.bin"
    binary.write_bytes(make(add_bin.read_bytes()))
    out = tmp_path / "o.npz"
    err = clean(mtiasim(capsys, "run", binary, "--inputs", inputs(tmp_path / "i.npz"), "-o", out, "--grid", "4"),
                "bad.bin", *fragments, code=3)
    assert err.startswith("error: ")
    assert not out.exists()
    clean(mtiacc(capsys, "disasm", binary), "bad.bin", *fragments, code=3)


# --- mtiasim run: --grid, --arg, output paths ----------------------------------------------------

@pytest.mark.parametrize("flags, fragments, code", [
    (["--grid", "4x"], ["--grid '4x'", "not an integer"], 2),
    (["--grid", "1.5"], ["--grid '1.5'"], 2),
    (["--grid", "0"], ["positive"], 2),
    (["--grid", "-2"], ["positive"], 2),
    (["--grid", "1,2,3,4"], ["X, X,Y or X,Y,Z"], 2),
    (["--grid", ""], ["X, X,Y or X,Y,Z"], 2),
    (["--grid", "4", "--arg", "N=abc"], ["'abc' is not an integer", "'N' is i32"], 3),
    (["--grid", "4", "--arg", "N=1e400"], ["not an integer"], 3),
    (["--grid", "4", "--arg", f"N={2**40}"], ["does not fit", "i32"], 3),
    (["--grid", "4", "--arg", "N"], ["NAME=VALUE"], 2),
    (["--grid", "4", "--arg", "=3"], ["NAME=VALUE"], 2),
    (["--grid", "4", "--arg", "A_ptr=3"], ["pointer parameter"], 3),
    (["--grid", "4", "--arg", "M=3"], ["no parameter 'M'"], 3),
])
def test_grid_and_arg_garbage(capsys, add_bin, tmp_path, flags, fragments, code):
    out = tmp_path / "o.npz"
    err = clean(mtiasim(capsys, "run", add_bin, "--inputs", inputs(tmp_path / "i.npz"), "-o", out, *flags),
                *fragments, code=code)
    assert err.startswith("error: ")
    assert not out.exists()


@pytest.mark.parametrize("flag", ["-o", "--stats-json", "--trace"])
def test_unwritable_outputs_fail_before_the_run_and_write_nothing(capsys, add_bin, tmp_path, flag):
    """The npz was written, then --stats-json/--trace into a missing directory failed with exit 1."""
    missing = tmp_path / "no" / "such" / "dir" / "f"
    out = tmp_path / "o.npz"
    argv = ["run", add_bin, "--inputs", inputs(tmp_path / "i.npz"), "--grid", "4"]
    argv += [flag, missing] if flag == "-o" else ["-o", out, flag, missing]
    clean(mtiasim(capsys, *argv), f"cannot write '{missing}'", "No such file or directory", code=3)
    assert not out.exists() and not missing.parent.exists()
    # a directory where the file should go
    clean(mtiasim(capsys, "run", add_bin, "--inputs", inputs(tmp_path / "i.npz"), "--grid", "4",
                  *( [flag, tmp_path] if flag == "-o" else ["-o", out, flag, tmp_path])),
          "Is a directory", code=3)
    assert not out.exists()


def test_roofline_plot_into_a_missing_directory(capsys, add_bin, tmp_path):
    rc, out, err = mtiasim(capsys, "roofline", add_bin, "--inputs", inputs(tmp_path / "i.npz"), "--grid", "4",
                           "--plot", tmp_path / "none" / "r.png")
    clean((rc, out, err), "cannot write", code=3)
    assert out == ""  # failed before the run, not after printing the summary


# --- mtiacc: flags -------------------------------------------------------------------------------

@pytest.mark.parametrize("flags, fragments, code", [
    (["-D", "BLOCK_SIZE"], ["-D", "expected NAME=VALUE", "'BLOCK_SIZE'"], 2),
    (["-D", "=3"], ["expected NAME=VALUE"], 2),
    (["-D", "BLOCK_SIZE=abc"], ["-D BLOCK_SIZE=abc", "quoted"], 3),
    (["-D", "BLOCK_SIZE=256", "-D", "NOPE=1"], ["no constexpr parameter 'NOPE'", "BLOCK_SIZE"], 3),
    (["-D", "BLOCK_SIZE=256", "--signature", "*fp32,*fp32"],
     ["vector_add.py:18:1: error: the signature has 2 entries", "4 non-constexpr parameters"], 3),
    (["-D", "BLOCK_SIZE=256", "--signature", ""], ["has 0 entries"], 3),
    # one entry per parameter is Triton's spelling: the fifth is BLOCK_SIZE's value
    (["-D", "BLOCK_SIZE=256", "--signature", "*fp32,*fp32,*fp32,i32,i32"],
     ["signature entry 5 ('i32') is constexpr parameter 'BLOCK_SIZE': give its value"], 3),
    (["-D", "BLOCK_SIZE=256", "--signature", "*fp32,*fp32,*fp32,i32,i32,i32"], ["has 6 entries"], 3),
    # a trailing comma was counted as a fifth entry ("has 5 entries")
    (["-D", "BLOCK_SIZE=256", "--signature", "*fp32,*fp32,*fp32,i32,"], ["signature entry 5 is empty"], 3),
    (["-D", "BLOCK_SIZE=256", "--signature", "*fp32,*f32,*fp32,i32"], ["'*f32'", "'B_ptr'", "unknown type"], 3),
    (["-D", "BLOCK_SIZE=256", "--target", "gpu"], ["unknown machine 'gpu' (built in: mtia2i"], 3),
    (["-D", "BLOCK_SIZE=256", "-O9"], ["'-O'", "9"], 2),
    (["-D", "BLOCK_SIZE=256", "--emit=foo"], ["--emit", "'foo'"], 2),
    (["-D", "BLOCK_SIZE=256", "--kernel", "nope"], ["no @triton.jit function 'nope'", "add_kernel"], 3),
    (["-D", "BLOCK_SIZE=256", "--grid", "cdiv(N,"], ["--grid", "cannot parse"], 2),
    (["-D", "BLOCK_SIZE=256", "--grid", "M"], ["unknown name 'M'"], 2),
    (["-D", "BLOCK_SIZE=256", "--grid", "__import__('os')"], ["unknown function"], 2),
    # an operator node unparses to '': the message said "'' is not allowed"
    (["-D", "BLOCK_SIZE=256", "--grid", "2**N"], ["'**' is not allowed in a grid expression"], 2),
    (["-D", "BLOCK_SIZE=256", "--grid", "N << 2"], ["'<<' is not allowed"], 2),
])
def test_compiler_flag_errors(capsys, tmp_path, flags, fragments, code):
    out = tmp_path / "k.bin"
    out.write_bytes(b"old")
    clean(mtiacc(capsys, VECTOR_ADD, "-o", out, *flags), *fragments, code=code)
    assert out.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.bin"]


@pytest.mark.parametrize("emit", ["bin", "asm", "ir"])
def test_compiler_output_into_a_missing_directory(capsys, tmp_path, emit):
    out = tmp_path / "none" / "k.out"
    clean(mtiacc(capsys, VECTOR_ADD, "-D", "BLOCK_SIZE=256", f"--emit={emit}", "-o", out),
          f"cannot write '{out}'", code=3)
    assert not out.parent.exists()


# --- mtiacc: files that are not (UTF-8) Python ---------------------------------------------------

KERNEL = ("import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef k(X, B: tl.constexpr):\n"
          "    tl.store(X + tl.arange(0, B), 1.0)\n")


def test_missing_file_and_directory(capsys, tmp_path):
    err = clean(mtiacc(capsys, tmp_path / "none.py", "-o", tmp_path / "k.bin"), "none.py", code=3)
    assert err.startswith("error: ")
    clean(mtiacc(capsys, tmp_path, "-o", tmp_path / "k.bin"), "is a directory", code=2)
    assert not (tmp_path / "k.bin").exists()


@pytest.mark.parametrize("raw, where, fragments", [
    # Latin-1 bytes: the error is at the byte, on its line (was 'is not UTF-8 text' with no location)
    (KERNEL.encode() + "    s = 'café'\n".encode("latin-1"), "8:13", ["not UTF-8 text", "0xe9", "coding"]),
    ("# café\n".encode("latin-1") + KERNEL.encode(), "1:6", ["not UTF-8 text", "0xe9"]),
    # a null byte: at its place (was 1:1)
    (KERNEL.encode().replace(b"1.0)", b"1.0\0)"), "7:38", ["null byte"]),
    (KERNEL.encode() + b"    x = tl.load(X\n", "8:16", ["invalid Python syntax", "'(' was never closed"]),
    (KERNEL.encode() + b"\tx = 1\n", "8:", ["invalid Python syntax", "tabs and spaces"]),
])
def test_source_file_errors_have_a_location(capsys, tmp_path, raw, where, fragments):
    src = tmp_path / "bad.py"
    src.write_bytes(raw)
    out = tmp_path / "k.bin"
    err = clean(mtiacc(capsys, src, "-D", "B=16", "-o", out), *fragments, code=3)
    assert err.startswith(f"{src}:{where}"), err
    assert "error:" in err.splitlines()[0] and "^" in err.splitlines()[2]
    assert not out.exists()


def test_bom_and_coding_line_are_read_as_python_reads_them(capsys, tmp_path):
    """A UTF-8 byte-order mark was 'invalid non-printable character U+FEFF'; a PEP 263 coding line was
    ignored (so a Latin-1 comment was an error)."""
    bom = tmp_path / "bom.py"
    bom.write_bytes(b"\xef\xbb\xbf" + KERNEL.encode())
    rc, _, err = mtiacc(capsys, bom, "-D", "B=16", "-o", tmp_path / "a.bin")
    assert rc in (0, None) and (tmp_path / "a.bin").exists(), err
    latin = tmp_path / "latin.py"
    latin.write_bytes(b"# -*- coding: latin-1 -*-\n# caf\xe9\n" + KERNEL.encode() + b"    y = nope  # \xe9\n")
    err = clean(mtiacc(capsys, latin, "-D", "B=16", "-o", tmp_path / "b.bin"),
                f"{latin}:10:9: error: undefined name 'nope'", code=3)
    assert "    y = nope  # \u00e9\n        ^~~~" in err  # the line shown decoded as the file declares
    bad = tmp_path / "klingon.py"
    bad.write_bytes(b"# -*- coding: klingon -*-\n" + KERNEL.encode())
    clean(mtiacc(capsys, bad, "-D", "B=16", "-o", tmp_path / "c.bin"), "unknown encoding: klingon", code=3)
    assert not (tmp_path / "b.bin").exists() and not (tmp_path / "c.bin").exists()


def test_the_real_command_lines_print_no_traceback(tool, tmp_path):
    """Two of the above through the installed entry points, as a shell runs them."""
    npy = tmp_path / "x.npy"
    np.save(npy, np.zeros(4, np.float32))
    binary = tmp_path / "add.bin"
    proc = tool("mtiacc", VECTOR_ADD, "-D", "BLOCK_SIZE=256", "-o", binary)
    assert proc.returncode == 0, proc.stderr
    proc = tool("mtiasim", "run", binary, "--inputs", npy, "--grid", "4")
    assert proc.returncode == 3 and proc.stderr.startswith("error: ") and "Traceback" not in proc.stderr
    src = tmp_path / "bad.py"
    src.write_bytes(KERNEL.encode() + "    s = 'café'\n".encode("latin-1"))
    proc = tool("mtiacc", src, "-D", "B=16")
    assert proc.returncode == 3 and proc.stderr.startswith(f"{src}:8:13: error: ") and "Traceback" not in proc.stderr


@pytest.mark.parametrize("name, said", [("tl.maximun", "does not exist; did you mean `tl.maximum`?"),
                                        ("tl.sumx", "does not exist; did you mean `tl.sum`?"),
                                        ("tl.inline_asm_elementwise", "is not supported yet"),
                                        ("tl.void", "is not supported yet")])
def test_a_misspelt_tl_name_suggests_the_name(capsys, tmp_path, name, said):
    """A typo said "`tl.maximun` is not supported yet" as if it were a Triton function to come: a name Triton does
    not have either does not exist (with the nearest names); names Triton exports (tl.inline_asm_elementwise) are
    not supported yet, with no guess."""
    src = tmp_path / "typo.py"
    src.write_text(KERNEL.replace("1.0)", f"{name}(1.0, 2.0))"))
    err = clean(mtiacc(capsys, src, "-D", "B=16", "-o", tmp_path / "k.bin"), code=3)
    assert err.splitlines()[0] == f"{src}:7:35: error: `{name}` {said}"


def test_machine_yaml_syntax_error_at_its_line(capsys, add_bin, tmp_path):
    """Was "machine description 'm.yaml' is not valid YAML: while scanning ... line 3, column 1" on
    several lines; now file:line:col as for kernel sources."""
    cfg = tmp_path / "m.yaml"
    cfg.write_text("pe:\n  local_memory_bytes: 1024\n\tbad: 2\n")
    out = tmp_path / "o.npz"
    err = clean(mtiasim(capsys, "run", add_bin, "--inputs", inputs(tmp_path / "i.npz"), "--grid", "4",
                        "--config", cfg, "-o", out), code=3)
    assert err.splitlines()[0].startswith(f"{cfg}:3:1: error: machine description is not valid YAML: found a tab")
    assert err.splitlines()[1] == "\tbad: 2"
    assert not out.exists()
