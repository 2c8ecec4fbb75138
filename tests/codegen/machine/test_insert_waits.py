"""``insert-waits`` on machine code written by hand: the count a wait gets from the tagged transfers before it, on
every path (a loop's back-edge, a branch skipping a transfer, a guard whose skip path waits for every transfer);
which requested waits stay (something they name may be in flight) and the prefetch groups the pass forms."""
from mtiacc.codegen.machine.insert_waits import (drop_covered_waits, hoist, insert_waits, issue_every_transfer,
                                                 join_stores, place_counts)
from mtiacc.codegen.machine.mir import DmaTag, Label, LabelDef, MBuilder, MFunction, MInstr, VMem, WaitRequest


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

    def request(self, kind="op", touch=True, reads=(), since=None, **facts):
        """A requested wait (before an op that touches local memory, with ``touch``; reading ``reads``)."""
        return self.wait(request=WaitRequest(kind, touch=touch, reads=frozenset(reads), since=since), **facts)

    def loop(self, body, pipelined=False):
        """``scf.for`` around what ``body()`` emits (its back-edge tagged as isel tags it)."""
        top = self.b.new_label("for")
        self.b.label(top)
        body()
        self.b("blt", self.b.li(0), self.b.li(1), top).dma = DmaTag(back_edge=True, pipelined=pipelined)

    def stays(self, *waits):
        insert_waits(self.fn)
        return [any(w is it for it in self.fn.items) for w in waits]

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
    """Straight-line pieces, forward branches and loops (pipelined or not), over plain loads, prefetch groups,
    prefetched blocks, async copies, stores (one of them the store left in flight across a loop's back-edge) and
    waits of every kind, requested ones too."""
    k = Kernel()
    k.groups = [object(), object()]
    blocks = [object(), object(), object()]

    def some(xs):
        return frozenset(x for x in xs if rng.random() < 0.5)

    def piece(depth, mark=None):
        for _ in range(rng.randint(1, 4)):
            r = rng.random()
            if r < 0.1:
                k.load(kind=rng.choice((None, "in", "async")))
            elif r < 0.25:
                g = rng.choice(k.groups)
                for j in range(rng.randint(1, 2)):
                    k.load(group=g, opens=j == 0, kind="prefetch", block=rng.choice(blocks))
            elif r < 0.3:
                k.load(kind="prefetch", block=rng.choice(blocks))
            elif r < 0.38:
                k.store(across=rng.random() < 0.5)
            elif r < 0.46:
                k.wait(group=rng.choice(k.groups), across=rng.random() < 0.5)
            elif r < 0.5:
                k.wait(only_if=lambda t: t.across)
            elif r < 0.53:
                k.b("mtia.dma.wait")
            elif r < 0.68:
                kind = rng.choice(("op", "op", "copy", "prefetch") + (("branch",) if mark is not None else ()))
                req = WaitRequest(kind, touch=rng.random() < 0.7, reads=some(blocks), since=mark,
                                  fresh=some(blocks))
                group = rng.choice(k.groups + [None]) if kind == "op" else None
                k.wait(request=req, group=group, across=group is not None and rng.random() < 0.5)
            elif r < 0.84 and depth < 2:
                skip, mark = k.b.new_label("skip"), object()
                k.b("beqz", k.b.li(1), skip).dma = DmaTag(mark=mark)
                piece(depth + 1, mark)
                k.b.label(skip)
            elif depth < 2:
                k.loop(lambda: piece(depth + 1), pipelined=rng.random() < 0.5)

    piece(0)
    k.b("ret")
    return k


def _names(req: WaitRequest, tag, flags: int, inbound: bool, pc: int, since: int) -> bool:
    """Whether a transfer in flight (its tag, what happened to it: 2 a pipelined loop's earlier trip, 4 a pipelined
    loop left; whether it moves data in; where it issued) is one ``req`` must wait for."""
    kind = tag.kind if tag is not None else None
    plain = bool(flags & 4) or (bool(flags & 2) and not (tag is not None and tag.across)) or \
        (inbound and kind not in ("prefetch", "async"))
    prefetched = kind == "prefetch"
    if req.kind == "branch":
        return plain and pc > since
    if req.kind == "prefetch":
        return plain or (prefetched and tag.block not in req.fresh)
    return ((req.touch or req.kind == "copy") and plain) or (prefetched and tag.block in req.reads)


def _check_every_path(items, dropped=frozenset()) -> None:
    """Walk every path (each back-edge taken up to twice) and check each counted wait against the transfers in
    flight on it: its count leaves in flight only transfers it may (its group's, issued since the group's code last
    began, and ``across`` stores); where a wait went (``dropped``), nothing its predicate or request names is in
    flight."""
    labels = {it.label.name: i for i, it in enumerate(items) if isinstance(it, LabelDef)}
    marks = {it.dma.mark: i for i, it in enumerate(items) if isinstance(it, MInstr) and it.dma is not None
             and it.dma.mark is not None}
    # pc, the transfers in flight (tag, group generation, transfers issued after it, where it issued, flags),
    # generations, back-edges taken
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
            flying = tuple((t, gen, age + 1, at, fl) for t, gen, age, at, fl in flying) + \
                ((it.dma, dict(gens).get(g, 0), 0, pc, 0),)
        elif it.is_dma_wait and id(it) in dropped:
            req = it.dma.request
            if it.dma.only_if is not None:
                assert not any(tag is not None and it.dma.only_if(tag) for tag, *_ in flying), \
                    f"the wait at {pc} went with a store it names in flight"
            if req is not None:
                since = marks.get(req.since, -1)
                assert not any(_names(req, tag, fl, items[at].op.startswith("mtia.dma.in"), at, since)
                               for tag, _, _, at, fl in flying), f"the requested wait at {pc} went with a transfer in flight"
        elif it.is_dma_wait:
            n = it.args[0] if it.args else 0
            if it.dma is not None and (it.dma.group is not None or it.dma.across):
                for tag, gen, age, _, _ in flying:
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
            pipelined = it.dma is not None and it.dma.pipelined and j < pc
            if j > pc:
                stack.append((j, flying, gens, taken))
            elif times < 2:
                back = tuple((t, gen, age, at, fl | 2 if j <= at <= pc and pipelined else fl)
                             for t, gen, age, at, fl in flying)
                stack.append((j, back, gens, tuple({**dict(taken), pc: times + 1}.items())))
            if it.is_unconditional:
                continue
            if pipelined:
                flying = tuple((t, gen, age, at, fl | 4 if j <= at <= pc else fl) for t, gen, age, at, fl in flying)
        stack.append((pc + 1, flying, gens, taken))


def test_every_count_and_every_dropped_wait_holds_on_every_path():
    import random
    rng = random.Random(20261207)
    counted = kept_requests = dropped_requests = 0
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
        requests = [it for it in before if isinstance(it, MInstr) and it.dma is not None and it.dma.request]
        kept_requests += sum(1 for it in requests if id(it) in kept)
        dropped_requests += sum(1 for it in requests if id(it) not in kept)
    assert counted > 20     # the kernels do exercise counts
    assert dropped_requests > 50 and kept_requests > 50    # and requests, kept and dropped


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


# ----------------------------------------------------------------------------------------- requested waits

def test_a_request_before_an_op_stays_only_while_a_plain_load_may_be_in_flight():
    k = Kernel()
    first = k.request()              # nothing issued yet
    k.load(kind="in")
    second = k.request(touch=False)  # an op that leaves local memory alone
    third = k.request()
    fourth = k.request()             # the third waited for it
    assert k.stays(first, second, third, fourth) == [False, False, True, False]


def test_a_prefetched_block_is_waited_for_by_its_readers_only():
    k = Kernel()
    tile, other = object(), object()
    k.load(kind="prefetch", block=tile)
    elsewhere = k.request(reads=[other])
    reader = k.request(touch=False, reads=[tile])
    assert k.stays(elsewhere, reader) == [False, True]
    assert reader.comment == ""       # only a read keeps it: its read comment (none here)


def test_an_async_copy_is_waited_for_by_its_own_wait_op_only():
    k = Kernel()
    k.load(kind="async")
    op = k.request()
    assert k.stays(op) == [False]


def test_a_self_waiting_load_leaves_nothing_for_the_next_op():
    """The lowering of a load that waits for its own transfer (a transposing load, say) waits for the loads before
    it too: the op after it asks for nothing."""
    k = Kernel()
    k.load(kind="in")
    k.load(kind="in")
    k.b("mtia.dma.wait")
    op = k.request()
    assert k.stays(op) == [False]


def test_a_pipelined_loop_waits_at_its_top_for_the_previous_trips_transfers_and_after_it_for_the_last():
    k = Kernel()
    tile = object()
    got = {}

    def body():
        got["top"] = k.request()
        k.load(kind="prefetch", block=tile)
        k.store()
    k.loop(body, pipelined=True)
    after = k.request()
    assert k.stays(got["top"], after) == [True, True]


def test_a_loop_not_pipelined_lets_its_prefetches_be_waited_for_by_their_readers():
    k = Kernel()
    tile = object()
    got = {}

    def body():
        got["top"] = k.request()
        k.load(kind="prefetch", block=tile)
    k.loop(body)
    assert k.stays(got["top"]) == [False]


def test_the_store_across_the_back_edge_does_not_keep_the_next_ops_waits():
    k = Kernel()
    got = {}

    def body():
        got["top"] = k.request()
        k.store(across=True)
    k.loop(body, pipelined=True)
    assert k.stays(got["top"]) == [False]


def test_a_branch_waits_for_its_own_loads_only():
    k = Kernel()
    mark = object()
    k.load(kind="in")
    k.b("mtia.dma.wait")
    other = k.b.new_label("else")
    k.b("beqz", k.b.li(1), other).dma = DmaTag(mark=mark)
    k.load(kind="in")
    then_end = k.request("branch", since=mark)
    k.b.label(other)
    else_end = k.request("branch", since=mark)
    assert k.stays(then_end, else_end) == [True, False]


def test_a_copy_waits_for_the_plain_loads_and_the_prefetched_blocks_it_copies():
    k = Kernel()
    tile = object()
    k.load(kind="prefetch", block=tile)
    other = k.request("copy", reads=[object()])
    copy = k.request("copy", reads=[tile])
    assert k.stays(other, copy) == [False, True]


# ----------------------------------------------------------------------------------------- the groups

def _prefetch(k: Kernel, block, counted=True):
    """A prefetch's code as isel lowers it: its first instruction marked, its transfer tagged."""
    k.b("addi", k.b.x(), k.b.x(), 1).dma = DmaTag(first_of=block, counted=counted)
    return k.load(kind="prefetch", block=block)


def test_counted_prefetches_with_no_op_between_form_one_group_and_the_next_op_leaves_it_in_flight():
    k = Kernel()
    a, b = object(), object()
    k.load(kind="in")
    _prefetch(k, a)
    _prefetch(k, b)
    op = k.request()
    insert_waits(k.fn)
    assert op.args == [2]     # the two prefetches stay in flight, the plain load completes


def test_an_op_between_prefetches_begins_a_new_group():
    k = Kernel()
    a, b = object(), object()
    _prefetch(k, a)
    k.request()
    k.load(kind="in")
    _prefetch(k, b)
    op = k.request()
    insert_waits(k.fn)
    assert op.args == [1]     # b's group only: a's prefetch is the others'


def test_an_op_reading_the_group_waits_for_every_transfer():
    k = Kernel()
    a = object()
    k.load(kind="in")
    _prefetch(k, a)
    op = k.request(reads=[a])
    insert_waits(k.fn)
    assert op.args == [] and op in k.fn.items


def test_a_prefetch_not_counted_after_a_group_waits_before_the_group():
    k = Kernel()
    a, b = object(), object()
    k.load(kind="in")
    first = _prefetch(k, a)
    barrier = k.request("prefetch", touch=False)
    _prefetch(k, b, counted=False)
    insert_waits(k.fn)
    items = k.fn.items
    assert barrier.dma.request.hoisted and items.index(barrier) < items.index(first)


def test_a_prefetch_not_counted_waits_only_for_the_tiles_issued_before_the_last_op():
    k = Kernel()
    a, b, c = object(), object(), object()
    _prefetch(k, a, counted=False)
    k.request()
    _prefetch(k, b, counted=False)
    fresh = k.request("prefetch", touch=False)   # b is fresh, a is not
    _prefetch(k, c, counted=False)
    assert k.stays(fresh) == [True]
    k = Kernel()
    _prefetch(k, a, counted=False)
    fresh = k.request("prefetch", touch=False)
    _prefetch(k, b, counted=False)
    assert k.stays(fresh) == [False]


def test_the_waits_before_a_prefetchs_transfers_replace_its_request_or_go_with_it():
    for before in (True, False):
        k = Kernel()
        if before:
            k.load(kind="in")
        req = WaitRequest("prefetch")
        own = k.wait(request=req)
        flag = k.b.li(0, "issued")
        flag_set = k.b.fn.items[-1]
        flag_set.dma = DmaTag(part_of=req)
        inner = k.wait(part_of=req)
        k.load(kind="prefetch", block=object())
        assert k.stays(own, inner, flag_set) == [False, before, before]


# ----------------------------------------------------------------------------------------- covered waits

def fn_of(*items):
    fn = MFunction("k")
    fn.items = [MInstr(i[0], list(i[1:])) if isinstance(i, tuple) else i for i in items]
    return fn


def text(fn):
    return [f"{it.label.name}:" if isinstance(it, LabelDef) else
            " ".join([it.op] + [str(a) for a in it.args]) for it in fn.items]


def test_a_dma_wait_covered_by_a_later_one_goes_but_not_before_a_read():
    loop = Label(".Lskip")
    fn = fn_of(("mtia.dma.in", "a0", "a1", "a2"), ("mtia.dma.wait",), ("beqz", "a3", loop),
               ("mtia.dma.in", "a4", "a5", "a2"), LabelDef(loop), ("mtia.dma.wait",),
               ("vle32.v", "v8", VMem("a0")), ("mtia.dma.out", "a1", "a0", "a2"), ("mtia.dma.wait",), ("ret",))
    drop_covered_waits(fn.items)
    assert [t for t in text(fn) if t == "mtia.dma.wait"] == ["mtia.dma.wait"] * 2
    assert text(fn)[1] == "beqz a3 .Lskip"


def test_wait_stays_when_an_outbound_transfer_is_pending():
    fn = fn_of(("mtia.dma.out", "a0", "a1", "a2"), ("mtia.dma.wait",), ("mtia.dma.in", "a1", "a3", "a2"),
               ("mtia.dma.wait",), ("ret",))
    drop_covered_waits(fn.items)
    assert text(fn).count("mtia.dma.wait") == 2


def test_a_counted_wait_covers_an_earlier_wait_only_when_it_leaves_no_more_in_flight():
    # wait; in; wait 1: the later one leaves only that transfer in flight, so the first goes
    fn = fn_of(("mtia.dma.in", "a0", "a1", "a2"), ("mtia.dma.wait",), ("mtia.dma.in", "a4", "a5", "a2"),
               ("mtia.dma.wait", 1), ("ret",))
    drop_covered_waits(fn.items)
    assert [t for t in text(fn) if t.startswith("mtia.dma.wait")] == ["mtia.dma.wait 1"]
    # wait; in; wait 2: the later one may leave the first transfer in flight, so both stay
    fn = fn_of(("mtia.dma.in", "a0", "a1", "a2"), ("mtia.dma.wait",), ("mtia.dma.in", "a4", "a5", "a2"),
               ("mtia.dma.wait", 2), ("ret",))
    drop_covered_waits(fn.items)
    assert [t for t in text(fn) if t.startswith("mtia.dma.wait")] == ["mtia.dma.wait", "mtia.dma.wait 2"]
    # an outbound transfer before a counted wait may still be in flight after it: the next wait stays
    fn = fn_of(("mtia.dma.out", "a0", "a1", "a2"), ("mtia.dma.in", "a3", "a1", "a2"), ("mtia.dma.wait", 1),
               ("mtia.dma.wait",), ("mtia.dma.in", "a4", "a5", "a2"), ("mtia.dma.wait",), ("ret",))
    drop_covered_waits(fn.items)
    assert [t for t in text(fn) if t.startswith("mtia.dma.wait")] == ["mtia.dma.wait 1", "mtia.dma.wait",
                                                                      "mtia.dma.wait"]


def test_2d_transfers_and_their_configuration_in_the_wait_rule():
    # in2d is inbound like in (and cfg touches no memory): the first wait goes; out2d keeps it
    fn = fn_of(("mtia.dma.cfg", "a3", 0), ("mtia.dma.in2d", "a0", "a1", "a2"), ("mtia.dma.wait",),
               ("mtia.dma.cfg", "a4", 0), ("mtia.dma.in2d", "a5", "a1", "a2"), ("mtia.dma.wait",), ("ret",))
    drop_covered_waits(fn.items)
    assert text(fn).count("mtia.dma.wait") == 1
    fn = fn_of(("mtia.dma.out2d", "a0", "a1", "a2"), ("mtia.dma.wait",), ("mtia.dma.in2d", "a1", "a3", "a2"),
               ("mtia.dma.wait",), ("ret",))
    drop_covered_waits(fn.items)
    assert text(fn).count("mtia.dma.wait") == 2
