"""The compiler's output depends only on its input: no ordering by object address (``id()``), which
changes from run to run.  (Products in ``affine_nd.Poly`` were once ordered by ``id``, so a run-time
stride multiply came out as ``mul s0, t3, a7`` in some runs and ``mul s0, a7, t3`` in others.)"""
import os
import subprocess
import sys

from mtiacc.ir.analysis.affine_nd import Poly
from mtiacc.ir.core import BlockArgument
from mtiacc.ir.types import i32
from tests.conftest import ROOT


def test_products_are_ordered_by_creation_not_address():
    values = [BlockArgument(i32, None, i) for i in range(8)]
    for a in values:
        for b in values:
            if a is not b:
                (coef, factors), = (Poly.var(b) * Poly.var(a)).monomials()
                assert factors == sorted([a, b], key=values.index)


def test_assembly_is_identical_across_runs():
    cmd = [sys.executable, "-m", "mtiacc.cli", str(ROOT / "tests/codegen/memory/indexing/stride_kernels.py"), "--kernel",
           "strided_sum", "-D", "BLOCK=64", "--signature", "*fp32,*fp32,i32,i32", "--emit=asm"]
    outs = {subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=ROOT,
                           env={**os.environ, "PYTHONHASHSEED": str(seed)}).stdout for seed in range(4)}
    assert len(outs) == 1 and "mul" in next(iter(outs))
