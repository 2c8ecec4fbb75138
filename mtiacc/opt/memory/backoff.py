"""Back-off: the mechanism by which the end of the pipeline asks the passes before it to take less local memory.

Each pass that keeps blocks or fetches them ahead (``pipeline-dots``' stages, ``reuse-loads``' rows,
``keep-invariant``'s tiles, ``prefetch-rows``, ``pipeline-loads``) asks the local-memory plan what is free when it
runs and takes its share; a later pass, or the buffers the tail's decisions make (a loop's stored block in two
buffers once ``access-plan`` makes its store contiguous), can then find the kernel's blocks over the capacity,
where no earlier pass can take back what it took.  When the plan of the kernel as the passes left it overflows and
codegen indeed finds no room, the compile runs the passes again as if local memory were smaller by the overflow
(doubled on each try, up to :data:`TRIES` times): each pass then takes less (fewer stages, fewer kept tiles, a
ladder step where one is needed), and the first run whose plan fits the real machine is kept.  The kernel's
function gets ``lmem_backoff = BYTES`` (``--emit=ir``) and a remark (kind ``lmem-backoff``) says what was
reserved and why (``--Werror=spill`` makes it an error).  A kernel whose plan fits, or whose blocks codegen
places although the plan overflows (the plan is an upper bound), compiles as it did.  The driver
(``mtiacc.driver.compile_kernel``) runs the loop; this module decides the reserves and writes the result.
"""
from __future__ import annotations

import dataclasses
from typing import Iterator

from mtiacc.ir import ops as O
from mtiacc.opt.memory.plan import kernel_of, plan_function
from mtiacc.opt.pass_manager import PassContext, Remark
from mtiacc.target import Target

TRIES = 3
UNIT = 4096        # reserves are whole multiples of this many bytes


def overflow(module: O.ModuleOp, target: Target) -> int:
    """Bytes by which the plan of the module's kernel exceeds ``target``'s capacity for blocks (0: it fits)."""
    func = kernel_of(module)
    if func is None:
        return 0
    plan = plan_function(func, target)
    return max(0, plan.peak - plan.capacity)


def reserves(over: int, target: Target) -> Iterator[int]:
    """The reserves to try, smallest first: the overflow rounded up to :data:`UNIT`, then doubled; never half of
    local memory or more."""
    r = -(-over // UNIT) * UNIT
    for _ in range(TRIES):
        if r >= target.lmem_bytes // 2:
            return
        yield r
        r *= 2


def smaller(target: Target, reserve: int) -> Target:
    """``target`` as the passes see it while backing off: ``reserve`` bytes less local memory."""
    return dataclasses.replace(target, lmem_bytes=target.lmem_bytes - reserve)


def record(module: O.ModuleOp, ctx: PassContext, reserve: int, over: int) -> None:
    """Write the back-off on the kernel's function and report it."""
    func = kernel_of(module)
    func.attrs["lmem_backoff"] = reserve
    ctx.remark(Remark("lmem-backoff", f"lmem-backoff: after the passes the blocks took {over} bytes more than local "
                      f"memory holds: the passes ran again planning for {reserve} bytes less", func.loc,
                      "what the passes left out to fit (fewer stages, fewer kept tiles: their remarks)"))


__all__ = ["overflow", "reserves", "smaller", "record", "TRIES"]
