"""Fagin's Gang's learned evaluation (seeds/fagins_gang.md, "The bot and the search"): the room's
features, read from the open table (FG-27), and the model fitted to them (``python -m
fagin.train --game fagins_gang``), evaluated in C by the search when asked.  The contract every
learned room keeps (a seat outside the game refused, the shipped model, C against the trainer's
logistic) is checked in tests/engines/test_learned_rooms.py."""
import json
import math

import pytest

from fagin.engines import load_game, new_game
from fagin.engines.fagins_gang import engine as E
from ...positions import played_positions

GAME = load_game("fagins_gang")


def _positions(players, seed, count, every=0.15):
    return played_positions("fagins_gang", players, seed, count, every)[0]


@pytest.mark.parametrize("players", [2, 3, 6])
def test_features_are_finite_and_named(players):
    progress = E.FEATURE_NAMES.index(E.PROGRESS_FEATURE)
    for st in _positions(players, players, 15):
        for seat in range(players):
            f = E.features(st.to_bytes(), seat)
            assert len(f) == len(E.FEATURE_NAMES)
            assert all(math.isfinite(x) for x in f)
            assert 0.0 <= f[progress] <= 1.0


def test_features_at_the_start_are_even_and_the_way_is_all_ahead():
    st = new_game("fagins_gang", 3, seed=2)
    f = [E.features(st.to_bytes(), p) for p in range(3)]
    names = E.FEATURE_NAMES
    for p in range(3):
        assert f[p][names.index("way_left")] == 1.0
        assert f[p][names.index("home")] == 0 and f[p][names.index("worth")] == 0
        assert f[p][names.index("to_act")] == (1.0 if p == st.current_player() else 0.0)


def _swap_seats(d):
    """A 2-player description with the seats exchanged, and so whose turn it is and the
    start-player coin (which follows the rounds, FG-21: one round more; no feature reads it)."""
    d = json.loads(json.dumps(d))
    d["seats"].reverse()
    for u in d["urchins"]:
        u["seat"] = 1 - u["seat"]
    d["first_player"] = 1 - d["first_player"]
    d["active_player"] = 1 - d["active_player"]
    d["round"] += 1
    return d


def test_features_are_seat_symmetric():
    """Two seats' features are the same function of their own position: with the seats
    exchanged, their features exchange; and each relative feature of one seat is the other's
    negated."""
    checked = 0
    names = E.FEATURE_NAMES
    relative = [i for i, n in enumerate(names) if n not in ("to_act", "turn_ahead", "way_left")
                and not n.endswith("_by_way_left")]
    for st in _positions(2, 7, 40, every=0.3):
        d = st.describe()
        if d["phase"] != "choose" or d["round"] > 20:
            continue
        twin = GAME.from_description(_swap_seats(d))
        a, b = st.to_bytes(), twin.to_bytes()
        assert E.features(a, 0) == E.features(b, 1)
        assert E.features(a, 1) == E.features(b, 0)
        f0, f1 = E.features(a, 0), E.features(a, 1)
        assert all(f0[i] == -f1[i] for i in relative)
        assert E.learned_evaluation(a) == E.learned_evaluation(b)[::-1]
        checked += 1
    assert checked >= 5


def test_the_trainer_takes_the_rooms_features_and_progress(monkeypatch):
    """python -m fagin.train is game-agnostic: its rows are this room's features, its mid-game
    figures those positions whose progress feature lies from a third to two thirds; the same
    seed gives the same rows.  (The fit itself, scikit-learn's, is replaced by a fixed model
    here; London's trainer test runs it.)"""
    from fagin.search import train
    seen = []

    def fit(rows, seed):
        seen.append(rows)
        return [0.0] * len(E.FEATURE_NAMES), 0.0

    monkeypatch.setattr(train, "fit", fit)
    runs = [train.train("fagins_gang", seed=3, games=10, players=(2,), sample=0.05, progress=False)
            for _ in range(2)]
    assert runs[0] == runs[1] and seen[0] == seen[1]
    held = runs[0]["held_out"]["2"]
    assert held["all"]["learned"]["log_loss"] == pytest.approx(math.log(2))
    assert 0 < held["mid_game"]["learned"]["positions"] < held["all"]["learned"]["positions"]
    _, feats, hand, _, final, now = seen[0][0]
    assert len(feats) == 2 and len(feats[0]) == len(E.FEATURE_NAMES) and len(hand) == 2
    assert len(final) == len(now) == 2


def test_three_and_four_player_searches_default_to_the_learned_evaluation():
    """GameSpec.tuned_settings (seeds/fagins_gang.md, "The bot and the search"): at 3 and 4 players a
    search that names no evaluation takes the learned one; at 2, 5 and 6 the hand-written one."""
    from fagin.search import ismcts
    for players, want in ((2, "handwritten"), (3, "learned"), (4, "learned"), (5, "handwritten"),
                          (6, "handwritten")):
        st = new_game("fagins_gang", players, seed=1)
        assert ismcts.ISMCTS(st, st.current_player(), ismcts.SearchSettings(rollout="policy")).evaluation == want
