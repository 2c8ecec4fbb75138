"""Compile a kernel of tests/codegen/tensor/blocks/kernels.py (cached) and run it on the simulator."""
from pathlib import Path

from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run

KERNELS = Path(__file__).resolve().parent / "kernels.py"
_cache = {}


def build(name: str, signature: str, opt_level: int = 2, path: Path = KERNELS, **defines) -> bytes:
    key = (str(path), name, signature, opt_level, tuple(sorted(defines.items())))
    if key not in _cache:
        opts = Options(kernel=name, signature=signature, opt_level=opt_level,
                       defines={k: str(v) for k, v in defines.items()})
        _cache[key] = compile_kernel(str(path), opts).binary
    return _cache[key]


def launch(tmp_path, binary: bytes, data: dict, grid):
    p = tmp_path / "k.bin"
    p.write_bytes(binary)
    return run(str(p), data, grid=grid).outputs
