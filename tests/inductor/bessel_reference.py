"""Bessel functions in float64 for the tests, from their integral representations (Simpson's rule, error
below 1e-10 for the arguments used): J_n, Y_n (n = 0, 1) and I_1; numpy has I_0 (np.i0)."""
import numpy as np


def _simpson(f, a, b, n):
    """Composite Simpson's rule of f (vectorized over rows of x) on [a, b] with n (even) intervals."""
    t = np.linspace(a, b, n + 1)
    w = np.ones(n + 1)
    w[1:-1:2] = 4
    w[2:-1:2] = 2
    return (f(t) * w).sum(-1) * (t[1] - t[0]) / 3


def jn_ref(n, x):
    return _simpson(lambda t: np.cos(n * t - x[:, None] * np.sin(t)), 0, np.pi, 2000) / np.pi


def yn_ref(n, x):
    a = _simpson(lambda t: np.sin(x[:, None] * np.sin(t) - n * t), 0, np.pi, 4000)
    b = _simpson(lambda u: (np.exp(n * u) + (-1) ** n * np.exp(-n * u)) * np.exp(-x[:, None] * np.sinh(u)),
                 0, 12, 60000)
    return (a - b) / np.pi


def i1_ref(x):
    return _simpson(lambda t: np.exp(x[:, None] * np.cos(t)) * np.cos(t), 0, np.pi, 2000) / np.pi
