"""Every room has the same files, each holding the same part of a game (CONTRIBUTING.md,
"The room"): a newcomer who has read one room knows where to look in any other."""
import importlib
import pathlib
import re

import pytest

from fagin.engines import GAMES

ROOT = pathlib.Path(__file__).resolve().parents[2]
EVERY_ROOM = ("__init__.py", "engine.pyx", "actions.py", "events.py", "heuristic.py")
# The Python side of a state: compiled with the rules (state.pxi, included by engine.pyx)
# where a client's position is decoded on every call, or plain Python (state.py).
STATE_FILES = ("state.pxi", "state.py")
PYTHON_STATE = ("describe", "view", "from_description", "summary", "render")


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_room_has_the_rooms_files(game_id):
    folder = ROOT / "engines" / game_id
    for name in EVERY_ROOM:
        assert (folder / name).is_file(), f"{game_id}: no {name}"
    states = [name for name in STATE_FILES if (folder / name).is_file()]
    assert len(states) == 1, f"{game_id}: the Python state is in {states or 'no file'}"
    # A seed game's search plays its own playout player; a reference game's plays uniformly.
    seed_game = GAMES[game_id].reference is None
    assert (folder / "rollout.pxi").is_file() == seed_game, game_id
    # Each .pxi beside the engine is part of it: engine.pyx includes it.
    engine = (folder / "engine.pyx").read_text(encoding="utf-8")
    for part in folder.glob("*.pxi"):
        assert re.search(rf'^include "{part.name}"$', engine, re.M), f"{game_id}: {part.name} is not included"


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_the_python_state_lives_in_the_state_file_alone(game_id):
    folder = ROOT / "engines" / game_id
    engine = (folder / "engine.pyx").read_text(encoding="utf-8")
    state = next(folder / name for name in STATE_FILES if (folder / name).is_file())
    state_text = state.read_text(encoding="utf-8")
    for function in PYTHON_STATE:
        assert not re.search(rf"^def {function}\(", engine, re.M), f"{game_id}: {function} in engine.pyx"
        assert re.search(rf"^def {function}\(", state_text, re.M), f"{game_id}: no {function} in {state.name}"
    # The room's functions, however its state is written, are the engine module's.
    engine_module = importlib.import_module(f"fagin.engines.{game_id}.engine")
    for function in PYTHON_STATE:
        assert callable(getattr(engine_module, function)), (game_id, function)


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_bytes_of_another_size_are_no_state(game_id):
    # Every room reads its state bytes through the kit's read_state (engines/room.pxd), which
    # refuses bytes of any other length before a field is read.
    from fagin.engines import load_game
    game = load_game(game_id)
    data = game.engine.initial_state_bytes(game.spec.min_players)
    assert isinstance(game.engine.describe(data), dict)
    for wrong in (b"", data[:-1], data + b"\0"):
        with pytest.raises(ValueError, match=r"^not an? .* state$"):
            game.engine.describe(wrong)


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_an_engine_is_split_by_concept_before_it_grows_long(game_id):
    # A long engine includes its concepts as .pxi parts (London's tables, cards, turn, ...):
    # one compiled module still, each file a screenful of one subject or a few.
    folder = ROOT / "engines" / game_id
    for part in [folder / "engine.pyx", *folder.glob("*.pxi")]:
        lines = part.read_text(encoding="utf-8").count("\n")
        assert lines <= 1500, f"{game_id}: {part.name} has {lines} lines"


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_the_engine_and_its_actions_do_not_import_each_other(game_id):
    # actions.py reads the engine's constants; fagin.engines.core.Game, not the engine,
    # imports actions.py (Game.actions), so that neither waits for the other's import.
    folder = ROOT / "engines" / game_id
    engine = "".join(p.read_text(encoding="utf-8") for p in [folder / "engine.pyx", *folder.glob("*.pxi")])
    actions = (folder / "actions.py").read_text(encoding="utf-8")
    engine_imports_actions = re.search(rf"^\s*from fagin\.engines\.{game_id}(\.actions import| import actions)",
                                       engine, re.M)
    actions_imports_engine = re.search(rf"^\s*from fagin\.engines\.{game_id}(\.engine import| import engine)",
                                       actions, re.M)
    assert not (engine_imports_actions and actions_imports_engine), game_id
    from fagin.engines import load_game
    game = load_game(game_id)
    assert game.actions is importlib.import_module(f"fagin.engines.{game_id}.actions")
