"""Dense linear algebra Inductor leaves to aten (LAPACK on the host), on the chip: one program per matrix of the
batch, the whole matrix in one block (float32, up to ``lu.MAX_N`` rows and columns).

- :mod:`.lu`: LU with partial pivoting, Cholesky, triangular solves and what is made of them (and the helpers the
  other modules share: a batch of matrices with its strides, kernels' launches, the fallback to aten);
- :mod:`.qr`: Householder QR (``geqrf``, ``linalg_qr``, ``ormqr``, ``householder_product``);
- :mod:`.spectral`: ``eigh`` by cyclic Jacobi, the SVD by two-sided Jacobi on a QR's ``R``, ``pinv``;
- :mod:`.kernels`: their Triton kernels.
"""
