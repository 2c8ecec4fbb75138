"""Shared fixtures: paths, running the two command-line tools as a user would, and one fresh process that imports
torch for the tests that need a process of their own."""
import fcntl
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def run_tool(tool: str, *args, cwd=None):
    """Run `mtiacc` or `mtiasim` in a subprocess; returns the CompletedProcess (text mode)."""
    module = {"mtiacc": "mtiacc.cli", "mtiasim": "mtiasim.cli"}[tool]
    env = dict(os.environ)
    env.pop("MTIA_DEBUG", None)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", module, *map(str, args)], capture_output=True,
                          text=True, cwd=cwd, env=env, timeout=600)


@pytest.fixture
def tool():
    return run_tool


# The suite runs on every core with --dist worksteal (pyproject.toml): each worker starts on its half of the tests and
# one that runs out takes half of what another has left, so the workers finish within one test of each other.  The
# folders of the slowest tests (torch.compile'd models, fresh processes, sweeps, whole-chip simulations) go first, so
# the tests left at either half's end, while one worker may wait for the other, take a fraction of a second.
SLOW_FOLDERS_FIRST = ("torch", "sweep", "sim", "triton", "runtime", "opt", "test_layering.py")


def _rank(item) -> int:
    try:
        top = Path(item.path).relative_to(ROOT / "tests").parts[0]
    except ValueError:
        return len(SLOW_FOLDERS_FIRST)
    return SLOW_FOLDERS_FIRST.index(top) if top in SLOW_FOLDERS_FIRST else len(SLOW_FOLDERS_FIRST)


def pytest_collection_modifyitems(items):
    items.sort(key=_rank)           # stable: each module's tests stay together, in their order


# Importing torch and Inductor and compiling a first graph takes a fresh process some seconds, so the tests that need
# a process of their own share this one: a cache folder that cannot be written (its parent is a file),
# MTIACC_REPORT and MTIACC_TRITON=1 set, TRITON_DEFAULT_FP_FUSION not; a nested Triton kernel, one torch.compile'd
# graph and a kernel of mtiacc.load run; then the process forks, the parent leaving with MTIACC_REPORT=report.json,
# the child with report.md (the at-exit hook reads the variable when the process exits).  It prints FUSION (the
# knob as the kernel's launch left it), SUM (the graph's output summed) and CACHE (mtiacc's cache folder).
FRESH_TORCH_RUN = '''
import os, sys
import numpy as np, torch, triton, triton.language as tl
import mtiacc

def make(block):
    BLOCK = tl.constexpr(block)

    @triton.jit
    def twice(x_ptr, out_ptr, n):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)
    return twice

x = torch.arange(100, dtype=torch.float32)
out = torch.empty(100)
make(64)[(2,)](x, out, 100)                                   # a nested kernel: its source is written out
assert torch.equal(out, x * 2), out
print("FUSION", os.environ.get("TRITON_DEFAULT_FP_FUSION"))
f = torch.compile(lambda a: torch.relu(a) * 2, backend="mtia")
a = torch.arange(-3., 5.)
b = f(a)
assert torch.equal(b, torch.relu(a) * 2), b
print("SUM", float(b.sum()))
k = mtiacc.load(sys.argv[1])
y = np.zeros(100, np.float32)
k[(2,)](np.arange(100, dtype=np.float32), y, 100, BLOCK=64)
assert (y == np.arange(100)).all()
from mtiacc.runtime.cache import cache_dir
print("CACHE", cache_dir())
sys.stdout.flush()
pid = os.fork()
if pid == 0:
    os.environ["MTIACC_REPORT"] = sys.argv[2]
else:
    _, status = os.waitpid(pid, 0)
    sys.exit(os.waitstatus_to_exitcode(status))
'''

COPY_KERNEL = '''
import triton
import triton.language as tl


@triton.jit
def copy_kernel(X, Y, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(Y + offs, tl.load(X + offs, mask=offs < N), mask=offs < N)
'''


@pytest.fixture(scope="session")
def fresh_torch_process(tmp_path_factory):
    """FRESH_TORCH_RUN run once: (the CompletedProcess, the folder holding report.json and report.md, what it
    printed as {FUSION: ..., SUM: ..., CACHE: ...}).  Once per run, not once per xdist worker: the workers'
    temporary folders share a parent, where the first worker to ask runs the process (holding a lock) and leaves
    its exit status and output for the other."""
    pytest.importorskip("torch")
    pytest.importorskip("triton")
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    folder, result = base / "fresh-torch", base / "fresh-torch.json"
    with open(base / "fresh-torch.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not result.exists():
            folder.mkdir(exist_ok=True)
            r = _run_fresh_torch(folder)
            result.write_text(json.dumps([r.returncode, r.stdout, r.stderr]))
    returncode, stdout, stderr = json.loads(result.read_text())
    r = subprocess.CompletedProcess(FRESH_TORCH_RUN, returncode, stdout, stderr)
    printed = dict(line.split(" ", 1) for line in r.stdout.splitlines() if line.split(" ")[0] in
                   ("FUSION", "SUM", "CACHE"))
    return r, folder, printed


def _run_fresh_torch(folder):
    blocker = folder / "not-a-folder"
    blocker.write_text("a file where the cache folder's parent should be\n")
    script = folder / "run.py"
    script.write_text(FRESH_TORCH_RUN)
    (folder / "k.py").write_text(textwrap.dedent(COPY_KERNEL))
    env = dict(os.environ, MTIACC_CACHE_DIR=str(blocker / "cache"), MTIACC_REPORT=str(folder / "report.json"),
               MTIACC_TRITON="1", PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("TORCHINDUCTOR_CACHE_DIR", None)
    env.pop("TRITON_DEFAULT_FP_FUSION", None)
    return subprocess.run([sys.executable, str(script), str(folder / "k.py"), str(folder / "report.md")],
                          capture_output=True, text=True, env=env, cwd=folder, timeout=900)
