"""The SIMD engine (SE) of each PE: nonlinear functions by lookup table and interpolation (``mtia.se.*.v``).

``model``: the ``se:`` section of the machine YAML and the numeric model of each function (what the simulator
computes and ``accuracy`` measures); ``timing``: the SE as a unit of its own beside the vector unit;
``accuracy``: the measurement of each function's error in ULPs (``python -m mtiasim.se.accuracy``).
"""
