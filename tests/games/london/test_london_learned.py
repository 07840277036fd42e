"""London's learned evaluation: the room's features (what every seat sees, LN-83 to LN-86) and
the trainer that fits a win probability to them (``python -m fagin.train``)."""
import math
import random

import pytest

from fagin.engines.london import engine as E

from .helpers import GAME, position


def _positions(players, seed, count):
    """Decision states of one game played at random, every few decisions."""
    st = GAME.new_initial_state(players)
    rng = random.Random(seed)
    out = []
    while not st.is_terminal() and len(out) < count:
        if st.is_chance_node():
            st.apply(st.sample_chance(rng.getrandbits(63)))
            continue
        if rng.random() < 0.2:
            out.append(st.clone())
        st.apply(rng.choice(st.legal_actions(st.current_player())))
    return out


@pytest.mark.parametrize("players", [2, 3, 4])
def test_features_are_finite_and_named(players):
    for st in _positions(players, players, 30):
        for seat in range(players):
            f = E.features(st.to_bytes(), seat)
            assert len(f) == len(E.FEATURE_NAMES)
            assert all(math.isfinite(x) for x in f)
            assert 0.0 <= f[E.FEATURE_NAMES.index("deck_left")] <= 1.0


def test_features_are_seat_symmetric():
    """Two seats' features are the same function of their own position: with the seats' VP
    counters and turn swapped, their features swap; and a seat ahead has the other's lead
    negated."""
    a = position(players=2, active=0, vp={0: 9, 1: 2})
    b = position(players=2, active=1, vp={0: 2, 1: 9})
    assert E.features(a.to_bytes(), 0) == E.features(b.to_bytes(), 1)
    assert E.features(a.to_bytes(), 1) == E.features(b.to_bytes(), 0)
    f0, f1 = E.features(a.to_bytes(), 0), E.features(a.to_bytes(), 1)
    vp = E.FEATURE_NAMES.index("vp_now")
    assert f0[vp] == 7 and f1[vp] == -7


def test_features_ignore_what_the_seat_cannot_see_LN_84_LN_85():
    """Twins that differ only in what a seat cannot see (the others' hidden cards and the deck,
    re-dealt by a determinization for that seat) give that seat equal features."""
    checked = 0
    for st in _positions(3, 11, 25):
        seat = st.current_player()
        f = E.features(st.to_bytes(), seat)
        for d in range(3):
            twin = st.determinize(seat, d)
            assert E.features(twin.to_bytes(), seat) == f
        checked += 1
    assert checked == 25


def test_features_refuse_a_seat_outside_the_game():
    st = position(players=2)
    with pytest.raises(ValueError, match=r"^seat: "):
        E.features(st.to_bytes(), 2)
    with pytest.raises(ValueError, match=r"^seat: "):
        E.features(st.to_bytes(), -1)


def test_the_trainer_is_deterministic_for_a_seed():
    pytest.importorskip("sklearn")
    from fagin.search import train
    runs = [train.train("london", seed=3, games=10, players=(2,), sample=0.05, progress=False)
            for _ in range(2)]
    assert runs[0] == runs[1]
    other = train.train("london", seed=4, games=10, players=(2,), sample=0.05, progress=False)
    assert other["models"] != runs[0]["models"]
    held = runs[0]["held_out"]["2"]["all"]
    for who in ("learned", "hand_written"):
        assert held[who]["positions"] > 0 and held[who]["log_loss"] > 0 and 0 <= held[who]["accuracy"] <= 1


def test_the_trainer_refuses_a_game_without_features():
    from fagin.search import train
    with pytest.raises(ValueError, match=r"^--game: "):
        train.train("kuhn_poker", games=5, players=(2,), progress=False)


def test_the_shipped_model_matches_its_features():
    """data/learned.json names the features the engine defines, holds a model for every player
    count, and the engine loaded it into the search's hook."""
    doc = E.LEARNED
    assert doc is not None and doc["features"] == list(E.FEATURE_NAMES)
    assert sorted(doc["models"]) == ["2", "3", "4"]
    for m in doc["models"].values():
        assert len(m["weights"]) == len(E.FEATURE_NAMES)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_learned_evaluation_in_c_agrees_with_the_model(players):
    """GameDef.evaluate_learned (C, without the GIL) gives the logistic of the features that the
    Python model computes from the same JSON."""
    from fagin.search.train import predict_with
    m = E.LEARNED["models"][str(players)]
    predict = predict_with(m["weights"], m["bias"])
    for st in _positions(players, 20 + players, 20):
        data = st.to_bytes()
        want = predict([E.features(data, p) for p in range(players)], None)
        got = E.learned_evaluation(data)
        assert got == pytest.approx(want, rel=1e-9, abs=1e-12)
        assert all(0.0 < x < 1.0 for x in got)


def test_the_learned_evaluation_ignores_what_a_seat_cannot_see_LN_84_LN_85():
    for st in _positions(3, 5, 15):
        seat = st.current_player()
        want = E.learned_evaluation(st.to_bytes())[seat]
        for d in range(3):
            assert E.learned_evaluation(st.determinize(seat, d).to_bytes())[seat] == want


def test_a_game_without_a_learned_evaluation_refuses_it():
    from fagin.engines import new_game
    from fagin.search import ismcts
    st = new_game("kuhn_poker", 2)
    st.resolve_chance(1)
    with pytest.raises(ValueError, match=r"^evaluation: kuhn_poker has no learned evaluation"):
        ismcts.ISMCTS(st, st.current_player(), ismcts.SearchSettings(evaluation="learned"))


def test_three_player_searches_default_to_the_learned_evaluation():
    """GameSpec.tuned_settings (seeds/london.md, "The bot and the search"): at 3 players a search that
    names no evaluation takes the learned one; at 2 and 4 the hand-written one."""
    from fagin.engines import new_game
    from fagin.search import ismcts
    for players, want in ((2, "handwritten"), (3, "learned"), (4, "handwritten")):
        st = new_game("london", players)
        st.resolve_chance(1)
        assert ismcts.ISMCTS(st, st.current_player(), ismcts.SearchSettings(rollout="policy")).evaluation == want


def test_two_and_four_player_searches_default_to_96_action_playouts():
    """GameSpec.tuned_settings (seeds/london.md, "Longer playouts" and "The equal time measured again, and
    3 and 4 players"): playouts are cut after 96 policy actions at 2 and 4 players, and at the
    engine's 48 at 3 (where the learned evaluation scores them)."""
    from fagin.engines import GAMES
    from fagin.search import limits
    spec = GAMES["london"]
    assert limits.tuned(spec, 2).given() == {"cutoff": 96}
    assert limits.tuned(spec, 3).given() == {"evaluation": "learned"}
    assert limits.tuned(spec, 4).given() == {"cutoff": 96}
