"""Delta debugging over the program model: shrink a failing kernel while the failure stays the same kind.

Each step proposes smaller kernels (one program, a statement dropped, an ``if`` replaced by one branch, a loop
run once, an expression replaced by one of its operands or by a constant, a block dimension halved) and keeps
the first that still fails the same way; it stops when no proposal does, or at the budget.
"""
from __future__ import annotations

import time
from typing import Callable, Iterator, Tuple

from . import model as m


def _blocks(body: Tuple, path=()) -> Iterator[Tuple[tuple, Tuple]]:
    """Every statement list of the kernel with its path (indices into nested bodies)."""
    yield path, body
    for i, s in enumerate(body):
        if isinstance(s, m.If):
            yield from _blocks(s.then, path + ((i, "then"),))
            yield from _blocks(s.orelse, path + ((i, "orelse"),))
        elif isinstance(s, (m.For, m.While)):
            yield from _blocks(s.body, path + ((i, "body"),))


def _set_block(body: Tuple, path, new: Tuple) -> Tuple:
    if not path:
        return tuple(new)
    (i, attr), rest = path[0], path[1:]
    s = body[i]
    s2 = type(s)(**{**s.__dict__, attr: _set_block(getattr(s, attr), rest, new)})
    return body[:i] + (s2,) + body[i + 1:]


def well_formed(k: m.Kernel) -> bool:
    """Every variable is defined before its use (as the emitted Python needs)."""
    def block(body, env) -> bool:
        for s in body:
            for e in m.stmt_exprs(s):
                if any(isinstance(n, m.Var) and n.name not in env for n in m.walk_expr(e)):
                    return False
            if isinstance(s, m.Assign):
                env[s.name] = s.expr.ty
            elif isinstance(s, m.If):
                a, b = dict(env), dict(env)
                if not block(s.then, a) or not block(s.orelse, b):
                    return False
                env.update({n: t for n, t in a.items() if n in b and b[n] == t})
            elif isinstance(s, (m.For, m.While)):
                inner = dict(env)
                inner[s.var] = m.Ty("int32")
                if not block(s.body, inner):
                    return False
                if any(n in env and inner[n] != env[n] for n in inner):
                    return False
        return True
    return block(k.body, {})


def _replace_nodes(e: m.Expr) -> Iterator[m.Expr]:
    """Smaller versions of expression ``e``: one node replaced by an operand of its type, or by a constant."""
    kids = e.children()
    for c in kids:
        if c.ty == e.ty:
            yield c
    if not isinstance(e, (m.Full, m.Var, m.Arg)):
        yield m.Full(e.ty, 1 if e.ty.dtype != "int1" else True)
    for i, c in enumerate(kids):
        for c2 in _replace_nodes(c):
            yield e.with_children(kids[:i] + (c2,) + kids[i + 1:])


def _with_expr(s, e: m.Expr):
    if isinstance(s, m.Assign):
        return m.Assign(s.name, e)
    if isinstance(s, m.Store):
        return m.Store(s.buf, s.access, e)
    if isinstance(s, m.AtomicAdd):
        return m.AtomicAdd(s.buf, e, s.slots)
    return m.If(e, s.then, s.orelse)


def candidates(k: m.Kernel) -> Iterator[m.Kernel]:
    if k.grid > 1:
        yield k.replace(grid=1)
    blocks = list(_blocks(k.body))
    for path, body in blocks:                      # drop statements
        for i in range(len(body)):
            yield k.replace(body=_set_block(k.body, path, body[:i] + body[i + 1:]))
    for path, body in blocks:                      # flatten control flow
        for i, s in enumerate(body):
            if isinstance(s, m.If):
                for branch in (s.then, s.orelse):
                    yield k.replace(body=_set_block(k.body, path, body[:i] + tuple(branch) + body[i + 1:]))
            elif isinstance(s, (m.For, m.While)):
                if not (isinstance(s.hi, int) and s.hi - getattr(s, "lo", 0) <= 1):
                    lo = getattr(s, "lo", 0)
                    s2 = type(s)(**{**s.__dict__, "hi": lo + 1})
                    yield k.replace(body=_set_block(k.body, path, body[:i] + (s2,) + body[i + 1:]))
                pre = (m.Assign(s.var, m.Full(m.Ty("int32"), getattr(s, "lo", 0))),)
                yield k.replace(body=_set_block(k.body, path, body[:i] + pre + tuple(s.body) + body[i + 1:]))
    for name, v in sorted(k.dims.items()):        # shrink block dimensions
        low = 16 if name in ("P", "Q") else 1
        if v // 2 >= low:
            yield k.replace(dims={**k.dims, name: v // 2})
    for path, body in blocks:                      # simplify expressions
        for i, s in enumerate(body):
            for e in m.stmt_exprs(s):
                for e2 in _replace_nodes(e):
                    yield k.replace(body=_set_block(k.body, path, body[:i] + (_with_expr(s, e2),) + body[i + 1:]))


def prune(k: m.Kernel) -> m.Kernel:
    """Drop the buffers and arguments nothing uses (names kept, so reproducers stay readable)."""
    used = set()
    for s in m.walk_stmts(k.body):
        if isinstance(s, (m.Store, m.AtomicAdd)):
            used.add(s.buf)
        if isinstance(s, m.Store) and s.access.index_buf:
            used.add(s.access.index_buf)
        if isinstance(s, m.Store) and s.access.mask_arg:
            used.add(s.access.mask_arg)
        if isinstance(s, (m.For, m.While)) and isinstance(s.hi, str):
            used.add(s.hi)
        for e in m.stmt_exprs(s):
            for n in m.walk_expr(e):
                if isinstance(n, m.Load):
                    used |= {n.buf, n.access.index_buf, n.access.mask_arg}
                elif isinstance(n, m.Arg):
                    used.add(n.name)
    return k.replace(buffers=tuple(b for b in k.buffers if b.name in used),
                     args=tuple(a for a in k.args if a[0] in used))


TRY_FACTOR = 3        # a try may take this many times the failing kernel's own check ...
TRY_FLOOR = 2.0       # ... but never less than this many seconds (a fast kernel's time is mostly noise)
TIMEOUT_TRY = 20.0    # a timeout is minimized as "slower than this" (seconds), not as the full limit


def try_timeout(kind: str, seconds: float, timeout: float) -> float:
    """Seconds allowed to each check while minimizing a failure of ``kind`` whose check took ``seconds``: a
    multiple of that, capped at ``timeout``, so a candidate that turns slow is dropped quickly instead of eating
    the budget; a timeout (which took the whole ``timeout``) is minimized as slower than ``TIMEOUT_TRY``."""
    if kind == "timeout":
        return min(timeout, TIMEOUT_TRY)
    return min(timeout, max(TRY_FLOOR, TRY_FACTOR * seconds))


def minimize(k: m.Kernel, fails: Callable[[m.Kernel], bool], budget_s: float = 300.0, max_tries: int = 2000,
             log=None) -> m.Kernel:
    """The smallest kernel found from ``k`` for which ``fails`` holds (``fails(k)`` is assumed)."""
    start = time.monotonic()
    tries = 0
    progress = True
    while progress:
        progress = False
        for c in candidates(k):
            if time.monotonic() - start > budget_s or tries >= max_tries:
                return prune(k)
            c = prune(c)
            if not well_formed(c) or m.count_nodes(c) >= m.count_nodes(k):
                continue
            tries += 1
            if fails(c):
                k = c
                progress = True
                if log:
                    log(f"  minimize: {m.count_nodes(k)} nodes after {tries} tries")
                break
    return prune(k)

