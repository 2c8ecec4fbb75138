"""From launch arguments to a kernel signature: Triton's rules for what a Python value's type is.

An array (numpy, or a torch CPU tensor) is a pointer to its element type; ``bool`` is ``i1``; an ``int`` is ``i32``
when it fits, else ``i64``, else ``u64``; a ``float`` is ``fp32``; ``None`` specializes the parameter to the
constant ``None`` (as Triton does); a :class:`TensorDescriptor` is ``tensordesc<fp16[64, 64]>``.  An array argument is passed as the bytes its elements span in memory, so a
view (strides, an offset into a larger array) is seen by the kernel exactly as Triton sees a tensor's data
pointer, and what the kernel writes lands in the caller's memory.
"""
from __future__ import annotations

import ctypes
import dataclasses
from typing import Tuple

import numpy as np
from numpy.lib.array_utils import byte_bounds

from mtiacc.diagnostics import UserError

NUMPY_TYPES = {
    np.dtype(np.float16): "fp16", np.dtype(np.float32): "fp32", np.dtype(np.float64): "fp64",
    np.dtype(np.int8): "i8", np.dtype(np.int16): "i16", np.dtype(np.int32): "i32", np.dtype(np.int64): "i64",
    np.dtype(np.uint8): "u8", np.dtype(np.uint16): "u16", np.dtype(np.uint32): "u32", np.dtype(np.uint64): "u64",
    np.dtype(np.bool_): "i1",
}
# torch dtype name -> (Triton type, numpy dtype of its storage as mtiasim takes it)
TORCH_TYPES = {
    "float16": ("fp16", np.float16), "bfloat16": ("bf16", np.uint16), "float32": ("fp32", np.float32),
    "float64": ("fp64", np.float64), "int8": ("i8", np.int8), "int16": ("i16", np.int16), "int32": ("i32", np.int32),
    "int64": ("i64", np.int64), "uint8": ("u8", np.uint8), "uint16": ("u16", np.uint16),
    "uint32": ("u32", np.uint32), "uint64": ("u64", np.uint64), "bool": ("i1", np.bool_),
    "float8_e4m3fn": ("fp8e4nv", np.uint8), "float8_e5m2": ("fp8e5", np.uint8),
    "float8_e4m3fnuz": ("fp8e4b8", np.uint8), "float8_e5m2fnuz": ("fp8e5b16", np.uint8),
}


@dataclasses.dataclass
class Buffer:
    """A pointer argument: the bytes its elements span (a 1-D uint8 array sharing the caller's memory) and the
    byte offset of element 0 within them."""

    span: np.ndarray
    offset: int
    dtype: np.dtype
    readonly: bool = False    # the caller's array is read-only: ``span`` is a copy, and the kernel must not write it


def is_torch_tensor(v) -> bool:
    return type(v).__module__.startswith("torch") and hasattr(v, "untyped_storage")


def byte_span(a: np.ndarray) -> Tuple[np.ndarray, int]:
    """The bytes ``a``'s elements span in memory (a 1-D uint8 array sharing that memory, keeping ``a`` alive) and
    the offset of the element at index 0 in them."""
    if a.size == 0:
        return np.zeros(0, np.uint8), 0
    lo, hi = byte_bounds(a)
    return span_at(lo, hi - lo, a), a.__array_interface__["data"][0] - lo


def span_at(address: int, n: int, owner) -> np.ndarray:
    """The ``n`` bytes at ``address`` as a 1-D uint8 array that keeps ``owner`` (what holds that memory) alive as
    long as the array or any view of it lives: a launch prepared now may run after its caller dropped the
    arguments (autotuning's captured launches, a ``Prepared`` kept for later)."""
    raw = (ctypes.c_uint8 * n).from_address(address)
    raw.owner = owner
    return np.frombuffer(raw, np.uint8)


def _scalar(name: str, v) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "i1"
    if isinstance(v, (int, np.integer)):
        v = int(v)
        if -(1 << 31) <= v < (1 << 31):
            return "i32"
        if -(1 << 63) <= v < (1 << 63):
            return "i64"
        if 0 <= v < (1 << 64):
            return "u64"
        raise UserError(f"argument '{name}' = {v} does not fit in 64 bits")
    if isinstance(v, (float, np.floating)):
        return "fp32"
    raise UserError(f"argument '{name}' is a {type(v).__name__}: a kernel takes arrays (numpy, or torch CPU "
                    f"tensors), ints, floats, bools and None")


@dataclasses.dataclass
class TensorDescriptor:
    """A tensor descriptor made by the host, as Triton's ``TensorDescriptor(base, shape, strides, block_shape)``
    built by ``from_tensor``: an array (numpy, or a torch CPU tensor) and the block shape the kernel loads and
    stores.  Passed to a kernel, it is a ``tensordesc<DTYPE[B0, ...]>`` parameter, a ``tl.tensor_descriptor``
    of the array's shape in the kernel.  The array's elements are copied in and what the kernel wrote is
    copied back (they do not share memory with the other arguments)."""

    base: object
    block_shape: Tuple[int, ...]

    @classmethod
    def from_tensor(cls, tensor, block_shape) -> "TensorDescriptor":
        return cls(tensor, tuple(block_shape))


@dataclasses.dataclass
class DescriptorArg:
    """A :class:`TensorDescriptor` argument: the caller's elements (a numpy array sharing their memory)."""

    array: np.ndarray


def _descriptor(name: str, d: TensorDescriptor):
    ty, _ = classify(name, d.base)
    if not ty.startswith("*"):
        raise UserError(f"argument '{name}' is a TensorDescriptor of a {type(d.base).__name__}: its base must be "
                        f"an array (numpy, or a torch CPU tensor)")
    arr = _numpy_elements(d.base)
    block = tuple(d.block_shape)
    if not all(isinstance(b, (int, np.integer)) and not isinstance(b, bool) for b in block):
        raise UserError(f"argument '{name}': a TensorDescriptor's block_shape holds integers, got {block}")
    if len(block) != arr.ndim:
        raise UserError(f"argument '{name}': the TensorDescriptor's block_shape {list(block)} has {len(block)} "
                        f"dimensions but its array has {arr.ndim} (shape {tuple(arr.shape)})")
    return f"tensordesc<{ty[1:]}[{', '.join(str(int(b)) for b in block)}]>", DescriptorArg(arr)


def _numpy_elements(v) -> np.ndarray:
    """An array argument's elements as numpy sees them (bf16 and fp8 as their bits), sharing its memory."""
    if not is_torch_tensor(v):
        return v
    ty, npdt = TORCH_TYPES[str(v.dtype).replace("torch.", "")]
    a = v.detach()
    arr = a.view(_torch_int_of(a)).numpy() if npdt in (np.uint16, np.uint8) and ty not in ("u8", "u16") \
        else a.numpy()
    return arr.view(npdt)


@dataclasses.dataclass
class Reinterpreted:
    """An array whose elements the kernel reads as Triton type ``ty`` (``"fp8e4b15"``), of the array's element
    width: ``triton.reinterpret`` to a type neither torch nor numpy has."""

    base: object
    ty: str


def classify(name: str, v):
    """``(triton type, value)`` of argument ``name``: a :class:`Buffer` for an array, a :class:`DescriptorArg`
    for a :class:`TensorDescriptor`, else the Python scalar."""
    if isinstance(v, TensorDescriptor):
        return _descriptor(name, v)
    if isinstance(v, Reinterpreted):
        _, buf = classify(name, v.base)
        return "*" + v.ty, Buffer(buf.span, buf.offset, np.dtype(f"u{buf.dtype.itemsize}"), buf.readonly)
    if is_torch_tensor(v):
        if v.device.type != "cpu":
            raise UserError(f"argument '{name}' is a tensor on '{v.device}': mtiacc runs CPU tensors")
        dname = str(v.dtype).replace("torch.", "")
        if dname not in TORCH_TYPES:
            raise UserError(f"argument '{name}' has dtype {v.dtype}, which mtiacc does not support")
        ty, npdt = TORCH_TYPES[dname]
        arr = _numpy_elements(v)
        span, off = byte_span(arr)
        return "*" + ty, Buffer(span, off, np.dtype(npdt))
    if isinstance(v, np.ndarray):
        if v.dtype not in NUMPY_TYPES:
            raise UserError(f"argument '{name}' has dtype {v.dtype}, which mtiacc does not support (bfloat16 "
                            f"data: pass a torch tensor, or uint16 bits to a kernel compiled for *bf16)")
        if not v.flags.writeable:      # a copy the kernel may write; its span keeps the copy alive
            copy = np.ascontiguousarray(v).copy()
            return "*" + NUMPY_TYPES[v.dtype], Buffer(copy.reshape(-1).view(np.uint8), 0, v.dtype, True)
        span, off = byte_span(v)
        return "*" + NUMPY_TYPES[v.dtype], Buffer(span, off, v.dtype)
    return _scalar(name, v), v


def _torch_int_of(t):
    import torch
    return torch.int16 if t.element_size() == 2 else torch.uint8


def storage_dtype(elem: str) -> np.dtype:
    """The numpy dtype whose items hold one element of Triton type ``elem`` as mtiasim takes it (bf16 as uint16,
    fp8 as uint8)."""
    from mtiasim.runner import POINTER_DTYPES
    return np.dtype(POINTER_DTYPES[elem][0])


def as_annotated(name: str, annotation: str, buf: Buffer, given: str) -> Buffer:
    """A pointer argument of type ``given`` (``*fp32``) passed to a parameter annotated ``annotation`` (``*i32``):
    the kernel reads its bits as the annotation's elements, as Triton's compiled kernel does; never converted value
    by value.  Refused when its bytes are not a whole number of such elements."""
    dt = storage_dtype(annotation[1:])
    if buf.span.size % dt.itemsize or buf.offset % dt.itemsize:
        raise UserError(f"argument '{name}' is an array of {given[1:]} ({buf.span.size} bytes) and parameter "
                        f"'{name}' is annotated {annotation}: its bytes are not a whole number of "
                        f"{annotation[1:]} elements ({dt.itemsize} bytes each), so the kernel cannot read them as "
                        f"such (pass an array of {annotation[1:]}, or .view() it)")
    return Buffer(buf.span, buf.offset, dt, buf.readonly)
