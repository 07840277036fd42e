"""``python -m fagin.server``: run the gRPC server (``--help`` for its settings)."""
import sys

from fagin.server.app import main

if __name__ == "__main__":
    sys.exit(main())
