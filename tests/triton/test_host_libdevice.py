"""The host fallback's libdevice (mtiacc/triton_backend/fallback.py): every libdevice name TorchInductor's code
generator emits has a host implementation, and the ones numpy lacks match reference values."""
import math

import numpy as np
import pytest

from mtiacc.triton_backend import fallback as f


def test_every_libdevice_name_inductor_emits_runs_on_the_host():
    pytest.importorskip("torch")
    from tests.inductor.test_coverage import _emitted_math_names
    names = {n.split(".", 1)[1] for n in _emitted_math_names() if n.startswith("libdevice.")}
    have = set(f._UNARY) | set(f._BINARY) | set(f._TERNARY)
    assert names and not names - have, sorted(names - have)


@pytest.mark.parametrize("name, x, want", [
    ("y0", 1.0, 0.08825696421567696), ("y0", 2.5, 0.4980703596152316), ("y0", 0.1, -1.5342386513503667),
    ("y1", 1.0, -0.7812128213002887), ("y1", 7.0, -0.3026672370241849),
    ("cyl_bessel_i1", 1.0, 0.5651591039924851), ("cyl_bessel_i1", -3.0, -3.953370217402609),
    ("cyl_bessel_i1", 20.0, 42454973.385127775),
    ("erfcx", 1.0, 0.42758357615580705), ("erfcx", -1.0, 5.00898008076228), ("erfcx", 30.0, 0.018795888861416751),
])
def test_functions_numpy_lacks(name, x, want):
    got = float(f._UNARY[name](np.array([x]))[0])
    assert math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12), (got, want)


def test_edges():
    assert f._UNARY["y0"](np.array([0.0]))[0] == -math.inf and math.isnan(f._UNARY["y1"](np.array([-1.0]))[0])
    assert f._UNARY["erfcx"](np.array([-30.0]))[0] == math.inf
    assert f._BINARY["mul_rn"](np.float32(3), np.float32(0.5)) == np.float32(1.5)
