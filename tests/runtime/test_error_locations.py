"""Errors from Python read like the command line's: ``mtiacc.load(...)[grid](...)`` raises with the whole diagnostic
as its message (``file:line:col: error: ...``, the source line, the caret, the notes), its traceback ending at the
launcher's entry point (no compiler or simulator frames).  Carets sit on the op that did it: the store of
``tl.store(Y + offs, tl.load(X + offs))``, the store of a race."""
import textwrap
import traceback

import numpy as np
import pytest

import mtiacc
from mtiacc.diagnostics import CompileError, KernelFault
from mtiasim.sanitize import SanitizerError

COPY = '''
import triton
import triton.language as tl


@triton.jit
def copy_kernel(X, Y, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(Y + offs, tl.load(X + offs))
'''

RACE = '''
import triton
import triton.language as tl


@triton.jit
def overlap_kernel(X, Y, BLOCK: tl.constexpr):
    x = tl.load(X + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK))
    tl.store(Y + tl.program_id(0) * (BLOCK // 2) + tl.arange(0, BLOCK), x)
'''


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MTIACC_CACHE_DIR", str(tmp_path / "cache"))


def test_the_same_source_in_two_files_names_each_file(tmp_path):
    """The cache serves a binary only to the file it was compiled from: its line table names that file."""
    a, b = _write(tmp_path, "a.py", COPY), _write(tmp_path, "b.py", COPY)
    for path in (a, b):
        with pytest.raises(KernelFault) as e:
            mtiacc.load(str(path))[(1,)](np.zeros(256, np.float32), np.zeros(200, np.float32), BLOCK=256)
        assert str(e.value).startswith(f"{path}:9:5: error:"), str(e.value)


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return p


def _frames(err):
    return [f.filename for f in traceback.extract_tb(err.__traceback__)]


def _shallow(err):
    """The traceback holds this test's frame and the launcher's entry point, nothing deeper."""
    files = _frames(err)
    assert files[0] == __file__, files
    assert all(f == __file__ or f.endswith("mtiacc/runtime/launcher.py") for f in files), files
    assert sum(f.endswith("launcher.py") for f in files) == 1, files
    assert err.__suppress_context__ and err.__cause__ is None


def test_an_out_of_bounds_store_reads_like_the_cli_and_points_at_the_store(tmp_path):
    path = _write(tmp_path, "copy.py", COPY)
    k = mtiacc.load(str(path))
    x, y = np.arange(256, dtype=np.float32), np.zeros(200, np.float32)     # Y too small: only the store faults
    with pytest.raises(KernelFault) as e:
        k[(1,)](x, y, BLOCK=256)
    text = str(e.value)
    lines = text.splitlines()
    assert lines[0].startswith(f"{path}:9:5: error: out-of-bounds DMA write of 1024 bytes"), text
    assert lines[1] == "    tl.store(Y + offs, tl.load(X + offs))"
    assert lines[2] == "    ^"                      # the store (before: under the tl.load, column 24)
    assert "note: in program (0, 0, 0)" in text and "past the end of 'Y'" in text
    assert e.value.loc.line == 9 and e.value.loc.col == 5 and e.value.message.startswith("out-of-bounds DMA write")
    _shallow(e.value)


def test_a_compile_error_from_a_launch_reads_like_the_cli(tmp_path):
    path = _write(tmp_path, "bad.py", COPY.replace("tl.load(X + offs)", "tl.load(X + ofs)"))
    k = mtiacc.load(str(path))
    with pytest.raises(CompileError) as e:
        k[(1,)](np.zeros(256, np.float32), np.zeros(256, np.float32), BLOCK=256)
    lines = str(e.value).splitlines()
    assert lines[0] == f"{path}:9:36: error: undefined name 'ofs'", lines
    assert lines[1] == "    tl.store(Y + offs, tl.load(X + ofs))" and lines[2] == " " * 35 + "^~~"
    _shallow(e.value)


def test_mtiacc_compile_reads_like_the_cli(tmp_path):
    path = _write(tmp_path, "bad.py", COPY.replace("tl.load(X + offs)", "tl.load(X + ofs)"))
    with pytest.raises(CompileError) as e:
        mtiacc.compile(str(path), signature="*fp32,*fp32", constexprs={"BLOCK": 256})
    assert str(e.value).splitlines()[0] == f"{path}:9:36: error: undefined name 'ofs'"
    files = _frames(e.value)
    assert files[0] == __file__ and len(files) == 2 and files[1].endswith("mtiacc/__init__.py"), files


def test_run_and_prepare_surface_the_diagnostic_too(tmp_path):
    path = _write(tmp_path, "copy.py", COPY)
    k = mtiacc.load(str(path))
    with pytest.raises(KernelFault) as e:
        k.run(np.zeros(256, np.float32), np.zeros(200, np.float32), grid=(1,), BLOCK=256)
    assert str(e.value).startswith(f"{path}:9:5: error:")
    _shallow(e.value)


def test_a_race_points_at_the_store(tmp_path):
    path = _write(tmp_path, "race.py", RACE)
    k = mtiacc.load(str(path))
    with pytest.raises(SanitizerError) as e:
        k[(4,)](np.zeros(1024, np.float32), np.zeros(1024, np.float32), BLOCK=256, sanitize=True)
    lines = str(e.value).splitlines()
    assert lines[0].startswith(f"{path}:9:5: error: data race: "), lines[0]   # before: 9:14, the pointer sum
    assert lines[2] == "    ^"
    assert f"wrote it at {path}:9:5:" in str(e.value)
    _shallow(e.value)
