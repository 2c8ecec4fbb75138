"""The disassembler: machine code -> GNU-like listing, derived from the ISA and pseudo tables.

Each line shows the address, the hex word and the canonical text (``vadd.vv v8, v8, v16, v0.t``); pc-relative
targets print as the label at that address or as ``.+N``.  With ``aliases`` (the default) instructions that a
pseudo row describes print as the pseudo (``li``, ``mv``, ``ret``, ``beqz`` ...).  Every printed instruction
assembles back to the same word.
"""
from __future__ import annotations

from typing import Dict, List, Mapping, Optional, Sequence, Tuple, Union

from .encoding import Decoded, decode, DecodeError, format_instruction, iter_words
from .operands import FormatContext
from .pseudo import find_alias


def instruction_text(d: Decoded, pc: int = 0, symbols: Optional[Dict[int, str]] = None,
                     aliases: bool = True) -> str:
    """The text of one decoded instruction at address ``pc`` (``symbols``: name by address)."""
    fctx = FormatContext(pc, symbols or {})
    values = d.values()
    if aliases:
        ps = find_alias(d.spec, values)
        if ps is not None:
            parts = [p for p in (k.format(values, fctx) for k in ps.operands) if p]
            return f"{ps.name} {', '.join(parts)}" if parts else ps.name
    return format_instruction(d.spec, values, fctx)


def _source_lines(source: Union[None, str, Mapping]) -> Dict[int, str]:
    if source is None:
        return {}
    if isinstance(source, str):
        return {i: t for i, t in enumerate(source.split("\n"), start=1)}
    return {int(k): v for k, v in source.items()}


def disassemble(code: bytes, base: int = 0, symbols: Optional[Mapping[str, int]] = None,
                lines: Optional[Sequence[Tuple[int, int, int]]] = None,
                source: Union[None, str, Mapping] = None, *, source_file: str = "<source>",
                aliases: bool = True) -> str:
    """A listing of ``code`` loaded at ``base``.

    ``symbols`` maps names to ``code`` offsets (printed as labels and used for targets); ``lines`` are
    ``(offset, line, col)`` records and ``source`` the kernel's text (a string, or ``{line: text}`` as in the
    binary's meta): a ``# file:line: text`` comment is printed whenever the source line changes.
    """
    by_addr: Dict[int, str] = {}
    for name, off in sorted((symbols or {}).items(), key=lambda kv: (kv[1], kv[0].startswith(".L"), kv[0])):
        by_addr.setdefault(base + off, name)
    line_at = {off: line for off, line, _col in (lines or ())}
    src = _source_lines(source)
    out: List[str] = []
    current_line = None
    for off, word in iter_words(code):
        addr = base + off
        if addr in by_addr:
            out.append(f"{by_addr[addr]}:")
        line = line_at.get(off, current_line)
        if line is not None and line != current_line:
            text = src.get(line)
            out.append(f"  # {source_file}:{line}" + (f": {text.strip()}" if text is not None else ""))
            current_line = line
        try:
            text = instruction_text(decode(word), addr, by_addr, aliases)
        except DecodeError:
            text = f".word {word:#010x}  # unknown instruction"
        out.append(f"{addr:8x}:  {word:08x}  {text}")
    return "\n".join(out) + ("\n" if out else "")


def disassemble_binary(binary) -> str:
    """A kernel binary (:class:`mtiacc.asm.elf.Binary`): its metadata as comments, then the listing with the
    kernel's source lines."""
    meta = binary.meta
    out = [f"# kernel {meta.get('kernel', '?')} for target {meta.get('target', '?')} "
           f"(format version {meta.get('format_version')})"]
    params = ", ".join(f"{p.get('name')}: {p.get('type')}" for p in meta.get("params") or ())
    out.append(f"# params: {params or '(none)'}")
    for key in ("constexprs", "tuning", "grid", "persistent", "lmem_bytes", "args_base", "source_file"):
        if key in meta:
            out.append(f"# {key}: {meta[key]}")
    out.append(f"# .text: {len(binary.text)} bytes at {binary.text_addr:#x}, entry {binary.entry:#x}")
    out.append("")
    listing = disassemble(binary.text, base=binary.text_addr, symbols=binary.symbols, lines=binary.lines,
                          source=meta.get("source"), source_file=meta.get("source_file") or "<source>")
    return "\n".join(out) + "\n" + listing
