"""Operand values for table-driven tests, from each operand kind's ``domain()``."""
import random

from hypothesis import strategies as st


def _values_strategy(dom):
    if isinstance(dom, tuple):
        lo, hi, step = dom
        return st.integers(-(-lo // step), hi // step).map(lambda v: v * step)
    return st.sampled_from(list(dom))


def operands_strategy(spec):
    """A hypothesis strategy of legal ``{attr: value}`` for a table row."""
    fields = {}
    for kind in spec.operands:
        for attr, dom in kind.domain().items():
            fields[attr] = _values_strategy(dom)
    return st.fixed_dictionaries(fields)


def _pick(dom, rng, edge):
    if isinstance(dom, tuple):
        lo, hi, step = dom
        lo = -(-lo // step) * step
        hi = hi // step * step
        if edge == 0:
            return lo
        if edge == 1:
            return hi
        return rng.randrange(lo, hi + 1, step)
    dom = list(dom)
    return dom[0] if edge == 0 else dom[-1] if edge == 1 else rng.choice(dom)


def sample_operands(spec, n=4, seed=0):
    """``n`` legal operand dicts: the low edge, the high edge, then random values (deterministic)."""
    rng = random.Random(f"{spec.name}/{seed}")
    out = []
    for i in range(n):
        vals = {}
        for kind in spec.operands:
            for attr, dom in kind.domain().items():
                vals[attr] = _pick(dom, rng, i)
        out.append(vals)
    return out
