"""Where a sweep's jobs run: local processes (the default) or Ray tasks on a cluster.

An executor takes a job function and a list of argument tuples and yields ``(index, outcome)`` as jobs finish,
in any order; the outcome is the function's result, or a :class:`Lost` saying why the job has no result (its
worker died more often than the retries allow, or the job raised: a bug, reported with its text).  Every job
yields exactly once, whatever happens to the workers: a sweep ends with one row per point.
"""
from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import multiprocessing
import multiprocessing.context
import os
from multiprocessing import popen_forkserver, spawn
from typing import Callable, Iterator, List, Optional, Sequence, Tuple

from mtiacc.diagnostics import UsageError

RETRIES = 3          # how many times a job whose worker died runs again
_BIG = 64 * 1024     # Ray: an argument at least this large goes to the object store once, shared by its jobs


@dataclasses.dataclass(frozen=True)
class Lost:
    reason: str


class _WorkerPopen(popen_forkserver.Popen):
    """A worker started by the fork server without running the program's main module again.

    ``multiprocessing`` runs the parent's ``__main__`` file in each new process (so that functions defined there
    can be found); a Triton program that autotunes is a script without an ``if __name__ == "__main__"`` guard, and
    running it again in a worker would run the whole program there.  The jobs are functions of importable modules,
    so the worker needs only ``sys.path``: the rest of the preparation data is passed, the main module's not."""

    def _launch(self, process_obj):
        real = spawn.get_preparation_data

        def without_main(name):
            data = real(name)
            data.pop("init_main_from_path", None)
            data.pop("init_main_from_name", None)
            return data

        spawn.get_preparation_data = without_main
        try:
            super()._launch(process_obj)
        finally:
            spawn.get_preparation_data = real


class _WorkerProcess(multiprocessing.context.ForkServerProcess):
    @staticmethod
    def _Popen(process_obj):
        return _WorkerPopen(process_obj)


class _WorkerContext(multiprocessing.context.ForkServerContext):
    Process = _WorkerProcess


class LocalExecutor:
    """Jobs in ``jobs`` worker processes of this machine (one core each).

    Workers start from a fork server that has imported the compiler and the simulator once, so a worker costs
    a fork, not an interpreter start.  A worker that dies (killed, out of memory) breaks the pool: the pool is
    built again and the jobs that were not finished run again, up to ``RETRIES`` times each."""

    name = "local"
    shares_files = True

    def __init__(self, jobs: Optional[int] = None):
        self.jobs = max(1, jobs or os.cpu_count() or 1)
        self._pool: Optional[cf.ProcessPoolExecutor] = None

    def _new_pool(self) -> cf.ProcessPoolExecutor:
        ctx = _WorkerContext()
        ctx.set_forkserver_preload(["mtiacc.sweep.jobs", "mtiacc.sweep.launches", "mtiacc.sweep.warm"])
        return cf.ProcessPoolExecutor(max_workers=self.jobs, mp_context=ctx)

    def run(self, fn: Callable, args: Sequence[Tuple]) -> Iterator[Tuple[int, object]]:
        attempts = [0] * len(args)
        todo = list(range(len(args)))
        while todo:
            if self._pool is None:
                self._pool = self._new_pool()
            futures = {self._pool.submit(fn, *args[i]): i for i in todo}
            todo = []
            broken = False
            for fut in cf.as_completed(futures):
                i = futures[fut]
                try:
                    yield i, fut.result()
                except cf.process.BrokenProcessPool:
                    broken = True
                    attempts[i] += 1
                    if attempts[i] > RETRIES:
                        yield i, Lost(f"the worker running it died {attempts[i]} times")
                    else:
                        todo.append(i)
                except Exception as e:  # noqa: BLE001 - a bug in a job: its row says so, the sweep goes on
                    yield i, Lost(f"internal error: {type(e).__name__}: {e}")
            if broken:
                self._pool.shutdown(wait=False, cancel_futures=True)
                self._pool = None

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


class RayExecutor:
    """Jobs as Ray tasks on a cluster (``address``: ``auto``, ``HOST:PORT``, or none for ``RAY_ADDRESS`` or else a
    Ray started for this sweep on this machine).  A task whose worker or node dies runs again elsewhere (Ray's
    task retries); one that still has no result after ``RETRIES`` is a row with the reason."""

    name = "ray"
    shares_files = False

    def __init__(self, jobs: Optional[int] = None, address: Optional[str] = None):
        try:
            import ray
        except ImportError:
            raise UsageError("--executor ray needs Ray: pip install 'mtiacc[ray]'") from None
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        self.ray = ray
        self._started = False
        address = address or os.environ.get("RAY_ADDRESS") or None
        if not ray.is_initialized():
            kw = dict(include_dashboard=False, configure_logging=False, log_to_driver=False)
            if address is None:   # a Ray of this sweep's own, on this machine's loopback
                kw.update(num_cpus=jobs or os.cpu_count() or 1, _node_ip_address="127.0.0.1")
            try:
                ray.init(address=address, **kw)
            except ConnectionError as e:
                raise UsageError(f"--address {address}: cannot reach a Ray cluster there ({e})") from None
            self._started = True
        self._remote = {}

    def _task(self, fn: Callable):
        if fn not in self._remote:
            self._remote[fn] = self.ray.remote(num_cpus=1, max_retries=RETRIES, retry_exceptions=False)(fn)
        return self._remote[fn]

    def run(self, fn: Callable, args: Sequence[Tuple]) -> Iterator[Tuple[int, object]]:
        ray = self.ray
        task = self._task(fn)
        shared = {}

        def put(a):
            if isinstance(a, (bytes, bytearray)) and len(a) >= _BIG:
                key = id(a)
                if key not in shared:
                    shared[key] = ray.put(a)
                return shared[key]
            return a

        refs = {task.remote(*[put(a) for a in row]): i for i, row in enumerate(args)}
        pending: List = list(refs)
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for ref in ready:
                i = refs[ref]
                try:
                    yield i, ray.get(ref)
                except ray.exceptions.RayTaskError as e:
                    yield i, Lost(f"internal error: {str(e).strip().splitlines()[-1]}")
                except ray.exceptions.RayError as e:   # worker or node lost after every retry, object lost
                    yield i, Lost(f"lost: {type(e).__name__}")

    def close(self) -> None:
        if self._started:
            self.ray.shutdown()
            self._started = False


def make_executor(name: str, jobs: Optional[int] = None, address: Optional[str] = None):
    if name == "local":
        if address:
            raise UsageError("--address is for --executor ray")
        return LocalExecutor(jobs)
    if name == "ray":
        return RayExecutor(jobs, address)
    raise UsageError(f"unknown executor '{name}' (local, ray)")
