"""The sweep spec: what it accepts, its points and their order, and the errors a user meets."""
import pytest

from mtiacc.diagnostics import UserError
from mtiacc.sweep.spec import load_spec, points

from .conftest import write_spec


def test_points_are_the_product_in_the_spec_order(sweep_dir):
    spec = load_spec(str(write_spec(sweep_dir, """
        kernel: add.py
        grid: "cdiv(N, BLOCK_SIZE)"
        defines: {BLOCK_SIZE: [256, 1024]}
        inputs: [big.npz, small.npz]
        set: {memory.dram.bw_bytes_per_s: [1.0e11, 2.0e11, 4.0e11]}
    """)))
    pts = points(spec)
    assert len(pts) == 12
    # defines come first in the file, then inputs, then set: set varies fastest
    assert [(p.defines["BLOCK_SIZE"], p.inputs, p.set["memory.dram.bw_bytes_per_s"]) for p in pts[:4]] == [
        (256, "big.npz", 1.0e11), (256, "big.npz", 2.0e11), (256, "big.npz", 4.0e11), (256, "small.npz", 1.0e11)]
    assert pts[-1].as_json() == {"defines": {"BLOCK_SIZE": 1024}, "set": {"memory.dram.bw_bytes_per_s": 4.0e11},
                                 "args": {}, "inputs": "small.npz"}
    assert [p.index for p in pts] == list(range(12))


def test_single_values_are_not_axes(sweep_dir):
    spec = load_spec(str(write_spec(sweep_dir, """
        kernel: add.py
        inputs: big.npz
        defines: {BLOCK_SIZE: 512}
    """)))
    assert [p.as_json() for p in points(spec)] == [
        {"defines": {"BLOCK_SIZE": 512}, "set": {}, "args": {}, "inputs": "big.npz"}]


@pytest.mark.parametrize("text, message", [
    ("kernel: add.py\ninputs: big.npz\nblock: 3\n", "unknown key 'block'"),
    ("inputs: big.npz\n", "'kernel:' must name the Triton source file"),
    ("kernel: nope.py\ninputs: big.npz\n", "kernel 'nope.py' does not exist"),
    ("kernel: add.py\n", "'inputs:' must name an .npz file"),
    ("kernel: add.py\ninputs: [big.npz, gone.npz]\n", "inputs 'gone.npz' do not exist"),
    ("kernel: add.py\ninputs: big.npz\noptions: {opt_level: fast}\n", "option 'opt_level' must be int"),
    ("kernel: add.py\ninputs: big.npz\noptions: {unroll: 2}\n", "unknown option 'unroll'"),
    ("kernel: add.py\ninputs: big.npz\ndefines: {BLOCK_SIZE: []}\n", "'defines.BLOCK_SIZE' has an empty list"),
    ("kernel: add.py\ninputs: big.npz\nset: [1, 2]\n", "'set:' must be a mapping"),
    ("- 1\n- 2\n", "a sweep spec is a mapping"),
])
def test_spec_errors_name_the_file_and_the_key(sweep_dir, text, message):
    path = sweep_dir / "spec.yaml"
    path.write_text(text)
    with pytest.raises(UserError) as e:
        load_spec(str(path))
    assert str(path) in e.value.message
    assert message in e.value.message


def test_spec_that_is_not_yaml_points_at_the_line(sweep_dir):
    path = sweep_dir / "spec.yaml"
    path.write_text("kernel: add.py\ninputs: [big.npz\n")
    with pytest.raises(UserError) as e:
        load_spec(str(path))
    assert e.value.message.startswith("sweep spec is not valid YAML")
    assert (e.value.loc.file, e.value.loc.line, e.value.loc.col) == (str(path), 3, 1)
