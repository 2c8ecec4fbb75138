# The local-memory plan on the function (--emit=ir): the bytes for blocks (393,216 of mtia2i less the 4,096-byte
# stack and the 64-byte argument area), the planned peak, and each block's name, offset and size.  Three blocks
# of 4 KiB: `x` and `y` are live together (y reads x), `z` takes x's place once x is dead; the index block `offs`
# only forms addresses and is no buffer, nor is the constant 2.0.  Codegen's allocation agrees: the binary's lmem_bytes is 64 + the peak.
# RUN: mtiacc %s -n plan --emit=ir -O0 -D BLOCK=1024 | filecheck %s
# CHECK: "tt.func"() {sym_name = "plan"
# CHECK-SAME: lmem_capacity = 389056, lmem_stack = 4096, lmem_peak = 8192,
# CHECK-SAME: lmem_blocks = ["x 0 4096", "y 4096 4096", "z 0 4096"]
# Blocks of 256 KiB: two do not fit side by side, so `y` is written over `x` and `z` over `y` (each op reads its
# operand last; codegen does the same), and the plan's peak is one block.
# RUN: mtiacc %s -n plan --emit=ir -O0 -D BLOCK=65536 | filecheck %s --check-prefix=BIG
# BIG: lmem_capacity = 389056, lmem_stack = 4096, lmem_peak = 262144,
# BIG-SAME: lmem_blocks = ["x 0 262144", "y 0 262144", "z 0 262144"]
# Codegen's readers: `r` (an expand_dims) is a view of the range's buffer at 0, which dies once `m` is made (the
# load's and the store's addresses and the store's prefix mask read their operands by their structure), so `x`
# takes its place; `m` dies at the `where`, and the sum's [1] result takes its bytes, its [:, None] a view of them.
# Codegen's lmem_bytes is 64 + the peak (tests/opt/test_lmem_plan_agrees.py; the plan counted `r` apart, live to
# the store: 13440).
# RUN: mtiacc %s -n rows -s '*fp32,*fp32,i32' --emit=ir -O0 -D BLOCK=1024 | filecheck %s --check-prefix=ROWS
# ROWS: lmem_capacity = 389056, lmem_stack = 4096, lmem_peak = 13312,
# ROWS-SAME: lmem_blocks = ["_ 0 4096", "m 4096 1024", "x 0 4096", "_ 5120 4096", "_ 4096 4", "_ 0 4096", "_ 9216 4096"]
import triton
import triton.language as tl


@triton.jit
def plan(X, Y, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    y = tl.exp(x)
    z = y * 2.0
    tl.store(Y + offs, z)


@triton.jit
def rows(X, Y, n, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)[None, :]
    m = r < n
    x = tl.load(X + r, mask=m, other=1.0)
    tl.store(Y + r, tl.where(m, x, 0.0) + tl.sum(x, 1)[:, None], mask=m)
