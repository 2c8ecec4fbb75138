"""``relu(a @ b)`` (128 x 32 @ 32 x 256: two candidate tiles, 16 x 16 and 32 x 32) compiled for the chip under
max-autotune, in a process of its own (so that nothing Inductor or mtiacc cached in an earlier compile answers):
prints, as JSON, the candidates' timings, the output's digest and the launches run in parallel and taken
(tests/torch/test_parallel_tuning.py)."""
import hashlib
import json

import torch
from torch._inductor import select_algorithm

import mtiacc.torch_backend  # noqa: F401
from mtiacc.triton_backend import tuning

seen = []


def saver(timings, name, input_nodes, choices, profiled_time, *_):
    seen.append(sorted((c.name, t) for c, t in timings.items()))


select_algorithm.add_feedback_saver(saver)
g = torch.Generator().manual_seed(5)
a, b = torch.randn(128, 32, generator=g), torch.randn(32, 256, generator=g)
out = torch.compile(lambda x, y: torch.relu(x @ y), backend="mtia", mode="max-autotune")(a, b)
torch.testing.assert_close(out, torch.relu(a @ b), rtol=1e-2, atol=1e-2)
print(json.dumps({"timings": seen, "out": hashlib.sha256(out.numpy().tobytes()).hexdigest(),
                  "counts": tuning.counts}))
