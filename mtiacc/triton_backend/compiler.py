"""The ``cpu`` backend's compiler side: its options and its stages.

Triton runs its own frontend first (``ASTSource.make_ir``), checking the kernel as Triton does; the ``ttir``
stage keeps that IR (cleaned up by Triton's generic passes) for the cache and for debugging
(``kernel.asm["ttir"]``), and the ``mtia`` stage writes a placeholder binary.  mtiacc compiles the kernel from
its Python source when the launcher is built (:mod:`.launcher`), since only there are the kernel's source file,
signature and constexprs at hand.
"""
from __future__ import annotations

import dataclasses
import hashlib
import re
from typing import Dict, Optional, Tuple

from triton.backends.compiler import BaseBackend, GPUTarget, Language

ARCH = "mtia2i"
WARP_SIZE = 32     # nominal: a program runs on one PE; Triton's checks and layouts want a warp size
BINARY_EXT = "mtia"


def _fp_fusion_knob(given):
    """``enable_fp_fusion`` as Triton decides it: a launch's own value, else ``knobs.language.default_fp_fusion``
    (None where this Triton has no such knob)."""
    try:
        from triton import knobs
        return knobs.language.fp_fusion_enabled(given)
    except (ImportError, AttributeError):
        return given


@dataclasses.dataclass(frozen=True)
class MtiaOptions:
    """Everything Triton's code generator and runtime read from a backend's options.  ``num_stages`` is passed
    on to mtiacc (the software-pipelining depth of ``tl.dot`` loops); ``num_warps``, ``num_ctas`` and
    ``maxnreg`` mean nothing on this target and are accepted as Triton accepts them."""

    num_warps: int = 4
    num_ctas: int = 1
    num_stages: int = 3
    warp_size: int = WARP_SIZE
    maxnreg: Optional[int] = None
    enable_fp_fusion: bool = True
    launch_cooperative_grid: bool = False
    launch_pdl: bool = False
    supported_fp8_dtypes: Tuple[str, ...] = ("fp8e4b15", "fp8e4b8", "fp8e4nv", "fp8e5", "fp8e5b16")
    deprecated_fp8_dot_operand_dtypes: Tuple[str, ...] = ()
    default_dot_input_precision: str = "tf32"
    allowed_dot_input_precisions: Tuple[str, ...] = ("tf32", "tf32x3", "ieee", "bf16x3", "bf16x6")
    max_num_imprecise_acc_default: int = 0
    extern_libs: Optional[tuple] = None
    debug: bool = False
    sanitize_overflow: bool = True
    backend_name: str = "mtiacc"
    arch: str = ARCH
    instrumentation_mode: str = ""
    fpsan_homomorphic_casts: bool = False
    ir_override: Optional[str] = None
    # AMD's options, which configs set among their kwargs (the HIP configs of Triton's matmul tutorial, chosen
    # on any backend that is not CUDA): accepted, and they mean nothing here
    waves_per_eu: int = 0
    matrix_instr_nonkdim: int = 0
    kpack: int = 1
    schedule_hint: str = "none"
    instruction_sched_variant: str = "none"

    def __post_init__(self):
        if self.num_warps <= 0 or self.num_warps & (self.num_warps - 1):
            raise ValueError(f"num_warps must be a power of 2, got {self.num_warps}")
        if isinstance(self.extern_libs, dict):
            object.__setattr__(self, "extern_libs", tuple(sorted(self.extern_libs.items())))

    def hash(self) -> str:
        text = "_".join(f"{k}-{v}" for k, v in sorted(self.__dict__.items()))
        return hashlib.sha256(text.encode()).hexdigest()


_TTIR_BYTES = {"i1": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "f16": 2, "bf16": 2, "f32": 4, "f64": 8}
_TENSOR = re.compile(r"tensor<((?:\d+x)+)(i1|i8|i16|i32|i64|f16|bf16|f32|f64|f8\w*)>")
_ENTRY = re.compile(r"tt\.func\s+public\s+@[\w$.]+\(([^)]*)\)")


def local_memory_estimate(ttir: str) -> int:
    """``metadata.shared`` (what ``kernel.metadata.shared`` reports): the local memory a program needs at least
    before mtiacc has compiled it, from Triton's TTIR: its argument slots (8 bytes each, from ``args_base``) and
    its largest block (a block value lives in local memory).  mtiacc's binary says what it really takes
    (``lmem_bytes`` in its metadata)."""
    entry = _ENTRY.search(ttir)
    n_args = entry.group(1).count("%arg") if entry else 0
    largest = 0
    for m in _TENSOR.finditer(ttir):
        n = 1
        for d in m.group(1).rstrip("x").split("x"):
            n *= int(d)
        largest = max(largest, n * _TTIR_BYTES.get(m.group(2), 1))
    return 8 * max(n_args, 1) + largest


def _min_dot_size(lhs_type, rhs_type):
    """The matrix engine and the vector unit take any dot shape Triton's frontend accepts."""
    return (1, 1, 1)


class MtiaBackend(BaseBackend):
    """Triton's compiler interface for mtiacc (target ``GPUTarget("cpu", "mtia2i", 32)``)."""

    supports_native_tensor_specialization = True

    @staticmethod
    def supports_target(target: GPUTarget) -> bool:
        # TorchInductor's Triton-on-CPU path asks for GPUTarget("cpu", "", warp size): the host's compute
        # capability is empty, and this backend is the chip that runs its kernels
        return target.backend == "cpu" and target.arch in (ARCH, "", 0, None)

    def __init__(self, target: GPUTarget) -> None:
        super().__init__(target)
        self.binary_ext = BINARY_EXT

    def hash(self) -> str:
        from mtiacc.runtime.cache import compiler_version
        return f"mtiacc-{ARCH}-{compiler_version()}"

    def parse_options(self, options: dict) -> MtiaOptions:
        fields = MtiaOptions.__dataclass_fields__
        args = {k: v for k, v in options.items() if k in fields and v is not None}
        for k in ("supported_fp8_dtypes", "deprecated_fp8_dot_operand_dtypes", "allowed_dot_input_precisions"):
            if k in args:
                args[k] = tuple(args[k])
        fusion = _fp_fusion_knob(args.get("enable_fp_fusion"))
        if fusion is not None:     # the launch's enable_fp_fusion, else the knob's default (Triton's rule)
            args["enable_fp_fusion"] = fusion
        return MtiaOptions(**args)

    def pack_metadata(self, metadata):
        return (metadata.num_warps, metadata.num_ctas, metadata.shared)

    def get_codegen_implementation(self, options) -> dict:
        from triton.language.extra.cuda import convert_custom_float8_sm80
        return {"convert_custom_types": convert_custom_float8_sm80, "min_dot_size": _min_dot_size}

    def get_module_map(self) -> Dict[str, object]:
        # libdevice calls resolve to Triton's CUDA table in the TTIR; mtiacc lowers them from the source
        from triton.language.extra.cuda import libdevice
        return {"triton.language.extra.libdevice": libdevice}

    def load_dialects(self, context) -> None:
        pass

    def add_stages(self, stages: dict, options, language=Language.TRITON) -> None:
        if language != Language.TRITON:
            raise NotImplementedError("mtiacc runs Triton kernels; Gluon kernels are not supported")
        stages["ttir"] = lambda mod, metadata: self.make_ttir(mod, metadata, options)
        stages[BINARY_EXT] = lambda mod, metadata: self.make_binary(mod, metadata, options)

    @staticmethod
    def make_ttir(mod, metadata, options):
        from triton._C.libtriton import ir, passes
        pm = ir.pass_manager(mod.context)
        pm.enable_debug()
        passes.common.add_inliner(pm)
        passes.ttir.add_combine(pm)      # sum(x[:, :, None] * y[None, :, :], 1) -> dot, as mtiacc's canonicalize
        passes.common.add_canonicalizer(pm)
        passes.common.add_cse(pm)
        passes.common.add_symbol_dce(pm)
        pm.run(mod, "make_ttir")
        metadata["name"] = mod.get_entry_func_name()
        metadata["shared"] = local_memory_estimate(str(mod))
        return mod

    @staticmethod
    def make_binary(ttir, metadata, options) -> bytes:
        return (f"mtiacc: '{metadata['name']}' is compiled from its Python source when it is launched\n"
                ).encode()
