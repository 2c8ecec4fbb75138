"""``python -m mtiacc``: the compiler's command line (as ``mtiacc``)."""
from mtiacc.cli import main

main()
