"""Instruction selection for one kernel: IR ops -> machine IR over virtual registers.

Scalars live in registers.  Block values live in local-memory buffers, allocated when defined
and reused after their last reader.  A block is only materialized when some op reads its data:
pointer blocks and prefix masks that a load or store understands structurally never are, and
splats and block constants feed vector loops as broadcast scalars.
"""
from __future__ import annotations

from typing import Dict, List, Set

from mtiacc.codegen.vector import blocks
from mtiacc.codegen.arith import casts
from mtiacc.codegen.select import control
from mtiacc.codegen.mathlib import core as mathlib
from mtiacc.codegen import memory
from mtiacc.codegen.select import debug
from mtiacc.codegen.tensor import fused
from mtiacc.codegen.tensor import ndblocks
from mtiacc.codegen.tensor import sort as sorting
from mtiacc.codegen.tensor import reduce_region
from mtiacc.codegen.tensor import join_split as shape_more
from mtiacc.codegen.vector.lmem import Buffer, LocalMemory
from mtiacc.codegen.machine.mir import MBuilder, Mem, MFunction, VReg
from mtiacc.codegen.arith.scalar import constant, lower_scalar, reg_class
from mtiacc.codegen.vector.vloop import Src, elem_bytes
from mtiacc.diagnostics import CompileError
from mtiacc.ir import ops as O
from mtiacc.ir.core import OpResult, Value
from mtiacc.ir.fused import FusedElementwiseOp
from mtiacc.ir.types import FloatType, IntType
from mtiacc.target import Target

# Block ops that are only ever seen through their scalar (never materialized by themselves).
SCALAR_BACKED = (O.SplatOp, O.ConstantOp)


class Lowering:
    def __init__(self, func: O.FuncOp, target: Target):
        self.func = func
        self.target = target
        self.fn = MFunction(func.sym_name)
        self.b = MBuilder(self.fn)
        self.regs: Dict[int, VReg] = {}
        self.bufs: Dict[int, Buffer] = {}
        nargs = len(func.args)
        base = (target.args_base + 8 * nargs + 63) // 64 * 64
        self.lmem = LocalMemory(base, target.lmem_bytes - target.stack_bytes)
        self.keep: Set[int] = set()
        self.pending_dma_in = False  # a DMA-in was issued and not yet waited for
        self.strings: List[dict] = []  # meta["strings"]: tl.device_print / tl.device_assert entries
        self.prints = False  # the kernel prints: mtia.flush before it returns

    # ---- operands
    def get(self, v: Value) -> VReg:
        """The register of scalar `v`."""
        r = self.regs.get(id(v))
        if r is None:
            raise CompileError(f"internal: scalar value of type {v.type} has no register")
        return r

    def buffer(self, v: Value) -> Buffer:
        buf = self.bufs.get(id(v))
        if buf is None:
            raise CompileError(f"internal: block value of type {v.type} was not materialized")
        return buf

    def src(self, v: Value) -> Src:
        """A vector-loop operand for block `v`: its buffer, or its broadcast scalar."""
        elem = v.type.element_type
        if isinstance(v, OpResult) and isinstance(v.op, O.SplatOp):
            return Src(elem, scalar=self.get(v.op.src))
        if isinstance(v, OpResult) and isinstance(v.op, O.ConstantOp):
            key = id(v)
            if key not in self.regs:
                self.regs[key] = constant(self.b, v.op.value, elem)
            return Src(elem, scalar=self.regs[key])
        return Src(elem, addr=self.buffer(v).offset)

    def alloc(self, v: Value) -> Buffer:
        nbytes = v.type.numel * elem_bytes(v.type)
        what = f"`{v.name_hint}` ({v.type})" if v.name_hint else f"a block of {v.type}"
        buf = self.lmem.alloc(nbytes, what, v.op.loc if isinstance(v, OpResult) else None)
        self.bufs[id(v)] = buf
        return buf

    # ---- analysis
    def readers(self, ops: List) -> Dict[int, int]:
        """Which block values get materialized, and the index of the last op reading each."""
        last: Dict[int, int] = {}
        demanded: Set[int] = set()

        def need(v: Value, i: int):
            v, i = control.remap(self, v, i)  # carried values, and uses inside loops
            if not v.type.is_block():
                return
            if isinstance(v, OpResult) and isinstance(v.op, SCALAR_BACKED):
                return
            demanded.add(id(v))
            last[id(v)] = max(last.get(id(v), -1), i)

        for i in reversed(range(len(ops))):
            op = ops[i]
            if isinstance(op, control.CONTROL_OPS):
                control.need_operands(self, op, i, need)
            elif isinstance(op, O.StoreOp):
                for v in memory.needs_buffers(op):
                    need(v, i)
            elif isinstance(op, O.LoadOp):
                if id(op.result) in demanded:
                    for v in memory.needs_buffers(op):
                        need(v, i)
            elif debug.handles(op):  # tt.print / tt.assert read every operand
                for v in op.operands:
                    need(v, i)
            elif isinstance(op, FusedElementwiseOp):
                if any(id(r) in demanded for r in op.results):
                    for v in op.operands:
                        need(v, i)
            elif reduce_region.is_combine(op):  # every operand, if any result is used
                if not op.results[0].type.is_block() or any(id(r) in demanded for r in op.results):
                    for v in op.operands:
                        need(v, i)
            elif op.results and op.results[0].type.is_block() and id(op.results[0]) in demanded:
                if ndblocks.is_alias(op):  # the source's buffer lives as long as the alias
                    i = max(i, last.get(id(op.results[0]), i))
                for v in op.operands:
                    need(v, i)
            elif op.results and not op.results[0].type.is_block() and ndblocks.handles(op):  # reduce to scalar
                for v in op.operands:
                    need(v, i)
        for op in ops:  # an alias and its source free their shared buffer together
            if ndblocks.is_alias(op) and id(op.results[0]) in last and id(op.src) in last:
                last[id(op.results[0])] = last[id(op.src)]
        self.demanded = demanded
        return last

    # ---- driver
    def run(self) -> MFunction:
        b = self.b
        ops = list(self.func.entry.ops)
        last_read = self.readers(control.number(self, self.func.entry))  # regions in pre-order
        self.frees: Dict[int, List[int]] = {}
        for key, i in last_read.items():
            self.frees.setdefault(i, []).append(key)
        b.loc = self.func.loc
        self.load_args()
        for op in ops:
            self.emit(op)
        b.loc = ops[-1].loc if ops else self.func.loc
        b("mtia.dma.wait", comment="stores complete before the program ends")
        if self.prints:
            b("mtia.flush", comment="printed lines, in program-id order")
        b("ret")
        return self.fn

    def emit(self, op) -> None:
        """Lower ``op`` (control.py calls this for the ops in regions), then free dead buffers."""
        self.b.loc = op.loc
        if self.pending_dma_in and not self.leaves_local_memory_alone(op):
            self.b("mtia.dma.wait", comment="loads above complete before their data is read")
            self.pending_dma_in = False
        try:
            self.lower(op)
        except CompileError as e:
            if e.loc is None:
                e.loc = op.loc
            raise
        self.release(op)

    def leaves_local_memory_alone(self, op) -> bool:
        """True for ops that neither read local memory nor branch: block loads (their DMA transfers
        overlap) and plain scalar arithmetic; a DMA-in still in flight need not finish before them."""
        if isinstance(op, O.LoadOp):  # unless it reads a buffer (a gather's pointers, a general mask)
            return op.result.type.is_block() and not memory.needs_buffers(op)
        if isinstance(op, control.REGION_OPS) or not op.results:
            return False
        if all(r.type.is_block() and id(r) not in self.demanded for r in op.results):
            return True  # a block nothing reads as data (e.g. a pointer block a DMA uses): no code
        if ndblocks.handles(op) or mathlib.is_math(op):
            return False
        return not op.results[0].type.is_block() or isinstance(op, SCALAR_BACKED)

    def release(self, op) -> None:
        """Free the buffers whose last reader is ``op``."""
        for key in self.frees.get(self.pos[id(op)], ()):
            if key in self.bufs and key not in self.keep:
                self.lmem.free(self.bufs[key])

    def load_args(self) -> None:
        for i, arg in enumerate(self.func.args):
            if not arg.uses:
                continue
            t = arg.type
            slot = Mem("zero", self.target.args_base + 8 * i)
            if isinstance(t, FloatType) and t.kind in ("f16", "bf16"):
                # the slot's low 16 bits, NaN-boxed in an f register as every half scalar is held
                bits = self.b.x()
                self.b("lhu", bits, slot, comment=f"parameter {arg.name_hint}")
                boxed = self.b.x()
                self.b("or", boxed, bits, self.b.li(-65536))
                r = self.b.f(arg.name_hint or "")
                self.b("fmv.w.x", r, boxed)
            elif isinstance(t, FloatType):
                if t.kind not in ("f32", "f64"):
                    raise CompileError(f"scalar parameters of type {t} are not supported yet")
                r = self.b.f(arg.name_hint or "")
                self.b("flw" if t.kind == "f32" else "fld", r, slot, comment=f"parameter {arg.name_hint}")
            else:
                r = self.b.x(arg.name_hint or "")
                wide = not (isinstance(t, IntType) and t.width <= 32)
                self.b("ld" if wide else "lw", r, slot, comment=f"parameter {arg.name_hint}")
            self.regs[id(arg)] = r

    def lower(self, op) -> None:
        if isinstance(op, O.ReturnOp):
            return
        if isinstance(op, control.REGION_OPS):
            control.lower(self, op)
            return
        if isinstance(op, FusedElementwiseOp):
            fused.lower(self, op)
            return
        if isinstance(op, O.StoreOp):
            memory.lower_store(self, op)
            for v in memory.needs_buffers(op):
                if v is op.value:
                    self.keep.update(ndblocks.alias_chain(v))
            return
        if debug.handles(op):  # tl.device_print / tl.device_assert
            debug.lower(self, op)
            return
        if reduce_region.is_combine(op):  # tl.reduce / tl.associative_scan with a combine function
            reduce_region.lower_combine(self, op)
            return
        if not op.results:
            raise CompileError(f"'{op.name}' is not supported by codegen yet")
        res = op.result
        if shape_more.handles(op):  # tt.join, tt.split, tt.cat, tt.flip
            if id(res) in self.demanded:
                shape_more.lower(self, op)
            return
        if sorting.handles(op):  # tt.sort, tt.gather, tt.histogram (sort.py)
            if id(res) in self.demanded:
                sorting.lower(self, op)
            return
        if ndblocks.handles(op):  # shape ops, reductions, scans
            if not res.type.is_block() or id(res) in self.demanded:
                ndblocks.lower(self, op)
            return
        if not res.type.is_block():
            if isinstance(op, O.LoadOp):
                self.regs[id(res)] = memory.lower_scalar_load(self, op)
                return
            if mathlib.is_math(op):
                self.regs[id(res)] = mathlib.lower_math_scalar(self.b, op, self.get)
                return
            self.regs[id(res)] = lower_scalar(self.b, op, self.get)
            return
        if isinstance(op, SCALAR_BACKED) or id(res) not in self.demanded:
            return
        if len(res.type.shape) > 3:
            raise CompileError(f"blocks of rank {len(res.type.shape)} are not supported yet")
        if isinstance(op, O.LoadOp):
            memory.lower_load(self, op)
        elif isinstance(op, O.AddPtrOp):  # a pointer block a gather/scatter reads
            memory.lower_addptr(self, op)
        elif isinstance(op, O.MakeRangeOp):
            blocks.lower_make_range(self.b, op.start, res.type.numel, Src(res.type, addr=self.alloc(res).offset))
        elif isinstance(op, O.BroadcastOp) and op.src.type.shape == res.type.shape:
            self.bufs[id(res)] = self.buffer(op.src)
        else:
            srcs = [self.src(v) for v in op.operands]
            dst = Src(res.type.element_type, addr=self.alloc(res).offset)
            if mathlib.is_math(op):
                mathlib.lower_math(self.b, op, srcs, dst)
            elif casts.handles(op):
                casts.lower_cast(self.b, op, srcs, dst)
            else:
                blocks.lower_elementwise(self.b, op, srcs, dst)


def select_instructions(func: O.FuncOp, target: Target) -> Lowering:
    lw = Lowering(func, target)
    lw.run()
    return lw


__all__ = ["select_instructions", "Lowering", "reg_class"]
