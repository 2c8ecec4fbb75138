"""TorchInductor's runtime helpers, for kernels Inductor generated: ``runtime`` says which module
names this folder stands for; ``triton_helpers.py`` is Triton source, read like the user's own
modules and never imported.
"""
