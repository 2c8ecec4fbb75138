"""Shared fixtures: paths, and running the two command-line tools as a user would."""
import os
import subprocess
import sys
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
