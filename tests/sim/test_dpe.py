"""The matrix engine's functional semantics against numpy: types, transposed weights, partial tiles, strides,
accumulator loads and stores, several programs with their own data, and the faults."""
import numpy as np
import pytest

from mtiacc.diagnostics import UserError
from tests.sim.dpe_helpers import (IN_BASE, OUT_BASE, TYPE_CODE, accld, accst, cfg, ldw, mm, random_elems,
                                   ref_mm, run_engine, strided, zero)

ACC_DT = {"fp16": np.float32, "bf16": np.float32, "int8": np.int32, "uint8": np.int32}


def gemm_case(ty, rng, K=32, n=32, R=64, w_trans=False, w_stride=None, x_stride=None, tiles=2):
    """``tiles`` (weight, rows) pairs accumulated into rows 8.. of the accumulators; returns (blob, body, ref)."""
    es = 2 if ty in ("fp16", "bf16") else 1
    w_stride = w_stride or (K if w_trans else n) * es
    x_stride = x_stride or K * es
    blob = b""
    body = cfg(type=TYPE_CODE[ty], w_stride=w_stride, x_stride=x_stride, acc_stride=n * 4, n=n,
               w_trans=int(w_trans)) + zero(0, 128)
    acc = np.zeros((R, 32), ACC_DT[ty])
    for _ in range(tiles):
        wr, wv = random_elems(rng, ty, (K, n))
        xr, xv = random_elems(rng, ty, (R, K))
        wa = IN_BASE + len(blob)
        blob += strided(wr.T.copy() if w_trans else wr, w_stride)
        blob += bytes(-len(blob) % 16)
        xa = IN_BASE + len(blob)
        blob += strided(xr, x_stride)
        blob += bytes(-len(blob) % 16)
        body += ldw(wa, K) + mm(8, xa, R)
        acc = ref_mm(acc, xv, wv, ty)
    body += accst(OUT_BASE, 8, R)
    return blob, body, acc[:, :n]


def as_acc(out, ty, R, n):
    return out.view(ACC_DT[ty]).reshape(R, n)


@pytest.mark.parametrize("ty", ["fp16", "bf16", "int8", "uint8"])
def test_full_tiles_accumulate_like_numpy(ty):
    rng = np.random.default_rng(1)
    blob, body, ref = gemm_case(ty, rng)
    out, _ = run_engine(body, [blob], 64 * 32 * 4)
    np.testing.assert_array_equal(as_acc(out[0], ty, 64, 32), ref)


@pytest.mark.parametrize("ty", ["fp16", "bf16", "int8", "uint8"])
def test_transposed_partial_strided_tiles(ty):
    rng = np.random.default_rng(2)
    blob, body, ref = gemm_case(ty, rng, K=20, n=24, R=37, w_trans=True, w_stride=72, x_stride=88, tiles=3)
    out, _ = run_engine(body, [blob], 37 * 24 * 4)
    np.testing.assert_array_equal(as_acc(out[0], ty, 37, 24), ref)


def test_partial_weight_tile_not_transposed():
    rng = np.random.default_rng(3)
    blob, body, ref = gemm_case("fp16", rng, K=7, n=5, R=3, w_stride=64, x_stride=32)
    out, _ = run_engine(body, [blob], 3 * 5 * 4)
    np.testing.assert_array_equal(as_acc(out[0], "fp16", 3, 5), ref)


def test_programs_with_different_data_rows_and_addresses():
    """Programs differ in data, in the number of streamed rows and in where their rows are (the gather path)."""
    rng = np.random.default_rng(4)
    blobs, refs = [], []
    for p in range(5):
        wr, wv = random_elems(rng, "fp16", (32, 32))
        xr, xv = random_elems(rng, "fp16", (40, 32))
        pad = bytes(128 * p)                         # program p's rows start 128 * p bytes later
        blobs.append(wr.tobytes() + pad + xr.tobytes())
        R = 20 + 4 * p
        acc = np.zeros((40, 32), np.float32)
        acc[:R] = ref_mm(acc[:R], xv[:R], wv, "fp16")
        refs.append(acc)
    body = (cfg(type=0, w_stride=64, x_stride=64, acc_stride=128, n=32) + zero(0, 64) + ldw(IN_BASE, 32)
            + "    li a0, 128\n    mul a0, a0, t0\n    li a1, 2048 + 4096\n    add a0, a0, a1\n"
            + "    slli a1, t0, 2\n    addi a1, a1, 20\n    li a2, 0\n    mtia.dpe.mm a2, a0, a1\n"
            + accst(OUT_BASE, 0, 40))
    out, r = run_engine(body, blobs, 40 * 128)
    for p in range(5):
        np.testing.assert_array_equal(out[p].view(np.float32).reshape(40, 32), refs[p])


def test_programs_with_different_accumulator_rows():
    rng = np.random.default_rng(5)
    xr, xv = random_elems(rng, "int8", (16, 32))
    wr, wv = random_elems(rng, "int8", (32, 32))
    blob = wr.tobytes() + xr.tobytes()
    body = (cfg(type=2, w_stride=32, x_stride=32, acc_stride=128, n=32) + ldw(IN_BASE, 32)
            + "    slli a2, t0, 4\n    li a0, 4096 + 1024\n    li a1, 16\n    mtia.dpe.mm a2, a0, a1\n"
            + accst(OUT_BASE, 0, 48))
    out, _ = run_engine(body, [blob] * 3, 48 * 128)
    y = ref_mm(np.zeros((16, 32), np.int32), xv, wv, "int8")
    for p in range(3):
        got = out[p].view(np.int32).reshape(48, 32)
        exp = np.zeros((48, 32), np.int32)
        exp[16 * p:16 * p + 16] = y
        np.testing.assert_array_equal(got, exp)


def test_accumulator_load_store_round_trip_and_zero():
    rng = np.random.default_rng(6)
    vals = rng.standard_normal((10, 32)).astype(np.float32)
    blob = strided(vals, 160)                         # rows 160 bytes apart, 128 used
    body = (cfg(acc_stride=160, n=32) + accld(100, IN_BASE, 10) + zero(103, 2)
            + cfg(acc_stride=80, n=20) + accst(OUT_BASE, 100, 10))
    out, _ = run_engine(body, [blob], 10 * 80)
    got = out[0].view(np.float32).reshape(10, 20)
    exp = vals[:, :20].copy()
    exp[3:5] = 0
    np.testing.assert_array_equal(got, exp)


def test_accumulator_load_of_n_columns_zeroes_the_rest_and_store_leaves_gaps_alone():
    vals = np.arange(4 * 8, dtype=np.int32).reshape(4, 8) + 1
    blob = vals.tobytes()
    gap = np.full(64, 0xAB, np.uint8).tobytes()      # what the store's stride skips over stays
    body = (cfg(acc_stride=32, n=8) + accld(0, IN_BASE, 4) + li_fill() + cfg(acc_stride=128, n=32)
            + accst(OUT_BASE, 0, 4) + cfg(acc_stride=64, n=12) + accst(OUT_BASE + 512, 0, 4))
    out, _ = run_engine(body, [blob + gap], 512 + 256)
    full = out[0][:512].view(np.int32).reshape(4, 32)
    np.testing.assert_array_equal(full[:, :8], vals)
    assert not full[:, 8:].any()
    part = out[0][512:].view(np.int32).reshape(4, 16)
    np.testing.assert_array_equal(part[:, :8], vals)
    assert not part[:, 8:12].any()
    assert (out[0][512:].reshape(4, 64)[:, 48:] == 0xAB).all()


def li_fill():
    """Fill local memory OUT_BASE + 512 .. + 256 with 0xAB (what acc.st with a stride must not touch)."""
    return ("    li a0, 0xABABABABABABABAB\n    li a1, 200512\n    li a3, 32\nfill:\n    sd a0, 0(a1)\n"
            "    addi a1, a1, 8\n    addi a3, a3, -1\n    bnez a3, fill\n")


def test_int32_accumulators_wrap():
    big = np.full((1, 32), 2**31 - 10, np.int32)
    x = np.full((1, 32), 1, np.int8)
    w = np.full((32, 32), 1, np.int8)
    blob = big.tobytes() + w.tobytes() + x.tobytes()
    body = (cfg(type=2, w_stride=32, x_stride=32, acc_stride=128, n=32) + accld(0, IN_BASE, 1)
            + ldw(IN_BASE + 128, 32) + mm(0, IN_BASE + 128 + 1024, 1) + accst(OUT_BASE, 0, 1))
    out, _ = run_engine(body, [blob], 128)
    assert (out[0].view(np.int32) == np.int32(-(2**31) + 22)).all()


def test_products_are_exact_and_the_sum_rounds_once():
    """1 + 2^-24 + 2^-24: rounding after each addition would give 1; one rounding of the exact sum gives 1 + 2^-23."""
    w = np.zeros((32, 32), np.float16)
    w[:3, 0] = 1
    x = np.zeros((1, 32), np.float16)
    x[0, :3] = [1.0, 2.0**-12, 2.0**-12]
    w[1:3, 0] = 2.0**-12
    blob = w.tobytes() + x.tobytes()
    body = (cfg(type=0, w_stride=64, x_stride=64, acc_stride=128, n=32) + ldw(IN_BASE, 32)
            + mm(0, IN_BASE + 2048, 1) + accst(OUT_BASE, 0, 1))
    out, _ = run_engine(body, [blob], 128)
    assert out[0].view(np.float32)[0] == np.float32(1 + 2.0**-23)


# faults -------------------------------------------------------------------------------------------------------
def fault(body, blob=b"\0" * 64, n=1):
    with pytest.raises(UserError) as e:
        run_engine(body, [blob] * n, 8)
    return e.value


def test_accumulator_rows_out_of_range():
    e = fault(cfg(n=32) + ldw(IN_BASE, 1) + mm(1020, IN_BASE, 8))
    assert "accumulator rows 1020..1027 are out of range" in e.message and "1024" in e.message
    assert "mtia.dpe.mm" in e.render()
    e = fault(zero(-1, 2))
    assert "out of range" in e.message
    e = fault(accst(OUT_BASE, 0, 2000))
    assert "accumulator rows 0..1999" in e.message


def test_bad_configuration_values():
    assert "not a valid value of configuration register 0 (type: 0 fp16, 1 bf16, 2 int8, 3 uint8)" in \
        fault(cfg(type=5)).message
    assert "configuration register 4 (n: 1..32)" in fault(cfg(n=0)).message
    assert "configuration register 4 (n: 1..32)" in fault(cfg(n=33)).message
    assert "no configuration register 6" in fault("    mtia.dpe.cfg a0, 6\n").message


def test_weight_rows_and_missing_tile_and_type_change():
    assert "mtia.dpe.ldw of 33 weight rows (K is 1..32)" in fault(ldw(IN_BASE, 33)).message
    assert "mtia.dpe.ldw of 0 weight rows" in fault(ldw(IN_BASE, 0)).message
    assert "no weight tile loaded" in fault(mm(0, IN_BASE, 1)).message
    e = fault(ldw(IN_BASE, 1) + cfg(type=1) + mm(0, IN_BASE, 1))
    assert "streams bf16 rows but the weight tile was loaded as fp16" in e.message


def test_local_memory_out_of_bounds():
    e = fault(cfg(x_stride=4096) + ldw(IN_BASE, 32) + mm(0, 390_000, 2))
    assert e.message == ("out-of-bounds row stream: 2 rows of 64 bytes from local address 0x5f370 with a stride "
                         "of 4096 bytes (local memory is 0x0..0x60000)")
    e = fault(cfg(w_stride=-64) + ldw(32, 2))
    assert "out-of-bounds weight-tile read" in e.message
    e = fault(accst(393_100, 0, 1))
    assert "out-of-bounds accumulator store" in e.message


def test_fault_names_the_program_that_misbehaves():
    body = "    slli a1, t0, 9\n    li a0, 0\n    mtia.dpe.zero a0, a1\n"      # program 2 zeroes 1024 rows: fine
    run_engine(body, [b"\0" * 8] * 3, 8)
    e = fault("    slli a1, t0, 10\n    li a0, 1\n    mtia.dpe.zero a0, a1\n", n=3)
    assert "in program (1, 0, 0)" in e.render()
