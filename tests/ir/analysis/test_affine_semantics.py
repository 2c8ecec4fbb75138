"""The affine analysis against the values the IR computes: every integer value it gives an affine form, every
``splat + arange`` it reads through ``index_range``, every pointer block it splits into base and offset and every
mask it calls a prefix are checked element by element against the reference interpreter (tests/opt/interp.py),
for several programs and bounds; and the forms a kernel writes every day (offsets, bounds in every spelling,
negative strides, int64 and bitcast indices) must be recognized, not just left alone."""
import numpy as np
import pytest

from mtiacc.frontend import compile_file
from mtiacc.ir import ops as O
from mtiacc.ir.analysis.affine import affine_of, index_range, pointer_affine, prefix_count
from mtiacc.ir.core import OpResult
from tests.opt.interp import step

B = 16
SRC = """\
import triton
import triton.language as tl


@triton.jit
def k(X, O, N, M):
    pid = tl.program_id(0)
    offs = pid * {B} + tl.arange(0, {B})
    a = tl.load(X + offs, mask=offs < N, other=0)
    b = tl.load(X + offs, mask=offs <= N - 1, other=0)
    c = tl.load(X + offs, mask=N > offs, other=0)
    d = tl.load(X + offs, mask=N - 1 >= offs, other=0)
    e = tl.load(X + (offs * 3 + M), mask=offs + 2 < N + M, other=0)
    f = tl.load(X + (2 * M + 64 - offs), mask=N >= offs + 1, other=0)
    g = tl.load(X + (offs.to(tl.int64) - 1 + M))
    h = tl.load(X + (offs.to(tl.uint32, bitcast=True) + 1))
    j = tl.load(X + (M - (3 - offs) * 2 + 8), mask=M + offs <= N, other=0)
    q = tl.load(X + ((pid + 1) * (M + 0) + tl.arange(0, {B}) * 0))
    r = tl.load(X + (offs + M + M), mask=offs + N - N < M + M, other=0)
    s = tl.load(X + (M * 2 + (offs - M) * 3 + 4 * N))
    u = tl.load(X + offs + tl.broadcast_to(tl.arange(0, 1) + M, ({B},)))
    w = tl.load(X + offs * M)
    z = tl.load(tl.broadcast_to(X + tl.arange(0, 1) + M, ({B},)))
    tl.store(O + offs, a + b + c + d + e + f + g + h + j + q + r + s + u + w + z, mask=(offs < N) & (offs >= 0))
    grid = tl.arange(0, 4)[:, None] * 4 + tl.arange(0, 4)[None, :] + M
    tl.store(O + 1024 + grid, grid)
    tl.store(O + 2048 + offs, (offs.to(tl.float32) * 2.0 + M.to(tl.float32)).to(tl.int32))
""".format(B=B)

# the loads above, and their masks written as one bound (the store's is the & of two)
LOADS = 15
PREFIXES = 8
UNRECOGNIZED = [1 + next(i for i, ln in enumerate(SRC.splitlines()) if text in ln)
                for text in ("bitcast=True", "u = tl.load", "offs * M", "z = tl.load", "O + 1024")]


def _values(func, pid, n, m):
    """Every op result of ``func``'s entry block -> its value for program ``pid`` with N = n, M = m."""
    buffers = {1: np.arange(4096, dtype=np.int32), 2: np.zeros(4096, np.int32)}
    env = dict(zip(func.args, [np.int64(1 << 32), np.int64(2 << 32), np.int32(n), np.int32(m)]))
    for op in func.entry.ops:
        if isinstance(op, O.ReturnOp):
            break
        try:
            out = step(op, env.__getitem__, buffers, pid, 4)
        except (NotImplementedError, KeyError):       # 2-D shape ops: the interpreter has none (and their users)
            continue
        if op.results:
            env[op.result] = out
    return env


def _affine_value(a, env, size):
    return sum(int(env[v]) * c for v, c in a.terms) + a.const + a.stride * np.arange(size).astype(object)


def _wrap(x, bits):
    """``x`` (Python or numpy integers) modulo 2**bits, as Python integers."""
    return np.asarray(np.asarray(x).astype(np.int64).astype(object) if not isinstance(x, int) else x,
                      dtype=object) % (1 << bits)


@pytest.fixture(scope="module")
def func(tmp_path_factory):
    path = tmp_path_factory.mktemp("affine") / "k.py"
    path.write_text(SRC)
    return compile_file(str(path), signature="*i32,*i32,i32,i32").module.funcs[0]


def _results(func):
    return [op.result for op in func.entry.ops if len(op.results) == 1 and isinstance(op.result, OpResult)]


@pytest.mark.parametrize("pid,n,m", [(0, 37, 5), (1, 37, 5), (2, 20, 9), (3, 0, 1), (1, 16, 0), (2, 64, 30)])
def test_every_form_the_analysis_gives_is_the_value_computed(func, pid, n, m):
    env = _values(func, pid, n, m)
    seen = {"affine": 0, "range": 0, "prefix": 0, "pointer": 0, "none": 0}
    for v in _results(func):
        t = v.type
        size = t.shape[0] if t.shape else 1
        if not (t.is_int() and len(t.shape) <= 1):
            assert affine_of(v) is None, v.op.name          # floats, pointers and 2-D blocks have no form
            seen["none"] += 1
        if v not in env:
            continue
        if t.is_int() and len(t.shape) <= 1 and t.element_type.width > 1:
            a = affine_of(v)
            if a is not None:
                bits = t.element_type.width
                assert (_wrap(_affine_value(a, env, size), bits) == _wrap(env[v], bits)).all(), v.op.name
                seen["affine"] += 1
            r = index_range(v) if t.shape else None
            if r is not None:
                s, count = r
                assert count == size
                bits = t.element_type.width
                assert (_wrap(int(env[s]) + np.arange(count).astype(object), bits) == _wrap(env[v], bits)).all(), v.op.name
                seen["range"] += 1
        if len(t.shape) == 1 and t.is_int() and t.element_type.width == 1:
            c = prefix_count(v)
            if c is not None:
                assert c.stride == 0
                count = int(_affine_value(c, env, 1)[0])
                assert (np.asarray(env[v]) == (np.arange(size) < count)).all(), v.op.name
                seen["prefix"] += 1
        if t.shape and t.element_type.is_ptr():
            p = pointer_affine(v)
            if p is not None:
                base, off = p
                assert (np.asarray(env[v]) == int(env[base]) + _affine_value(off, env, size)).all(), v.op.name
                seen["pointer"] += 1
    assert seen["range"] >= 2 and seen["none"] >= 3, seen


def test_every_pointer_and_bound_the_kernel_writes_is_recognized(func):
    """Each load's and store's pointer is a base plus an affine offset and each mask written as one bound (in any
    spelling) is a prefix: the analysis must find them, not just not be wrong."""
    mem = [op for op in func.entry.ops if isinstance(op, (O.LoadOp, O.StoreOp))]
    assert len(mem) == LOADS + 3
    # all but the uint32 bitcast index (h: read through bitcasts only by index_range), the broadcasts of a
    # one-element block (u, z), the product of two run-time values (w) and the 2-D store
    assert [op.loc.line for op in mem if pointer_affine(op.ptr) is None] == UNRECOGNIZED
    masks = [op.mask for op in mem if op.mask is not None and isinstance(op.mask.op, O.CmpIOp)]
    assert len(masks) == PREFIXES and all(prefix_count(m) is not None for m in masks)
    assert all(affine_of(op.ptr.op.offset) is not None for op in mem
               if isinstance(op.ptr.op, O.AddPtrOp) and op.loc.line not in UNRECOGNIZED)


def test_the_and_of_two_bounds_is_not_a_prefix(func):
    ands = [v for v in _results(func) if isinstance(v.op, O.AndIOp)]
    assert ands and all(prefix_count(v) is None for v in ands)
