"""The MTIA language extensions, for kernels: ``from triton.language.extra import mtia`` or
``import mtiacc.language as mtia``.

mtiacc reads a kernel's source and never runs it; these functions are what a kernel may call, with their
signatures and meaning.  Called from Python outside a kernel they raise :class:`RuntimeError`, as
``triton.language`` functions do.  ``docs/language.md`` ("MTIA extensions") has the details and examples.

Local buffers and asynchronous copies (double-buffering by hand)::

    buf = mtia.local_buffer((BLOCK,), tl.float32, num=2)     # two slots in the PE's local memory
    tok = mtia.async_copy(buf.index(0), x_ptr + offs, mask=offs < n)
    ...
    mtia.wait(tok)                                           # or tok.wait()
    x = mtia.load(buf.index(0))                              # or buf.index(0).load()

Programs that cooperate::

    mtia.barrier(counter_ptr)                                # every program of the launch
    mtia.atomic_add(hist_ptr + bins, 1, scope="sram")        # performed in (and placing the buffer in) SRAM
"""
from __future__ import annotations

__all__ = ["local_buffer", "async_copy", "wait", "load", "barrier", "atomic_add"]


def _outside(name: str):
    raise RuntimeError(f"mtia.{name}() can only be called inside a @triton.jit kernel compiled by mtiacc")


def local_buffer(shape, dtype, num=1):
    """A buffer of ``num`` slots (default 1), each a ``shape`` block of ``dtype``, in the program's local memory.

    Call it at the kernel's top level (outside loops and branches): it keeps one place in local memory for
    the whole kernel.  ``buf.index(i)`` names slot ``i`` (a compile-time integer); a buffer of one slot may be
    used as its slot.  ``buf.shape``, ``buf.dtype`` and ``buf.num`` describe it."""
    _outside("local_buffer")


def async_copy(dst, src, mask=None, other=None):
    """Start copying the block at the pointers ``src`` (global memory) into ``dst`` (a local buffer's slot, of
    the same shape and element type); return a token for :func:`wait`.

    The copy is one or more DMA transfers, planned as ``tl.load`` plans them; the program goes on while they
    run.  Where ``mask`` is false nothing is copied: the slot keeps what it held, or takes ``other`` (then the
    copy waits for itself, to fill those elements).  Read the slot only after waiting for the token."""
    _outside("async_copy")


def wait(token):
    """Wait until the copy that returned ``token`` has landed (also ``token.wait()``).

    The DMA engine has one completion barrier, so this waits for every transfer the program issued so far:
    issue the next copy after this wait to overlap it with the work on this one."""
    _outside("wait")


def load(buf):
    """The contents of ``buf`` (a slot, or a buffer of one slot) as a block (also ``buf.load()`` or
    ``tl.load(buf)``): a copy, which a later copy into the slot does not change."""
    _outside("load")


def barrier(counter, num_programs=None):
    """Wait until ``num_programs`` programs (default: every program of the launch) have reached a barrier on
    ``counter``, a pointer to an int32 in global memory that starts at 0 (one counter serves every barrier of
    the kernel: it is never reset).  Memory accesses before the barrier complete before any program passes it.

    Every program taking part must be running at once: a launch of more programs than the chip has PEs (64)
    cannot pass a barrier of all of them, and the simulator stops it with a deadlock error."""
    _outside("barrier")


def atomic_add(pointer, val, mask=None, sem=None, scope="dram"):
    """``tl.atomic_add`` performed by the atomic unit of the memory ``scope`` names: ``"dram"`` (the default)
    or ``"sram"`` (the on-chip SRAM: the pointer's buffer, a pointer parameter, is placed there; shorter round
    trips).  Returns the old values.  ``"local"`` is an error: local memory belongs to one program."""
    _outside("atomic_add")
