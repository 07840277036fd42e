"""Bot levels, the temperature of a move choice and the "auto" algorithm."""
import dataclasses
import math
import random
from pathlib import Path
from types import SimpleNamespace

import grpc
import pytest

from fagin.engines import new_game
from fagin.engines.game import AutoAlgorithm
from fagin.engines.registry import GAMES
from fagin.search import levels
from fagin.search.bots import ISMCTSBot, LevelBot, make_bot
from fagin.search.ismcts import ActionStats


def _stats(policy):
    return [ActionStats(a, f"a{a}", 0, 0.0, p) for a, p in enumerate(policy)]


def test_temperature_zero_plays_the_best_move_and_one_the_policy():
    stats = _stats([0.7, 0.2, 0.1])
    assert levels.choose(stats, 0.0, random.Random(1), best=2) == 2
    rng = random.Random(5)
    draws = [levels.choose(stats, 1.0, rng, best=0) for _ in range(4000)]
    assert abs(draws.count(0) / 4000 - 0.7) < 0.03 and abs(draws.count(2) / 4000 - 0.1) < 0.02
    # Hot: flatter than the policy; cold: all but always the most likely move.
    hot = [levels.choose(stats, 4.0, rng, best=0) for _ in range(4000)]
    cold = [levels.choose(stats, 0.05, rng, best=0) for _ in range(1000)]
    assert hot.count(2) / 4000 > 0.2 and cold.count(0) == 1000
    # A policy of zeros (nothing searched) draws uniformly instead of failing.
    assert {levels.choose(_stats([0, 0]), 2.0, rng, best=0) for _ in range(50)} == {0, 1}


def test_temperatures_out_of_range_are_refused_by_name():
    for t in (-0.1, 10.5, math.nan, math.inf):
        with pytest.raises(ValueError, match=r"^search\.temperature: must be a number from 0 to 10"):
            levels.check_temperature(t, "search.temperature")


def test_the_ladder_rises_and_levels_are_checked():
    spec = GAMES["kids_of_london"]
    ladder = [levels.level(spec, n) for n in range(1, 11)]
    # Each level searches at least as much as the one below, and plays no hotter where it
    # searches as much.
    assert all(a.iterations < b.iterations or (a.iterations == b.iterations and a.temperature > b.temperature)
               for a, b in zip(ladder, ladder[1:]))
    assert ladder[-1].temperature == 0
    for bad in (0, 11, 2.5, True, "3"):
        with pytest.raises(ValueError, match="level: must be from 1 to 10"):
            levels.level(spec, bad)


def test_auto_resolves_by_player_count():
    spec = SimpleNamespace(auto=(AutoAlgorithm(2, "ismcts_rm", True), AutoAlgorithm(None, "oos", False)))
    assert levels.resolve(spec, 2, "") == ("ismcts_rm", True)
    assert levels.resolve(spec, 3, "auto") == ("oos", False)
    assert levels.resolve(spec, 3, "ismcts") == ("ismcts", False)
    assert levels.resolve(SimpleNamespace(auto=()), 4, "") == ("ismcts", False)
    assert levels.resolve(GAMES["leduc_poker"], 2, "") == ("ismcts_rm", True)


def test_level_and_algorithm_bot_specs():
    assert isinstance(make_bot("level:3"), LevelBot) and make_bot("level:10").level == 10
    for bad in ("level:0", "level:11", "level:x", "level", "ismcts_rm:10:sample:policy", "auto@5"):
        with pytest.raises(ValueError, match="bot spec|unknown"):
            make_bot(bad)
    bot = make_bot("ismcts_rm@5msx2:policy:sample")
    assert (bot.algorithm, bot.time_ms, bot.threads, bot.rollout, bot.temperature, bot.name) == \
        ("ismcts_rm", 5, 2, "policy", 1.0, "ismcts_rm@5msx2:policy:sample")
    assert (make_bot("oos:300").algorithm, make_bot("auto").iterations) == ("oos", 2000)
    st = new_game("kids_of_london", 3, seed=4)
    seat = st.current_player()
    for spec in ("level:1", "level:4", "oos:100", "ismcts_rm:100:sample", "auto:100"):
        assert make_bot(spec).choose(st, seat, seed=2) in st.legal_actions()
    # The same seed gives the same move, hot or not.
    assert make_bot("level:1").choose(st, seat, 7) == make_bot("level:1").choose(st, seat, 7)
    assert isinstance(make_bot("auto:50"), ISMCTSBot)


# ------------------------------------------------------------------ through the server

def _recommend(client, state, **search):
    from fagin.v1 import fagin_pb2 as pb
    return client._stub.Recommend(pb.RecommendRequest(state=state, seat=0, search=pb.SearchSettings(**search)),
                                  timeout=30)


def test_a_level_sets_budget_and_temperature_and_explicit_fields_win(client):
    state = client.new_game("kids_of_london", 3, seed=1).state
    lv = levels.level(GAMES["kids_of_london"], 2)
    rec = _recommend(client, state, level=2, seed=4)
    assert (rec.iterations, rec.settings.level, rec.settings.temperature) == (lv.iterations, 2, lv.temperature)
    assert lv.temperature > 0
    assert rec.settings.algorithm == "ismcts"
    rec = _recommend(client, state, level=3, iterations=77, temperature=0.0, seed=4)
    assert rec.iterations == 77 and rec.settings.temperature == 0
    assert rec.action.id == max(rec.actions, key=lambda s: (s.visits, s.mean_value)).action.id
    top = _recommend(client, state, level=10, seed=4)
    assert top.iterations == levels.level(GAMES["kids_of_london"], 10).iterations


def test_bad_levels_and_temperatures_are_invalid_arguments(client):
    state = client.new_game("kids_of_london", 3, seed=1).state
    for search, field in (({"level": 0}, "search.level"), ({"level": 11}, "search.level"),
                          ({"temperature": -1.0, "iterations": 5}, "search.temperature"),
                          ({"temperature": math.nan, "iterations": 5}, "search.temperature")):
        with pytest.raises(grpc.RpcError) as e:
            _recommend(client, state, **search)
        assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT and e.value.details().startswith(field)


def test_temperature_draws_reproducibly_from_the_policy(client):
    state = client.new_game("kids_of_london", 3, seed=1).state
    hot = {_recommend(client, state, iterations=200, temperature=5.0, seed=s).action.id for s in range(12)}
    assert len(hot) > 2
    assert len({_recommend(client, state, iterations=200, temperature=5.0, seed=3).action.id
                for _ in range(3)}) == 1


def test_auto_is_the_default_and_echoes_what_it_ran(client):
    state = client.new_game("leduc_poker", 2, seed=1).state
    rec = _recommend(client, state, iterations=300, seed=1)
    assert rec.settings.algorithm == "ismcts_rm" and rec.settings.sample_action
    assert rec.settings.temperature == 1.0
    assert _recommend(client, state, iterations=300, algorithm="ismcts").settings.algorithm == "ismcts"


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_game_has_ten_well_formed_levels_and_a_known_auto_choice(game_id):
    spec = GAMES[game_id]
    ladder = levels.ladder(spec)
    assert len(ladder) == 10
    for lv in ladder:
        assert lv.iterations >= 1 and 0 <= lv.temperature <= levels.MAX_TEMPERATURE
        assert lv.algorithm in levels.ALGORITHMS + ("auto",)
    for players in range(spec.min_players, spec.max_players + 1):
        algorithm, sample = levels.auto_algorithm(spec, players)
        assert algorithm in levels.ALGORITHMS and isinstance(sample, bool)


# ------------------------------------------------------------------ the recorded calibration

ROOT = Path(__file__).resolve().parents[2]


def _ladder_tables(text):
    """The (level, iterations, temperature, algorithm) rows of each calibration table in ``text``."""
    tables, rows = [], None
    for line in text.splitlines():
        if line.startswith("| level | iterations | temperature | algorithm |"):
            rows = []
            tables.append(rows)
        elif rows is not None and line.startswith("|"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if cells[0].isdigit():
                rows.append((int(cells[0]), int(cells[1].replace(",", "")), float(cells[2]), cells[3]))
        else:
            rows = None
    return tables


def _calibration_text(spec):
    """Where a game's calibration is recorded: its spec, or its section of the reference games' page."""
    own = ROOT / "seeds" / f"{spec.id}.md"
    if own.exists():
        return own.read_text()
    page = (ROOT / "docs" / "reference_games.md").read_text()
    _, found, rest = page.partition(f"\n## {spec.name}\n")
    assert found, f"docs/reference_games.md has no section '## {spec.name}'"
    return rest.split("\n## ")[0]


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_the_recorded_calibration_is_of_the_ladder_the_game_plays(game_id):
    """Each game's calibration table lists the ladder it serves, so a ladder changed in code
    without a new calibration fails here."""
    spec = GAMES[game_id]
    served = [(n, lv.iterations, lv.temperature, lv.algorithm) for n, lv in enumerate(levels.ladder(spec), 1)]
    tables = _ladder_tables(_calibration_text(spec))
    assert tables, f"{game_id}: no calibration table recorded"
    assert served in tables, f"{game_id}: no recorded calibration table lists the ladder {served}"


def test_a_game_spec_refuses_a_table_entry_that_is_not_its_record():
    """A positional tuple would be read by position: a misplaced number would change a bot silently."""
    spec = GAMES["kids_of_london"]
    for table, entry in (("levels", (4, 1.0)), ("auto", (None, "ismcts_rm", True)),
                         ("tuned_settings", (2, {"prior": 1.0})), ("budget_settings", (10, 2, {"prior": 1.0}))):
        with pytest.raises(TypeError, match=rf"^kids_of_london: GameSpec\.{table} holds "):
            dataclasses.replace(spec, **{table: (entry,)})
