"""Generates the Python stubs of proto/fagin/v1/*.proto with grpcio-tools.

    python proto/generate.py [OUT_DIR]

Without OUT_DIR the stubs are written next to the .proto files (inside the
`fagin` package). The build runs this (Makefile, setup.py); the stubs are
never edited by hand, and tests/test_stubs.py fails when they are stale.
"""
import pathlib
import sys

PROTO_ROOT = pathlib.Path(__file__).resolve().parent


def proto_files():
    return sorted(PROTO_ROOT.glob("fagin/v1/*.proto"))


def generate(out_dir=None):
    """Writes `*_pb2.py`, `*_pb2.pyi` and `*_pb2_grpc.py` under out_dir (default: in place)."""
    from grpc_tools import protoc
    import grpc_tools

    out = pathlib.Path(out_dir) if out_dir else PROTO_ROOT
    (out / "fagin" / "v1").mkdir(parents=True, exist_ok=True)
    well_known = pathlib.Path(grpc_tools.__file__).parent / "_proto"
    args = ["protoc", f"-I{PROTO_ROOT}", f"-I{well_known}", f"--python_out={out}",
            f"--pyi_out={out}", f"--grpc_python_out={out}"]
    args += [str(p.relative_to(PROTO_ROOT)) for p in proto_files()]
    if protoc.main(args) != 0:
        raise RuntimeError("protoc failed on " + " ".join(args[6:]))
    return out


if __name__ == "__main__":
    generate(sys.argv[1] if len(sys.argv) > 1 else None)
