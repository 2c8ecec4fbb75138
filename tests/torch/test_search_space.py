"""The search spaces of max-autotune (mtiacc/torch_backend/gemm_search.py, kernel_search.py)."""
from mtiacc.torch_backend.gemm_search import CHIP_CONFIGS, Tile, chip_configs


def test_small_gemm_keeps_the_tiles_that_keep_pes_busy():
    # 16 x 128: 16 x 16 tiles are 8 programs, 16 x 32 are 4, larger ones 2 or 1 (of 64 PEs)
    assert chip_configs(16, 128, 64, CHIP_CONFIGS, dtype_bytes=4) == [Tile(16, 16, 64, 1), Tile(16, 32, 64, 1)]


def test_a_gemm_with_one_candidate_left():
    assert chip_configs(16, 16, 128, CHIP_CONFIGS, dtype_bytes=4) == [Tile(16, 16, 64, 2)]


def test_batch_counts_toward_busy_pes():
    # 8 batches of 64 x 64: 16 x 16 tiles make 128 programs, 32 x 32 make 32, 32 x 64 make 16, 64 x 64 make 8
    assert chip_configs(64, 64, 64, CHIP_CONFIGS, dtype_bytes=2, batch=8) == [Tile(16, 16, 64, 1),
                                                                              Tile(32, 32, 64, 1)]


def test_large_gemm_keeps_every_tile_that_fits():
    tiles = chip_configs(4096, 4096, 4096, CHIP_CONFIGS, dtype_bytes=2)
    assert tiles == [Tile(*c) for c in CHIP_CONFIGS]


def test_stages_beyond_the_k_loop_and_warps_are_one_candidate():
    configs = [(32, 32, 32, s) for s in (1, 2, 3, 4, 5)]
    assert chip_configs(64, 64, 64, configs, dtype_bytes=4) == [Tile(32, 32, 32, 1), Tile(32, 32, 32, 2)]


def test_tiles_that_do_not_fit_local_memory_are_dropped():
    configs = [(256, 256, 256, 1), (128, 128, 64, 2)]
    # 256 x 256 x 256 fp32: 512 KB of operands alone, more than a PE's local memory
    assert chip_configs(1024, 1024, 1024, configs, dtype_bytes=4) == [Tile(128, 128, 64, 2)]
    assert chip_configs(1024, 1024, 1024, configs, dtype_bytes=4, lmem_bytes=64 * 1024) == []


def test_exhaustive_search_keeps_idle_tiles():
    tiles = chip_configs(16, 128, 64, CHIP_CONFIGS, dtype_bytes=4, prune_idle=False)
    assert [t.block_n for t in tiles] == [16, 32, 64, 128]


def test_int8_k_blocks_are_at_least_32():
    assert chip_configs(16, 16, 16, [(16, 16, 16, 1)], dtype_bytes=1, int8=True) == [Tile(16, 16, 32, 1)]


def test_the_chip_search_space_replaces_inductors_cpu_heuristics_only_while_active():
    from torch._inductor.kernel.mm import mm_template
    from torch._inductor.template_heuristics.registry import get_template_heuristic
    from mtiacc.torch_backend.gemm_choices import chip_search_space
    before = type(get_template_heuristic(mm_template.uid, "cpu", "addmm"))
    with chip_search_space():
        inside = get_template_heuristic(mm_template.uid, "cpu", "addmm")
        assert type(inside).__name__ == "ChipAddMM" and isinstance(inside, before)
        assert type(get_template_heuristic(mm_template.uid, "cpu", "mm")).__name__ == "ChipMM"
    assert type(get_template_heuristic(mm_template.uid, "cpu", "addmm")) is before


def test_convolution_templates_take_the_chip_tiles_while_active():
    from torch._inductor.choices import InductorChoices
    from mtiacc.torch_backend.gemm_choices import chip_search_space

    def tiles():   # a 3x3 convolution of 2 x 3 x 16 x 16 to 8 channels: M = 2 * 16 * 16, N = 8, K = 3
        return [(c.kwargs["BLOCK_M"], c.kwargs["BLOCK_N"], c.kwargs["BLOCK_K"])
                for c in InductorChoices().get_conv_configs("cpu")(512, 8, 3, dtype_size=4)]
    stock = InductorChoices.get_conv_configs
    with chip_search_space():
        # 32 and 16 programs of 64 PEs; the larger tiles would leave three quarters of them idle
        assert tiles() == [(16, 16, 16), (32, 16, 16)]
    assert InductorChoices.get_conv_configs is stock


def test_pointwise_and_reduction_configs_that_idle_pes_are_dropped():
    from mtiacc.torch_backend.kernel_search import busy_pes
    from mtiacc.torch_backend.gemm_search import keep_busy
    hints = {"x": 16, "r0_": 64}          # a layer norm over 16 rows of 64
    busy = [busy_pes(hints, {"XBLOCK": xb, "R0_BLOCK": 64}, 64) for xb in (1, 8, 32)]
    assert busy == [16, 2, 1]
    assert keep_busy(["XBLOCK=1", "XBLOCK=8", "XBLOCK=32"], busy) == ["XBLOCK=1"]
    assert busy_pes({"x": 8192}, {"XBLOCK": 128}, 64) == 64 and busy_pes({"x": 8192}, {"XBLOCK": 256}, 64) == 32
    assert busy_pes({"y": 64, "x": 64}, {"XBLOCK": 16}, 64) is None      # no YBLOCK: left alone
