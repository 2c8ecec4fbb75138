"""The machine description (mtiacc/machine/): the schema, the loader's errors, overrides and the digest, and
the compiler's and the simulator's views of one description."""
import pytest

from mtiacc.diagnostics import UsageError, UserError
from mtiacc.machine import MACHINE_DIR, keys, load
from mtiacc.machine.simulator import load_config
from mtiacc.target import load_target

BUILTIN = (MACHINE_DIR / "mtia2i.yaml").read_text()


def machine_file(tmp_path, old, new):
    """The built-in file with one line's text replaced."""
    assert old in BUILTIN
    path = tmp_path / "m.yaml"
    path.write_text(BUILTIN.replace(old, new, 1))
    return path


def error_at(path, match):
    """The UserError loading ``path`` raises, its message matching; returns the line it points at."""
    with pytest.raises(UserError, match=match) as e:
        load(str(path))
    assert e.value.loc is not None and e.value.loc.file == str(path), e.value.render()
    return path.read_text().splitlines()[e.value.loc.line - 1]


def test_the_builtin_machine_declares_every_key_of_the_schema():
    m = load()
    assert m.name == "mtia2i" and m.path == str(MACHINE_DIR / "mtia2i.yaml")
    one_of = {k for k, d in keys().items() if d.one_of_group}
    assert set(keys()) - one_of <= set(m.values)
    assert m["pe.local_memory_bytes"] == 393216 and m["grid.x"] * m["grid.y"] == 64
    assert m["clock_hz"] == 1.35e9 and isinstance(m["clock_hz"], float)     # '1.35e9' is text to YAML 1.1


def test_an_unknown_key_names_the_nearest_key_and_its_line(tmp_path):
    path = machine_file(tmp_path, "  local_memory_bytes: 393216", "  local_memroy_bytes: 393216")
    line = error_at(path, r"unknown key 'pe.local_memroy_bytes' \(did you mean 'pe.local_memory_bytes'\?\)")
    assert line.startswith("  local_memroy_bytes:")


def test_an_unknown_timing_class_is_an_error(tmp_path):
    path = machine_file(tmp_path, "  VFALU:   {issue: 1, latency: 4}", "  VFAlu:   {issue: 1, latency: 4}")
    assert error_at(path, r"unknown key 'timing.VFAlu'").startswith("  VFAlu:")


def test_a_value_of_the_wrong_type_names_the_key_and_its_unit(tmp_path):
    path = machine_file(tmp_path, "grid: {x: 8, y: 8}", "grid: {x: eight, y: 8}")
    line = error_at(path, r"'grid.x' must be a positive integer \(PEs\), got 'eight'")
    assert line.startswith("grid:")
    path = machine_file(tmp_path, "    setup_cycles: 32", "    setup_cycles: [32]")
    error_at(path, r"'memory.dma.setup_cycles' must be a non-negative number \(cycles\), got a list")
    path = machine_file(tmp_path, "    vlen_bits: 512", "    vlen_bits: 500")
    error_at(path, r"'pe.vector.vlen_bits' must be a positive integer, a multiple of 64 \(bits\), got 500")


def test_a_missing_key_is_an_error_at_its_section(tmp_path):
    """No silent default: the compiler assumed an 8 x 8 grid when the file had none, the simulator required it."""
    path = machine_file(tmp_path, "    latency_ns: 20               # ASSUMPTION\n", "")
    line = error_at(path, r"missing key 'memory.sram.latency_ns' \(a non-negative number \(ns\)")
    assert line.startswith("  sram:")
    nogrid = machine_file(tmp_path, "grid: {x: 8, y: 8}", "")
    for view in (load_target, load_config):
        with pytest.raises(UserError, match="missing key 'grid.x'"):
            view(str(nogrid))


def test_a_key_given_twice_is_an_error(tmp_path):
    path = machine_file(tmp_path, "clock_hz: 1.35e9", "clock_hz: 1.35e9\nclock_hz: 1.0e9")
    assert error_at(path, r"'clock_hz' is given twice").startswith("clock_hz: 1.0e9")


def test_bad_yaml_is_an_error_at_its_line(tmp_path):
    path = machine_file(tmp_path, "  stack_bytes: 4096", "\tstack_bytes: 4096")
    with pytest.raises(UserError, match="machine description is not valid YAML") as e:
        load(str(path))
    assert path.read_text().splitlines()[e.value.loc.line - 1].startswith("\tstack_bytes")


def test_unknown_machine_names_the_builtin_ones(tmp_path):
    with pytest.raises(UserError, match=r"unknown machine 'gpu' \(built in: mtia2i"):
        load("gpu")
    with pytest.raises(UserError, match="machine description '.*nope.yaml' does not exist"):
        load(str(tmp_path / "nope.yaml"))


def test_overrides_change_one_key_and_are_checked():
    m = load(None, ["memory.dram.bw_bytes_per_s=409.6e9", "grid.x=4"])
    assert m["memory.dram.bw_bytes_per_s"] == 409.6e9 and m["grid.x"] == 4
    assert m.overrides == (("memory.dram.bw_bytes_per_s", "409.6e9"), ("grid.x", 4))
    assert load(None, {"pe.local_memory_bytes": 262144})["pe.local_memory_bytes"] == 262144
    sin = load(None, ["se.functions.sin.bits=20"]).section("se.functions")["sin"]
    assert sin == {"bits": 20}                     # bits replaces abs_bits
    for text, match in [
        ("grid.x", r"--set 'grid.x' must be KEY=VALUE"),
        ("grid.z=2", r"--set grid.z=2: unknown key 'grid.z'"),
        ("memory.dram.bw_byte_per_s=1e9", r"unknown key .*did you mean 'memory.dram.bw_bytes_per_s'"),
        ("memory.dram=1", r"'memory.dram' is a section: set one of its keys"),
        ("grid.x=0", r"--set grid.x=0: 'grid.x' must be a positive integer \(PEs\), got 0"),
        ("grid.x=2.5", r"'grid.x' must be a positive integer \(PEs\), got 2.5"),
        ("grid.x=[1, 2]", r"the value must be a single number or name, not a YAML list"),
        ("pe.stack_bytes=393216", r"the stack \(393216 bytes\) does not fit in local memory"),
    ]:
        with pytest.raises(UsageError, match=match):
            load(None, [text])


def test_the_digest_names_the_values_not_the_spelling(tmp_path):
    base = load()
    plain = tmp_path / "plain.yaml"
    plain.write_text("\n".join(line.split("#")[0].rstrip() for line in BUILTIN.splitlines()
                               if line.split("#")[0].strip()).replace("1.35e9", "1350000000.0"))
    assert load(str(plain)).digest == base.digest
    assert load(None, ["pe.local_memory_bytes=393216"]).digest == base.digest
    changed = load(None, ["memory.dram.bw_bytes_per_s=409.6e9"]).digest
    assert changed != base.digest and len(changed) == 64
    assert load(None, ["memory.dram.bw_bytes_per_s=409.6e9"]).digest == changed


def test_the_views_are_of_one_description():
    t, c = load_target(None, ("grid.y=2", "pe.local_memory_bytes=262144")), load_config(
        None, ("grid.y=2", "pe.local_memory_bytes=262144"))
    assert t.n_pes == c.n_pes == 16
    assert t.lmem_bytes == c.local_memory_bytes == 262144
    assert t.machine.digest == c.machine.digest
    assert dict(t.timing)["VALU"] == (1, 2) and c.timing["VALU"] == (1.0, 2.0)
