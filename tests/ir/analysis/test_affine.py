"""The structure analysis that lets loads and stores use one DMA transfer."""
from mtiacc.ir.analysis.affine import affine_of, pointer_affine, prefix_count
from mtiacc.ir import ops as O
from mtiacc.ir.types import PointerType, f32, i32


def kernel(n=64):
    f = O.FuncOp.get("k", [PointerType(f32), i32], ["X", "N"])
    blk = f.entry
    add = lambda op: blk.append(op).result
    pid = add(O.GetProgramIdOp.get(0))
    start = add(O.MulIOp.get(pid, add(O.ConstantOp.get(n, i32))))
    offs = add(O.AddIOp.get(add(O.SplatOp.get(start, (n,))), add(O.MakeRangeOp.get(0, n))))
    return f, pid, start, offs


def test_program_offsets_are_contiguous_from_a_scalar_start():
    f, pid, start, offs = kernel()
    a = affine_of(offs)
    assert a.stride == 1 and a.const == 0 and a.terms == ((start, 1),)


def test_pointer_block_is_base_plus_affine_offsets():
    f, pid, start, offs = kernel()
    ptr = f.entry.append(O.AddPtrOp.get(f.entry.append(O.SplatOp.get(f.args[0], (64,))).result, offs)).result
    base, off = pointer_affine(ptr)
    assert base is f.args[0] and off.stride == 1


def test_strided_and_scaled():
    f, pid, start, offs = kernel()
    two = f.entry.append(O.SplatOp.get(f.entry.append(O.ConstantOp.get(2, i32)).result, (64,))).result
    scaled = f.entry.append(O.MulIOp.get(offs, two)).result
    a = affine_of(scaled)
    assert a.stride == 2 and a.terms == ((start, 2),)


def test_bound_mask_is_a_prefix():
    f, pid, start, offs = kernel()
    n = f.entry.append(O.SplatOp.get(f.args[1], (64,))).result
    mask = f.entry.append(O.CmpIOp.get("slt", offs, n)).result
    count = prefix_count(mask)
    assert count.stride == 0 and dict((id(v), c) for v, c in count.terms) == {id(f.args[1]): 1, id(start): -1}


def test_other_masks_are_not_prefixes():
    f, pid, start, offs = kernel()
    n = f.entry.append(O.SplatOp.get(f.args[1], (64,))).result
    mask = f.entry.append(O.CmpIOp.get("eq", offs, n)).result
    assert prefix_count(mask) is None
