"""Whether a kernel's simulated cycles can depend on the values in its buffers, from its IR.

The simulator's timing (:mod:`mtiasim.timing`, :mod:`mtiasim.dma`, :mod:`mtiasim.llc`, :mod:`mtiasim.dpe`) takes
an instruction's cost from its timing class, the vector length and its registers' readiness, and a transfer's from
its addresses and sizes (the LLC's residency is by address); no latency depends on an operand's value.  So two
runs of one binary, on one machine, on buffers of the same sizes, with the same scalars, grid and placement, take
the same cycles unless a value read from a buffer reaches

* the address, mask or guard of a load or store (which bytes move, so the transfers, the LLC's hits, the
  programs' divergence),
* a loop's bounds or step, a branch's or a while loop's condition (which instructions run),
* an operation whose lowering addresses local memory by a value (``tt.gather``, ``tt.histogram``, ``tt.sort``),
  or an atomic (whose order and contention are timing).

A call is followed into its callee (a value loaded in the caller taints the callee's parameter, in every call:
one summary per function).  A print or an assertion (``mtia.print``, ``mtia.assert``: timing class ``Custom``, a
fixed cost) takes the same cycles whatever it prints or checks; an assertion that fails stops the run with a
fault, which the values decide, not the machine.

:func:`value_dependence` follows every value loaded from memory (``tt.load``, an atomic, and any operation of the
passes' that loads) through a kernel's IR and returns the first such use it finds, or None when there is none.
It is asked of the IR as the frontend builds it and as the passes leave it for the machine the code is compiled
for (their guards and branches, ``scf.if`` on a loop's last trip or a reused tile, are sinks like any other; a
memory operation of theirs that takes a loaded value at all counts as one): when neither has such a use, the
kernel's cycles on that machine are a function of the binary, the machine, the buffers' sizes and the launch's
scalars, grid and placement alone.
"""
from __future__ import annotations

from typing import Optional, Set

LOADS = ("tt.load", "tt.atomic_rmw", "tt.atomic_cas")
# ops that must never meet a value loaded from memory (their lowering's addresses or control flow would follow it)
VALUE_ADDRESSED = ("tt.gather", "tt.histogram", "tt.sort")
REJECTED = ("tt.atomic_rmw", "tt.atomic_cas")
# the passes' own memory operations (a kept tile's slot, local buffers): which operand addresses is not told here,
# so one that takes a loaded value at all is taken to depend on it
MEMORY_WORDS = ("load", "store", "dma", "slot", "alloc", "copy")


def _yields(block):
    return block.ops[-1].operands if block.ops and block.ops[-1].name in ("scf.yield", "scf.condition") else []


def tainted_values(module) -> Set[int]:
    """The ids of every value that carries data read from memory (a fixpoint over loops' carried values)."""
    tainted: Set[int] = set()
    ops = list(module.walk())
    funcs = {op.attrs.get("sym_name"): op for op in ops if op.name == "tt.func"}
    changed = True

    def mark(v) -> None:
        nonlocal changed
        if id(v) not in tainted:
            tainted.add(id(v))
            changed = True

    def t(v) -> bool:
        return id(v) in tainted

    while changed:
        changed = False
        for op in ops:
            if op.name in LOADS or "load" in op.name:
                for r in op.results:
                    mark(r)
                continue
            if op.name == "scf.for":
                body = op.regions[0].blocks[0]
                inits = op.operands[3:]
                carried = _yields(body)
                for k, r in enumerate(op.results):
                    if t(inits[k]) or (k < len(carried) and t(carried[k])):
                        mark(r)
                        mark(body.args[1 + k])
                continue
            if op.name == "scf.if":
                for k, r in enumerate(op.results):
                    if t(op.operands[0]) or any(k < len(_yields(reg.blocks[0])) and t(_yields(reg.blocks[0])[k])
                                                for reg in op.regions if reg.blocks):
                        mark(r)
                continue
            if op.name == "scf.while":
                before, after = op.regions[0].blocks[0], op.regions[1].blocks[0]
                cond = _yields(before)        # scf.condition(c, passed...)
                back = _yields(after)
                for k, a in enumerate(before.args):
                    if t(op.operands[k]) or (k < len(back) and t(back[k])):
                        mark(a)
                for k, a in enumerate(after.args):
                    if k + 1 < len(cond) and t(cond[k + 1]):
                        mark(a)
                        if k < len(op.results):
                            mark(op.results[k])
                continue
            if op.name == "tt.call":
                callee = funcs.get(op.attrs.get("callee"))
                if callee is None:
                    if any(t(v) for v in op.operands):
                        for r in op.results:
                            mark(r)
                    continue
                params = callee.regions[0].blocks[0].args
                for k, v in enumerate(op.operands):
                    if t(v) and k < len(params):
                        mark(params[k])
                returned = [v for b in callee.regions[0].blocks for x in b.ops if x.name == "tt.return"
                            for v in x.operands]
                if any(t(v) for v in returned):
                    for r in op.results:
                        mark(r)
                continue
            if any(t(v) for v in op.operands):
                for r in op.results:
                    mark(r)
                for reg in op.regions:       # a combiner's arguments (tt.reduce, tt.scan, a fused body)
                    for b in reg.blocks:
                        for a in b.args:
                            mark(a)
            for reg in op.regions:           # what a region yields flows out of its op
                for b in reg.blocks:
                    if b.ops and b.ops[-1].name.endswith(("return", "yield")) and op.name not in ("tt.func",):
                        if any(t(v) for v in b.ops[-1].operands):
                            for r in op.results:
                                mark(r)
    return tainted


def value_dependence(module) -> Optional[str]:
    """Why the cycles of this kernel may depend on its buffers' values (the first use found), or None."""
    tainted = tainted_values(module)

    def t(v) -> bool:
        return v is not None and id(v) in tainted

    funcs = {op.attrs.get("sym_name") for op in module.walk() if op.name == "tt.func"}
    for op in module.walk():
        if op.name == "tt.call" and op.attrs.get("callee") not in funcs and any(t(v) for v in op.operands):
            return f"tt.call: {op.attrs.get('callee')}, not a function of the module, takes values read from memory"
        if op.name in REJECTED:
            return f"{op.name}: an atomic's timing depends on the programs' order"
        if op.name in ("tt.load", "tt.store"):
            for what in ("ptr", "mask", "guard"):
                if t(getattr(op, what, None)):
                    return f"{op.name}: its {what} is computed from values read from memory"
        elif op.name == "scf.for" and any(t(v) for v in op.operands[:3]):
            return "scf.for: its bounds are computed from values read from memory"
        elif op.name in ("scf.if", "scf.condition") and t(op.operands[0]):
            return f"{op.name}: its condition is computed from values read from memory"
        elif op.name in VALUE_ADDRESSED and any(t(v) for v in op.operands):
            return f"{op.name}: takes values read from memory"
        elif (op.name.startswith("mtia.") and any(w in op.name for w in MEMORY_WORDS)
              and any(t(v) for v in op.operands)):
            return f"{op.name}: a memory operation of the passes' that takes values read from memory"
    return None
