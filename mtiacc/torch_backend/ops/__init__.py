"""The chip's lowerings of operations Inductor leaves to aten (or to templates it uses on GPUs only): convolutions
and their gradients (:mod:`.conv`, :mod:`.conv_direct`, :mod:`.conv_grad`) and embedding bags
(:mod:`.embedding`), installed while a graph compiles for the chip by :mod:`..overrides`."""
