"""The ISA table (single source of truth), encoder/decoder, assembler, disassembler and ELF writer/reader.

Public API (imported lazily so that ``mtiasim`` pays only for what it uses)::

    from mtiacc.asm import INSTRUCTIONS, BY_NAME, InstrSpec         # the table (isa.py)
    from mtiacc.asm import encode, decode, decode_all, Decoded       # encoding.py
    from mtiacc.asm import assemble, AssembledProgram                # assembler.py
    from mtiacc.asm import disassemble                               # disasm.py
    from mtiacc.asm import build_elf, read_elf, Binary, BinaryFormatError   # elf.py
"""
from __future__ import annotations

import importlib

_EXPORTS = {
    "INSTRUCTIONS": "isa", "BY_NAME": "isa", "InstrSpec": "isa", "SEM_FAMILIES": "isa", "TIMING_CLASSES": "isa",
    "encode": "encoding", "decode": "encoding", "decode_all": "encoding", "Decoded": "encoding",
    "DecodeError": "encoding", "EncodeError": "encoding", "find_spec": "encoding",
    "assemble": "assembler", "AssembledProgram": "assembler", "PSEUDOS": "pseudo",
    "disassemble": "disasm",
    "build_elf": "elf", "read_elf": "elf", "Binary": "elf", "BinaryFormatError": "elf",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'mtiacc.asm' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value
