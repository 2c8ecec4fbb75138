"""The Triton source of a :class:`~.model.Kernel`: a standalone file mtiacc compiles (and Triton would run)."""
from __future__ import annotations

from typing import Dict, List

from . import model as m

COMBINE = {"radd": "_add", "sadd": "_add", "rmax": "_max", "smax": "_max", "rxor": "_xor"}
HEADER = '''import triton
import triton.language as tl


@triton.jit
def _add(a, b):
    return a + b


@triton.jit
def _max(a, b):
    return tl.maximum(a, b)


@triton.jit
def _xor(a, b):
    return a ^ b

'''
BINOPS = {"+", "-", "*", "/", "//", "%", "&", "|", "^", "<<", ">>", "<", "<=", ">", ">=", "==", "!="}
# the spellings of "offs < n" in a mask (one ``{o}``, one ``{n}``): each must mean exactly that
MASK_FORMS = {
    "lt": "{o} < {n}", "le": "{o} <= {n} - 1", "gt": "{n} > {o}", "ge": "{n} - 1 >= {o}", "ge1": "{n} >= {o} + 1",
    "le1": "{o} + 1 <= {n}", "and": "({o} >= 0) & ({o} < {n})", "and-rev": "({n} - 1 >= {o}) & (0 <= {o})",
}
FAR = 1 << 28       # elements past a buffer's start that no buffer reaches: a load there faults
MATH = {"exp", "log", "sqrt", "sin", "cos", "exp2", "log2", "floor", "ceil", "sigmoid", "rsqrt", "erf", "abs"}


def signature(k: m.Kernel) -> str:
    parts = ["*" + m.DTYPES[b.dtype][0] for b in k.buffers]
    parts += [m.DTYPES[t][0] for _, t, _ in k.args]
    return ",".join(parts)


def constexprs(k: m.Kernel) -> Dict[str, int]:
    return dict(sorted(k.dims.items()))


def dim_text(entry: str) -> str:
    return " * ".join(entry) if entry else "1"


def shape_text(shape) -> str:
    inner = ", ".join(dim_text(e) for e in shape)
    return f"({inner},)" if len(shape) == 1 else f"({inner})"


def lit(v, dtype: str) -> str:
    if m.is_float(dtype):
        return repr(float(v))
    if dtype == "int1":
        return "True" if v else "False"
    return repr(int(v))


class Emitter:
    def __init__(self, k: m.Kernel):
        self.k = k
        self.lines: List[str] = []
        self.n = 0
        self.memo: Dict[m.Expr, str] = {}

    def tmp(self, text: str, ind: str) -> str:
        self.n += 1
        name = f"t{self.n}"
        self.lines.append(f"{ind}{name} = {text}")
        return name

    # ------------------------------------------------------------ accesses

    def flat(self, shape) -> str:
        """The row-major flat index of a block of ``shape`` (int32)."""
        acc = m.Access(shape=shape)
        return self.offsets(acc, m.strides(self.k, acc))

    def offsets(self, acc: m.Access, strides) -> str:
        r = len(acc.shape)
        if r == 0:
            return "0"
        terms = []
        for ax, (entry, st) in enumerate(zip(acc.shape, strides)):
            idx = "" if r == 1 else "[" + ", ".join(":" if i == ax else "None" for i in range(r)) + "]"
            if acc.reverse and st:
                terms.append(f"({self.k.size(entry) - 1} - tl.arange(0, {dim_text(entry)})){idx} * {st}")
            else:
                terms.append(f"tl.arange(0, {dim_text(entry)}){idx} * {st}")
        return " + ".join(terms)

    def pointer(self, buf: str, acc: m.Access, ind: str):
        """(pointer expression text, mask keyword text) of an access to ``buf`` by program ``pid``."""
        k = self.k
        base = f"pid * {m.span(k, acc)}" + (f" + {FAR}" if acc.far else "")
        if acc.kind == "scalar":
            return f"{buf} + {base} + {acc.offset}", ""
        need = acc.mask or acc.kind in ("gather", "scatter")
        flat = self.tmp(self.flat(acc.shape), ind) if need else "0"
        mask = ""
        form = MASK_FORMS[acc.mask_form or "lt"]
        if acc.mask == "arg":
            mask = form.format(o=flat, n=acc.mask_arg)
        elif acc.mask == "half":
            mask = form.format(o=flat, n=max(m.numel(k, acc.shape) // 2, 1))
        elif acc.mask == "global":
            g = self.tmp(f"pid * {m.numel(k, acc.shape)} + {flat}", ind)
            mask = form.format(o=g, n=acc.mask_arg)
        if acc.kind == "gather":
            idx = self.tmp(f"tl.load({acc.index_buf} + pid * {m.numel(k, acc.shape)} + {flat})", ind)
            return f"{buf} + {base} + {idx}", mask
        if acc.kind == "scatter":
            idx = self.tmp(f"tl.load({acc.index_buf} + pid * {m.numel(k, acc.shape)} + {flat})", ind)
            return f"{buf} + {base} + {idx}", mask
        offs = self.tmp(self.offsets(acc, m.strides(k, acc)), ind)
        return f"{buf} + {base} + {offs}", mask

    def boxed(self, buf: str, acc: m.Access, ind: str):
        """(handle, boundary-check text) of a "block" or "desc" access: a block pointer (made, then advanced) or a
        tensor descriptor over the program's ``rows x cols`` part of ``buf``."""
        k = self.k
        rows, cols, o0, o1, a0, a1 = m.box(k, acc)
        d0, d1 = k.shape(acc.shape)
        base = f"{buf} + pid * {m.span(k, acc)}"
        bs = ", ".join(dim_text(e) for e in acc.shape)
        if acc.kind == "desc":
            h = self.tmp(f"tl.make_tensor_descriptor({base}, shape=[{rows}, {cols}], strides=[{cols}, 1], "
                         f"block_shape=[{bs}])", ind)
            return h, f"[{o0}, {o1}]"
        h = self.tmp(f"tl.make_block_ptr({base}, shape=({rows}, {cols}), strides=({cols}, 1), "
                     f"offsets=({o0 - a0}, {o1 - a1}), block_shape=({bs}), order={tuple(acc.order)})", ind)
        if (a0, a1) != (0, 0):
            self.lines.append(f"{ind}{h} = tl.advance({h}, ({a0}, {a1}))")
        axes = [ax for ax, (o, d, n) in enumerate(((o0, d0, rows), (o1, d1, cols))) if o < 0 or o + d > n]
        return h, str(tuple(axes)) if axes else ""

    # ------------------------------------------------------------ expressions

    def expr(self, e: m.Expr, ind: str) -> str:
        if e in self.memo:
            return self.memo[e]
        text = self._expr(e, ind)
        if isinstance(e, (m.Var, m.Arg)):
            return text
        name = self.tmp(text, ind)
        self.memo[e] = name
        return name

    def _expr(self, e: m.Expr, ind: str) -> str:  # noqa: C901 - one case per node kind
        x = lambda c: self.expr(c, ind)  # noqa: E731
        t = e.ty
        if isinstance(e, (m.Var, m.Arg)):
            return e.name
        if isinstance(e, m.ProgramId):
            return "tl.program_id(0)"
        if isinstance(e, m.Full):
            return f"tl.full({shape_text(t.shape)}, {lit(e.value, t.dtype)}, tl.{t.dtype})"
        if isinstance(e, m.Arange):
            return f"tl.arange(0, {dim_text(t.shape[0])})"
        if isinstance(e, m.Load) and e.access.kind in ("block", "desc"):
            h, bc = self.boxed(e.buf, e.access, ind)
            if e.access.kind == "desc":
                return f"{h}.load({bc})"
            return f"tl.load({h}, boundary_check={bc}, padding_option=\"zero\")" if bc else f"tl.load({h})"
        if isinstance(e, m.Load):
            ptr, mask = self.pointer(e.buf, e.access, ind)
            if mask:
                return f"tl.load({ptr}, mask={mask}, other={lit(e.access.other, t.dtype)})"
            return f"tl.load({ptr})"
        if isinstance(e, m.Bin):
            if e.op in ("minimum", "maximum"):
                return f"tl.{e.op}({x(e.a)}, {x(e.b)})"
            return f"{x(e.a)} {e.op} {x(e.b)}"
        if isinstance(e, m.BinLit):
            v = lit(e.lit, e.a.ty.dtype)
            return f"{x(e.a)} {e.op} {'(' + v + ')' if v.startswith('-') else v}"
        if isinstance(e, m.Un):
            if e.op == "neg":
                return f"-{x(e.a)}"
            if e.op == "not":
                return f"~{x(e.a)}"
            return f"tl.{e.op}({x(e.a)})"
        if isinstance(e, m.Cast):
            bc = ", bitcast=True" if e.bitcast else ""
            return f"{x(e.a)}.to(tl.{t.dtype}{bc})"
        if isinstance(e, m.Where):
            return f"tl.where({x(e.c)}, {x(e.a)}, {x(e.b)})"
        if isinstance(e, m.Reduce):
            a = x(e.a)
            kd = ", keep_dims=True" if e.keep else ""
            if e.kind in COMBINE:
                return f"tl.reduce({a}, {e.axis}, {COMBINE[e.kind]}{kd})"
            if e.axis is None:
                return f"tl.{e.kind}({a}{kd})"
            return f"tl.{e.kind}({a}, axis={e.axis}{kd})"
        if isinstance(e, m.Scan):
            rv = ", reverse=True" if e.reverse else ""
            if e.kind in COMBINE:
                return f"tl.associative_scan({x(e.a)}, {e.axis}, {COMBINE[e.kind]}{rv})"
            return f"tl.{e.kind}({x(e.a)}, axis={e.axis}{rv})"
        if isinstance(e, m.Reshape):
            if e.spelling == "view":
                return f"tl.view({x(e.a)}, {shape_text(t.shape)})"
            if e.spelling == "reorder":
                return f"tl.reshape({x(e.a)}, {shape_text(t.shape)}, can_reorder=True)"
            return f"tl.reshape({x(e.a)}, {shape_text(t.shape)})"
        if isinstance(e, m.Promote):
            if e.op in ("minimum", "maximum"):
                return f"tl.{e.op}({x(e.a)}, {x(e.b)})"
            return f"{x(e.a)} {e.op} {x(e.b)}"
        if isinstance(e, m.Sort):
            return f"tl.sort({x(e.a)}" + (", descending=True)" if e.descending else ")")
        if isinstance(e, m.Gather):
            d = dim_text(e.src.ty.shape[e.axis])
            return f"tl.gather({x(e.src)}, {x(e.index)} & ({d} - 1), {e.axis})"
        if isinstance(e, m.Cat):
            return f"tl.cat({x(e.a)}, {x(e.b)}, dim={e.dim})"
        if isinstance(e, m.Fp8):
            return f"{x(e.a)}.to(tl.{e.fmt}).to(tl.{t.dtype})"
        if isinstance(e, m.Permute):
            if e.spelling == "trans":
                return f"tl.trans({x(e.a)})"
            return f"tl.permute({x(e.a)}, {tuple(e.perm)})"
        if isinstance(e, m.ExpandDims):
            if e.spelling == "index":
                idx = ", ".join("None" if i == e.axis else ":" for i in range(t.rank))
                return f"{x(e.a)}[{idx}]"
            return f"tl.expand_dims({x(e.a)}, {e.axis})"
        if isinstance(e, m.Broadcast):
            return f"tl.broadcast_to({x(e.a)}, {shape_text(t.shape)})"
        if isinstance(e, m.Join):
            return f"tl.join({x(e.a)}, {x(e.b)})"
        if isinstance(e, m.SplitHalf):
            return f"tl.split({x(e.a)})[{e.which}]"
        if isinstance(e, m.Dot):
            if e.acc is None:
                return f"tl.dot({x(e.a)}, {x(e.b)})"
            od = f", out_dtype=tl.{t.dtype}" if t.dtype in ("int32", "float64") else ""
            return f"tl.dot({x(e.a)}, {x(e.b)}, {x(e.acc)}{od})"
        raise TypeError(f"cannot emit {type(e).__name__}")

    # ------------------------------------------------------------ statements

    def stmts(self, body, ind: str):
        if not body:
            self.lines.append(f"{ind}pass")
        for s in body:
            self.memo = {}
            self.stmt(s, ind)

    def stmt(self, s, ind: str):
        if isinstance(s, m.Assign):
            self.lines.append(f"{ind}{s.name} = {self.expr(s.expr, ind)}")
        elif isinstance(s, m.Store):
            v = self.expr(s.value, ind)
            if s.access.kind in ("block", "desc"):
                h, bc = self.boxed(s.buf, s.access, ind)
                if s.access.kind == "desc":
                    self.lines.append(f"{ind}{h}.store({bc}, {v})")
                else:
                    self.lines.append(f"{ind}tl.store({h}, {v}" + (f", boundary_check={bc})" if bc else ")"))
                return
            ptr, mask = self.pointer(s.buf, s.access, ind)
            self.lines.append(f"{ind}tl.store({ptr}, {v}" + (f", mask={mask})" if mask else ")"))
        elif isinstance(s, m.AtomicAdd):
            v = self.expr(s.value, ind)
            offs = f"({self.flat(s.value.ty.shape)}) % {s.slots}" if s.value.ty.shape else "0"
            self.lines.append(f"{ind}tl.atomic_add({s.buf} + {offs}, {v})")
        elif isinstance(s, m.If):
            c = self.expr(s.cond, ind)
            self.lines.append(f"{ind}if {c}:")
            self.stmts(s.then, ind + "    ")
            self.lines.append(f"{ind}else:")
            self.stmts(s.orelse, ind + "    ")
        elif isinstance(s, m.For):
            it = "tl.static_range" if s.static else "range"
            raw = f"{s.var}_c" if s.static else s.var
            self.lines.append(f"{ind}for {raw} in {it}({s.lo}, {s.hi}):")
            if s.static:
                self.lines.append(f"{ind}    {s.var} = tl.full((), {raw}, tl.int32)")
            self.stmts(s.body, ind + "    ")
        elif isinstance(s, m.While):
            self.lines.append(f"{ind}{s.var} = tl.full((), 0, tl.int32)")
            self.lines.append(f"{ind}while {s.var} < {s.hi}:")
            self.stmts(s.body, ind + "    ")
            self.lines.append(f"{ind}    {s.var} = {s.var} + 1")
        else:
            raise TypeError(f"cannot emit {type(s).__name__}")


def source(k: m.Kernel) -> str:
    em = Emitter(k)
    params = [b.name for b in k.buffers] + [a for a, _, _ in k.args] + [f"{d}: tl.constexpr" for d in sorted(k.dims)]
    em.lines.append("@triton.jit")
    em.lines.append(f"def {k.name}({', '.join(params)}):")
    em.lines.append("    pid = tl.program_id(0)")
    em.stmts(k.body, "    ")
    return HEADER + "\n" + "\n".join(em.lines) + "\n"
