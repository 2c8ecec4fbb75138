# A frontend error, as the user sees it: location, message, source line, caret under the span.
# RUN: not mtiacc-ir %s 2>&1 | filecheck %s
# RUN: not mtiacc %s --emit=ir 2>&1 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def k(X, N):
    offs = tl.arange(0, 16)
    acc = tl.zeros((16,), tl.float32)
    for i in range(N):
        acc += tl.load(X + offs)
        break
    tl.store(X + offs, acc)

# CHECK: frontend_error.py:14:9: error: `break` is not supported yet
# CHECK-NEXT: {{^        break$}}
# CHECK-NEXT: {{^        \^~~~~$}}
# CHECK-NOT: Traceback
