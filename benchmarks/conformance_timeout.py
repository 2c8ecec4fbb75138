"""A pytest plugin for the conformance runs: a test that runs longer than ``--case-timeout`` seconds fails
with ``TimeoutError`` (SIGALRM in the process running the test; a child process it waits for is stopped with
it), so that one slow case cannot stall a chunk of Triton's tests.

    python -m pytest -p conformance_timeout --case-timeout 120 ...
"""
from __future__ import annotations

import signal

import pytest


def pytest_addoption(parser):
    parser.addoption("--case-timeout", type=float, default=0.0, help="seconds per test case (0: none)")


def _expired(signum, frame):
    raise TimeoutError("conformance: test case timed out")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    limit = item.config.getoption("--case-timeout")
    if limit <= 0 or not hasattr(signal, "SIGALRM"):
        yield
        return
    previous = signal.signal(signal.SIGALRM, _expired)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
