"""A closed pipe ends a command quietly (exit 0 or 141, nothing on stderr), as `cat` does: `mtiasim run ... --stats |
head -1`, `mtiacc FILE.py --emit asm | head -1`.  Each command runs in a real process whose standard output is a
pipe that no process reads any more (its only read end is closed before the command writes)."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
VECTOR_ADD = ROOT / "examples" / "vector_add.py"


def _closed_pipe_run(*args, cwd):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("MTIA_DEBUG", None)
    r, w = os.pipe()
    os.close(r)                 # nobody will ever read: the first write fails with EPIPE
    try:
        p = subprocess.run([sys.executable, *args], stdout=w, stderr=subprocess.PIPE, cwd=cwd, env=env,
                           timeout=300)
    finally:
        os.close(w)
    return p.returncode, p.stderr.decode()


@pytest.fixture(scope="module")
def vector_add(tmp_path_factory):
    d = tmp_path_factory.mktemp("pipe")
    from mtiacc.driver import Options, compile_kernel
    binary = compile_kernel(str(VECTOR_ADD), Options(defines={"BLOCK_SIZE": "256"}, grid="cdiv(N, BLOCK_SIZE)")).binary
    (d / "va.bin").write_bytes(binary)
    n = 1000
    np.savez(d / "va.npz", A_ptr=np.ones(n, np.float32), B_ptr=np.ones(n, np.float32),
             C_ptr=np.zeros(n, np.float32), N=np.int32(n))
    return d


def test_mtiasim_run_stats_into_a_closed_pipe_is_quiet(vector_add):
    rc, err = _closed_pipe_run("-m", "mtiasim.cli", "run", "va.bin", "--inputs", "va.npz", "--stats",
                               "-o", "out.npz", cwd=vector_add)
    assert rc in (0, 141), (rc, err)
    assert err == "", err


def test_mtiasim_profile_into_a_closed_pipe_is_quiet(vector_add):
    rc, err = _closed_pipe_run("-m", "mtiasim.cli", "profile", "va.bin", "--inputs", "va.npz", cwd=vector_add)
    assert rc in (0, 141), (rc, err)
    assert err == "", err


def test_mtiacc_asm_into_a_closed_pipe_is_quiet(vector_add):
    rc, err = _closed_pipe_run("-m", "mtiacc.cli", str(VECTOR_ADD), "-D", "BLOCK_SIZE=256", "--emit", "asm",
                               cwd=vector_add)
    assert rc in (0, 141), (rc, err)
    assert err == "", err


def test_head_minus_one_through_a_shell_pipe(vector_add):
    """The command as a user types it: the pipeline's first status is the tool's."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmd = (f"'{sys.executable}' -m mtiasim.cli run va.bin --inputs va.npz --stats -o out.npz | head -1 >/dev/null; "
           f"echo ${{PIPESTATUS[0]}}")
    p = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, cwd=vector_add, env=env, timeout=300)
    assert p.stdout.strip() in ("0", "141"), p
    assert p.stderr == "", p.stderr
