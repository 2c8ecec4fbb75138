"""``insert-waits`` on machine code written by hand: the count a wait gets from the tagged transfers before it, on
every path (a loop's back-edge, a branch skipping a transfer, a guard whose skip path waits for every transfer)."""
from mtiacc.codegen.machine.insert_waits import hoist, insert_waits, issue_every_transfer, join_stores, place_counts
from mtiacc.codegen.machine.mir import DmaTag, LabelDef, MBuilder, MFunction, MInstr


class Kernel:
    """A function being written: ``load`` (a plain transfer in), ``prefetch`` (one of ``group``'s transfers),
    ``wait`` (a wait that may leave ``group`` in flight), labels and branches."""

    def __init__(self):
        self.fn = MFunction("k")
        self.b = MBuilder(self.fn)
        self.group = object()
        self.n, self.local, self.dram = self.b.li(64, "bytes"), self.b.li(0), self.b.li(4096)

    def load(self, **facts):
        ins = self.b("mtia.dma.in", self.local, self.dram, self.n)
        ins.dma = DmaTag(**facts)
        return ins

    def store(self, **facts):
        ins = self.b("mtia.dma.out", self.dram, self.local, self.n)
        ins.dma = DmaTag(**facts)
        return ins

    def prefetch(self, opens=True):
        return self.load(group=self.group, opens=opens)

    def wait(self, **facts):
        ins = MInstr("mtia.dma.wait", [], None, "w", DmaTag(**facts))
        self.fn.items.append(ins)
        return ins

    def counts(self):
        insert_waits(self.fn)
        return [it.args[0] if it.args else 0 for it in self.fn.items if isinstance(it, MInstr)
                and it.op == "mtia.dma.wait"]


def test_a_wait_leaves_the_group_issued_since_in_flight():
    k = Kernel()
    k.load()
    k.prefetch()
    k.prefetch(opens=False)
    k.wait(group=k.group)
    assert k.counts() == [2]


def test_a_wait_for_a_block_of_the_group_waits_for_every_transfer():
    k = Kernel()
    k.load()
    k.prefetch()
    k.wait()                 # no group: its reader reads a prefetched block
    assert k.counts() == [0]


def test_a_plain_load_after_the_group_is_waited_for():
    k = Kernel()
    k.prefetch()
    k.load()
    k.wait(group=k.group)
    assert k.counts() == [0]


def test_a_branch_skipping_a_transfer_of_the_group_leaves_no_count():
    k = Kernel()
    k.load()
    skip = k.b.new_label("skip")
    k.b("beqz", k.b.li(1), skip)
    k.prefetch()
    k.b.label(skip)
    k.wait(group=k.group)
    assert k.counts() == [0]


def test_a_guard_whose_skip_path_waits_keeps_the_count():
    k = Kernel()
    k.load()
    skip, done = k.b.new_label("noprefetch"), k.b.new_label("prefetched")
    k.b("beqz", k.b.li(1), skip)
    k.prefetch()
    k.b("j", done)
    k.b.label(skip)
    k.b("mtia.dma.wait")
    k.b.label(done)
    k.wait(group=k.group)
    assert k.counts() == [0, 1]


def test_a_zero_byte_skip_of_the_group_goes():
    k = Kernel()
    k.load()
    skip = k.b.new_label("nodma")
    k.b("beqz", k.n, skip)
    k.prefetch()
    k.b.label(skip)
    k.wait(group=k.group)
    assert k.counts() == [1]
    assert not any(isinstance(it, LabelDef) for it in k.fn.items)


def test_the_previous_trips_prefetch_is_waited_for():
    """In a loop, the group's transfer issued by the previous trip is the tile read now: the count leaves only
    this trip's in flight."""
    k = Kernel()
    k.load()
    top = k.b.new_label("for")
    k.b.label(top)
    k.prefetch()
    k.wait(group=k.group)
    k.b("blt", k.b.li(0), k.b.li(1), top)
    assert k.counts() == [1]


def test_the_store_across_the_back_edge_stays_in_flight_and_its_block_waits_before_it_is_written():
    k = Kernel()
    k.load()
    k.store(across=True)        # the first trip's stand-in
    top = k.b.new_label("for")
    k.b.label(top)
    k.prefetch()
    w = k.wait(group=k.group, across=True)
    again = k.wait(only_if=lambda t: t.across)
    k.store(across=True)
    k.b("blt", k.b.li(0), k.b.li(1), top)
    assert k.counts() == [2, 0]
    assert "and the store before the loop's top" in w.comment
    assert again in k.fn.items


def test_a_conditional_wait_goes_when_the_store_is_complete():
    k = Kernel()
    k.store(across=True)
    k.b("mtia.dma.wait")
    again = k.wait(only_if=lambda t: t.across)
    assert k.counts() == [0]
    assert again not in k.fn.items


def test_a_store_issued_right_before_the_group_joins_it():
    k = Kernel()
    k.load()
    k.store(own=True)
    k.b("addi", k.b.x(), k.b.x(), 1)      # scalar code between
    k.prefetch()
    k.wait(group=k.group)
    assert k.counts() == [2]


def test_a_wait_before_the_group_moves_to_its_start():
    k = Kernel()
    k.load()
    first = k.prefetch()
    w = k.wait(before=k.group)
    assert k.counts() == [0]
    assert k.fn.items.index(w) == k.fn.items.index(first) - 1


# ----------------------------------------------------------------------------- every count, on every path

def _random_kernel(rng) -> Kernel:
    """Straight-line pieces, forward branches and loops, over plain loads, prefetch groups, stores (one of them the
    store left in flight across a loop's back-edge) and waits of every kind."""
    k = Kernel()
    k.groups = [object(), object()]
    k.opened = set()

    def piece(depth):
        for _ in range(rng.randint(1, 4)):
            r = rng.random()
            if r < 0.15:
                k.load()
            elif r < 0.35:
                g = rng.choice(k.groups)
                for j in range(rng.randint(1, 2)):
                    k.load(group=g, opens=j == 0)
            elif r < 0.45:
                k.store(across=rng.random() < 0.5)
            elif r < 0.6:
                k.wait(group=rng.choice(k.groups), across=rng.random() < 0.5)
            elif r < 0.65:
                k.wait(only_if=lambda t: t.across)
            elif r < 0.7:
                k.b("mtia.dma.wait")
            elif r < 0.85 and depth < 2:
                skip = k.b.new_label("skip")
                k.b("beqz", k.b.li(1), skip)
                piece(depth + 1)
                k.b.label(skip)
            elif depth < 2:
                top = k.b.new_label("for")
                k.b.label(top)
                piece(depth + 1)
                k.b("blt", k.b.li(0), k.b.li(1), top)

    piece(0)
    k.b("ret")
    return k


def _check_every_path(items, dropped=frozenset()) -> None:
    """Walk every path (each back-edge taken up to twice) and check each counted wait against the transfers in
    flight on it: its count leaves in flight only transfers it may (its group's, issued since the group's code last
    began, and ``across`` stores); where a wait went (``dropped``), nothing its predicate names is in flight."""
    labels = {it.label.name: i for i, it in enumerate(items) if isinstance(it, LabelDef)}
    # pc, the transfers in flight (tag, group generation, transfers issued after it), generations, back-edges taken
    stack = [(0, (), (), ())]
    seen = set()
    while stack:
        state = stack.pop()
        if state in seen:
            continue
        seen.add(state)
        pc, flying, gens, taken = state
        if pc >= len(items):
            continue
        it = items[pc]
        if isinstance(it, LabelDef):
            stack.append((pc + 1, flying, gens, taken))
            continue
        if it.dma is not None and it.dma.opens:
            d = dict(gens)
            d[it.dma.group] = d.get(it.dma.group, 0) + 1
            gens = tuple(d.items())
        if it.is_transfer:
            g = it.dma.group if it.dma is not None else None
            flying = tuple((t, gen, age + 1) for t, gen, age in flying) + ((it.dma, dict(gens).get(g, 0), 0),)
        elif it.is_dma_wait and id(it) in dropped:
            assert not any(tag is not None and it.dma.only_if(tag) for tag, _, _ in flying), \
                f"the wait at {pc} went with a store it names in flight"
        elif it.is_dma_wait:
            n = it.args[0] if it.args else 0
            if it.dma is not None and (it.dma.group is not None or it.dma.across):
                for tag, gen, age in flying:
                    if age < n:
                        may = tag is not None and ((tag.across and it.dma.across) or (
                            tag.group is not None and tag.group is it.dma.group
                            and gen == dict(gens).get(tag.group, 0)))
                        assert may, f"wait {n} at {pc} leaves in flight a transfer it must wait for"
            flying = tuple(f for f in flying if f[2] < n)
        if it.op == "ret":
            continue
        if it.target is not None:
            j = labels[it.target.name]
            times = dict(taken).get(pc, 0)
            if j > pc:
                stack.append((j, flying, gens, taken))
            elif times < 2:
                stack.append((j, flying, gens, tuple({**dict(taken), pc: times + 1}.items())))
            if it.is_unconditional:
                continue
        stack.append((pc + 1, flying, gens, taken))


def test_every_count_and_every_dropped_wait_holds_on_every_path():
    import random
    rng = random.Random(20261207)
    counted = 0
    for _ in range(300):
        k = _random_kernel(rng)
        items = k.fn.items
        issue_every_transfer(items)
        join_stores(items)
        hoist(items)
        before = list(items)
        place_counts(items)
        kept = {id(it) for it in items}
        _check_every_path(before, {id(it) for it in before if id(it) not in kept})
        counted += sum(1 for it in k.fn.items if isinstance(it, MInstr) and it.is_dma_wait and it.args)
    assert counted > 20     # the kernels do exercise counts


def test_a_group_whose_code_begins_at_a_zero_byte_skip_begins_at_its_transfer():
    k = Kernel()
    k.load()
    top = k.b.new_label("for")
    k.b.label(top)
    skip = k.b.new_label("nodma")
    br = k.b("beqz", k.n, skip)
    br.dma = DmaTag(group=k.group, opens=True)
    tr = k.load(group=k.group)
    k.b.label(skip)
    k.wait(group=k.group)
    k.b("blt", k.b.li(0), k.b.li(1), top)
    assert k.counts() == [1]
    assert br not in k.fn.items and tr.dma.opens
