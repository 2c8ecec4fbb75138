"""The IR's generic text form: ``printer`` writes it (``--emit=ir``, ``mtiacc opt``), ``parser`` reads it back."""
