"""The IR package; importing it registers every op class (the parser finds ops by name)."""
from mtiacc.ir import shape_ops  # noqa: F401  (tt.expand_dims, tt.reshape, tt.trans, tt.reduce, tt.scan)
from mtiacc.ir import scf  # noqa: F401  (scf.for, scf.if, scf.while, scf.yield, scf.condition, tt.call)
from mtiacc.ir import fused  # noqa: F401  (tt.fused_elementwise, tt.fused_yield)
from mtiacc.ir import permute_ops  # noqa: F401  (tt.sort, tt.gather, tt.histogram, tt.join, tt.split, tt.cat, tt.flip)
from mtiacc.ir import dot_ops  # noqa: F401  (tt.dot)
from mtiacc.ir import atomic_ops  # noqa: F401  (tt.atomic_rmw, tt.atomic_cas, tt.barrier)
from mtiacc.ir import mtia  # noqa: F401  (mtia.local_alloc, mtia.async_copy, mtia.wait, mtia.local_load)
