"""The local-memory plan (``mtiacc.opt.memory.plan``, ``lmem_peak`` in ``--emit=ir``) against codegen's allocation
(the binary's ``lmem_bytes``, its high water): the plan's peak is what codegen allocates, byte for byte, so that a
pass or ``gemm_fit`` that asks the plan whether blocks fit gets the answer codegen would give.

The GEMM template of ``torch_backend/gemm_fit.py`` at several tiles, shapes (even and ragged) and epilogues; the
example kernels; kernels with the scratch codegen allocates and the readers it counts (tests/opt/lmem_kernels.py).
The plan was up to 15% above codegen (and up to 4% below) until it counted buffers as codegen's readers do."""
import importlib.util
from pathlib import Path

import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiacc.opt.memory.plan import kernel_of
from mtiacc.torch_backend.gemm_fit import _source_file, fits, template_source
from mtiacc.torch_backend.gemm_search import Tile
from tests.conftest import ROOT

_spec = importlib.util.spec_from_file_location("behaviour", ROOT / "benchmarks" / "behaviour.py")
behaviour = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(behaviour)

def plan_and_use(path, kernel, signature, defines=None, with_asm=False, level=3):
    """(the plan's peak, codegen's bytes for blocks, the bytes local memory has for blocks[, the assembly]) of one
    compile (at the default level, unless ``level``)."""
    out = compile_kernel(str(path), Options(kernel=kernel, signature=signature, opt_level=level,
                                            defines={k: str(v) for k, v in (defines or {}).items()}))
    func = kernel_of(out.frontend.module)
    base = (out.meta["args_base"] + 8 * len(func.args) + 63) // 64 * 64
    got = (func.attrs["lmem_peak"], out.meta["lmem_bytes"] - base, func.attrs["lmem_capacity"])
    return got + (out.asm_text or "",) if with_asm else got


GEMMS = [(tile, shape, epilogue)
         for tile in ((32, 64, 64), (64, 128, 64), (128, 128, 64), (128, 256, 64))
         for shape in ((128, 768, 768), (100, 200, 300))
         for epilogue in (0, 1)]


@pytest.mark.parametrize("tile,shape,epilogue", GEMMS, ids=lambda x: "x".join(map(str, x)) if isinstance(x, tuple)
                         else f"ep{x}")
def test_the_plan_covers_codegen_on_the_gemm_template(tile, shape, epilogue):
    src = template_source(Tile(*tile, 2), *shape, dtype="bfloat16", epilogue=epilogue)
    plan, used, capacity, asm = plan_and_use(_source_file(src), "gemm_fit", ",".join(["*bf16"] * (3 + epilogue)),
                                             with_asm=True)
    assert plan == used, (plan, used)
    assert fits(Tile(*tile, 2), *shape, dtype="bfloat16", epilogue=epilogue) == (plan <= capacity)


@pytest.mark.parametrize("example", [pytest.param(e, id=e[0]) for e in behaviour._examples()])
def test_the_plan_covers_codegen_on_the_examples(example):
    name, file, kernel, sig, defines, _grid, _inputs = example
    plan, used, _ = plan_and_use(behaviour.EXAMPLES / file, kernel, sig, defines)
    assert plan == used, (plan, used)


SCRATCH = [   # (kernel, signature, defines, level): tests/opt/lmem_kernels.py
    ("window_rows", "*fp32,*fp32", {"YBLOCK": 1024, "XBLOCK": 1}, 3),
    ("transposed_store", "*fp32,*fp32,i32,i32", {"YBLOCK": 64, "XBLOCK": 64}, 2),
    ("welford_rows", "*fp32,*fp32,*fp32", {"R0_BLOCK": 2048}, 3),
    # an fp32 dot's bf16 parts: two of 2 bytes an element at bf16x3, three at bf16x6 (the plan counted two for both)
    ("split_dot", "*fp32,*fp32,*fp32", {"BM": 64, "BN": 64, "BK": 128, "PREC": "'bf16x3'"}, 3),
    ("split_dot", "*fp32,*fp32,*fp32", {"BM": 64, "BN": 64, "BK": 128, "PREC": "'bf16x6'"}, 3),
]


@pytest.mark.parametrize("kernel,signature,defines,level", SCRATCH, ids=[c[0] + c[2].get("PREC", "").strip("'") for c in SCRATCH])
def test_the_plan_covers_the_scratch_of_loads_and_reductions(kernel, signature, defines, level):
    """What codegen allocates besides the blocks: a ``runs`` load's window (the largest that fits), a
    ``split-tiles`` tile's transposed copy, a constant block a reduction reads from a buffer (filled at the
    reduction, kept to the kernel's end).  The corpus's ResNet-18 and GroupNorm kernels showed each: the plan
    was up to half of codegen's bytes."""
    plan, used, _ = plan_and_use(Path(__file__).with_name("lmem_kernels.py"), kernel, signature, defines,
                                 level=level)
    assert plan == used, (plan, used)


READERS = [   # (kernel, signature, defines, codegen's bytes; the plan's before it counted codegen's readers)
    ("norm_rows", "*fp32,*fp32,*fp32", {"XBLOCK": 1, "R0_BLOCK": 1024}, 27840),                  # was 36992
    ("argmin_cols", "*fp32,*i64", {"XBLOCK": 64, "R0_BLOCK": 64}, 144704),                      # was 144640
    ("scale_shift_cols", "*fp32,*fp32,*fp32,*fp32,*fp32", {"XBLOCK": 128}, 5632),               # was 6144
    ("nll_backward_rows", "*fp32,*i64,*fp32", {"XBLOCK": 8, "R0_BLOCK": 16}, 4288),             # was 5824
]


@pytest.mark.parametrize("kernel,signature,defines,bytes_", READERS, ids=[c[0] for c in READERS])
def test_the_plan_counts_the_buffers_codegen_reads(kernel, signature, defines, bytes_):
    """A block lives to the last op codegen lowers that reads its buffer (not an address or a mask a load moves by
    its structure); an ``expand_dims`` is a view of its source; a fused op reads a column broadcast along its rows
    as the column, not its prefix masks and ranges (norm_rows, nll_backward_rows: the plan was 33% and 36% above);
    an unused result of a reduction of a value and its index is allocated in the order of the results
    (argmin_cols: below); keep-invariant's guarded read writes its ``if``'s one buffer (scale_shift_cols: 9% above).
    The corpus's layer norm, softmax, argmin, ResNet-18 batch norm and MLP training kernels showed each."""
    plan, used, _ = plan_and_use(Path(__file__).with_name("lmem_kernels.py"), kernel, signature, defines)
    assert plan == used == bytes_, (plan, used)


def test_a_view_of_the_range_is_its_buffer_and_dies_with_its_last_data_reader():
    """tests/filecheck/lmem_plan.py's ``rows`` at -O0: the FileCheck pins the plan's offsets, this its bytes."""
    plan, used, _ = plan_and_use(ROOT / "tests" / "filecheck" / "lmem_plan.py", "rows", "*fp32,*fp32,i32",
                                 {"BLOCK": 1024}, level=0)
    assert plan == used == 13312, (plan, used)


def test_the_plan_is_codegen_on_an_fp8_dot_loop_pipelined_in_3_stages():
    """tests/filecheck/lmem_fp8_dot.py: the engine keeps the 128 x 256 accumulator across the pipelined loop and the
    loop of its last iterations, so pipeline-dots takes 3 stages (it counted the accumulator's home twice and took
    1); the plan's peak is codegen's bytes."""
    plan, used, capacity = plan_and_use(ROOT / "tests" / "filecheck" / "lmem_fp8_dot.py", "k", "*fp8e5,*fp8e5,*fp32,i32",
                                        {"BM": 128, "BN": 256, "BK": 128, "STAGES": 3})
    assert plan == used <= capacity, (plan, used)


def test_a_tile_stored_under_the_next_trip_is_planned_where_codegen_puts_it():
    """Tutorial 09's loop over tiles with 32 KiB of local memory: the plan decides to store the tile under the
    next trip (its own f16 buffer from the loop's start: 16384 bytes with one stage of tiles) and equals codegen;
    the old rule (the plan's peak with the fp32 accumulators' buffer, plus the tile beside it) refused it."""
    out = compile_kernel(str(ROOT / "tests" / "filecheck" / "lmem_store_under_next.py"),
                         Options(kernel="tiles", signature="*fp16,*fp16,*fp16,i32,i32,i32,i32",
                                 defines={"BLOCK": "64", "BLOCK_K": "32"},
                                 overrides=("pe.local_memory_bytes=32768",)))
    func = kernel_of(out.frontend.module)
    base = (out.meta["args_base"] + 8 * len(func.args) + 63) // 64 * 64
    assert "mtia.dma.wait.in" in out.asm_text
    assert func.attrs["lmem_peak"] == out.meta["lmem_bytes"] - base == 16384


def test_a_128x128_tile_of_bert_base_runs_and_matches_numpy():
    """BERT-base's 768-wide GEMM with a 128 x 128 x 64 tile (it did not fit while its K loop was unrolled whole):
    two programs of 128 x 128 over K = 768, bf16 operands and result, against numpy in float64."""
    import torch

    from mtiacc.runtime import load
    m, n, k = 128, 256, 768
    src = template_source(Tile(128, 128, 64, 2), m, n, k, dtype="bfloat16", epilogue=1)
    rng = np.random.default_rng(7)
    a, b, e = (torch.from_numpy(rng.standard_normal(s).astype(np.float32)).to(torch.bfloat16)
               for s in ((m, k), (k, n), (m, n)))
    c = torch.zeros((m, n), dtype=torch.bfloat16)
    load(_source_file(src), "gemm_fit", num_stages=2)[(2, 1)](a, b, c, e)
    ref = a.double().numpy() @ b.double().numpy() + e.double().numpy()
    np.testing.assert_allclose(c.double().numpy(), ref, rtol=2 ** -7, atol=2 ** -7 * np.abs(ref).max())
