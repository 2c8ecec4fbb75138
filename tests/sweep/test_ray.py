"""``--executor ray`` on a real two-node Ray cluster on this machine: the same rows as local processes, and a
node lost in the middle of a sweep loses no row.

The cluster (a head and a second node, loopback only, no dashboard, no usage reports) lives and dies with this
module.  CI installs Ray (the ``ray`` extra); elsewhere the module is skipped when Ray is missing.
"""
import importlib.util
import os
import threading
import time

import pytest

from mtiacc.sweep import run_sweep

from .conftest import make_sweep_dir, read_rows, run_conformance, write_spec
from .test_conformance import ROWS

# not imported here: Ray reads its settings from the environment when it is first imported (the fixture sets them)
if not os.environ.get("CI") and importlib.util.find_spec("ray") is None:
    pytest.skip("Ray is not installed (pip install 'mtiacc[ray]')", allow_module_level=True)

SPEC = """
    kernel: add.py
    grid: "cdiv(N, BLOCK_SIZE)"
    inputs: [big.npz, small.npz]
    defines: {BLOCK_SIZE: [256, 1024]}
    set: {memory.dram.bw_bytes_per_s: [51.2e9, 102.4e9, 204.8e9]}
"""


@pytest.fixture(scope="module")
def cluster():
    # loopback only: with this, Ray takes 127.0.0.1 as this node's address instead of the first interface's
    saved = {k: os.environ.get(k) for k in ("RAY_USAGE_STATS_ENABLED", "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER")}
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    import ray
    from ray.cluster_utils import Cluster
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False,
                                                       "node_ip_address": "127.0.0.1"})
    c.add_node(num_cpus=1, node_ip_address="127.0.0.1")
    c.wait_for_nodes()
    ray.init(address=c.address, include_dashboard=False, configure_logging=False, log_to_driver=False)
    yield c
    ray.shutdown()
    c.shutdown()
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture(scope="module")
def local_rows(tmp_path_factory):
    """The spec's rows from two local processes, swept once for the tests that compare Ray's rows with them (a row
    holds the point, its status and figures, no path of the folder swept in)."""
    with pytest.MonkeyPatch.context() as mp:
        folder = make_sweep_dir(tmp_path_factory.mktemp("local"), mp)
        run_sweep(str(write_spec(folder, SPEC)), str(folder / "local.jsonl"), jobs=2)
    rows = read_rows(folder / "local.jsonl")
    assert len(rows) == 12 and all(r["status"] == "ok" for r in rows)
    return rows


def test_ray_rows_are_the_local_rows(cluster, sweep_dir, local_rows, monkeypatch):
    spec = str(write_spec(sweep_dir, SPEC))
    monkeypatch.setenv("MTIACC_CACHE_DIR", str(sweep_dir / "ray-cache"))
    s = run_sweep(spec, str(sweep_dir / "ray.jsonl"), executor="ray", address=cluster.address)
    assert s.simulated == 12
    assert read_rows(sweep_dir / "ray.jsonl") == local_rows


def test_conformance_chunks_on_ray_give_the_serial_table(cluster, conformance_slice, tmp_path):
    """``make conformance EXECUTOR=ray`` on a slice of a tests folder: its chunks as Ray tasks on the two nodes,
    the table the chunks give one after another (ROWS: test_conformance.py runs them so and checks it)."""
    rows, state = run_conformance(conformance_slice, tmp_path / "ray", "--executor", "ray",
                                  "--address", cluster.address)
    assert rows == ROWS and len(rows) == 3
    assert len(state["ours"]) == 3 and all(r["complete"] for r in state["ours"].values())


def test_autotuning_launches_on_ray_are_the_local_ones(cluster, sweep_dir):
    """``MTIACC_EXECUTOR=ray``: autotuning's candidates (mtiacc.sweep.launches) compiled here and simulated as
    Ray tasks give the results of the local workers."""
    import numpy as np

    import mtiacc
    from mtiacc.sweep.executors import LocalExecutor, RayExecutor
    from mtiacc.sweep.launches import LaunchJob, run_launches
    kernel = mtiacc.load(str(sweep_dir / "add.py"))
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal(3000).astype(np.float32), rng.standard_normal(3000).astype(np.float32)
    jobs = []
    for block in (128, 512, 2048):
        p = kernel.prepare(a, b, np.zeros(3000, np.float32), 3000, BLOCK_SIZE=block, grid=(-(-3000 // block),),
                           compile=False)
        unit, options = kernel.compile_job(*p.compile_request)
        jobs.append(LaunchJob(unit=unit, options=options, binary=None, inputs=p.inputs, grid=p.grid,
                              scalars=p.scalars, pointer_at=p.pointer_at))
    local = LocalExecutor(2)
    try:
        here = run_launches(jobs, local)
    finally:
        local.close()
    there = run_launches(jobs, RayExecutor(address=cluster.address))
    assert [o["binary"] for o in there] == [o["binary"] for o in here]
    assert [o["result"].stats.cycles for o in there] == [o["result"].stats.cycles for o in here]
    assert len({o["result"].stats.cycles for o in here}) == 3
    for o in there:
        np.testing.assert_array_equal(o["result"].outputs["C_ptr"], a + b)


def test_a_node_lost_mid_sweep_loses_no_row(cluster, sweep_dir, local_rows, monkeypatch):
    spec = str(write_spec(sweep_dir, SPEC))
    monkeypatch.setenv("MTIACC_CACHE_DIR", str(sweep_dir / "ray-cache"))
    second = next(n for n in cluster.list_all_nodes() if n is not cluster.head_node)
    done = []

    def progress(d, _total):
        done.append(d)

    def remove_after_first_rows():
        while not done or done[-1] < 2:
            time.sleep(0.05)
        cluster.remove_node(second)

    killer = threading.Thread(target=remove_after_first_rows, daemon=True)
    killer.start()
    s = run_sweep(spec, str(sweep_dir / "ray.jsonl"), executor="ray", address=cluster.address, progress=progress)
    killer.join(timeout=60)
    assert second not in cluster.list_all_nodes()
    assert (s.ok, s.errors) == (12, 0)
    assert read_rows(sweep_dir / "ray.jsonl") == local_rows
