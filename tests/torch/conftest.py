"""The torch.compile backend's tests run where torch, triton and transformers are installed
(`pip install -e '.[torch]'`) and skip elsewhere.  Compiled kernels and Inductor's caches go to a temporary
folder; each test starts with dynamo's caches and the coverage report empty."""
import os
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("triton")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
if str(EXAMPLES) not in sys.path:
    sys.path.insert(0, str(EXAMPLES))


@pytest.fixture(autouse=True, scope="session")
def _private_caches(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    root = tmp_path_factory.mktemp("mtiacc-cache")
    mp.setenv("MTIACC_CACHE_DIR", str(root))
    mp.setenv("TORCHINDUCTOR_CACHE_DIR", str(root / "inductor"))
    yield root
    mp.undo()


@pytest.fixture(autouse=True)
def _fresh():
    from mtiacc.torch_backend import reset
    torch._dynamo.reset()
    reset()
    yield
    torch._dynamo.reset()
