"""Loads and stores: DMA between DRAM and local memory (the hub isel's table calls)."""
from mtiacc.codegen.memory.dma import lower_load, lower_store, lower_scalar_load, needs_buffers
from mtiacc.codegen.memory.gather import lower_addptr

__all__ = ["lower_load", "lower_store", "lower_scalar_load", "needs_buffers", "lower_addptr"]
