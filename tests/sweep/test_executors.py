"""The local executor: every job yields exactly once, whatever happens to its workers."""
import os

from mtiacc.sweep.executors import RETRIES, LocalExecutor, Lost


def square(x):
    return x * x


def die_once(marker, x):
    """Kills its worker the first time it runs (no result, no exception: the process is gone)."""
    if not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(9)
    return x + 1


def always_die(x):
    os._exit(9)


def raises(x):
    raise ValueError(f"bad {x}")


def run_all(fn, args, jobs=2):
    ex = LocalExecutor(jobs)
    try:
        return dict(ex.run(fn, args))
    finally:
        ex.close()


def test_every_job_yields_its_result():
    assert run_all(square, [(i,) for i in range(9)]) == {i: i * i for i in range(9)}


def test_a_dead_worker_job_runs_again(tmp_path):
    marker = str(tmp_path / "died")
    out = run_all(die_once, [(marker, i) for i in range(6)])
    assert out == {i: i + 1 for i in range(6)}
    assert os.path.exists(marker)


def test_a_job_that_always_kills_its_worker_ends_as_lost():
    out = run_all(always_die, [(0,)], jobs=1)
    assert isinstance(out[0], Lost)
    assert out[0].reason == f"the worker running it died {RETRIES + 1} times"


def test_a_job_that_raises_is_lost_with_the_text():
    out = run_all(raises, [(3,)], jobs=1)
    assert out[0] == Lost("internal error: ValueError: bad 3")
