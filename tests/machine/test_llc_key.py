"""``memory.sram.llc_bytes``: the SRAM's part that caches DRAM, in 32 MB steps, at most the SRAM."""
import pytest

from mtiacc.diagnostics import UsageError, UserError
from mtiacc.machine import MACHINE_DIR, load
from mtiacc.machine.simulator import load_config

BUILTIN = (MACHINE_DIR / "mtia2i.yaml").read_text()


def test_the_default_is_half_the_sram_and_overrides_set_it():
    assert load_config().llc_bytes == 128 << 20 and load_config().sram_bytes == 256 << 20
    assert load_config(None, ["memory.sram.llc_bytes=0"]).llc_bytes == 0
    assert load_config(None, ["memory.sram.llc_bytes=67108864"]).llc_bytes == 64 << 20
    assert load_config(None, {"memory.sram.llc_bytes": 256 << 20}).llc_bytes == 256 << 20


@pytest.mark.parametrize("text,match", [
    ("memory.sram.llc_bytes=1000", r"--set memory.sram.llc_bytes=1000: 'memory.sram.llc_bytes' must be a "
                                   r"non-negative integer, a multiple of 33554432 \(bytes\), got 1000"),
    ("memory.sram.llc_bytes=-33554432", r"must be a non-negative integer, a multiple of 33554432 \(bytes\), "
                                        r"got -33554432"),
    ("memory.sram.llc_bytes=301989888", r"--set memory.sram.llc_bytes=301989888: the LLC \(301989888 bytes, "
                                        r"'memory.sram.llc_bytes'\) is larger than the SRAM \(268435456 bytes"),
])
def test_an_llc_off_the_steps_or_beyond_the_sram_is_refused(text, match):
    with pytest.raises(UsageError, match=match):
        load(None, [text])


def test_the_file_is_checked_too_at_the_key(tmp_path):
    path = tmp_path / "m.yaml"
    path.write_text(BUILTIN.replace("    llc_bytes: 134217728", "    llc_bytes: 536870912", 1))
    with pytest.raises(UserError, match=r"the LLC \(536870912 bytes, 'memory.sram.llc_bytes'\) is larger than "
                                        r"the SRAM \(268435456 bytes, 'memory.sram.bytes'\)") as e:
        load(str(path))
    assert path.read_text().splitlines()[e.value.loc.line - 1] == "    llc_bytes: 536870912"
    path.write_text(BUILTIN.replace("    llc_bytes: 134217728", "    llc_bytes: 3.5e7", 1))
    with pytest.raises(UserError, match=r"'memory.sram.llc_bytes' must be .* a multiple of 33554432"):
        load(str(path))
