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
