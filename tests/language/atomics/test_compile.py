"""The differential kernels compile (this runs while the simulator cannot run atomics yet too)."""
import pytest

from tests.language.atomics import test_locks as L
from tests.language.atomics import test_rmw as R
from tests.language.harness import build


@pytest.mark.parametrize("source,signature", [
    (R.HISTOGRAM.replace("SEM", '"relaxed"'), "*i32,*i32,i32"),
    (R.SCATTER, "*fp16,*i32,*fp16"),
    (R.SCATTER, "*bf16,*i32,*bf16"),
    (R.COUNTER, "*i32,*i32"),
    (R.SCALAR_OP.replace("OP", "atomic_min").replace("SEM", '"release"'), "*fp64,*fp64,*fp64"),
    (R.SCALAR_OP.replace("OP", "atomic_xchg").replace("SEM", '"acquire"'), "*fp32,*fp32,*fp32"),
    (R.BLOCK_OP.replace("OP", "atomic_max"), "*fp32,*fp32,*fp32,*i8"),
    (R.BLOCK_OP.replace("OP", "atomic_xor"), "*u64,*u64,*u64,*i8"),
    (L.SERIALIZED_ADD.replace("SEM", '"acquire"'), "*fp32,*i64"),
    (L.FLAG, "*i32,*i32"),
])
def test_kernel_compiles(source, signature):
    defines = tuple((k, v) for k, v in (("BINS", "16"), ("BLOCK", "32")) if f"{k}: tl.constexpr" in source)
    build(source, signature, defines)
