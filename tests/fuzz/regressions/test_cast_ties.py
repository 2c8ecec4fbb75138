"""fp32 -> bf16 / fp16 / fp8 conversions of exact ties: values whose dropped bits are exactly half of the last kept
bit round to the even neighbour, with the kept last bit 0 (down) and 1 (up), and with every kept bit 1 (the carry
into the exponent).  Checked against a reference written here from integer arithmetic on the bits (not the fuzz
reference, which it also checks), on the simulator at -O0 and -O2."""
import tempfile
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import mtiacc
import mtiasim
from tests.fuzz.gen.evaluate import FP8, _round_fp8, bf16_round
from tests.fuzz.gen.runner import with_ties
from tests.language.harness import HEADER

# format -> (stored mantissa bits, smallest normal exponent); all test values are normal in each
FORMATS = {"bfloat16": (7, -126), "float16": (10, -14), "float8e5": (2, -14), "float8e4nv": (3, -6)}


def _ties(mbits, n=64, seed=0):
    """fp32 values, normal in every format, whose bits below the format's last kept bit are exactly 100..0."""
    rng = np.random.default_rng(seed)
    drop = 23 - mbits
    mant = rng.integers(0, 1 << mbits, n).astype(np.uint32)
    mant[:4] = [0, 1, (1 << mbits) - 2, (1 << mbits) - 1]           # even, odd, even, odd with the carry
    exp = rng.integers(125, 131, n).astype(np.uint32)               # 2**-2 .. 2**3
    sign = (np.arange(n) % 2).astype(np.uint32) << 31
    bits = sign | (exp << 23) | (mant << drop) | np.uint32(1 << (drop - 1))
    return bits.view(np.float32)


def _round_half_even(x, mbits):
    """``x`` (fp32, normal) rounded to ``mbits`` stored mantissa bits, nearest even, by rationals."""
    out = []
    for v in x.astype(np.float64).tolist():
        q = Fraction(v)
        e = abs(q).numerator.bit_length() - abs(q).denominator.bit_length()
        e = e - 1 if Fraction(2) ** e > abs(q) else e
        ulp = Fraction(2) ** (e - mbits)
        out.append(float(round(q / ulp) * ulp))                       # Fraction's round(): half to even
    return np.array(out, np.float64)


def test_the_ties_are_ties_and_both_parities_occur():
    for fmt, (mbits, _) in FORMATS.items():
        x = _ties(mbits)
        bits = x.view(np.uint32)
        drop = 23 - mbits
        assert ((bits & ((1 << drop) - 1)) == 1 << (drop - 1)).all(), fmt
        parity = (bits >> drop) & 1
        assert parity.min() == 0 and parity.max() == 1, fmt
        r = _round_half_even(x, mbits)
        assert (r != x.astype(np.float64)).all()
        assert (np.abs(r) > np.abs(x)).any() and (np.abs(r) < np.abs(x)).any(), fmt   # up and down both


def test_the_fuzz_reference_rounds_ties_to_even():
    x = _ties(7)
    np.testing.assert_array_equal(bf16_round(x).astype(np.float64), _round_half_even(x, 7))
    x = _ties(10)
    np.testing.assert_array_equal(x.astype(np.float16).astype(np.float64), _round_half_even(x, 10))
    for fmt, mb in (("float8e5", 2), ("float8e4nv", 3)):
        _, mbits, bias, top = FP8[fmt]
        x = _ties(mb)
        np.testing.assert_array_equal(_round_fp8(x.astype(np.float64), mbits, bias, top), _round_half_even(x, mb))


def test_the_fuzz_inputs_hold_ties_of_each_format():
    x = with_ties(np.zeros(4096, np.float32), np.random.default_rng(1))
    bits = x.view(np.uint32)[x != 0]
    for mbits in (7, 10, 2, 3):
        drop = 23 - mbits
        tie = (bits & ((1 << drop) - 1)) == 1 << (drop - 1)
        assert tie.sum() > 20 and len(set(((bits[tie] >> drop) & 1).tolist())) == 2, mbits


SRC = '''
@triton.jit
def k(X, O, B: tl.constexpr):
    offs = tl.arange(0, B)
    tl.store(O + offs, tl.load(X + offs).{conv})
'''


@pytest.mark.parametrize("level", [0, 2])
@pytest.mark.parametrize("fmt", list(FORMATS))
def test_a_kernel_rounds_ties_to_even(fmt, level):
    mbits = FORMATS[fmt][0]
    x = _ties(mbits, seed=level)
    if fmt in ("bfloat16", "float16"):
        conv, sig = f"to(tl.{fmt})", ("*fp32,*bf16" if fmt == "bfloat16" else "*fp32,*fp16")
        out = np.zeros(x.size, np.uint16 if fmt == "bfloat16" else np.float16)
    else:
        conv, sig, out = f"to(tl.{fmt}).to(tl.float32)", "*fp32,*fp32", np.zeros(x.size, np.float32)
    path = Path(tempfile.mkdtemp(prefix="mtiacc-ties-")) / "k.py"
    path.write_text(HEADER + SRC.format(conv=conv))
    comp = mtiacc.compile(str(path), "k", signature=sig, constexprs={"B": x.size}, opt_level=level)
    got = mtiasim.run(comp.binary, {"X": x, "O": out}, grid=(1,)).outputs["O"]
    if fmt == "bfloat16":
        got = (got.astype(np.uint32) << 16).view(np.float32)
    np.testing.assert_array_equal(got.astype(np.float64), _round_half_even(x, mbits))
