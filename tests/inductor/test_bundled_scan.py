"""Our copy of Inductor's runtime helpers is scanned once a process (visitor/imports.py, ``_bundled``): every
kernel Inductor writes imports it, from its own folder; a later kernel reuses the scan, and a changed file is
scanned again."""
import numpy as np

from mtiacc.driver import Options, compile_kernel
from mtiacc.frontend.inductor.runtime import MODULES, PACKAGE
from mtiacc.frontend.visitor import imports
from mtiasim.runner import run

KERNEL = '''
import triton
import triton.language as tl
from torch._inductor.runtime import triton_helpers


@triton.jit
def triton_poi_fused_maximum_0(in_ptr0, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    tmp0 = tl.load(in_ptr0 + xindex, xmask)
    tl.store(out_ptr0 + xindex, triton_helpers.maximum(tmp0, {c}), xmask)
'''
HELPERS = MODULES[f"{PACKAGE}.triton_helpers"]


def _compile(folder, c):
    folder.mkdir()
    path = folder / "k.py"
    path.write_text(KERNEL.format(c=c))
    return compile_kernel(str(path), Options(kernel="triton_poi_fused_maximum_0", signature="*fp32,*fp32,i32",
                                             defines={"XBLOCK": "64"})).binary


def _scans(monkeypatch):
    seen = []
    load = imports.Importer._load

    def counting(self, name, path):
        seen.append(path)
        return load(self, name, path)
    monkeypatch.setattr(imports.Importer, "_load", counting)
    return seen


def test_a_second_kernel_reuses_the_scan_and_a_changed_file_is_scanned_again(tmp_path, monkeypatch):
    first = _compile(tmp_path / "a", 0.5)
    seen = _scans(monkeypatch)
    second = _compile(tmp_path / "b", 0.25)          # another folder, as Inductor writes each kernel
    assert HELPERS not in seen
    x = np.linspace(-1, 1, 100, dtype=np.float32)
    for binary, c in ((first, 0.5), (second, 0.25)):
        out = run(binary, {"in_ptr0": x, "out_ptr0": np.zeros_like(x), "xnumel": np.int32(100)}, grid=(2,))
        np.testing.assert_array_equal(out.outputs["out_ptr0"], np.maximum(x, np.float32(c)))
    stamp, module = imports._BUNDLED[HELPERS]
    monkeypatch.setitem(imports._BUNDLED, HELPERS, ((stamp[0] - 1, stamp[1]), module))   # as if edited since
    _compile(tmp_path / "c", 0.5)
    assert seen.count(HELPERS) == 1
