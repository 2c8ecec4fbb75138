"""Mutated binaries, metadata and npz inputs (tests/fuzz_inputs.py, a seeded slice): `mtiasim run` and `mtiacc
disasm` either work or say `error:` and exit 3 or 4; never an internal error or a traceback.  Then one test per
crash the fuzzer found, each on a mutant made by hand."""
import io
import json
import struct
import zipfile

import numpy as np
import pytest

from tests.cli.helpers import clean, mtiacc, mtiasim
from tests.fuzz_inputs import SIM_FLAGS, build_corpus, mutant, replace_section, try_mutant, verdict

SLICE = 200     # mutants per run of the suite (about 10 s); `python tests/fuzz_inputs.py --count N` for more


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    work = tmp_path_factory.mktemp("fuzz")
    return work, build_corpus(work)


def test_the_corpus_runs(corpus, capsys):
    """The mutants start from binaries and inputs that work, so a mutant that fails says something."""
    work, seeds = corpus
    for seed in seeds:
        binary, inputs = work / f"{seed.name}.ok.bin", work / f"{seed.name}.ok.npz"
        binary.write_bytes(seed.binary)
        np.savez(inputs, **seed.inputs)
        rc, _, err = mtiasim(capsys, "run", binary, "--inputs", inputs, "-o", work / "o.npz", *SIM_FLAGS)
        assert rc == 0, err


def test_a_seeded_slice_of_mutants(corpus):
    work, seeds = corpus
    failures, codes = [], {}
    for k in range(SLICE):
        seed, desc, kind, data = mutant(0, k, seeds, ["bin", "meta", "npz"])
        for command, code, err, problem in try_mutant(seed, kind, data, work, codes):
            failures.append(f"mutant {k} ({seed.name}: {desc}): {problem} from {' '.join(command[:2])}:\n{err}")
    assert not failures, "\n".join(failures[:5])
    assert codes.get(0) and codes.get(3) and codes.get(4), codes   # the slice reaches runs, refusals and faults


def test_the_verdict_can_fail():
    assert verdict(70, "mtiasim: internal error") and verdict(1, "Traceback (most recent call last)")
    assert verdict(3, "something went wrong") == "no error: line" and verdict(3, "error: bad") is None


# --- the crashes the fuzzer found --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def add(corpus):
    work, seeds = corpus
    seed = seeds[0]
    binary, inputs = work / "add.bin", work / "add.npz"
    binary.write_bytes(seed.binary)
    np.savez(inputs, **seed.inputs)
    return binary, inputs, seed


def _npz_with(members, compressed=False) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED if compressed else zipfile.ZIP_STORED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


def _npy(arr, header_edit=None) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, arr)
    raw = buf.getvalue()
    if header_edit is None:
        return raw
    hlen = struct.unpack_from("<H", raw, 8)[0]
    head = header_edit(raw[10:10 + hlen].decode("latin1")).encode("latin1")
    return raw[:8] + struct.pack("<H", len(head)) + head + raw[10 + hlen:]


def _members(seed, name=None, npy=None):
    out = {f"{k}.npy": _npy(np.asarray(v)) for k, v in seed.inputs.items()}
    if name is not None:
        out[f"{name}.npy"] = npy
    return out


@pytest.mark.parametrize("edit, fragments", [
    # numpy allocated what the header declared: 8 TiB, or 26 GiB of '<U99999999' (MemoryError, exit 70)
    (lambda h: h.replace("'shape': (300,)", "'shape': (2199023255552,)"),
     ["array 'A_ptr'", "more than the limit of 16,777,216 (--max-input-bytes)"]),
    (lambda h: h.replace("'<f4'", "'<U99999999'"), ["array 'A_ptr'", "more than the limit"]),
    (lambda h: h.replace("'shape': (300,)", "'shape': (3000,)"),
     ["array 'A_ptr' is truncated: its header says (3000,) of float32 (12,000 bytes) but the archive holds 1,200"]),
    (lambda h: h.replace("'<f4'", "'|O'"), ["array 'A_ptr' holds Python objects (dtype object)"]),
    (lambda h: h.replace("'shape': (300,)", "'shape': (-1,)"), ["array 'A_ptr' has a negative size"]),
    (lambda h: h.replace("'<f4'", "'bogus'"), ["is not a readable .npz archive (member 'A_ptr.npy'"]),
])
def test_npz_headers_that_lie(capsys, add, tmp_path, edit, fragments):
    binary, _inputs, seed = add
    path = tmp_path / "in.npz"
    path.write_bytes(_npz_with(_members(seed, "A_ptr", _npy(seed.inputs["A_ptr"], edit))))
    err = clean(mtiasim(capsys, "run", binary, "--inputs", path, "-o", tmp_path / "o.npz", *SIM_FLAGS),
                *fragments, code=3)
    assert err.startswith(f"error: inputs file '{path}'"), err


def test_an_archive_member_with_an_unknown_compression_method(capsys, add, tmp_path):
    """A bit flipped in a zip header: zipfile raised NotImplementedError (exit 70)."""
    binary, _inputs, seed = add
    data = bytearray(_npz_with(_members(seed), compressed=True))
    at = data.index(b"PK\x03\x04")
    struct.pack_into("<H", data, at + 8, 99)                   # the local header's compression method
    cd = data.index(b"PK\x01\x02")
    struct.pack_into("<H", data, cd + 10, 99)                  # and the central directory's
    path = tmp_path / "in.npz"
    path.write_bytes(bytes(data))
    clean(mtiasim(capsys, "run", binary, "--inputs", path, "-o", tmp_path / "o.npz"),
          "is not a readable .npz archive (member 'A_ptr.npy': NotImplementedError", code=3)


def test_a_stored_grid_of_max_with_one_argument(capsys, add, tmp_path):
    """`max(N)` in the metadata's grid: TypeError from Python's max (exit 70)."""
    binary, inputs, seed = add
    from mtiacc.asm.elf import read_elf
    meta = read_elf(seed.binary).meta
    meta["grid"] = ["max(N)"]
    bad = tmp_path / "bad.bin"
    bad.write_bytes(replace_section(seed.binary, ".mtia.meta", json.dumps(meta).encode()))
    clean(mtiasim(capsys, "run", bad, "--inputs", inputs, "-o", tmp_path / "o.npz"),
          "grid expression 'max(N)': max takes two or more arguments", code=3)


def test_a_debug_entry_of_an_unknown_type(capsys, corpus, tmp_path):
    """A device_assert entry whose 'type' is not a type: KeyError in the simulator when the assert ran."""
    work, seeds = corpus
    seed = next(s for s in seeds if s.name == "checked")
    from mtiacc.asm.elf import read_elf
    meta = read_elf(seed.binary).meta
    meta["strings"][0]["type"] = "tensordesc<fp32[4]>"
    bad = tmp_path / "bad.bin"
    bad.write_bytes(replace_section(seed.binary, ".mtia.meta", json.dumps(meta).encode()))
    inputs = tmp_path / "in.npz"
    np.savez(inputs, **seed.inputs)
    for result in (mtiasim(capsys, "run", bad, "--inputs", inputs, "-o", tmp_path / "o.npz"),
                   mtiacc(capsys, "disasm", bad)):
        clean(result, "metadata field 'strings[0].type' must be one of 'i1', ", code=3)


def test_metadata_nested_too_deeply(capsys, add, tmp_path):
    """`[[[[...` in the metadata: RecursionError in the JSON reader (exit 70)."""
    binary, inputs, seed = add
    bad = tmp_path / "bad.bin"
    bad.write_bytes(replace_section(seed.binary, ".mtia.meta", b'{"grid": ' + b"[" * 100_000 + b"}"))
    for result in (mtiasim(capsys, "run", bad, "--inputs", inputs, "-o", tmp_path / "o.npz"),
                   mtiacc(capsys, "disasm", bad)):
        clean(result, "section .mtia.meta is not valid JSON (nested too deeply)", code=3)


@pytest.mark.parametrize("addr, entry, fragment", [
    ((1 << 64) - 16, (1 << 64) - 16, "must be 4-byte aligned and below the halt address 0x7ffffff0"),   # was exit 70
    (0x7FFFFFF0, 0x7FFFFFF0, "must be 4-byte aligned and below the halt address"),     # ran until --max-cycles
    (0, 2, "the entry address 0x2 is not an instruction of .text"),                    # was a kernel fault
])
def test_text_placed_where_no_program_can_run(capsys, add, tmp_path, addr, entry, fragment):
    binary, inputs, seed = add
    from tests.fuzz_inputs import sections
    data = bytearray(seed.binary)
    struct.pack_into("<Q", data, sections(seed.binary)[".text"][0] + 16, addr)
    struct.pack_into("<Q", data, 24, entry)
    bad = tmp_path / "bad.bin"
    bad.write_bytes(bytes(data))
    clean(mtiasim(capsys, "run", bad, "--inputs", inputs, "-o", tmp_path / "o.npz", *SIM_FLAGS), fragment, code=3)
