"""Codegen's memory hub: one strategy per access-plan kind, chosen by the `access` attribute only."""
from pathlib import Path

import pytest

from mtiacc.codegen import generate, memory
from mtiacc.frontend import compile_file
from mtiacc.ir.analysis.access_kinds import KINDS
from mtiacc.opt.access_plan import AccessPlan
from mtiacc.target import load_target

VECTOR_ADD = str(Path(__file__).resolve().parents[3] / "examples" / "vector_add.py")


def test_every_kind_has_a_strategy_with_the_lowerings_its_ops_need():
    assert set(memory.STRATEGIES) == set(KINDS)
    for name, kind in KINDS.items():
        s = memory.STRATEGIES[name]
        if "tt.load" in kind.ops:
            assert (s.lower_scalar_load if name == "scalar" else s.lower_load) is not None, name
        if "tt.store" in kind.ops:
            assert s.lower_store is not None, name


def _module():
    fe = compile_file(VECTOR_ADD, defines={"BLOCK_SIZE": "64"})
    return fe, fe.module


def test_codegen_reads_the_plan():
    fe, module = _module()
    AccessPlan().run(module)
    plain = generate(module, load_target(), fe.source_file, fe.source_lines).text
    fe, module = _module()
    AccessPlan().run(module)
    for op in module.funcs[0].walk():  # the plan, not the IR's structure, picks the strategy
        if op.name == "tt.store":
            op.attrs["access"] = "elements"
    planned = generate(module, load_target(), fe.source_file, fe.source_lines).text
    assert plain.count("mtia.dma.out") == 1 and "elem" not in plain
    assert planned.count("mtia.dma.out") == 1 and "elem" in planned  # one DMA in a loop per element


def test_a_load_or_store_without_a_plan_is_a_compiler_bug():
    fe, module = _module()  # no access-plan pass: isel meets the store first (it reads backwards)
    with pytest.raises(memory.AccessPlanError, match="'tt.store' at .*vector_add.py:24:5: no access plan"):
        generate(module, load_target(), fe.source_file, fe.source_lines)
