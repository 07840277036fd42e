"""What the build generates from the sources must match them: fagin.proto's lines for the
games are the rooms' (GameSpec.proto_fields), in the working tree and in the commit, and the
gRPC/protobuf stubs are the .proto files'."""
import importlib.util
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
FAGIN_PROTO = "proto/fagin/v1/fagin.proto"


def _generate():
    spec = importlib.util.spec_from_file_location("generate", ROOT / "proto" / "generate.py")
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    return generate


def test_stubs_are_up_to_date(tmp_path):
    generate = _generate()
    generate.generate(tmp_path)
    fresh = sorted((tmp_path / "fagin" / "v1").glob("*_pb2*.py*"))
    assert fresh, "protoc generated nothing"
    for f in fresh:
        in_tree = ROOT / "proto" / "fagin" / "v1" / f.name
        assert in_tree.exists(), f"{in_tree} is missing: run `make build`"
        assert in_tree.read_bytes() == f.read_bytes(), f"{in_tree} is stale: run `make build`"
    for proto in (ROOT / "proto" / "fagin" / "v1").glob("*.proto"):
        assert (tmp_path / "fagin" / "v1" / (proto.stem + "_pb2.py")).exists()


def test_fagin_proto_names_the_games_as_the_rooms_declare_them():
    """The oneofs' lines and the imports in fagin.proto are what the build writes from the
    rooms: a number changed by hand there, or in a room since the last build, fails here."""
    written = (ROOT / FAGIN_PROTO).read_text(encoding="utf-8")
    assert written == _generate().fagin_proto(ROOT), \
        f"{FAGIN_PROTO} is not what the rooms make of it: run `make build` and commit it"


def _git(*args):
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=True).stdout


def test_the_committed_fagin_proto_is_what_the_build_makes_of_the_committed_rooms(tmp_path):
    """Clients outside Python (clients/ts, stubs for another language) read fagin.proto
    from git without building: a commit must hold the file the build makes of that commit's rooms, not one a
    build later rewrites."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    if _git("ls-files", "--", FAGIN_PROTO).strip() != FAGIN_PROTO:
        pytest.skip(f"{FAGIN_PROTO} is not committed here")
    committed = tmp_path / "commit"
    for path in _git("ls-tree", "-r", "--name-only", "HEAD", "--", "engines", "proto/fagin/v1").splitlines():
        if path.endswith((".proto", "/__init__.py")):
            (committed / path).parent.mkdir(parents=True, exist_ok=True)
            (committed / path).write_text(_git("show", f"HEAD:{path}"), encoding="utf-8")
    assert (committed / FAGIN_PROTO).read_text(encoding="utf-8") == _generate().fagin_proto(committed), \
        f"the commit's {FAGIN_PROTO} is not what the build makes of its rooms: commit the file `make build` wrote"


ROOM = """from fagin.engines.game import GameSpec

GAME = GameSpec(
    id="{id}",
    proto_fields={fields},
    name="A game",
)
"""


def test_a_rooms_numbers_are_its_lines_and_a_clash_or_a_missing_number_is_refused():
    generate = _generate()
    text = (ROOT / FAGIN_PROTO).read_text(encoding="utf-8")
    sources = generate.room_sources(ROOT)
    games = generate.rooms(sources)
    assert generate.render(text, games) == text
    # A new room: its lines come last in each oneof, its import in order, nothing else moves.
    new = generate.render(text, generate.rooms({**sources, "new_game": ROOM.format(id="new_game", fields=(40, 41, 41))}))
    added = [line.strip() for line in new.splitlines() if line not in text.splitlines()]
    assert added == ['import "fagin/v1/new_game.proto";', "NewGameState new_game = 40;",
                     "NewGameAction new_game = 41;", "NewGameEvent new_game = 41;"]
    # A changed number is a changed line.
    moved = dict(games, kuhn_poker=(3, 42, 12))
    assert "    KuhnPokerAction kuhn_poker = 42;" in generate.render(text, moved).splitlines()
    with pytest.raises(generate.RoomError, match=r"engines/new_game/__init__\.py: Action\.typed number 12 is "
                                                 r"also kuhn_poker's"):
        generate.rooms({**sources, "new_game": ROOM.format(id="new_game", fields=(40, 12, 41))})
    with pytest.raises(generate.RoomError, match=r"engines/new_game/__init__\.py: declare proto_fields"):
        generate.rooms({"new_game": ROOM.replace("    proto_fields={fields},\n", "").format(id="new_game")})
    with pytest.raises(generate.RoomError, match=r"proto_fields must be three field numbers"):
        generate.rooms({"new_game": ROOM.format(id="new_game", fields=(40, 41))})
    with pytest.raises(generate.RoomError, match=r"GAME's id must be its folder's name"):
        generate.rooms({"new_game": ROOM.format(id="old_game", fields=(40, 41, 41))})
    # A folder without GAME is no game, as the registry has it; GAME may be annotated.
    assert generate.rooms({"helpers": "X = 1\n"}) == {}
    annotated = ROOM.format(id="new_game", fields=(40, 41, 41)).replace("GAME = GameSpec(", "GAME: GameSpec = GameSpec(")
    assert generate.rooms({"new_game": annotated}) == {"new_game": (40, 41, 41)}
