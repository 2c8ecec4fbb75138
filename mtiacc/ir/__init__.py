"""The IR package; importing it registers every op class (the parser finds ops by name)."""
from mtiacc.ir import shape_ops  # noqa: F401  (tt.expand_dims, tt.reshape, tt.trans, tt.reduce, tt.scan)
