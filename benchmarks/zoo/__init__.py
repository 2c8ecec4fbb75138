"""The model zoo: transformers architectures built offline from their configs (:mod:`.hf`), networks written in
plain torch (:mod:`.nets`), each compiled with ``torch.compile(model, backend="mtia")`` and checked against eager
(:mod:`.run`), the results as a table, JSON and an HTML page (:mod:`.page`).  ``make zoo``; ``python -m
benchmarks.zoo --help``."""
