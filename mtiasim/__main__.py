"""``python -m mtiasim``: the simulator's command line (as ``mtiasim``)."""
import sys

from mtiasim.cli import main

sys.exit(main())
