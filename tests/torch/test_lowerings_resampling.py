"""grid_sampler_3d under backend="mtia" (lowerings/resampling.py) against eager on seeded inputs: a grid reaching
past the volume (-4 to 4) with each padding mode, with and without align_corners, trilinear and nearest; on the
chip with nothing left to aten."""
import torch

from mtiacc.torch_backend import report


def test_grid_sampler_3d():
    g = torch.Generator().manual_seed(0)
    x = torch.rand(2, 3, 4, 5, 6, generator=g) * 2 - 1
    grid = torch.rand(2, 3, 4, 2, 3, generator=g) * 8 - 4
    modes = [(0, 0, False), (0, 1, True), (0, 2, False), (0, 2, True), (1, 0, True), (1, 2, False)]

    def fn(x, grid):
        return tuple(torch.grid_sampler_3d(x, grid, m, p, a) for m, p, a in modes)
    got = torch.compile(fn, backend="mtia", fullgraph=True)(x, grid)
    torch.testing.assert_close(got, fn(x, grid), atol=1e-5, rtol=1e-4)
    rep = report()
    assert rep["aten_ops"] == [], rep["aten_ops"]
    assert rep["kernels_total"] > 0 and rep["kernels_on_chip"] == rep["kernels_total"], rep["fallbacks"]
