"""A launch that passes memory two pointer parameters share (``kernel[grid](a, a, ...)``) compiles a variant that
knows it: the launcher names the groups (``Options.may_alias``, the kernel's ``may_alias`` attribute) and no pass
holds those parameters apart (``mtiacc/ir/analysis/pointers.py``: ``may_share``).  Triton promises nothing about
aliasing, and its compiled kernels read what they stored: here the load of ``X`` after the store to ``Y`` reads the
stored values, against numpy with the sanitizer on, at -O0, -O2 and -O3 (where ``persistent-programs`` would
otherwise fetch the load a program ahead, above the store).  A launch whose arguments share no memory compiles
exactly as before: no attribute, the same cache key and the same binary; so does one whose shared memory only
parameters the kernel never writes through take (``add(a, a, z)``: no order between two reads matters)."""
import textwrap

import numpy as np
import pytest

import mtiacc
from mtiacc.driver import Options, compile_kernel

KERNELS = textwrap.dedent('''\
    import triton
    import triton.language as tl


    @triton.jit
    def store_then_load(X, Y, Z, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(Y + offs, tl.load(Z + offs) + 1)
        x = tl.load(X + offs)
        tl.store(Z + offs, x * 2)


    @triton.jit
    def running(X, Y, T, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * (T + 1) * BLOCK + tl.arange(0, BLOCK)
        for i in range(0, T):
            tl.store(Y + i * BLOCK + offs, tl.load(X + i * BLOCK + offs) * 3 + 1)
            tl.store(Y + (i + 1) * BLOCK + offs, tl.load(X + i * BLOCK + offs) + 1)


    @triton.jit
    def add(X, Y, Z, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(Z + offs, tl.load(X + offs) + tl.load(Y + offs))


    @triton.jit
    def store_either(X, Y, Z, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(X + offs)
        tl.store(tl.where(x > 0, Y, Z) + offs, x)
    ''')
B, PROGRAMS, T = 16, 128, 6


@pytest.fixture
def path(tmp_path, monkeypatch):
    monkeypatch.setenv("MTIACC_CACHE_DIR", str(tmp_path / "cache"))
    p = tmp_path / "kernels.py"
    p.write_text(KERNELS)
    return str(p)


def _z(n, seed):
    return np.random.default_rng(seed).standard_normal(n).astype(np.float32)


@pytest.mark.parametrize("level", [0, 2, 3])
def test_a_load_of_a_parameter_sharing_memory_with_a_stored_one_reads_the_store(path, level):
    k = mtiacc.load(path, "store_then_load", opt_level=level)
    a = np.zeros(B * PROGRAMS, np.float32)
    z = _z(B * PROGRAMS, level)
    z0 = z.copy()
    k[(PROGRAMS,)](a, a, z, BLOCK=B, sanitize=True)
    np.testing.assert_array_equal(a, z0 + 1)
    np.testing.assert_array_equal(z, (z0 + 1) * 2)


@pytest.mark.parametrize("level", [0, 2, 3])
def test_a_loop_reading_through_one_parameter_what_it_stored_through_another(path, level):
    """``Y = X``: each trip reads the tile the trip before stored (``X[i] + 1``) and the tile it stored itself, in
    each program's own ``T + 1`` tiles."""
    k = mtiacc.load(path, "running", opt_level=level)
    n = PROGRAMS // 8
    x = np.random.default_rng(level).integers(-1000, 1000, n * (T + 1) * B).astype(np.int32)
    want = x.reshape(n, T + 1, B).copy()
    for i in range(T):                  # numpy, trip after trip, as one program runs them
        want[:, i] = want[:, i] * 3 + 1
        want[:, i + 1] = want[:, i] + 1
    k[(n,)](x, x, T, BLOCK=B, sanitize=True)
    np.testing.assert_array_equal(x.reshape(n, T + 1, B), want)


def test_the_launcher_compiles_the_variant_and_keys_it_apart(path):
    k = mtiacc.load(path, "store_then_load")
    a, z = np.zeros(B * 4, np.float32), _z(B * 4, 0)
    shared = k.prepare(a, a, z, BLOCK=B, grid=(4,), compile=False)
    apart = k.prepare(np.zeros_like(a), a, z, BLOCK=B, grid=(4,), compile=False)
    assert shared.compile_request[2] == ("X Y",)
    assert apart.compile_request[2] == ()
    assert k.cache_key(*shared.compile_request) != k.cache_key(*apart.compile_request)
    assert k.compile_job(*shared.compile_request)[1].may_alias == ("X Y",)
    view = k.prepare(a, z[:B * 2], z[B:], BLOCK=B, grid=(2,), compile=False)   # overlapping views of one array
    assert view.compile_request[2] == ("Y Z",)


def test_a_launch_sharing_no_memory_compiles_exactly_as_before(path):
    """The same key as a launch before the change (signature and constexprs only), no attribute, the same binary
    as a compile without the option; the variant's binary differs (the load stays below the store)."""
    k = mtiacc.load(path, "store_then_load")
    x, y, z = np.zeros(B, np.float32), np.zeros(B, np.float32), _z(B, 1)
    p = k.prepare(x, y, z, BLOCK=B, grid=(1,))
    sig, defines, aliases = p.compile_request
    assert aliases == () and k.cache_key(sig, defines) == k.cache_key(sig, defines, aliases)
    plain = compile_kernel(path, Options(kernel="store_then_load", signature=sig, defines=defines))
    assert p.binary == plain.binary
    ir = compile_kernel(path, Options(kernel="store_then_load", signature=sig, defines=defines), stop_after="ir")
    assert "may_alias" not in ir.ir_text
    variant = compile_kernel(path, Options(kernel="store_then_load", signature=sig, defines=defines,
                                           may_alias=("X Y",)))
    assert variant.binary != plain.binary


@pytest.mark.parametrize("groups,message", [
    (("X W",), "'W' is not a pointer parameter of 'store_then_load'"),
    (("X BLOCK",), "'BLOCK' is not a pointer parameter"),
    (("X X",), "must name two or more pointer parameters"),
])
def test_may_alias_names_pointer_parameters(path, groups, message):
    from mtiacc.diagnostics import UsageError
    with pytest.raises(UsageError, match=message):
        compile_kernel(path, Options(kernel="store_then_load", signature="*fp32,*fp32,*fp32",
                                     defines={"BLOCK": "16"}, may_alias=groups), stop_after="ir")


def test_memory_shared_by_parameters_only_read_needs_no_variant(path):
    """``add(a, a, z)``: X and Y share memory, and the kernel writes neither: the plain compile (its key, its
    binary), and a + a against numpy with the sanitizer on; ``add(a, z, z)`` shares Z, which it writes: the
    variant."""
    k = mtiacc.load(path, "add")
    a, z = _z(B * 4, 2), np.zeros(B * 4, np.float32)
    shared = k.prepare(a, a, z, BLOCK=B, grid=(4,))
    apart = k.prepare(a.copy(), a, z, BLOCK=B, grid=(4,))
    assert shared.compile_request == apart.compile_request == ("*fp32,*fp32,*fp32", {"BLOCK": str(B)}, ())
    assert k.cache_key(*shared.compile_request) == k.cache_key(*apart.compile_request)
    assert shared.binary == apart.binary
    assert k.written_parameters("*fp32,*fp32,*fp32", {"BLOCK": str(B)}) == {"Z"}
    k[(4,)](a, a, z, BLOCK=B, sanitize=True)
    np.testing.assert_array_equal(z, a + a)
    assert k.prepare(a, z, z, BLOCK=B, grid=(4,), compile=False).compile_request[2] == ("Y Z",)


def test_a_store_through_a_pointer_not_traced_to_a_parameter_keeps_the_variant(path):
    """``tl.where`` picks the stored parameter: any may be written, so sharing X and Y still compiles the
    variant, and the kernel reads what it stored where the two meet."""
    k = mtiacc.load(path, "store_either")
    assert k.written_parameters("*i32,*i32,*i32", {"BLOCK": str(B)}) is None
    x = np.arange(-B, B * 3, dtype=np.int32)
    assert k.prepare(x, x, np.zeros_like(x), BLOCK=B, grid=(4,), compile=False).compile_request[2] == ("X Y",)
