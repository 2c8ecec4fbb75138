"""``torch.compile(model, backend="mtia")``: PyTorch models whose TorchInductor kernels run on the chip.

The backend (:mod:`.backend`) compiles each graph with TorchInductor generating Triton kernels for CPU tensors,
which the Triton backend ``cpu`` (:mod:`mtiacc.triton_backend`) compiles with mtiacc and runs on the simulator;
a kernel mtiacc cannot compile runs on the host instead.  :func:`report` tells what ran where (:mod:`.coverage`).
torch finds the backend through its ``torch_dynamo_backends`` entry point; nothing in mtiacc imports this
package.
"""
from mtiacc.torch_backend.backend import compile_graph as mtia
from mtiacc.torch_backend.coverage import print_report, report, reset, write_json

__all__ = ["mtia", "print_report", "report", "reset", "write_json"]
