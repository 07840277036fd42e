"""``python -m fagin.server``: the gRPC service (not built yet).

The service arrives with the issue "Foundation II: the gRPC API, the server,
the Python client and the `fagin` command line".  Until then this entry point
says so and exits with status 2 rather than pretending to serve.
"""
import sys


def main() -> int:
    print("fagin: the gRPC server is not built yet; the engines and the search can be used "
          "from Python (see README.md).", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
