"""``python -m fagin.train``: a game's learned evaluation (see :mod:`fagin.search.train`)."""
import sys

from fagin.search.train import main

if __name__ == "__main__":
    sys.exit(main())
