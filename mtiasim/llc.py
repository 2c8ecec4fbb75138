"""The last-level cache (LLC): the part of the on-chip SRAM (``memory.sram.llc_bytes``) that caches DRAM.

Model (the timing only: data always comes from :class:`mtiasim.memory.Dram`, which is always current):

- Residency is tracked in lines of ``line`` bytes (``memory.sram.llc_line_bytes``) over the kernel's DRAM
  buffers (one stamp per line in a numpy array, 0 while the line is not resident).  A line is resident or not as
  a whole.
- A DMA *read* of DRAM bytes: the bytes on lines resident when the transfer issues are **hits**, moved at the SRAM
  level's bandwidth and latency.  Each line it touches that is not resident **misses** and is *filled*: DRAM moves
  the whole line (``line`` bytes, whatever part of it the transfer asked for), and the line becomes resident,
  so a later read of the rest of it hits.  A read's DRAM bytes are its filled lines times ``line``: more than
  the bytes it missed when it covers part of a line (half a line read costs the whole line), the same when it
  reads whole lines.  The transfer moves its hits, then its fills (:mod:`mtiasim.dma`): its engine waits for the
  whole lines it misses, each level's bandwidth shared as for any transfer.  (``line_fill=False``, the machine's
  ``memory.sram.llc_line_fill: 0``: the model before line fills, a miss charged only the bytes asked for.)
  Bytes a transfer reads twice on a line it fills (rows that overlap) count once in the fill and are hits again.
  Every line the transfer touches becomes the most recently used.  Hit or miss is decided in the order the
  simulator executes the transfers (within a wave, programs in slot order at each step); a hit on a line whose
  fill is still in flight is served as a hit (the fill's DRAM bytes are charged once, to the transfer that missed).
- A DMA *write* is write-through with no write-allocate (ASSUMPTION: the chip's write policy is not published):
  it moves its bytes at DRAM's bandwidth and latency, exactly the bytes written (a DRAM write burst carries byte
  masks, so a partial line is written without reading it first), and neither fills lines nor changes the LRU
  order; a resident line it writes stays resident (the cache holds the written data), so a later read of it
  hits, while a read of a line written but not resident misses and fills.  So DRAM sees every byte written, as
  without a cache, and streaming outputs never evict inputs.
- Replacement is LRU, evicting in batches: when more lines are resident than fit, the least recently used are
  evicted until :data:`SLACK` of the capacity is free (one partial sort per batch, not one per line).
- Buffers placed in SRAM (``--place NAME=sram``: the software-managed part, LLS) are not cached.

The cache starts empty at each run (the host's writes of the inputs are not cached) and persists across the waves
of the run.
"""
from __future__ import annotations

from typing import List, Optional, Tuple

import numpy as np

SLACK = 1 / 16      # an eviction batch frees this fraction of the capacity


class Llc:
    def __init__(self, capacity_bytes: int, span_bytes: int, line_bytes: int, line_fill: bool = True):
        self.line = int(line_bytes)
        self.capacity = max(int(capacity_bytes) // self.line, 1)      # lines
        self.stamp = np.zeros(span_bytes // self.line + 2, np.int64)  # per line: its last use, 0 = not resident
        self.line_fill = line_fill
        self.clock = 0
        self.resident = 0
        self.hit_bytes = 0      # bytes served at the SRAM level
        self.miss_bytes = 0     # bytes served by the reads' own fills
        self.fill_bytes = 0     # DRAM bytes the reads cost: the lines filled (line_fill), else the missed bytes

    def read(self, off: int, n: int, rows: int = 1, stride: int = 0) -> Tuple[int, int]:
        """A DMA read of ``rows`` rows of ``n`` bytes, row ``r`` at ``off + r * stride`` (offsets into the DRAM
        array): returns ``(hit, dram)``, the bytes served at the SRAM level and the bytes DRAM moves (the lines
        it fills); fills and touches its lines."""
        if rows == 1 or stride == n:
            return self._span(off, n * rows)
        line = self.line
        if not (off % line or n % line or stride % line) and abs(stride) >= n:   # whole lines, none shared
            k = n // self.line
            lines = ((off // self.line + np.arange(rows, dtype=np.int64) * (stride // self.line))[:, None]
                     + np.arange(k)).ravel()
            held = int(np.count_nonzero(self.stamp[lines]))
            self.clock += 1
            self.stamp[lines] = self.clock
            return self._account(len(lines) - held, n * rows, held * self.line)
        return self._rows(off, n, rows, stride)

    def read_many(self, offs, n: int, rows: int = 1, stride: int = 0) -> Optional[List[Tuple[int, int]]]:
        """:meth:`read` of the same rows from each offset of ``offs`` in turn (the programs of a step, in slot
        order), at once: a read hits the lines resident before the step and those an earlier read of the step
        filled, as one read after the other would.  None (nothing read) when the step's lines could overflow the
        cache, where one read after the other may evict between them."""
        if n <= 0 or rows <= 0 or len(offs) == 0:
            return None
        line = self.line
        G = len(offs)
        starts = np.asarray(offs, np.int64)[:, None] + np.arange(rows, dtype=np.int64) * stride    # [G, rows]
        first = starts // line
        last = (starts + (n - 1)) // line
        k = int((last - first).max()) + 1
        if k == 1:      # every row on one line: n bytes of it
            lines = first.ravel()
            nbytes = None
        else:
            lines3 = first[:, :, None] + np.arange(k)
            lo = np.maximum(lines3 * line, starts[:, :, None])
            hi = np.minimum((lines3 + 1) * line, (starts + n)[:, :, None])
            valid = (lines3 <= last[:, :, None]).reshape(G, -1)
            lines = np.where(valid, lines3.reshape(G, -1), -1).ravel()
            nbytes = np.where(valid, (hi - lo).reshape(G, -1), 0).ravel()
        prog = np.repeat(np.arange(G), len(lines) // G)
        uniq, at, inv = np.unique(lines, return_index=True, return_inverse=True)
        if nbytes is not None and uniq[0] < 0:     # the padding of rows on fewer lines than others
            at, uniq_real = at[1:], uniq[1:]
        else:
            uniq_real = uniq
        if self.resident + len(uniq_real) > self.capacity:
            return None
        stamp = self.stamp
        held = stamp[uniq] != 0                     # resident before the step
        if nbytes is not None and uniq[0] < 0:
            held[0] = True                          # (the padding: no line, no bytes)
        earliest = prog[at] if uniq_real is uniq else np.concatenate(([0], prog[at]))
        hit_entry = held[inv] | (earliest[inv] < prog)
        per = np.full(len(lines), n, np.int64) if nbytes is None else nbytes
        hits = np.bincount(prog, weights=np.where(hit_entry, per, 0), minlength=G)
        fresh = ~held[len(uniq) - len(uniq_real):]
        news = np.bincount(earliest[len(uniq) - len(uniq_real):][fresh], minlength=G)
        # each line's stamp: the clock of the last read that touched it (read i is clock + 1 + i)
        last_at = len(lines) - 1 - np.unique(lines[::-1], return_index=True)[1]
        stamp[uniq_real] = self.clock + 1 + prog[last_at][len(uniq) - len(uniq_real):]
        self.clock += G
        total = n * rows
        return [self._account(int(news[i]), total, int(hits[i])) for i in range(G)]

    def _rows(self, off: int, n: int, rows: int, stride: int) -> Tuple[int, int]:
        """Any rows: each row's bytes on each line it touches."""
        starts = off + np.arange(rows, dtype=np.int64) * stride
        first = starts // self.line
        last = (starts + (n - 1)) // self.line
        # rows in address order, each starting on or after the last line of the row before: their lines, row
        # after row, never decrease, and a line's copies are neighbours
        ordered = stride >= 0 and bool((first[1:] >= last[:-1]).all())
        if ordered and bool((first == last).all()):     # every row on one line: n bytes of that line
            return self._touch_rows(first, n)
        k = int((last - first).max()) + 1
        lines = first[:, None] + np.arange(k)
        lo = np.maximum(lines * self.line, starts[:, None])
        hi = np.minimum((lines + 1) * self.line, (starts + n)[:, None])
        valid = lines <= last[:, None]
        lines, nbytes = lines[valid], (hi - lo)[valid]
        return self._touch(lines, nbytes, _distinct(lines) if ordered else np.unique(lines))

    def _touch_rows(self, lines, n: int) -> Tuple[int, int]:
        """:meth:`_touch` for rows of ``n`` bytes each on one line, ``lines`` in order."""
        stamp = self.stamp
        hit = n * int(np.count_nonzero(stamp[lines]))
        unique = _distinct(lines)
        new = len(unique) - int(np.count_nonzero(stamp[unique]))
        self.clock += 1
        stamp[unique] = self.clock
        return self._account(new, n * len(lines), hit)

    def _span(self, off: int, n: int) -> Tuple[int, int]:
        """A read of ``n`` consecutive bytes at ``off``."""
        a, b = off // self.line, (off + n - 1) // self.line
        st = self.stamp[a:b + 1]
        held = int(np.count_nonzero(st))
        if held == 0:
            hit = 0
        elif held == b + 1 - a:
            hit = n
        else:
            nbytes = np.full(b + 1 - a, self.line, np.int64)
            nbytes[0] -= off - a * self.line
            nbytes[-1] -= (b + 1) * self.line - (off + n)
            hit = int(nbytes[st != 0].sum())
        self.clock += 1
        st[:] = self.clock
        return self._account(b + 1 - a - held, n, hit)

    def _touch(self, lines, nbytes, unique) -> Tuple[int, int]:
        n = int(nbytes.sum())
        miss = self.stamp[lines] == 0
        hit = n - int(nbytes[miss].sum())
        new = int((self.stamp[unique] == 0).sum())
        self.clock += 1
        self.stamp[unique] = self.clock
        return self._account(new, n, hit)

    def _account(self, new: int, n: int, hit: int) -> Tuple[int, int]:
        if not self.line_fill:
            dram = n - hit
        else:
            dram = new * self.line
            hit = max(hit, n - dram)    # bytes read again on a line this transfer fills: hits
        self.hit_bytes += hit
        self.miss_bytes += n - hit
        self.fill_bytes += dram
        self.resident += new
        if self.resident > self.capacity:
            self._evict()
        return hit, dram

    def _evict(self):
        keep = self.capacity - int(self.capacity * SLACK)
        res = np.flatnonzero(self.stamp)
        drop = len(res) - keep
        if drop <= 0:
            return
        order = np.argpartition(self.stamp[res], drop - 1)[:drop]
        self.stamp[res[order]] = 0
        self.resident = keep


def _distinct(lines: np.ndarray) -> np.ndarray:
    """The distinct values of ``lines``, whose equal values are neighbours (``np.unique`` without the sort)."""
    if len(lines) < 2:
        return lines
    keep = np.empty(len(lines), bool)
    keep[0] = True
    np.not_equal(lines[1:], lines[:-1], out=keep[1:])
    return lines[keep]
