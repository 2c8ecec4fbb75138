"""The DMA bandwidth timeline's index agrees with a scan of its committed segments."""
import random

import pytest

from mtiasim.dma import Timeline


def _scan_avail(tl, t):
    used = sum(r for a, b, r in tl.segs if a <= t < b)
    return max(tl.cap - used, 0.0)


def _scan_next_break(tl, t):
    ends = [x for a, b, _r in tl.segs for x in (a, b) if x > t]
    return min(ends) if ends else float("inf")


@pytest.mark.parametrize("seed", range(4))
def test_indexed_queries_match_a_scan_of_the_segments(seed):
    rng = random.Random(seed)
    tl = Timeline(64.0)
    t = 0.0
    for _ in range(300):
        kind = rng.random()
        if kind < 0.3:        # a batch scheduled later in simulated time
            t += rng.choice([0.0, 1.0, 2.5, 7.0])
        elif kind < 0.4:      # a batch that reaches back before the last one
            t = max(0.0, t - rng.choice([3.0, 10.0]))
        end = tl.transfer(t, rng.choice([4, 64, 256, 1000]), rng.choice([8.0, 16.0, 32.0]))
        assert end > t
        if rng.random() < 0.5:
            t = end
        if rng.random() < 0.2:  # a segment that continues the last one at its rate is merged into it
            a, b, r = tl.segs[-1]
            tl.add(b, b + 3.0, r)
        for q in [t, t + 0.5, t - 1.0, rng.uniform(0, t + 20)]:
            assert tl.avail(q) == pytest.approx(_scan_avail(tl, q), abs=1e-9)
            assert tl.next_break(q) == _scan_next_break(tl, q)


def test_committed_bandwidth_never_exceeds_the_level():
    tl = Timeline(10.0)
    ends = [tl.transfer(0.0, 100, 8.0) for _ in range(3)]
    assert ends[0] == pytest.approx(12.5)          # alone: its port rate
    assert ends[1] > ends[0] and ends[2] > ends[1]  # the others get what is left
    for q in [0.0, 5.0, 12.0, 20.0]:
        assert tl.avail(q) >= 0.0
