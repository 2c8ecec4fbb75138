"""``--machine FILE`` and ``--set KEY=VALUE`` on both command lines: the machine a kernel is compiled for and
simulated on, for one run."""
import json

import numpy as np
import pytest

from tests.cli.helpers import clean, mtiacc, mtiasim
from tests.conftest import EXAMPLES

VECTOR_ADD = EXAMPLES / "vector_add.py"
N = 1 << 16


@pytest.fixture(scope="module")
def add(tmp_path_factory):
    """vector_add over 64 blocks of 1024 (one per PE) and its inputs."""
    d = tmp_path_factory.mktemp("add")
    binary, inputs = d / "add.bin", d / "in.npz"
    import mtiacc.cli
    try:
        mtiacc.cli.main([str(VECTOR_ADD), "-o", str(binary), "-D", "BLOCK_SIZE=1024", "--grid",
                         "cdiv(N, BLOCK_SIZE)"])
    except SystemExit as e:
        assert not e.code
    a = np.arange(N, dtype=np.float32)
    np.savez(inputs, A_ptr=a, B_ptr=a[::-1].copy(), C_ptr=np.zeros(N, np.float32), N=np.array(N, np.int32))
    return binary, inputs


def cycles(capsys, tmp_path, binary, inputs, *flags):
    stats, out = tmp_path / "s.json", tmp_path / "o.npz"
    rc, _, err = mtiasim(capsys, "run", binary, "--inputs", inputs, "-o", out, "--stats-json", stats, *flags)
    assert rc == 0, err
    with np.load(out) as z:
        np.testing.assert_array_equal(z["C_ptr"], np.full(N, N - 1, np.float32))
    return json.loads(stats.read_text())["cycles"]


def test_half_the_dram_bandwidth_slows_a_streaming_kernel(capsys, tmp_path, add):
    """vector_add streams 768 KiB through DRAM: at half the bandwidth it takes longer, at double not longer."""
    base = cycles(capsys, tmp_path, *add)
    slow = cycles(capsys, tmp_path, *add, "--set", "memory.dram.bw_bytes_per_s=102.4e9")
    fast = cycles(capsys, tmp_path, *add, "--set", "memory.dram.bw_bytes_per_s=409.6e9")
    assert slow > 1.4 * base and fast <= base
    # --set applies to the machine of --machine, and the same file gives the same cycles
    machine = tmp_path / "m.yaml"
    from mtiacc.machine import MACHINE_DIR
    machine.write_text((MACHINE_DIR / "mtia2i.yaml").read_text())
    assert cycles(capsys, tmp_path, *add, "--machine", machine) == base
    assert cycles(capsys, tmp_path, *add, "--machine", machine, "--set", "memory.dram.bw_bytes_per_s=102.4e9") \
        == slow


@pytest.mark.parametrize("flags, message", [
    (("--set", "memory.dram.bw_bytes_per_s"),
     "error: --set 'memory.dram.bw_bytes_per_s' must be KEY=VALUE, e.g. --set memory.dram.bw_bytes_per_s=409.6e9"),
    (("--set", "memory.dram.bw_byte_per_s=1e9"),
     "error: --set memory.dram.bw_byte_per_s=1e9: unknown key 'memory.dram.bw_byte_per_s' (did you mean "
     "'memory.dram.bw_bytes_per_s'?)"),
    (("--set", "memory.dram.bw_bytes_per_s=fast"),
     "error: --set memory.dram.bw_bytes_per_s=fast: 'memory.dram.bw_bytes_per_s' must be a positive number "
     "(bytes/s), got 'fast'"),
    (("--set", "grid=8"), "error: --set grid=8: 'grid' is a section: set one of its keys (x, y)"),
])
def test_mtiasim_set_errors(capsys, tmp_path, add, flags, message):
    out = tmp_path / "o.npz"
    err = clean(mtiasim(capsys, "run", add[0], "--inputs", add[1], "-o", out, *flags), code=2)
    assert err.splitlines()[0] == message and not out.exists()


@pytest.mark.parametrize("flags, message", [
    (("--set", "pe.local_memory_bytes=big"),
     "error: --set pe.local_memory_bytes=big: 'pe.local_memory_bytes' must be a positive integer, a multiple of 8 "
     "(bytes), got 'big'"),
    (("--set", "pe.local_memroy_bytes=1"),
     "error: --set pe.local_memroy_bytes=1: unknown key 'pe.local_memroy_bytes' (did you mean "
     "'pe.local_memory_bytes'?)"),
    (("--set", "=4"), "error: --set '=4' must be KEY=VALUE, e.g. --set memory.dram.bw_bytes_per_s=409.6e9"),
    (("--machine", "tpu"), "error: unknown machine 'tpu' (built in: mtia2i; or a machine YAML file)"),
])
def test_mtiacc_set_errors(capsys, tmp_path, flags, message):
    out = tmp_path / "k.bin"
    err = clean(mtiacc(capsys, VECTOR_ADD, "-D", "BLOCK_SIZE=256", "-o", out, *flags))
    assert err.splitlines()[0] == message and not out.exists()


def test_the_compiler_plans_local_memory_for_the_machine_it_is_given(capsys, tmp_path):
    """Three 64 KiB blocks fit the 384 KiB of local memory, not 128 KiB: with --set the compiler streams them in
    chunks, which --Werror=spill makes an error saying so."""
    out = tmp_path / "k.bin"
    rc, _, err = mtiacc(capsys, VECTOR_ADD, "-D", "BLOCK_SIZE=16384", "-o", out, "--Werror=spill")
    assert rc == 0, err
    err = clean(mtiacc(capsys, VECTOR_ADD, "-D", "BLOCK_SIZE=16384", "-o", tmp_path / "small.bin",
                       "--set", "pe.local_memory_bytes=131072", "--Werror=spill"), code=3)
    # 131072 - stack 4096 - arguments
    assert "error: stream-blocks: blocks of 16384 elements do not fit in local memory (126912 bytes for blocks)" \
        in err.splitlines()[0]
    assert not (tmp_path / "small.bin").exists()


def test_the_machine_flags_reach_the_python_api(tmp_path):
    import mtiacc
    small = mtiacc.compile(str(VECTOR_ADD), constexprs={"BLOCK_SIZE": 16384}, signature="*fp32,*fp32,*fp32,i32",
                           overrides={"pe.local_memory_bytes": 131072}).binary
    assert small != mtiacc.compile(str(VECTOR_ADD), constexprs={"BLOCK_SIZE": 16384},
                                   signature="*fp32,*fp32,*fp32,i32").binary     # streamed in chunks there
    assert mtiacc.compile(str(VECTOR_ADD), constexprs={"BLOCK_SIZE": 16384}, signature="*fp32,*fp32,*fp32,i32",
                          machine="mtia2i").binary


def test_mtiacc_load_compiles_and_runs_on_the_machine_it_is_given(tmp_path, monkeypatch):
    """``mtiacc.load(..., overrides=)``: the launch runs on the changed machine (and is cached apart)."""
    import mtiacc
    monkeypatch.setenv("MTIACC_CACHE_DIR", str(tmp_path / "cache"))
    a = np.arange(N, dtype=np.float32)
    runs = {}
    for label, kw in [("base", {}), ("slow", {"overrides": ["memory.dram.bw_bytes_per_s=102.4e9"]})]:
        c = np.zeros(N, np.float32)
        launch = mtiacc.load(str(VECTOR_ADD), "add_kernel", **kw)[(N // 1024,)](a, a, c, N, BLOCK_SIZE=1024)
        np.testing.assert_array_equal(c, 2 * a)
        runs[label] = launch.cycles
    assert runs["slow"] > 1.4 * runs["base"]
    with pytest.raises(mtiacc.diagnostics.UsageError, match="unknown key 'grid.z'"):
        mtiacc.load(str(VECTOR_ADD), "add_kernel", overrides={"grid.z": 2})
