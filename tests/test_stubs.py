"""The generated gRPC/protobuf stubs are build outputs and must match the .proto files."""
import importlib.util
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_stubs_are_up_to_date(tmp_path):
    spec = importlib.util.spec_from_file_location("generate", ROOT / "proto" / "generate.py")
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    generate.generate(tmp_path)
    fresh = sorted((tmp_path / "fagin" / "v1").glob("*_pb2*.py*"))
    assert fresh, "protoc generated nothing"
    for f in fresh:
        in_tree = ROOT / "proto" / "fagin" / "v1" / f.name
        assert in_tree.exists(), f"{in_tree} is missing: run `make build`"
        assert in_tree.read_bytes() == f.read_bytes(), f"{in_tree} is stale: run `make build`"
    for proto in (ROOT / "proto" / "fagin" / "v1").glob("*.proto"):
        assert (tmp_path / "fagin" / "v1" / (proto.stem + "_pb2.py")).exists()
