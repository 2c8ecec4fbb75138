"""Random, UB-free kernels in the program model.

Besides arithmetic, math, casts, shapes, reductions, scans, dots, atomics and control flow, kernels mix dtypes in
one operation (Triton's promotion, ``model.promote``), sort (``tl.sort``), gather within a block (``tl.gather``),
concatenate (``tl.cat``), reshape with ``tl.view`` and ``can_reorder=True`` (mtiacc keeps the order, as
docs/language.md says), round through the fp8 formats (``x.to(tl.float8e5).to(x.dtype)``) and, now and then, load
and store 2-D blocks through block pointers (``tl.make_block_ptr`` / ``tl.advance``, ``boundary_check`` with zero
padding) and tensor descriptors (``tl.make_tensor_descriptor``, ``desc.load`` / ``desc.store``) whose block may
stick out of the program's tensor.

The boundary shapes come from a second random stream (``Gen.edge``, so the rest of a seed's kernel is what it
was): masks in every spelling (``emit.MASK_FORMS``: ``offs <= N - 1``, ``N > offs``, ``N >= offs + 1``, the ``&``
of two bounds), masks over the whole grid that leave programs wholly past their bound, grids one program larger
than the kernel needs, accesses running backwards (negative strides), one-element block dimensions, and loops
that never run (``range(5, 5)``, ``range(7, 3)``, ``range(0, n)`` with ``n = 0``) around a load far outside
its buffer: hoisting that load out of its loop faults.

Undefined behaviour is kept out by construction: integer divisors are ``(d & 7) + 1``, shift amounts are literals
below the width, float-to-int conversions and math outside a function's domain are left to the reference,
which marks such elements unknown (:mod:`.evaluate`), every load and store stays inside its buffer (block
pointers and descriptors reach outside their tensor only under a boundary check, and each program's tensor is its
own part of the buffer), scatters are permutations, and atomics only add integers.  Signed integer arithmetic
wraps, as mtiacc defines it (and as LLVM's ``add``/``sub``/``mul`` without ``nsw``, which Triton emits, do).
"""
from __future__ import annotations

import random
from typing import Dict, List, Optional

from . import model as m
from .emit import MASK_FORMS

MATH = ["exp", "log", "sqrt", "sin", "cos", "exp2", "log2", "floor", "ceil", "sigmoid", "rsqrt", "erf"]
F64_MATH = ["exp", "log", "sqrt", "sin", "cos", "exp2", "log2", "floor", "ceil", "sigmoid", "erf"]
BITCAST = {"int8": ["uint8"], "uint8": ["int8"], "int16": ["uint16", "float16", "bfloat16"],
           "uint16": ["int16", "float16"], "float16": ["int16", "uint16"], "bfloat16": ["int16"],
           "int32": ["uint32", "float32"], "uint32": ["int32", "float32"], "float32": ["int32", "uint32"],
           "int64": ["uint64", "float64"], "uint64": ["int64"], "float64": ["int64"]}
FLOAT_LITS = [0.5, 1.5, 2.0, -3.0, 0.25, -1.0]
SORT_TYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32"]
FP8_TYPES = ["float8e5", "float8e4nv", "float8e4b8", "float8e5b16"]


def sum_type(t: str) -> str:
    if t in ("int8", "int16"):
        return "int32"
    if t in ("uint8", "uint16"):
        return "uint32"
    return t


def max_type(t: str) -> str:
    if m.width(t) < 32:
        return "float32" if m.is_float(t) else "int32"
    return t


class Gen:
    def __init__(self, seed: int, size: int = 6):
        self.rng = random.Random(seed)
        self.edge = random.Random(f"{seed}/edges")      # the boundary shapes' own stream
        self.seed = seed
        self.size = size
        r = self.rng
        self.dims = {"A": r.choice([2, 4, 8, 16]), "B": r.choice([1, 2, 4, 8]), "C": r.choice([2, 4])}
        if self.edge.random() < 0.1:
            self.dims[self.edge.choice("AC")] = 1       # a one-element block dimension
        self.dtypes = r.sample(m.INTS + m.FLOATS, k=r.randint(2, 5))
        self.buffers: List[m.Buffer] = []
        self.args: List = []
        self.env: List[m.Var] = []
        self.nvar = 0
        self.nodes = 0

    # ------------------------------------------------------------ helpers

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def buf(self, dtype: str, role: str) -> str:
        name = {"in": "X", "out": "O", "index": "I", "atomic": "T"}[role] + str(len(self.buffers))
        self.buffers.append(m.Buffer(name, dtype, role))
        return name

    def arg(self) -> m.Arg:
        """A scalar argument of 0..4 (also a loop's trip count: a mask's bound, up to 64, would make loops of
        dots and scans run for millions of cycles)."""
        small = [a for a in self.args if a[2] <= 4]
        if small and self.chance(0.5):
            n, t, _ = self.rng.choice(small)
            return m.Arg(m.Ty(t), n)
        name = f"n{len(self.args)}"
        self.args.append((name, "int32", self.rng.randint(0, 4)))
        return m.Arg(m.Ty("int32"), name)

    def shape(self, rank: Optional[int] = None) -> m.Shape:
        rank = self.rng.choice([0, 1, 1, 2, 2, 2, 3]) if rank is None else rank
        return tuple(("2" if self.chance(0.1) else "") + self.rng.choice("ABC") for _ in range(rank))

    def dtype(self) -> str:
        return self.rng.choice(self.dtypes)

    def new_var(self) -> str:
        self.nvar += 1
        return f"v{self.nvar}"

    def lit(self, t: str):
        if m.is_float(t):
            return self.rng.choice(FLOAT_LITS)
        return self.rng.randint(0, 9)

    # ------------------------------------------------------------ accesses

    def access(self, shape: m.Shape, store: bool = False, dtype: str = "") -> m.Access:
        r = self.rng
        if not shape:
            return m.Access(shape=(), kind="scalar", offset=r.randint(0, 3))
        if len(shape) == 2 and dtype not in ("", "int1") and r.random() < 0.06:
            return self.boxed_access(shape, dtype)
        kind = r.choices(["affine", "gather"], [5, 1])[0] if not store else r.choices(["affine", "scatter"], [5, 1])[0]
        perm = tuple(r.sample(range(len(shape)), len(shape)))
        scale = r.choice([1, 1, 1, 2, 3])
        bcast = tuple(ax for ax in range(len(shape)) if not store and r.random() < 0.15)
        mask, mask_arg = "", ""
        if r.random() < 0.25:
            mask = r.choice(["arg", "half"])
            if mask == "arg":
                mask_arg = f"n{len(self.args)}"
                self.args.append((mask_arg, "int32", r.randint(0, 64)))
        index_buf = ""
        if kind in ("gather", "scatter"):
            index_buf = self.buf("int32", "index")
        e = self.edge
        form = e.choice(list(MASK_FORMS)) if mask else "lt"
        if mask == "arg" and e.random() < 0.3:
            # over the whole grid: pid * numel + flat < n, n up to the grid's (at most 4 programs) elements
            mask = "global"
            n = self.k_size("".join(shape))
            self.args[-1] = (mask_arg, "int32", e.randint(0, 4 * n))
        reverse = kind == "affine" and e.random() < 0.15
        return m.Access(shape=shape, perm=perm, scale=scale, bcast=bcast, kind=kind, index_buf=index_buf,
                        mask=mask, mask_arg=mask_arg, other=0, mask_form=form, reverse=reverse)

    def boxed_access(self, shape: m.Shape, dtype: str) -> m.Access:
        """A 2-D block pointer or tensor descriptor access (``model.box``): the program's tensor is a few rows and
        columns smaller or larger than the block, and the block may start before it or run past its end (a
        descriptor needs 16 bytes in a block row)."""
        r = self.rng
        desc_ok = self.k_size(shape[1]) * m.width(dtype) // 8 >= 16
        kind = "desc" if desc_ok and self.chance(0.5) else "block"
        bx = (r.choice([-1, 0, 0, 1, 2]), r.choice([-1, 0, 0, 1, 2]), r.randint(-2, 2), r.randint(-2, 2),
              r.randint(-1, 2) if kind == "block" and self.chance(0.5) else 0,
              r.randint(-1, 2) if kind == "block" and self.chance(0.5) else 0)
        return m.Access(shape=shape, kind=kind, box=bx, order=r.choice([(1, 0), (0, 1)]))

    def k_size(self, entry: str) -> int:
        n = 1
        for ch in entry:
            n *= int(ch) if ch.isdigit() else self.dims[ch]
        return n

    def load(self, ty: m.Ty) -> m.Expr:
        acc = self.access(ty.shape, dtype=ty.dtype)
        if acc.mask:
            acc = m.Access(**{**acc.__dict__, "other": self.lit(ty.dtype) if ty.dtype != "int1" else 0})
        return m.Load(ty, self.buf(ty.dtype, "in"), acc)

    # ------------------------------------------------------------ expressions

    def leaf(self, ty: m.Ty) -> m.Expr:
        same = [v for v in self.env if v.ty == ty]
        if same and self.chance(0.6):
            return self.rng.choice(same)
        if ty.dtype == "int32" and not ty.shape and self.chance(0.4):
            return self.rng.choice([m.ProgramId(ty), self.arg()])
        if ty.dtype == "int32" and len(ty.shape) == 1 and self.chance(0.3):
            return m.Arange(ty)
        if self.chance(0.15):
            return m.Full(ty, self.lit(ty.dtype) if ty.dtype != "int1" else self.chance(0.5))
        return self.load(ty)

    def expr(self, ty: m.Ty, depth: int) -> m.Expr:  # noqa: C901
        self.nodes += 1
        if depth <= 0 or self.nodes > 40 * self.size:
            return self.leaf(ty)
        r = self.rng
        t = ty.dtype
        choices = ["leaf", "bin", "binlit", "un", "cast", "where", "shape", "reduce", "scan", "dot", "mixed", "sort",
                   "gather", "fp8"]
        weights = [2, 6, 2, 2, 2, 1.5, 2, 1.5, 1, 0.4, 2, 0.5, 0.5, 0.4]
        kind = r.choices(choices, weights)[0]
        d = depth - 1
        if t == "int1":
            if kind in ("bin", "binlit", "un", "reduce", "scan", "dot", "cast"):
                s = self.dtype()
                op = r.choice(["<", "<=", ">", ">=", "==", "!="])
                return m.Bin(ty, op, self.expr(m.Ty(s, ty.shape), d), self.expr(m.Ty(s, ty.shape), d))
        if kind == "bin":
            if m.is_float(t):
                op = r.choice(["+", "-", "*", "/", "minimum", "maximum"])
            elif t == "int1":
                op = r.choice(["&", "|", "^"])
            else:
                op = r.choice(["+", "-", "*", "//", "%", "&", "|", "^", "minimum", "maximum"])
            a, b = self.expr(ty, d), self.expr(self.narrowed(ty), d)
            if op in ("//", "%"):
                b = m.BinLit(b.ty, "+", m.BinLit(b.ty, "&", b, 7), 1)
            if op == "/":
                b = m.BinLit(b.ty, "+", m.Un(b.ty, "abs", b), 1.0)
            if r.random() < 0.5:
                a, b = b, a
                if op in ("//", "%", "/"):
                    a, b = b, a
            if op == "/" and t in ("float16", "bfloat16"):      # f32 in, f32 out (Triton's rule)
                return m.Cast(ty, m.Bin(m.Ty("float32", ty.shape), op, a, b))
            return m.Bin(ty, op, a, b)
        if kind == "binlit" and t != "int1":
            if m.is_float(t):
                op = r.choice(["+", "-", "*"])
                return m.BinLit(ty, op, self.expr(ty, d), self.lit(t))
            op = r.choice(["+", "-", "*", "&", "|", "^", "<<", ">>", "//", "%"])
            lit = r.randint(0, m.width(t) - 1) if op in ("<<", ">>") else self.lit(t)
            if op in ("//", "%"):
                lit = max(lit, 1)
            return m.BinLit(ty, op, self.expr(ty, d), lit)
        if kind == "un" and t != "int1":
            a = self.expr(ty, d)
            if not m.is_float(t):
                return m.Un(ty, r.choice(["neg", "not"] + (["abs"] if not t.startswith("u") else [])), a)
            op = r.choice(["neg", "abs"] + (F64_MATH if t == "float64" else MATH))
            if op in ("log", "log2", "rsqrt"):
                a = m.BinLit(ty, "+", m.Un(ty, "abs", a), 1.0)
            elif op == "sqrt":
                a = m.Un(ty, "abs", a)
            elif op in ("exp", "exp2"):
                a = m.Bin(ty, "minimum", m.Bin(ty, "maximum", a, m.Full(ty, -8.0)), m.Full(ty, 8.0))
            return m.Un(ty, op, a)
        if kind == "cast":
            if self.chance(0.2) and t in BITCAST:
                s = r.choice([x for x in m.INTS + m.FLOATS if t in BITCAST.get(x, [])])
                return m.Cast(ty, self.expr(m.Ty(s, ty.shape), d), True)
            s = r.choice([x for x in self.dtypes + ["int1"] if x != t])
            return m.Cast(ty, self.expr(m.Ty(s, ty.shape), d))
        if kind == "where":
            return m.Where(ty, self.expr(self.narrowed(m.Ty("int1", ty.shape)), d), self.expr(ty, d),
                           self.expr(self.narrowed(ty), d))
        if kind == "shape":
            e = self.shape_expr(ty, d)
            if e is not None:
                return e
        if kind == "reduce":
            e = self.reduce_expr(ty, d)
            if e is not None:
                return e
        if kind == "scan" and ty.shape and t not in ("int1", "float64"):
            ax = r.randrange(ty.rank)
            if m.is_float(t):
                sk = r.choice(["cumsum", "sadd", "smax"])
            else:
                sk = r.choice(["cumsum", "cumprod", "sadd", "smax"])
            if sk in ("cumsum", "cumprod") and sum_type(t) != t:
                return self.leaf(ty)
            return m.Scan(ty, sk, self.expr(ty, d), ax, self.chance(0.3))
        if kind == "dot":
            e = self.dot_expr(ty, d)
            if e is not None:
                return e
        if kind == "mixed":
            e = self.mixed_expr(ty, d)
            if e is not None:
                return e
        if kind == "sort" and ty.shape and t in SORT_TYPES:
            return m.Sort(ty, self.expr(ty, d), self.chance(0.5))
        if kind == "gather" and ty.shape and t != "int1":
            ax = r.randrange(ty.rank)
            src = ty.shape[:ax] + (r.choice("ABC"),) + ty.shape[ax + 1:]
            return m.Gather(ty, self.expr(m.Ty(t, src), d), self.expr(m.Ty(r.choice(["int32", "int32", "int64"]),
                                                                               ty.shape), d), ax)
        if kind == "fp8" and m.is_float(t):
            return m.Fp8(ty, self.expr(ty, d), r.choice(FP8_TYPES))
        return self.leaf(ty)

    def mixed_expr(self, ty: m.Ty, d: int) -> Optional[m.Expr]:
        """``a op b`` with operands of two different dtypes that Triton promotes to ``ty`` (or, for ``int1``, a
        comparison computed in their promoted type)."""
        r = self.rng
        t = ty.dtype
        pool = [x for x in dict.fromkeys(self.dtypes + ([t] if t != "int1" else [])) if x != "int1"]
        pairs = [(a, b) for a in pool for b in pool if a != b and (t == "int1" or m.promote(a, b) == t)]
        if not pairs:
            return None
        a, b = r.choice(pairs)
        ct = m.promote(a, b)
        if t == "int1":
            op = r.choice(["<", "<=", ">", ">=", "==", "!="])
        elif m.is_float(ct):
            op = r.choice(["+", "-", "*", "minimum", "maximum"])
        else:
            op = r.choice(["+", "-", "*", "&", "|", "^", "minimum", "maximum"])
        return m.Promote(ty, op, self.expr(m.Ty(a, self.narrowed(ty).shape), d),
                         self.expr(m.Ty(b, ty.shape), d), ct)

    def narrowed(self, ty: m.Ty) -> m.Ty:
        """``ty`` with some dimensions replaced by 1 (an operand broadcast against the other)."""
        if not ty.shape or not self.chance(0.25):
            return ty
        return m.Ty(ty.dtype, tuple("1" if self.chance(0.4) else e for e in ty.shape))

    def shape_expr(self, ty: m.Ty, d: int) -> Optional[m.Expr]:
        r = self.rng
        S, t = ty.shape, ty.dtype
        opts = []
        if len(S) >= 2:
            opts.append("permute")
        if len(S) >= 1:
            opts += ["reshape", "expand", "join", "split", "broadcast", "cat", "cat"]
        if not opts:
            return None
        k = r.choice(opts)
        if k == "permute":
            perm = tuple(r.sample(range(len(S)), len(S)))
            src = [None] * len(S)             # permute(src, perm)[i] == src[perm[i]] == S[i]
            for i, p in enumerate(perm):
                src[p] = S[i]
            spelling = "trans" if perm == (1, 0) and self.chance(0.5) else "permute"
            return m.Permute(ty, self.expr(m.Ty(t, tuple(src)), d), perm, spelling)
        if k == "reshape":
            flat = "".join(e for e in S if e != "1") or "1"
            sp = r.choice(["reshape", "reshape", "view", "reorder"])
            if len(S) == 1:
                # a 1-D block from a 2-D one of the same size
                if len(S[0]) >= 2:
                    return m.Reshape(ty, self.expr(m.Ty(t, (S[0][0], S[0][1:])), d), sp)
                return m.Reshape(ty, self.expr(m.Ty(t, (S[0], "1")), d), sp)
            return m.Reshape(ty, self.expr(m.Ty(t, (flat,)), d), sp)
        if k == "cat":
            axes = [i for i, e in enumerate(S) if e.startswith("2") and len(e) >= 2]
            if not axes:
                return None
            ax = r.choice(axes)
            half = S[:ax] + (S[ax][1:],) + S[ax + 1:]
            return m.Cat(ty, self.expr(m.Ty(t, half), d), self.expr(m.Ty(t, half), d), ax)
        if k == "expand":
            ones = [i for i, e in enumerate(S) if e == "1"]
            if not ones:
                return None
            ax = r.choice(ones)
            return m.ExpandDims(ty, self.expr(m.Ty(t, S[:ax] + S[ax + 1:]), d), ax, r.choice(["call", "index"]))
        if k == "broadcast":
            src = tuple("1" if self.chance(0.5) else e for e in S)
            return m.Broadcast(ty, self.expr(m.Ty(t, src), d))
        if k == "join":
            if S[-1] != "2":
                return None
            return m.Join(ty, self.expr(m.Ty(t, S[:-1]), d), self.expr(m.Ty(t, S[:-1]), d))
        if k == "split":
            if len(S) >= 3:
                return None
            return m.SplitHalf(ty, self.expr(m.Ty(t, S + ("2",)), d), r.randint(0, 1))
        return None

    def reduce_expr(self, ty: m.Ty, d: int) -> Optional[m.Expr]:
        r = self.rng
        t = ty.dtype
        if len(ty.shape) >= 3 or t == "int1":
            return None
        cands = []
        for s in dict.fromkeys(self.dtypes + [t]):
            if sum_type(s) == t:
                cands += [("sum", s)] + ([("radd", s)] if s == t else [])
            if max_type(s) == t and s != "float64":
                cands += [("max", s), ("min", s)]
            if s == t and m.is_int(t):
                cands += [("xor_sum", s), ("rxor", s)]
            if s == t and t != "float64":
                cands += [("rmax", s)]
            if t == "int32" and s != "float64":
                cands += [("argmax", s), ("argmin", s)]
        if not cands:
            return None
        kind, s = r.choice(cands)
        keep = self.chance(0.25)
        if keep:
            ones = [i for i, e in enumerate(ty.shape) if e == "1"]
            if not ones:
                return None
            ax = r.choice(ones)
            src = ty.shape[:ax] + (r.choice("ABC"),) + ty.shape[ax + 1:]
        else:
            ax = r.randint(0, ty.rank)
            src = ty.shape[:ax] + (r.choice("ABC"),) + ty.shape[ax:]
        axis = ax
        if not ty.shape and not keep and self.chance(0.4) and kind not in ("argmax", "argmin"):
            src, axis = self.shape(r.randint(1, 2)), None
        return m.Reduce(ty, kind, self.expr(m.Ty(s, src), d), axis, keep)

    def dot_expr(self, ty: m.Ty, d: int) -> Optional[m.Expr]:
        if len(ty.shape) != 2 or ty.shape[0] not in ("P", "Q") or ty.shape[1] not in ("P", "Q"):
            return None
        src = {"int32": ["int8"], "float32": ["float16", "bfloat16", "float32"], "float64": ["float64"]}.get(ty.dtype)
        if not src:
            return None
        s = self.rng.choice(src)
        kd = self.rng.choice("PQ")
        a = self.expr(m.Ty(s, (ty.shape[0], kd)), d)
        b = self.expr(m.Ty(s, (kd, ty.shape[1])), d)
        acc = self.expr(ty, d - 1) if self.chance(0.3) else None
        return m.Dot(ty, a, b, acc)

    # ------------------------------------------------------------ statements

    def rand_ty(self) -> m.Ty:
        return m.Ty(self.dtype(), self.shape())

    def store(self, e: m.Expr):
        out = self.buf(e.ty.dtype, "out")
        return m.Store(out, self.access(e.ty.shape, store=True, dtype=e.ty.dtype), e)

    def assign(self, ty: Optional[m.Ty] = None, depth: int = 3):
        ty = ty or self.rand_ty()
        name = self.new_var()
        e = self.expr(ty, depth)
        return m.Assign(name, e), m.Var(ty, name)

    def stmts(self, n: int, depth: int = 0) -> List:
        out = []
        for _ in range(n):
            r = self.rng
            kind = r.choices(["assign", "store", "if", "for", "while", "atomic", "dot"],
                             [5, 2, 1 if depth < 2 else 0, 1 if depth < 2 else 0, 0.5 if depth < 2 else 0, 0.5, 0.4])[0]
            if kind == "assign":
                s, v = self.assign()
                out.append(s)
                self.env.append(v)
            elif kind == "store":
                cands = self.env[-6:]
                e = r.choice(cands) if cands and self.chance(0.7) else self.expr(self.rand_ty(), 3)
                out.append(self.store(e))
            elif kind == "dot":
                self.dims.setdefault("P", 16)
                self.dims.setdefault("Q", r.choice([16, 32]))
                ty = m.Ty(r.choice(["int32", "float32", "float32", "float64"]), (r.choice("PQ"), r.choice("PQ")))
                e = self.dot_expr(ty, 2)
                out.append(self.store(e))
            elif kind == "atomic":
                ty = m.Ty("int32", self.shape(r.randint(0, 2)))
                out.append(m.AtomicAdd(self.buf("int32", "atomic"), self.expr(ty, 2), r.choice([1, 4, 7])))
            elif kind == "if":
                cond = self.expr(m.Ty("int1", ()), 2)
                ty = self.rand_ty()
                name = self.new_var()
                saved = list(self.env)
                then = [m.Assign(name, self.expr(ty, 2))] + self.stmts(r.randint(0, 2), depth + 1)
                self.env = list(saved)
                orelse = [m.Assign(name, self.expr(ty, 2))] + self.stmts(r.randint(0, 2), depth + 1)
                self.env = saved + [m.Var(ty, name)]
                out.append(m.If(cond, tuple(then), tuple(orelse)))
            else:
                ty = self.rand_ty()
                init, acc = self.assign(ty, 2)
                out.append(init)
                ivar = self.new_var().replace("v", "i")
                saved = list(self.env)
                self.env = self.env + [m.Var(m.Ty("int32"), ivar), acc]
                upd = self.expr(ty, 2)
                step = m.Cast(m.Ty(ty.dtype, ()), m.Var(m.Ty("int32"), ivar))
                op = "+" if ty.dtype != "int1" else "^"
                if ty.dtype == "int1":
                    step = m.Bin(m.Ty("int1"), "==", m.Var(m.Ty("int32"), ivar), m.Full(m.Ty("int32"), 1))
                body = [m.Assign(acc.name, m.Bin(ty, op, m.Bin(ty, op, acc, upd), step))]
                body += self.stmts(r.randint(0, 1), depth + 1)
                self.env = saved + [acc]
                hi = r.randint(0, 4) if self.chance(0.5) else self.arg().name
                if kind == "for":
                    static = isinstance(hi, int) and self.chance(0.4)
                    out.append(m.For(ivar, r.randint(0, 1), hi, tuple(body), static))
                else:
                    out.append(m.While(ivar, hi, tuple(body)))
        return out

    def dead_loop(self) -> m.For:
        """A loop that never runs around a load far past its buffer, stored: loop-invariant code motion must not
        hoist the load (it would fault), whether the bounds are constants or an argument that is 0."""
        e = self.edge
        t = e.choice(self.dtypes)
        t = "int32" if t == "int1" else t
        shape = (e.choice("ABC"),)
        load = m.Load(m.Ty(t, shape), self.buf(t, "in"), m.Access(shape=shape, far=True))
        body = (m.Store(self.buf(t, "out"), m.Access(shape=shape), load),)
        ivar = self.new_var().replace("v", "i")
        kind = e.choice(["equal", "reversed", "arg"])
        if kind == "arg":
            name = f"n{len(self.args)}"
            self.args.append((name, "int32", 0))
            return m.For(ivar, 0, name, body)
        lo = e.randint(0, 7)
        return m.For(ivar, lo, lo if kind == "equal" else e.randint(0, lo), body)

    def kernel(self) -> m.Kernel:
        body = self.stmts(self.size)
        stored = {s.value for s in body if isinstance(s, m.Store)}
        for v in self.env:
            if v not in stored and self.chance(0.7):
                body.append(self.store(v))
        if not any(b.role in ("out", "atomic") for b in self.buffers):
            body.append(self.store(self.expr(self.rand_ty(), 2)))
        grid = self.rng.choice([1, 1, 2, 3])
        if self.edge.random() < 0.3:
            body.insert(self.edge.randint(0, len(body)), self.dead_loop())
        if self.edge.random() < 0.15:
            grid += 1               # one program more: with a grid-wide mask ("global"), often wholly past its bound
        return m.Kernel(dims=dict(self.dims), grid=grid, buffers=tuple(self.buffers),
                        args=tuple(self.args), body=tuple(body), seed=self.seed)


def generate(seed: int, size: int = 6) -> m.Kernel:
    return Gen(seed, size).kernel()
