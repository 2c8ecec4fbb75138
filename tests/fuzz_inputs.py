"""Mutation fuzzing of everything the tools read besides kernels: binaries, their metadata, npz inputs.

    python tests/fuzz_inputs.py [--count N] [--seed S] [--out DIR] [--kinds bin,meta,npz] [--verbose]

Real binaries (examples compiled at start) and their inputs are mutated, seeded: bit flips, byte inserts and
deletes, truncation, ELF header and section table fields set to odd values; the metadata JSON with fields
deleted, duplicated, of another type, huge, negative or unicode; npz archives with arrays of another dtype,
shape or byte order, missing or extra, headers that lie about the shape.  Each mutant goes through
``mtiasim run`` and ``mtiacc disasm`` (binaries) or ``mtiasim run --inputs`` (npz), in-process.

The property: a tool either runs (a mutant may still be valid) or exits 3 (bad input) or 4 (kernel fault)
with an ``error:`` line; never 70 (internal error), never a traceback, never a hang.  Each failing mutant is
written to ``--out`` (default ``fuzz-failures/``) with a JSON note of the mutation, the command and its output;
mutant K of seed S is the same on every run (``--seed S --first K --count 1`` replays it).
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import signal
import struct
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

OK_CODES = (0, 3, 4)
SIM_FLAGS = ["--max-cycles", "200000", "--timeout", "10", "--max-input-bytes", str(1 << 24)]
HANG_SECONDS = 60

ASSERT_KERNEL = '''import triton
import triton.language as tl


@triton.jit
def checked(X, Y, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < N, other=0.0)
    tl.device_assert(x >= 0, "x must be non-negative")
    tl.store(Y + offs, x * 2.0, mask=offs < N)
'''


# --- the corpus: real binaries and their inputs -------------------------------------------------------------

class Seed:
    """A binary that runs, with inputs it runs on."""

    def __init__(self, name: str, binary: bytes, inputs: Dict[str, np.ndarray]):
        self.name, self.binary, self.inputs = name, binary, inputs


def build_corpus(workdir: Path) -> List[Seed]:
    from mtiacc.driver import Options, compile_kernel
    rng = np.random.default_rng(0)
    out = []
    add = compile_kernel(str(ROOT / "examples" / "vector_add.py"),
                         Options(defines={"BLOCK_SIZE": "128"}, grid="cdiv(N, BLOCK_SIZE)")).binary
    a = rng.standard_normal(300).astype(np.float32)
    out.append(Seed("vector_add", add, {"A_ptr": a, "B_ptr": a[::-1].copy(), "C_ptr": np.zeros(300, np.float32),
                                        "N": np.int32(300)}))
    soft = compile_kernel(str(ROOT / "examples" / "softmax.py"),
                          Options(defines={"BLOCK_SIZE": "64"}, signature="*fp32,*fp32,i32,i32,i32",
                                  grid="input_ptr.shape[0]")).binary
    x = rng.standard_normal((5, 40)).astype(np.float32)
    out.append(Seed("softmax", soft, {"output_ptr": np.zeros_like(x), "input_ptr": x, "input_row_stride":
                                      np.int32(40), "output_row_stride": np.int32(40), "n_cols": np.int32(40)}))
    src = workdir / "checked.py"
    src.write_text(ASSERT_KERNEL)
    chk = compile_kernel(str(src), Options(defines={"BLOCK": "32"}, grid="cdiv(N, BLOCK)")).binary
    y = np.abs(rng.standard_normal(70)).astype(np.float32)
    out.append(Seed("checked", chk, {"X": y, "Y": np.zeros_like(y), "N": np.int32(70)}))
    return out


# --- ELF surgery ------------------------------------------------------------------------------------------

EHDR_FIELDS = [("e_ident[EI_CLASS]", 4, "B"), ("e_ident[EI_DATA]", 5, "B"), ("e_type", 16, "H"),
               ("e_machine", 18, "H"), ("e_version", 20, "I"), ("e_entry", 24, "Q"), ("e_phoff", 32, "Q"),
               ("e_shoff", 40, "Q"), ("e_flags", 48, "I"), ("e_ehsize", 52, "H"), ("e_phentsize", 54, "H"),
               ("e_phnum", 56, "H"), ("e_shentsize", 58, "H"), ("e_shnum", 60, "H"), ("e_shstrndx", 62, "H")]
SHDR_FIELDS = [("sh_name", 0, "I"), ("sh_type", 4, "I"), ("sh_flags", 8, "Q"), ("sh_addr", 16, "Q"),
               ("sh_offset", 24, "Q"), ("sh_size", 32, "Q"), ("sh_link", 40, "I"), ("sh_info", 44, "I"),
               ("sh_addralign", 48, "Q"), ("sh_entsize", 56, "Q")]
SHDR_SIZE = 64


def sections(data: bytes) -> Dict[str, Tuple[int, int, int]]:
    """name -> (header offset, data offset, size), for a well-formed binary."""
    shoff, = struct.unpack_from("<Q", data, 40)
    shnum, shstrndx = struct.unpack_from("<HH", data, 60)
    hdr = lambda i: shoff + i * SHDR_SIZE  # noqa: E731
    str_off, str_size = struct.unpack_from("<QQ", data, hdr(shstrndx) + 24)
    names = data[str_off:str_off + str_size]
    out = {}
    for i in range(1, shnum):
        name_off, = struct.unpack_from("<I", data, hdr(i))
        off, size = struct.unpack_from("<QQ", data, hdr(i) + 24)
        out[names[name_off:names.index(b"\0", name_off)].decode()] = (hdr(i), off, size)
    return out


def replace_section(data: bytes, name: str, content: bytes) -> bytes:
    """``data`` with section ``name`` holding ``content`` (appended at the end; the header points there)."""
    hdr, _off, _size = sections(data)[name]
    out = bytearray(data) + content
    struct.pack_into("<QQ", out, hdr + 24, len(data), len(content))
    return bytes(out)


def interesting(rng: random.Random, width: int, size_hint: int = 0) -> int:
    top = (1 << (8 * width)) - 1
    return rng.choice([0, 1, 2, 3, 4, 7, 8, 63, 64, 0x7F, 0x80, 0xFF, top, top >> 1, (top >> 1) + 1, top - 1,
                       size_hint, size_hint + 1, size_hint - 1 & top, rng.randrange(top + 1)]) & top


# --- mutators: each takes (rng, seed) and returns (description, kind, bytes) ---------------------------------

def m_bitflip(rng, seed):
    data = bytearray(seed.binary)
    n = rng.choice([1, 1, 2, 4, 8, 32])
    where = rng.choice(["anywhere", "header", "sections"])
    lo, hi = {"anywhere": (0, len(data)), "header": (0, 64)}.get(where, (struct.unpack_from("<Q", data, 40)[0],
                                                                          len(data)))
    for _ in range(n):
        i = rng.randrange(lo, hi)
        data[i] ^= 1 << rng.randrange(8)
    return f"{n} bit flip(s) in the {where}", "bin", bytes(data)


def m_bytes(rng, seed):
    data = bytearray(seed.binary)
    op = rng.choice(["insert", "delete", "truncate", "overwrite"])
    i = rng.randrange(len(data))
    n = rng.choice([1, 2, 4, 8, 16, 100])
    if op == "insert":
        data[i:i] = bytes(rng.randrange(256) for _ in range(n))
    elif op == "delete":
        del data[i:i + n]
    elif op == "truncate":
        del data[i:]
    else:
        data[i:i + n] = bytes(rng.choice([0, 0xFF, rng.randrange(256)]) for _ in range(n))
    return f"{op} {n} byte(s) at {i}", "bin", bytes(data)


def m_ehdr(rng, seed):
    data = bytearray(seed.binary)
    name, off, fmt = rng.choice(EHDR_FIELDS)
    v = interesting(rng, struct.calcsize(fmt), len(data))
    struct.pack_into("<" + fmt, data, off, v)
    return f"ELF header {name} = {v:#x}", "bin", bytes(data)


def m_shdr(rng, seed):
    data = bytearray(seed.binary)
    secs = sections(seed.binary)
    sec = rng.choice(sorted(secs))
    name, off, fmt = rng.choice(SHDR_FIELDS)
    v = interesting(rng, struct.calcsize(fmt), len(data))
    struct.pack_into("<" + fmt, data, secs[sec][0] + off, v)
    return f"section {sec} {name} = {v:#x}", "bin", bytes(data)


def m_text_place(rng, seed):
    """.text moved (its address and the entry together, so the ELF reader still accepts it)."""
    data = bytearray(seed.binary)
    hdr = sections(seed.binary)[".text"][0]
    addr = rng.choice([2, 0x1000, 0x7FFFFF00, 0x7FFFFFF0, 1 << 40, (1 << 64) - 16, 0x10000000])
    struct.pack_into("<Q", data, hdr + 16, addr)
    struct.pack_into("<Q", data, 24, addr + rng.choice([0, 0, 4, 2]))
    return f".text at {addr:#x}", "bin", bytes(data)


def m_section_content(rng, seed):
    secs = sections(seed.binary)
    sec = rng.choice([".text", ".mtia.lines", ".symtab", ".strtab", ".text", ".mtia.lines"])
    _h, off, size = secs[sec]
    body = bytearray(seed.binary[off:off + size])
    op = rng.choice(["flip", "cut", "grow", "random-records"])
    if op == "flip" and body:
        for _ in range(rng.choice([1, 4, 16])):
            body[rng.randrange(len(body))] ^= 1 << rng.randrange(8)
    elif op == "cut":
        del body[rng.randrange(len(body) + 1):]
    elif op == "grow":
        body += bytes(rng.randrange(256) for _ in range(rng.choice([1, 3, 4, 12, 24])))
    else:   # whole records of interesting numbers (lines: offset, line, column; text: instruction words)
        body = bytearray(b"".join(struct.pack("<I", interesting(rng, 4, size)) for _ in range(rng.choice([3, 6, 12]))))
    return f"{sec} content: {op}", "bin", replace_section(seed.binary, sec, bytes(body))


ODD_VALUES = [None, True, False, 0, -1, 1, 1.5, -2.5, 2 ** 31, 2 ** 63, 2 ** 64, -2 ** 63 - 1, 10 ** 30, 1e308,
              float("inf"), float("nan"), "", "x", "é", "\u202e", "\U0001F600", "N" * 5000, [], {}, [1, 2],
              {"a": 1}, [[]], ["N"], "A_ptr", "*fp32", "i32", "tensordesc<fp32[4]>", "*bogus", "0", "-1"]
GRID_EXPRS = ["N*N*N*N*N*N*N*N", "cdiv(N, 0)", "1 // 0", "N % 0", "__import__('os').getcwd()", "N ** N", "-5",
              "(", "A_ptr.shape[7]", "A_ptr.shape[-1]", "min()", "max(N)", "9" * 400, "n_cols.shape[0]",
              "input_ptr.shape[0] * 2 ** 40", "X.shape", "cdiv(N)", "BLOCK_SIZE - BLOCK_SIZE", "0"]


def _paths(obj, prefix=()):
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _paths(v, prefix + (i,))


def _parent(meta, path):
    cur = meta
    for k in path[:-1]:
        cur = cur[k]
    return cur


def _meta_of(seed):
    from mtiacc.asm.elf import read_elf
    return read_elf(seed.binary).meta


def m_meta(rng, seed):
    meta = _meta_of(seed)
    paths = [p for p in _paths(meta) if p and p[0] != "source"] + [("source",)]
    path = rng.choice(paths)
    op = rng.choice(["delete", "type", "type", "odd-grid", "rename", "duplicate-param", "params-order",
                     "extra-param", "unicode-key"])
    desc = f"{op} at {'/'.join(map(str, path))}"
    if op == "delete":
        parent = _parent(meta, path)
        del parent[path[-1]]
    elif op == "type":
        _parent(meta, path)[path[-1]] = rng.choice(ODD_VALUES)
    elif op == "odd-grid":
        meta["grid"] = [rng.choice(GRID_EXPRS) for _ in range(rng.choice([1, 1, 2, 3]))]
        desc = f"grid = {meta['grid']}"
    elif op == "rename" and isinstance(meta.get("params"), list) and meta["params"]:
        p = rng.choice(meta["params"])
        p["name"] = rng.choice(["", "é", "x y", "A_ptr", "N", "9", "n" * 300, "input_ptr", "X"])
        desc = f"param renamed to {p['name']!r}"
    elif op == "duplicate-param" and meta.get("params"):
        meta["params"].insert(rng.randrange(len(meta["params"]) + 1), dict(rng.choice(meta["params"])))
    elif op == "params-order" and meta.get("params"):
        rng.shuffle(meta["params"])
    elif op == "extra-param":
        meta.setdefault("params", []).append({"name": "extra", "type": rng.choice(
            ["*fp32", "i32", "fp16", "*fp8e5", "tensordesc<fp16[8, 8]>", "tensordesc<fp16[]>", "*i1", "u64",
             "bf16", "tensordesc<fp32[0]>", "tensordesc<fp32[99999999999]>"])})
        desc = f"extra param {meta['params'][-1]}"
    else:
        meta["\u00e9" * rng.randrange(1, 4)] = rng.choice(ODD_VALUES)
    text = json.dumps(meta, ensure_ascii=False)
    if rng.random() < 0.2:   # a field twice: JSON readers keep the last
        key = rng.choice(["params", "grid", "kernel", "lmem_bytes", "format_version", "target"])
        text = text[:-1] + f', "{key}": {json.dumps(rng.choice(ODD_VALUES))}' + "}"
        desc += f", then '{key}' again"
    return desc, "bin", replace_section(seed.binary, ".mtia.meta", text.encode("utf-8", "surrogatepass"))


def m_meta_text(rng, seed):
    text = bytearray(json.dumps(_meta_of(seed), ensure_ascii=False).encode())
    op = rng.choice(["flip", "truncate", "insert", "bom", "not-utf8"])
    if op == "flip":
        for _ in range(rng.choice([1, 2, 8])):
            text[rng.randrange(len(text))] ^= 1 << rng.randrange(8)
    elif op == "truncate":
        del text[rng.randrange(len(text)):]
    elif op == "insert":
        i = rng.randrange(len(text))
        text[i:i] = rng.choice([b"[", b"{", b'"', b"\\", b"1e999", b"NaN", b"[" * 10000, b"\x00"])
    elif op == "bom":
        text[0:0] = b"\xef\xbb\xbf"
    else:
        text[rng.randrange(len(text))] = 0xFF
    return f"metadata text: {op}", "bin", replace_section(seed.binary, ".mtia.meta", bytes(text))


DTYPES = ["<f2", "<f4", "<f8", ">f4", ">f8", ">i4", "<i1", "<i2", "<i4", "<i8", "<u1", "<u2", "<u8", "|b1",
          "<c8", "<U3", "|S3", "|V4", "<M8[s]", "<m8[s]", [("a", "<f4"), ("b", "<i4")]]


def _npy(arr: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, arr, allow_pickle=True)
    return buf.getvalue()


def _zip(members: Dict[str, bytes], compressed: bool) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED if compressed else zipfile.ZIP_STORED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


def m_npz(rng, seed):
    arrays = {k: np.asarray(v) for k, v in seed.inputs.items()}
    names = sorted(arrays)
    name = rng.choice(names)
    a = arrays[name]
    op = rng.choice(["dtype", "dtype", "shape", "drop", "extra", "rename", "value", "object", "fortran",
                     "empty", "header-shape", "header-descr", "short-data", "scalar-array"])
    desc = f"{op} of '{name}'"
    members = None
    if op == "dtype":
        dt = rng.choice(DTYPES)
        try:
            arrays[name] = a.astype(dt)
        except (TypeError, ValueError):
            arrays[name] = np.zeros(a.shape, dt)
        desc += f" -> {np.dtype(dt)}"
    elif op == "shape":
        shape = rng.choice([(0,), (1,), (a.size, 1), (1, a.size), (2, 3, 5), (a.size * 3,), (a.size // 2,)])
        arrays[name] = np.resize(a, shape)
        desc += f" -> {shape}"
    elif op == "drop":
        del arrays[name]
    elif op == "extra":
        arrays[rng.choice(["extra", "é", "x" * 200, "N", "A_ptr"])] = np.arange(3)
    elif op == "rename":
        arrays[rng.choice(["é", "", "a/b", "..", name.upper(), name + " "])] = arrays.pop(name)
    elif op == "value":
        v = rng.choice([0, -1, 2 ** 31 - 1, -2 ** 31, 2 ** 40, 7, float("nan"), float("inf"), 1e30])
        arrays[name] = np.array(v, dtype=a.dtype if a.ndim == 0 and a.dtype.kind == "f" else
                                (np.int64 if isinstance(v, int) else np.float64))
        desc += f" = {v}"
    elif op == "object":
        arrays[name] = np.array([1, "two", None], dtype=object)
    elif op == "fortran":
        arrays[name] = np.asfortranarray(np.resize(a, (3, max(a.size // 3, 1))))
    elif op == "empty":
        arrays = {}
    elif op == "scalar-array":
        arrays[name] = np.resize(a, rng.choice([(2,), (1, 1), ()]))
    if op in ("header-shape", "header-descr", "short-data"):
        members = {f"{k}.npy": _npy(v) for k, v in arrays.items()}
        raw = members[f"{name}.npy"]
        hlen = struct.unpack_from("<H", raw, 8)[0]
        header = raw[10:10 + hlen].decode("latin1")
        if op == "header-shape":
            shape = rng.choice(["(1099511627776,)", "(-1,)", "(4294967296, 4294967296)", "(0,)", "('a',)",
                                "(3, 1000)", "()"])
            import re
            header = re.sub(r"'shape': \([^)]*\)", f"'shape': {shape}", header)
            desc += f" header shape {shape}"
        elif op == "header-descr":
            descr = rng.choice(["'|O'", "'<f16'", "'<i3'", "'bogus'", "[('a', '<f4')]", "'>f4'", "'<U99999999'"])
            import re
            header = re.sub(r"'descr': '[^']*'", f"'descr': {descr}", header)
            desc += f" header descr {descr}"
        head = header.encode("latin1")
        raw = raw[:8] + struct.pack("<H", len(head)) + head + raw[10 + hlen:]
        if op == "short-data":
            raw = raw[:len(raw) - rng.randrange(1, 9)]
        members[f"{name}.npy"] = raw
    if members is None:
        members = {f"{k}.npy": _npy(v) for k, v in arrays.items()}
    data = _zip(members, compressed=rng.random() < 0.5)
    if rng.random() < 0.15:   # and the archive's bytes
        data = bytearray(data)
        for _ in range(rng.choice([1, 4])):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        data = bytes(data)
        desc += ", archive bits flipped"
    return desc, "npz", data


MUTATORS: Dict[str, List[Callable]] = {
    "bin": [m_bitflip, m_bytes, m_ehdr, m_shdr, m_section_content, m_text_place],
    "meta": [m_meta, m_meta, m_meta_text],
    "npz": [m_npz],
}


# --- running the tools in-process ------------------------------------------------------------------------

class Hang(Exception):
    pass


def _alarm(_sig, _frame):
    raise Hang()


def run_tool(tool: str, args: List[str]) -> Tuple[int, str, str]:
    """Exit code, stdout and stderr of ``mtiasim`` / ``mtiacc`` run in-process (a hang is code -1)."""
    from mtiacc.cli import main as mtiacc_main
    from mtiasim.cli import main as mtiasim_main
    out, err = io.StringIO(), io.StringIO()
    old = signal.signal(signal.SIGALRM, _alarm) if hasattr(signal, "SIGALRM") else None
    if old is not None:
        signal.alarm(HANG_SECONDS)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                if tool == "mtiasim":
                    code = mtiasim_main(args)
                else:
                    mtiacc_main(args)
                    code = 0
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except Hang:
        code = -1
        err.write(f"\n(no answer in {HANG_SECONDS} s)")
    finally:
        if old is not None:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, old)
    return code, out.getvalue(), err.getvalue()


def verdict(code: int, err: str) -> Optional[str]:
    """None if the tool behaved; else what was wrong."""
    if code not in OK_CODES:
        return f"exit code {code}"
    if "Traceback" in err or "internal" in err:
        return "a traceback or an internal error"
    if code != 0 and "error:" not in err:
        return "no error: line"
    return None


def write_npz_bytes(path: Path, inputs: Dict[str, np.ndarray]) -> None:
    np.savez(path, **inputs)


def try_mutant(seed: Seed, kind: str, data: bytes, workdir: Path,
               codes: Optional[Dict[int, int]] = None) -> List[Tuple[List[str], int, str, str]]:
    """Run the tools on one mutant; the (command, code, stderr, problem) of each misbehaviour (``codes``
    counts the exit codes seen)."""
    good_bin = workdir / f"{seed.name}.bin"
    good_npz = workdir / f"{seed.name}.npz"
    if not good_bin.exists():
        good_bin.write_bytes(seed.binary)
        write_npz_bytes(good_npz, seed.inputs)
    mutant = workdir / ("mutant.npz" if kind == "npz" else "mutant.bin")
    mutant.write_bytes(data)
    out = str(workdir / "out.npz")
    if kind == "npz":
        commands = [("mtiasim", ["run", str(good_bin), "--inputs", str(mutant), "-o", out, *SIM_FLAGS])]
    else:
        commands = [("mtiasim", ["run", str(mutant), "--inputs", str(good_npz), "-o", out, *SIM_FLAGS]),
                    ("mtiacc", ["disasm", str(mutant)])]
    bad = []
    for tool, args in commands:
        code, _stdout, err = run_tool(tool, args)
        if codes is not None:
            codes[code] = codes.get(code, 0) + 1
        problem = verdict(code, err)
        if problem is not None:
            bad.append(([tool, *args], code, err, problem))
    return bad


def mutant(seed_index: int, k: int, corpus: List[Seed], kinds: List[str]):
    """Mutant ``k`` of fuzzing seed ``seed_index``: (corpus entry, description, kind, bytes)."""
    rng = random.Random(f"{seed_index}:{k}")
    seed = rng.choice(corpus)
    family = rng.choice(kinds)
    desc, kind, data = rng.choice(MUTATORS[family])(rng, seed)
    return seed, desc, kind, data


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=500, help="mutants to try (default 500)")
    ap.add_argument("--seed", type=int, default=0, help="the fuzzing seed (default 0)")
    ap.add_argument("--first", type=int, default=0, help="index of the first mutant (default 0)")
    ap.add_argument("--out", default="fuzz-failures", help="folder for failing mutants (default fuzz-failures)")
    ap.add_argument("--kinds", default="bin,meta,npz", help="what to mutate: bin, meta, npz (default all)")
    ap.add_argument("--verbose", action="store_true", help="print every mutant")
    a = ap.parse_args(argv)
    kinds = [k.strip() for k in a.kinds.split(",") if k.strip()]
    if not kinds or set(kinds) - set(MUTATORS):
        ap.error(f"--kinds: choose among {', '.join(MUTATORS)}")
    os.environ.pop("MTIA_DEBUG", None)
    failures = 0
    codes: Dict[int, int] = {}
    with tempfile.TemporaryDirectory(prefix="mtia-fuzz-") as tmp:
        work = Path(tmp)
        corpus = build_corpus(work)
        for seed in corpus:   # the unmutated corpus must run, or every mutant's refusal would look right
            bin_path, npz_path = work / "ok.bin", work / "ok.npz"
            bin_path.write_bytes(seed.binary)
            write_npz_bytes(npz_path, seed.inputs)
            code, _, err = run_tool("mtiasim", ["run", str(bin_path), "--inputs", str(npz_path), "-o",
                                                str(work / "out.npz"), *SIM_FLAGS])
            if code != 0:
                print(f"the unmutated {seed.name} does not run (exit {code}):\n{err}", file=sys.stderr)
                return 2
        for k in range(a.first, a.first + a.count):
            seed, desc, kind, data = mutant(a.seed, k, corpus, kinds)
            before = dict(codes)
            bad = try_mutant(seed, kind, data, work, codes)
            if a.verbose:
                seen = sorted(c for c in codes if codes[c] != before.get(c, 0))
                print(f"{k}: {seed.name}: {desc}: {'FAIL' if bad else 'ok'} (exit {seen})")
            if not bad:
                continue
            failures += 1
            out = Path(a.out)
            out.mkdir(parents=True, exist_ok=True)
            stem = f"seed{a.seed}-{k}-{seed.name}"
            (out / f"{stem}.{'npz' if kind == 'npz' else 'bin'}").write_bytes(data)
            if kind == "npz":
                (out / f"{stem}.good.bin").write_bytes(seed.binary)
            else:
                np.savez(out / f"{stem}.good.npz", **seed.inputs)
            note = {"mutant": k, "seed": a.seed, "corpus": seed.name, "mutation": desc,
                    "failures": [{"command": c, "exit": code, "problem": p, "stderr": e[-4000:]}
                                 for c, code, e, p in bad]}
            (out / f"{stem}.json").write_text(json.dumps(note, indent=1))
            print(f"mutant {k} ({seed.name}: {desc}): {bad[0][3]} from {bad[0][0][0]} {bad[0][0][1]}",
                  file=sys.stderr)
    tally = ", ".join(f"{n} x exit {c}" for c, n in sorted(codes.items()))
    print(f"{a.count} mutants tried (seed {a.seed}, from {a.first}), {failures} failing; runs: {tally}"
          + (f", written to {a.out}/" if failures else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
