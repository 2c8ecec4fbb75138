"""Passes about how floating-point results are rounded: ``contract-fma`` (``contract_fma.py``: ``a * b + c``
rounded once, as Triton's ``enable_fp_fusion`` does by default)."""
from mtiacc.opt.numerics import contract_fma  # noqa: F401  (registers the pass)
