"""The record of a machine file's checked values (mtiacc/machine/cache.py): a file read before is not read as
YAML again, a changed file is, a file with a problem is never recorded, and a bad record or folder costs only
the YAML read."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from mtiacc.diagnostics import UserError
from mtiacc.machine import MACHINE_DIR, cache
from mtiacc.machine.loader import read_file

ROOT = Path(__file__).resolve().parents[2]
BUILTIN = (MACHINE_DIR / "mtia2i.yaml").read_text()


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv("MTIACC_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / "machines"


class Reads:
    """read_file, counting its calls."""

    def __init__(self):
        self.n = 0

    def __call__(self, path):
        self.n += 1
        return read_file(path)


def test_a_file_read_before_comes_from_its_record_with_the_same_values(folder, tmp_path):
    path = tmp_path / "m.yaml"
    path.write_text(BUILTIN)
    reads = Reads()
    first = cache.read_values(str(path), reads)
    assert reads.n == 1 and len(list(folder.glob("m-*.json"))) == 1
    second = cache.read_values(str(path), reads)
    assert reads.n == 1
    assert [(k, type(v), v) for k, v in second.items()] == [(k, type(v), v) for k, v in first.items()]
    assert isinstance(second["clock_hz"], float) and isinstance(second["grid.x"], int)


def test_a_changed_file_is_read_again(folder, tmp_path):
    path = tmp_path / "m.yaml"
    path.write_text(BUILTIN)
    reads = Reads()
    cache.read_values(str(path), reads)
    path.write_text(BUILTIN.replace("local_memory_bytes: 393216", "local_memory_bytes: 262144", 1))
    assert cache.read_values(str(path), reads)["pe.local_memory_bytes"] == 262144
    assert reads.n == 2


def test_a_file_with_a_problem_is_reported_every_time_and_not_recorded(folder, tmp_path):
    path = tmp_path / "m.yaml"
    path.write_text(BUILTIN.replace("  local_memory_bytes: 393216", "  local_memroy_bytes: 393216", 1))
    for _ in range(2):
        with pytest.raises(UserError, match="unknown key 'pe.local_memroy_bytes'"):
            cache.read_values(str(path), read_file)
    assert not list(folder.glob("*.json"))


def test_a_bad_record_is_read_over(folder, tmp_path):
    path = tmp_path / "m.yaml"
    path.write_text(BUILTIN)
    cache.read_values(str(path), read_file)
    (record,) = folder.glob("m-*.json")
    stored = json.loads(record.read_text())
    stored["values"][0][1] = {"not": "a value"}
    record.write_text(json.dumps(stored))
    reads = Reads()
    assert cache.read_values(str(path), reads)["name"] == "mtia2i" and reads.n == 1
    record.write_text("{not json")
    assert cache.read_values(str(path), reads)["name"] == "mtia2i" and reads.n == 2
    assert cache.read_values(str(path), reads)["name"] == "mtia2i" and reads.n == 2     # rewritten whole


def test_a_folder_that_cannot_be_written_costs_only_the_read(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("MTIACC_CACHE_DIR", str(blocker))     # a file: no folder can be made under it
    path = tmp_path / "m.yaml"
    path.write_text(BUILTIN)
    assert cache.read_values(str(path), read_file)["name"] == "mtia2i"


def test_a_compile_of_the_builtin_machine_read_before_imports_no_yaml(tmp_path):
    env_cache = tmp_path / "cache"
    probe = ("import os, sys\nos.environ['MTIACC_CACHE_DIR'] = sys.argv[1]\n"
             "from mtiacc.target import load_target\nload_target()\nprint('yaml' in sys.modules)")
    runs = [subprocess.run([sys.executable, "-c", probe, str(env_cache)], capture_output=True, text=True,
                           cwd=str(ROOT), check=True).stdout.split() for _ in range(2)]
    assert runs == [["True"], ["False"]]
