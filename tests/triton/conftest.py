"""The Triton backend's tests run where triton and torch are installed (`pip install -e '.[triton]'`), and skip
elsewhere; compiled binaries go to a temporary cache."""
import pytest


@pytest.fixture(autouse=True, scope="session")
def _private_cache(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("MTIACC_CACHE_DIR", str(tmp_path_factory.mktemp("mtiacc-cache")))
    yield
    mp.undo()
