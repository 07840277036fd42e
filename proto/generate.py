"""Writes fagin.proto's lines for the games from the rooms, then the Python stubs of
proto/fagin/v1/*.proto with grpcio-tools.

    python proto/generate.py [OUT_DIR]

A game is a room (engines/<game>/): its GameSpec declares, in ``proto_fields``, its field
numbers in fagin.proto's three oneofs over the games (GameState.game, Action.typed,
Event.typed).  Those numbers are typed there and nowhere else: the build writes the
blocks of fagin.proto that name the games (each between a ``// BEGIN rooms' <block>``
line and its ``// END rooms' <block>`` line: the imports of the games' files and a line a
game in each oneof) from the rooms, reading each room's ``__init__.py`` as text, since
nothing is compiled yet when it runs.  The rest of fagin.proto is written by hand.  The
file stays whole in git for the clients that read it without building (clients/node, or
stubs for another language), and tests/test_stubs.py fails when it is not what this
script makes of the rooms.

Without OUT_DIR, fagin.proto is brought up to date and the stubs are written next to the
.proto files (inside the `fagin` package). The build runs this (Makefile, setup.py); the
stubs are never edited by hand, and tests/test_stubs.py fails when they are stale.  With
OUT_DIR, the stubs of the .proto files as they stand are written there and fagin.proto is
left as it is.
"""
import ast
import pathlib
import re
import sys

PROTO_ROOT = pathlib.Path(__file__).resolve().parent
ROOT = PROTO_ROOT.parent
FAGIN_PROTO = PROTO_ROOT / "fagin" / "v1" / "fagin.proto"

#: The generated blocks of fagin.proto: for a oneof over the games, the message its lines
#: name (the game's <Game>State, <Game>Action, <Game>Event) and its number's place in
#: GameSpec.proto_fields.
ONEOFS = {"GameState.game": ("State", 0), "Action.typed": ("Action", 1), "Event.typed": ("Event", 2)}
BLOCKS = ("imports", *ONEOFS)
BEGIN = re.compile(r"^( *)// BEGIN rooms' (\S+):")


class RoomError(ValueError):
    """A room whose proto numbers cannot be written into fagin.proto."""


def proto_files():
    return sorted(PROTO_ROOT.glob("fagin/v1/*.proto"))


def _literal(node, where):
    try:
        return ast.literal_eval(node)
    except ValueError:
        raise RoomError(f"{where}: must be written as a literal, which the build reads "
                        f"without importing the room") from None


def room_spec(game_id, source):
    """The ``proto_fields`` a room's ``__init__.py`` text gives its ``GAME``, or None for a
    folder that declares no ``GAME`` (the registry's rule: such a folder is no game)."""
    where = f"engines/{game_id}/__init__.py"
    for node in ast.parse(source, where).body:
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets = [node.target]
        else:
            continue
        if not any(isinstance(t, ast.Name) and t.id == "GAME" for t in targets):
            continue
        func = getattr(node.value, "func", None)
        if "GameSpec" not in (getattr(func, "id", None), getattr(func, "attr", None)):
            raise RoomError(f"{where}: GAME must be a GameSpec(...)")
        given = {k.arg: k.value for k in node.value.keywords}
        if "proto_fields" not in given:
            raise RoomError(f"{where}: declare proto_fields=(state, action, event) in its GameSpec: "
                            f"its field numbers in GameState.game, Action.typed and Event.typed, "
                            f"numbers no other game holds")
        fields = _literal(given["proto_fields"], f"{where}: proto_fields")
        if not (isinstance(fields, tuple) and len(fields) == 3
                and all(type(n) is int and 0 < n < 1 << 29 for n in fields)):
            raise RoomError(f"{where}: proto_fields must be three field numbers (state, action, event), "
                            f"got {fields!r}")
        if "id" in given and _literal(given["id"], f"{where}: id") != game_id:
            raise RoomError(f"{where}: GAME's id must be its folder's name, {game_id!r}")
        return fields
    return None


def rooms(sources):
    """{game id: proto_fields} of every room, from {folder name: its __init__.py's text}.
    Two games holding one number of the same oneof are refused, naming both."""
    found = {}
    for game_id, source in sorted(sources.items()):
        fields = room_spec(game_id, source)
        if fields is not None:
            found[game_id] = fields
    for block, (_, i) in ONEOFS.items():
        holders = {}
        for game_id, fields in found.items():
            other = holders.setdefault(fields[i], game_id)
            if other != game_id:
                raise RoomError(f"engines/{game_id}/__init__.py: {block} number {fields[i]} is also "
                                f"{other}'s (proto_fields): take one no game holds")
    return found


def room_sources(root=ROOT):
    """{folder name: __init__.py's text} of the folders of engines/ with an ``__init__.py``."""
    return {d.name: (d / "__init__.py").read_text(encoding="utf-8")
            for d in sorted((root / "engines").iterdir()) if (d / "__init__.py").is_file()}


def _camel(game_id):
    return "".join(part.capitalize() for part in game_id.split("_"))


def block_lines(block, games):
    """The lines of a generated block, unindented: the imports by file name, a oneof's lines by
    field number (so that a new game's line comes last)."""
    if block == "imports":
        return [f'import "fagin/v1/{game_id}.proto";' for game_id in sorted(games)]
    suffix, i = ONEOFS[block]
    by_number = sorted(games.items(), key=lambda kv: kv[1][i])
    return [f"{_camel(g)}{suffix} {g} = {fields[i]};" for g, fields in by_number]


def render(text, games):
    """fagin.proto's ``text`` with every generated block written anew from ``games``
    ({game id: proto_fields}); the lines outside the blocks are kept as they are."""
    lines, out, seen = text.splitlines(), [], []
    i = 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        begin = BEGIN.match(line)
        if not begin:
            continue
        indent, block = begin.groups()
        if block not in BLOCKS:
            raise RoomError(f"fagin.proto: unknown generated block {block!r} (known: {', '.join(BLOCKS)})")
        end = f"{indent}// END rooms' {block}"
        try:
            stop = lines.index(end, i)
        except ValueError:
            raise RoomError(f"fagin.proto: the block {block!r} has no line {end.strip()!r}") from None
        out += [indent + entry for entry in block_lines(block, games)] + [end]
        seen.append(block)
        i = stop + 1
    if sorted(seen) != sorted(BLOCKS):
        raise RoomError(f"fagin.proto: the generated blocks are {', '.join(seen) or 'none'}; "
                        f"each of {', '.join(BLOCKS)} once")
    return "\n".join(out) + "\n"


def fagin_proto(root=ROOT):
    """What fagin.proto should hold: its text with the rooms' blocks written from the rooms."""
    games = rooms(room_sources(root))
    missing = [g for g in games if not (root / "proto" / "fagin" / "v1" / f"{g}.proto").is_file()]
    if missing:
        raise RoomError(f"no proto/fagin/v1/<game>.proto for {', '.join(missing)}: a game's state, "
                        f"action and event messages are in its own file")
    return render((root / "proto" / "fagin" / "v1" / "fagin.proto").read_text(encoding="utf-8"), games)


def write_fagin_proto():
    """Brings fagin.proto's generated blocks up to date; True if the file changed (it is then
    written, and is to be committed: clients outside Python read it from git)."""
    text = fagin_proto()
    if FAGIN_PROTO.read_text(encoding="utf-8") == text:
        return False
    FAGIN_PROTO.write_text(text, encoding="utf-8")
    print(f"{FAGIN_PROTO.relative_to(ROOT)}: the games' lines written from the rooms", file=sys.stderr)
    return True


def generate(out_dir=None):
    """Writes `*_pb2.py`, `*_pb2.pyi` and `*_pb2_grpc.py` under out_dir (default: in place,
    after writing fagin.proto's blocks from the rooms)."""
    from grpc_tools import protoc
    import grpc_tools

    if out_dir is None:
        write_fagin_proto()
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
