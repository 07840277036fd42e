"""The catalogue: every registered game is complete and wired in everywhere.

A game registers by declaring ``GAME`` in ``engines/<game>/__init__.py``;
these checks say what else it needs: its compiled engine, its lines in the three
typed ``oneof``s of ``fagin.proto`` (which the build writes from its
``GameSpec.proto_fields``), a spec whose every ruling some test cites, a reference
game's replay against OpenSpiel, a heuristic bot, a row of the README's Games table
and a place in ``ListGames``.  CONTRIBUTING.md lists every file a new game touches.
"""
from __future__ import annotations

import pathlib
import re

import pytest

from fagin.engines import GAMES, load_game
from fagin.v1 import fagin_pb2


ROOT = pathlib.Path(__file__).resolve().parents[2]
RULING = re.compile(r"\*\*([A-Z]{2,3}-\d+)\b")


def _camel(game_id):
    return "".join(part.capitalize() for part in game_id.split("_"))


# "LN-1 to LN-44" names a span, not the rulings tested: a ruling counts as cited only where
# its own id stands (each ruling cited where its test is).
RULING_SPAN = re.compile(r"\b[A-Z]{2,3}-\d+\s*(?:to|through|-|–|—)\s*[A-Z]{2,3}-\d+\b")


def _test_sources():
    text = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests").rglob("*.py"))
    return RULING_SPAN.sub(" ", text)


def test_a_span_of_rulings_cites_neither_end():
    """A docstring's "LN-1 to LN-44" counted as citing LN-1 and LN-44 (found from outside)."""
    assert not re.search(r"\bLN-44\b", RULING_SPAN.sub(" ", "rules LN-1 to LN-44 here"))
    assert re.search(r"\bLN-21\b", RULING_SPAN.sub(" ", "LN-W6 (LN-19 to LN-20), LN-21"))


@pytest.mark.parametrize("game_id", list(GAMES))
def test_the_oneof_field_numbers_are_the_rooms(game_id):
    """Each game's numbers in GameState.game, Action.typed and Event.typed are declared in its
    room (GameSpec.proto_fields), the one place they are typed: the stubs the server runs must
    use them (the build writes them into fagin.proto), and no two rooms may share one."""
    spec = GAMES[game_id]
    assert len(spec.proto_fields) == 3, \
        f"{game_id}: declare proto_fields=(state, action, event) in its GameSpec"
    state_field = fagin_pb2.GameState.DESCRIPTOR.fields_by_name[game_id]
    action_field = fagin_pb2.Action.DESCRIPTOR.fields_by_name[game_id]
    event_field = fagin_pb2.Event.DESCRIPTOR.fields_by_name[game_id]
    numbers = (state_field.number, action_field.number, event_field.number)
    assert numbers == spec.proto_fields, \
        f"{game_id}: the stubs number it {numbers}, its room {spec.proto_fields}: run `make build`"
    others = [g for g, s in GAMES.items() if g != game_id]
    for i, what in enumerate(("GameState.game", "Action.typed", "Event.typed")):
        clash = [g for g in others if GAMES[g].proto_fields[i:i + 1] == spec.proto_fields[i:i + 1]]
        assert not clash, f"{game_id}: {what} number {spec.proto_fields[i]} is also {clash}'s"


@pytest.mark.parametrize("game_id", list(GAMES))
def test_game_is_in_the_three_oneofs(game_id):
    rebuild = "run `make build`: it writes the room's GameSpec.proto_fields into fagin.proto"
    for message, oneof, suffix in ((fagin_pb2.GameState, "game", "State"), (fagin_pb2.Action, "typed", "Action"),
                                   (fagin_pb2.Event, "typed", "Event")):
        field = message.DESCRIPTOR.fields_by_name.get(game_id)
        where = f"{message.DESCRIPTOR.name}.{oneof}"
        assert field is not None and field.containing_oneof.name == oneof, f"{game_id} is not in {where}: {rebuild}"
        assert field.message_type.name == f"{_camel(game_id)}{suffix}", \
            f"{where}.{game_id}: define message {_camel(game_id)}{suffix} in proto/fagin/v1/{game_id}.proto"


@pytest.mark.parametrize("game_id", list(GAMES))
def test_game_defines_its_events_in_its_room(game_id):
    """A room writes its events once (engines/<game>/events.py, beside its actions), and its
    event message has the kinds the shared helpers give (a game's end: KIND_RESULT)."""
    import importlib
    module = importlib.import_module(f"fagin.engines.{game_id}.events")
    assert callable(getattr(module, "events", None)), f"engines/{game_id}/events.py: define events(move, seat)"
    message = fagin_pb2.Event.DESCRIPTOR.fields_by_name[game_id].message_type
    assert "KIND_RESULT" in message.enum_types_by_name["Kind"].values_by_name
    assert "returns" in message.fields_by_name


def test_every_oneof_entry_is_a_registered_game():
    assert {f.name for f in fagin_pb2.GameState.DESCRIPTOR.oneofs_by_name["game"].fields} == set(GAMES)
    assert {f.name for f in fagin_pb2.Action.DESCRIPTOR.oneofs_by_name["typed"].fields} == set(GAMES)
    assert {f.name for f in fagin_pb2.Event.DESCRIPTOR.oneofs_by_name["typed"].fields} == set(GAMES)


@pytest.mark.parametrize("game_id", list(GAMES))
def test_game_is_built_and_consistent(game_id):
    spec = GAMES[game_id]
    game = load_game(game_id)
    assert game.id == game_id
    assert 1 <= spec.min_players <= spec.max_players
    state = game.new_initial_state(spec.max_players)
    assert state.num_players == spec.max_players
    assert game.max_decision_actions <= game.max_legal_actions
    assert spec.max_players <= game.max_players, \
        f"{game_id}: GameSpec allows {spec.max_players} players, the engine's state holds {game.max_players}"
    assert game.max_game_length > 0
    for option in spec.options:
        assert option.parse(option.default, option.name) == option.default, \
            f"{game_id}: option {option.name}'s default does not parse to itself"
        assert option.description
    with pytest.raises(ValueError, match="players"):
        game.new_initial_state(spec.max_players + 1)
    with pytest.raises(ValueError, match="options"):
        game.new_initial_state(spec.max_players, no_such_option=1)


@pytest.mark.parametrize("game_id", [g for g, s in GAMES.items() if s.reference is None])
def test_seed_game_has_a_spec_whose_rulings_are_all_cited(game_id):
    spec_file = ROOT / GAMES[game_id].spec
    assert spec_file.is_file(), f"{game_id}: spec {GAMES[game_id].spec} is missing"
    rulings = sorted(set(RULING.findall(spec_file.read_text(encoding="utf-8"))),
                     key=lambda r: (r.split("-")[0], int(r.split("-")[1])))
    assert rulings, f"{game_id}: the spec has no numbered rulings (**XX-1 ...**)"
    tests = _test_sources()
    uncited = [r for r in rulings if not re.search(rf"\b{r}\b", tests)]
    assert not uncited, f"{game_id}: rulings no test cites: {', '.join(uncited)}"


@pytest.mark.parametrize("game_id", [g for g, s in GAMES.items() if s.reference is not None])
def test_reference_game_is_replayed_against_openspiel(game_id):
    reference = GAMES[game_id].reference
    replays = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests" / "reference").glob("*.py"))
    assert re.search(rf"\b{reference}\b", replays), \
        f"{game_id}: no test in tests/reference/ replays it against OpenSpiel's {reference}"


@pytest.mark.parametrize("game_id", list(GAMES))
def test_game_has_a_heuristic_bot(game_id):
    from fagin.engines import new_game
    from fagin.search.bots import HeuristicBot
    assert GAMES[game_id].heuristic is not None, f"{game_id}: GameSpec.heuristic is not set"
    assert GAMES[game_id].make_heuristic().choose
    state = new_game(game_id, GAMES[game_id].min_players, seed=3)
    seat = state.pending_seats()[0]
    assert HeuristicBot().choose(state, seat, seed=1) in state.legal_actions(seat)


def test_list_games_serves_every_registered_game(client):
    served = {g.id: g for g in client.list_games()}
    assert list(served) == list(GAMES)
    for game_id, spec in GAMES.items():
        g = served[game_id]
        assert (g.name, g.min_players, g.max_players, g.spec) == \
            (spec.name, spec.min_players, spec.max_players, spec.spec)
        assert [o.name for o in g.options] == [o.name for o in spec.options]


@pytest.mark.parametrize("game_id", list(GAMES))
def test_engine_module_implements_the_engine_interface(game_id):
    from fagin.engines.game import Engine
    engine = load_game(game_id).engine
    wanted = [name for name in vars(Engine) if not name.startswith("_")] + ["GAME_DEF"]
    missing = [name for name in wanted if not hasattr(engine, name)]
    assert not missing, f"engines/{game_id}/engine.pyx lacks {', '.join(missing)} (see engines/game.py)"


@pytest.mark.parametrize("game_id", list(GAMES))
def test_the_readmes_games_table_lists_the_game_with_its_players(game_id):
    """The README's Games table is documentation, checked against the rooms: every game is in a
    row whose player column starts with its range."""
    spec = GAMES[game_id]
    table = (ROOT / "README.md").read_text(encoding="utf-8").split("## Games", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("|") and f"`{game_id}`" in line.split("|")[1]]
    assert len(rows) == 1, f"README's Games table: {game_id} has {len(rows)} rows"
    players = rows[0].split("|")[2].strip()
    want = str(spec.min_players) if spec.min_players == spec.max_players else f"{spec.min_players}-{spec.max_players}"
    assert players.startswith(want), f"README's Games table: {game_id} plays {want}, the table says {players!r}"


@pytest.mark.parametrize("game_id", list(GAMES))
def test_the_engine_stands_apart_from_its_room_and_agrees_with_it(game_id):
    """An engine holds the rules; the room's GameSpec describes them to the registry.  The
    engine imports neither the registry nor its room's GAME, and where it states the player
    range itself (for its own error messages) the range is the GameSpec's."""
    folder = ROOT / "engines" / game_id
    # The engine is engine.pyx with the files it includes (state.pxi, rollout.pxi), or the
    # plain-Python state.py whose functions it takes.
    parts = [folder / "engine.pyx", *sorted(folder.glob("*.pxi")), *sorted(folder.glob("state.py"))]
    assert len(parts) > 1, f"engines/{game_id}: no state file beside engine.pyx"
    for part in parts:
        source = part.read_text(encoding="utf-8")
        where = f"engines/{game_id}/{part.name}"
        assert "registry" not in source and not re.search(r"from fagin\.engines import\b", source), \
            f"{where} imports the registry"
        assert not re.search(rf"from fagin\.engines\.{game_id} import GAME\b", source), \
            f"{where} imports its room's GAME"
    engine = load_game(game_id).engine
    spec = GAMES[game_id]
    for name, want in (("MIN_PLAYERS", spec.min_players), ("MAX_PLAYERS", spec.max_players)):
        if hasattr(engine, name):
            assert getattr(engine, name) == want, f"engines/{game_id}: {name} {getattr(engine, name)}, GameSpec {want}"


@pytest.mark.parametrize("game_id", list(GAMES))
def test_the_rooms_actions_live_in_its_actions_module(game_id):
    """Every room has one shape for its actions: ``actions.py`` names, types and reads them, the
    game reads them from there (``Game.actions``), and the engine holds no other copy."""
    import importlib
    actions = importlib.import_module(f"fagin.engines.{game_id}.actions")
    game = load_game(game_id)
    assert game.actions is actions, f"engines/{game_id}: the game's actions are not its actions.py"
    for name in ("action_label", "typed_action", "action_from_typed"):
        assert callable(getattr(actions, name)), f"engines/{game_id}: no actions.{name}"
        assert not hasattr(game.engine, name), f"engines/{game_id}: the engine has its own {name}"
