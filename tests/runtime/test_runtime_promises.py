"""The runtime keeps its promises: cache entries are checked by their digest and rebuilt when damaged, written
whole or not at all, and a cache folder that cannot be written still works (compiling to a temporary place, for
nested kernels and torch.compile too); a read-only output array is an error; an array passed to a parameter
annotated with another element type is read as its bits (as Triton does) or refused, never converted."""
import hashlib
import textwrap
from pathlib import Path

import numpy as np
import pytest

import mtiacc
from mtiacc.diagnostics import UserError
from mtiacc.runtime import cache


COPY = '''
import triton
import triton.language as tl


@triton.jit
def copy_kernel(X, Y, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(Y + offs, tl.load(X + offs, mask=offs < N), mask=offs < N)
'''

BITS = '''
import triton
import triton.language as tl


@triton.jit
def bits_kernel(X: tl.pointer_type(tl.int32), Y, N: tl.int64, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(Y + offs, tl.load(X + offs) + (N - N))
'''


@pytest.fixture
def cache_folder(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    monkeypatch.setenv("MTIACC_CACHE_DIR", str(d))
    return d


def _kernel(tmp_path, text, name="k.py"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return mtiacc.load(str(p))


def _entries(folder):
    return sorted(folder.rglob("*.bin"))


def _copy(k):
    x = np.arange(100, dtype=np.float32)
    y = np.zeros(100, np.float32)
    launch = k[(2,)](x, y, 100, BLOCK=64)
    np.testing.assert_array_equal(y, x)
    return launch


# ------------------------------------------------------------------------------------------------ cache entries
@pytest.mark.parametrize("damage", ["truncate", "flip", "old-format"])
def test_a_damaged_entry_is_rebuilt_not_served(tmp_path, cache_folder, damage):
    assert not _copy(_kernel(tmp_path, COPY)).cached
    (entry,) = _entries(cache_folder)
    good = entry.read_bytes()
    assert good.startswith(cache.MAGIC)
    binary = good[len(cache.MAGIC) + 32:]
    assert hashlib.sha256(binary).digest() == good[len(cache.MAGIC):len(cache.MAGIC) + 32]
    if damage == "truncate":          # a binary cut short (a full disk, a killed process, a copy gone wrong)
        entry.write_bytes(good[:len(good) // 2])
    elif damage == "flip":
        bad = bytearray(good)
        bad[-100] ^= 0xFF
        entry.write_bytes(bytes(bad))
    else:                             # an entry of the format before digests: the bare binary
        entry.write_bytes(binary)
    assert cache.load(entry.stem) is None
    launch = _copy(_kernel(tmp_path, COPY))     # a new Kernel: no memory of the binary but the disk's
    assert not launch.cached                    # compiled again ...
    assert entry.read_bytes() == good           # ... and the entry replaced by an intact one
    assert _copy(_kernel(tmp_path, COPY)).cached


def test_entries_are_written_whole_or_not_at_all(tmp_path, cache_folder):
    def fail(src, dst):
        raise OSError(28, "No space left on device")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(cache.os, "replace", fail)
        cache.store("ab" + "0" * 62, b"\x7fELF" + b"x" * 1000)
    assert list(cache_folder.rglob("*")) == [cache_folder / "ab"]       # no entry, no temporary file left
    cache.store("ab" + "0" * 62, b"\x7fELF" + b"x" * 1000)
    assert cache.load("ab" + "0" * 62) == b"\x7fELF" + b"x" * 1000
    assert [p.name for p in (cache_folder / "ab").iterdir()] == ["ab" + "0" * 62 + ".bin"]


# ------------------------------------------------------------------------------------------ read-only folders
def test_a_read_only_folder_is_read_and_compiles_go_to_a_temporary_place(tmp_path, cache_folder, monkeypatch):
    _copy(_kernel(tmp_path, COPY))
    before = {p: p.read_bytes() for p in cache_folder.rglob("*") if p.is_file()}
    monkeypatch.setattr(cache, "_writable", {})
    monkeypatch.setattr(cache, "_can_write", lambda d: False)     # as on a read-only file system
    where = cache.cache_dir()
    assert where != cache_folder and where.is_dir()
    assert _copy(_kernel(tmp_path, COPY)).cached                  # the read-only entry is served
    other = _kernel(tmp_path, COPY.replace("copy_kernel", "copy2_kernel"), "k2.py")
    assert not _copy(other).cached
    assert len(_entries(where)) == 1                             # compiled into the temporary place
    assert {p: p.read_bytes() for p in cache_folder.rglob("*") if p.is_file()} == before


def test_nested_kernels_and_torch_compile_work_with_a_cache_folder_that_cannot_be_written(fresh_torch_process):
    """Was: OSError from the nested kernel's source and from Inductor's cache under the folder.  The process
    (tests/conftest.py) runs a nested kernel, a torch.compile'd graph and a kernel of mtiacc.load with
    MTIACC_CACHE_DIR under a file; the at-exit report tests share it."""
    r, _, printed = fresh_torch_process
    assert r.returncode == 0, r.stderr[-3000:]
    where = Path(printed["CACHE"])
    assert where.name.startswith("mtiacc-cache-") and not where.exists()     # removed at exit


# ---------------------------------------------------------------------------------------- output arrays
def test_a_read_only_output_array_is_an_error(tmp_path, cache_folder):
    k = _kernel(tmp_path, COPY)
    x = np.arange(100, dtype=np.float32)
    y = np.zeros(100, np.float32)
    y.flags.writeable = False
    with pytest.raises(UserError) as e:
        k[(2,)](x, y, 100, BLOCK=64)
    assert e.value.message.startswith("the kernel wrote to argument 'Y', a read-only array")
    assert (y == 0).all()


def test_a_read_only_input_array_is_fine(tmp_path, cache_folder):
    k = _kernel(tmp_path, COPY)
    x = np.arange(100, dtype=np.float32)
    x.flags.writeable = False
    y = np.zeros(100, np.float32)
    k[(2,)](x, y, 100, BLOCK=64)
    np.testing.assert_array_equal(y, x)


# ------------------------------------------------------------------------------------------- element types
def test_an_array_of_another_type_is_read_as_the_annotations_bits(tmp_path, cache_folder):
    k = _kernel(tmp_path, BITS)
    x = np.array([1.0, -2.0, 0.5, 3.0], np.float32)
    y = np.zeros(4, np.int32)
    launch = k[(1,)](x, y, 7, BLOCK=4)
    assert launch.signature == "*i32,*i32,i64"            # the annotations' types, not the arguments'
    np.testing.assert_array_equal(y, x.view(np.int32))    # was [1, -2, 0, 3]: converted value by value
    assert (x == [1.0, -2.0, 0.5, 3.0]).all()


def test_an_array_whose_bytes_are_not_whole_elements_is_refused(tmp_path, cache_folder):
    k = _kernel(tmp_path, BITS)
    with pytest.raises(UserError) as e:
        k[(1,)](np.ones(3, np.float16), np.zeros(4, np.int32), 7, BLOCK=4)
    assert e.value.message.startswith("argument 'X' is an array of fp16 (6 bytes) and parameter 'X' is annotated "
                                      "*i32: its bytes are not a whole number of i32 elements")


def test_a_scalar_for_a_pointer_annotation_is_refused(tmp_path, cache_folder):
    k = _kernel(tmp_path, BITS)
    with pytest.raises(UserError) as e:
        k[(1,)](3, np.zeros(4, np.int32), 7, BLOCK=4)
    assert "parameter 'X' is annotated *i32, a pointer" in e.value.message
