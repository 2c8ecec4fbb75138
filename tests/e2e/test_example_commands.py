"""Every example's documented commands (the lines of its docstring: compile with `mtiacc`, write inputs with
`python examples/...`, run with `mtiasim run`, check the outputs against numpy) work as written, in a fresh folder,
and write nothing outside its build/ folder; the double-buffered example beats its plain loop at its documented size;
and a grid stored as an input array's size (`--grid 'X.shape[0]'`) launches one program per row."""
import importlib.util
import json
import runpy
import shlex
import sys
from pathlib import Path

import numpy as np
import pytest

from mtiacc.cli import main as mtiacc_main
from mtiacc.diagnostics import UsageError, UserError
from mtiacc.driver import Options, compile_kernel
from mtiasim.cli import main as mtiasim_main
from mtiasim.runner import run

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(p for p in (ROOT / "examples").glob("*.py") if "\n    mtiacc " in p.read_text())
TOOLS = ("mkdir ", "mtiacc ", "mtiasim ", "python ")


def commands(path: Path):
    """The docstring's command lines, continuations joined and comments dropped, split as a shell would."""
    doc = path.read_text().split('"""')[1].replace("\\\\\n", " ").replace("\\\n", " ")
    return [shlex.split(ln, comments=True) for ln in doc.splitlines() if ln.strip().startswith(TOOLS)]


def _run(argv, monkeypatch):
    """One documented command, in-process; its exit code (0: it worked)."""
    tool, args = argv[0], [str(ROOT / a) if a.startswith("examples/") else a for a in argv[1:]]
    if tool == "mkdir":
        for a in args:
            if a != "-p":
                Path(a).mkdir(parents=True, exist_ok=True)
        return 0
    if tool == "mtiasim":
        return mtiasim_main(args)
    try:
        if tool == "mtiacc":
            mtiacc_main(args)
        else:
            monkeypatch.setattr(sys, "argv", args)
            runpy.run_path(args[0], run_name="__main__")
    except SystemExit as e:
        return e.code if e.code is not None else 0
    return 0


def test_every_example_documents_its_commands():
    names = {p.stem for p in EXAMPLES}
    assert names >= {"embedding_bag", "mtia_double_buffer", "vector_add",
                     "gelu_silu", "layer_norm", "loop_scale", "matmul_nodot", "rms_norm",
                     "row_argmax", "row_cumsum", "row_sum", "softmax", "transpose", "vector_add_inputs"}
    for path in EXAMPLES:
        tools = [c[0] + (" --check" if "--check" in c else "") for c in commands(path)]
        assert tools[:2] == ["mkdir", "mtiacc"] and "mtiasim" in tools and "python --check" in tools, (path.name, tools)


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_the_documented_commands_compile_run_and_check(path, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    verdicts = []
    for argv in commands(path):
        code = _run(argv, monkeypatch)
        out, err = capsys.readouterr()
        assert code == 0, f"{shlex.join(argv)}: exit {code}\n{err}"
        verdicts += [out] if "--check" in argv else []
    assert verdicts and all("match" in v or "everywhere" in v for v in verdicts), verdicts   # the checks' verdicts
    outside = sorted(str(f.relative_to(tmp_path)) for f in tmp_path.rglob("*")
                     if f.relative_to(tmp_path).parts[0] != "build")
    assert outside == [], f"{path.name}'s commands wrote outside build/: {outside}"
    if path.stem == "mtia_double_buffer":      # its docstring's numbers: 17,621 against 21,101 cycles
        cycles = {k: json.loads((tmp_path / "build" / f"{k}.json").read_text())["cycles"] for k in ("plain", "db")}
        assert cycles["db"] < cycles["plain"], cycles


def test_the_check_finds_a_wrong_output():
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        import inputs
    finally:
        sys.path.pop(0)
    for name in inputs.EXAMPLES:
        given = getattr(inputs, name)()
        want = inputs.check(name, given, {k: v for k, (v, _r, _a) in getattr(inputs, f"expect_{name}")(given).items()})
        assert want == [], name
        wrong = {k: np.asarray(v) + 1 for k, (v, _r, _a) in getattr(inputs, f"expect_{name}")(given).items()}
        assert inputs.check(name, given, wrong), name


def test_a_grid_of_one_program_per_input_row():
    opts = Options(defines={"BLOCK_SIZE": "128"}, signature="*fp32,*fp32,i32,i32,i32", grid="input_ptr.shape[0]")
    binary = compile_kernel(str(ROOT / "examples" / "softmax.py"), opts).binary
    x = np.random.default_rng(3).standard_normal((37, 100)).astype(np.float32)
    r = run(binary, {"input_ptr": x, "output_ptr": np.zeros_like(x), "input_row_stride": np.array(100),
                     "output_row_stride": np.array(100), "n_cols": np.array(100)})
    assert r.stats.programs == 37
    e = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(r.outputs["output_ptr"], e / e.sum(1, keepdims=True), rtol=1e-5, atol=1e-6)
    with pytest.raises(UserError, match=r"'input_ptr' has shape \(37, 100\), with no axis 2"):
        run(compile_kernel(str(ROOT / "examples" / "softmax.py"),
                           Options(defines={"BLOCK_SIZE": "128"}, signature="*fp32,*fp32,i32,i32,i32",
                                   grid="input_ptr.shape[2]")).binary,
            {"input_ptr": x, "output_ptr": np.zeros_like(x), "input_row_stride": np.array(100),
             "output_row_stride": np.array(100), "n_cols": np.array(100)})


def test_only_pointer_parameters_have_a_shape():
    with pytest.raises(UsageError, match=r"--grid: 'n_cols.shape\[0\]' is not allowed in a grid expression"):
        compile_kernel(str(ROOT / "examples" / "softmax.py"),
                       Options(defines={"BLOCK_SIZE": "128"}, signature="*fp32,*fp32,i32,i32,i32",
                               grid="n_cols.shape[0]"))


def _first_five_minutes():
    """The README's "First five minutes": its shell blocks' command lines (set-up excepted) and its Python blocks."""
    text = (ROOT / "README.md").read_text().split("## First five minutes", 1)[1].split("\n## ", 1)[0]
    blocks = text.split("```")[1::2]
    shell = [shlex.split(ln, comments=True) for b in blocks if not b.startswith("python")
             for ln in b.replace("\\\n", " ").splitlines() if ln.strip().startswith(TOOLS)]
    return shell, [b[len("python"):] for b in blocks if b.startswith("python")]


def test_the_readmes_first_five_minutes_work_as_written(tmp_path, tmp_path_factory, monkeypatch, capsys):
    monkeypatch.setenv("MTIACC_CACHE_DIR", str(tmp_path_factory.mktemp("mtiacc-cache")))
    shell, python = _first_five_minutes()
    assert [a[:2] for a in shell if a[0] != "mkdir"][:2] == [["mtiacc", "examples/vector_add.py"],
                                                             ["python", "examples/vector_add_inputs.py"]]
    assert len(python) == 2 and "torch.compile" in python[1]
    monkeypatch.chdir(tmp_path)
    for argv in shell:
        code = _run(argv, monkeypatch)
        out, err = capsys.readouterr()
        assert code == 0, f"{shlex.join(argv)}: exit {code}\n{err}"
    assert (tmp_path / "build" / "trace.json").is_file()
    for src in python[:1] + python[1:] * (importlib.util.find_spec("torch") is not None):
        exec(compile(src.replace('"examples/', f'"{ROOT}/examples/'), "README.md", "exec"), {})
    outside = sorted(str(f.relative_to(tmp_path)) for f in tmp_path.rglob("*")
                     if f.relative_to(tmp_path).parts[0] != "build")
    assert outside == [], outside


def _usage(start: str) -> str:
    """The README's usage line that starts with ``start`` (in backquotes, possibly over several lines)."""
    text = (ROOT / "README.md").read_text()
    return text[text.index("`" + start):].split("`")[1]


def test_the_readmes_usage_lines_list_every_flag():
    from mtiacc.cli import compile_command
    from mtiasim.cli import cli
    for usage, command in ((_usage("mtiacc FILE.py"), compile_command), (_usage("mtiasim run BIN"),
                                                                         cli.commands["run"])):
        missing = [o.opts for o in command.params if o.opts[0].startswith("-")
                   and not any(s in usage for s in o.opts + o.secondary_opts)]
        assert missing == [], (usage.split()[:2], missing)


def test_the_readmes_documentation_table_lists_every_doc():
    table = (ROOT / "README.md").read_text().split("## Documentation", 1)[1].split("\n## ", 1)[0]
    listed = {ln.split("`")[1] for ln in table.splitlines() if ln.startswith("| `docs/")}
    assert listed == {f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")}
