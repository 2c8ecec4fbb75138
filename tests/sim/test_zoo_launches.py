"""benchmarks/zoo/launches.py: a recorded launch replays with the same digest, and a launch whose results differ
from the recorded ones is reported as changed (exit status 1)."""
import pickle
from pathlib import Path

import numpy as np

import mtiasim.runner as runner
from benchmarks.zoo import launches
from mtiacc.driver import Options, compile_kernel

ROOT = Path(__file__).resolve().parents[2]


def test_record_then_replay(tmp_path, capsys):
    opts = Options(defines={"BLOCK_SIZE": "64"}, grid="cdiv(N, BLOCK_SIZE)")
    binary = compile_kernel(str(ROOT / "examples" / "vector_add.py"), opts).binary
    rng = np.random.default_rng(0)
    n = 300
    data = {"A_ptr": rng.standard_normal(n).astype(np.float32), "B_ptr": rng.standard_normal(n).astype(np.float32),
            "C_ptr": np.zeros(n, np.float32), "N": np.array(n, np.int32)}
    folder = tmp_path / "vadd"
    real = runner.run
    with launches.recording(folder) as count:
        result = runner.run(binary, data)
    assert runner.run is real and count[0] == 1
    assert np.array_equal(result.outputs["C_ptr"], data["A_ptr"] + data["B_ptr"])
    [(name, cpu, cycles, same)] = launches.replay(folder)
    assert (name, cycles, same) == ("0000", result.stats.cycles, True) and cpu >= 0
    assert launches.main(["replay", "vadd", "--dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "0000" in out and "same" in out and "vadd: 1 launches" in out and "0 changed" in out
    # a launch whose inputs no longer give the recorded results
    path = folder / "0000.pkl"
    rec = pickle.loads(path.read_bytes())
    b, inputs, args, kwargs = pickle.loads(rec["call"])
    inputs["A_ptr"] = inputs["A_ptr"] + 1
    rec["call"] = pickle.dumps((b, inputs, args, kwargs))
    path.write_bytes(pickle.dumps(rec))
    assert launches.main(["replay", "vadd", "--dir", str(tmp_path)]) == 1
    assert "CHANGED" in capsys.readouterr().out
