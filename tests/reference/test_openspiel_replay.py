"""The reference games replay OpenSpiel's own games action by action.

At every step: the same player to act, the same legal actions, the same
chance outcomes and probabilities, and at the end the same returns. And the
information sets are the same partition of histories as OpenSpiel's
information-state strings.
"""
import random

import pytest

pyspiel = pytest.importorskip("pyspiel")

from fagin.engines import CHANCE, TERMINAL, load_game  # noqa: E402

GAMES = ["kuhn_poker", "leduc_poker"]


def _player(ours):
    p = ours.current_player()
    return {CHANCE: pyspiel.PlayerId.CHANCE, TERMINAL: pyspiel.PlayerId.TERMINAL}.get(p, p)


@pytest.mark.parametrize("game_id", GAMES)
def test_random_games_match_openspiel_step_by_step(game_id):
    theirs_game = pyspiel.load_game(game_id)
    rng = random.Random(7)
    for _ in range(300):
        theirs = theirs_game.new_initial_state()
        ours = load_game(game_id).new_initial_state(2)
        while not theirs.is_terminal():
            assert _player(ours) == theirs.current_player()
            if theirs.is_chance_node():
                expected = sorted(theirs.chance_outcomes())
                got = sorted(ours.chance_outcomes())
                assert [a for a, _ in got] == [a for a, _ in expected]
                assert [p for _, p in got] == pytest.approx([p for _, p in expected])
            else:
                assert ours.legal_actions() == theirs.legal_actions()
            action = rng.choice(theirs.legal_actions())
            theirs.apply_action(action)
            ours.apply(action)
        assert ours.is_terminal()
        assert ours.returns() == pytest.approx(theirs.returns())


@pytest.mark.parametrize("game_id", GAMES)
def test_information_sets_partition_histories_like_openspiel(game_id):
    """Two decision states share our key iff they share OpenSpiel's information-state string."""
    theirs_game = pyspiel.load_game(game_id)
    rng = random.Random(3)
    ours_by_theirs, theirs_by_ours = {}, {}
    for _ in range(400):
        theirs = theirs_game.new_initial_state()
        ours = load_game(game_id).new_initial_state(2)
        while not theirs.is_terminal():
            if not theirs.is_chance_node():
                p = theirs.current_player()
                t, o = (p, theirs.information_state_string(p)), (p, ours.infoset_key(p))
                assert ours_by_theirs.setdefault(t, o) == o
                assert theirs_by_ours.setdefault(o, t) == t
            action = rng.choice(theirs.legal_actions())
            theirs.apply_action(action)
            ours.apply(action)
    assert len(ours_by_theirs) >= 12      # Kuhn has exactly 12 information sets


GOOFSPIEL = [
    dict(num_cards=4, imp_info=False, points_order="random", returns_type="win_loss"),
    dict(num_cards=5, imp_info=True, points_order="descending", returns_type="point_difference"),
    dict(num_cards=6, imp_info=True, points_order="ascending", returns_type="total_points"),
    dict(num_cards=6, imp_info=True, points_order="random", returns_type="win_loss"),
]


def _goofspiel_pair(options):
    params = ",".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in options.items())
    return pyspiel.load_game(f"goofspiel({params})"), load_game("goofspiel")


@pytest.mark.parametrize("options", GOOFSPIEL, ids=lambda o: f"{o['num_cards']}-{o['points_order']}")
def test_goofspiel_matches_openspiel(options):
    """OpenSpiel's simultaneous bids are our two hidden sequential bids."""
    theirs_game, ours_game = _goofspiel_pair(options)
    rng = random.Random(5)
    by_theirs, by_ours = {}, {}
    for _ in range(300):
        theirs = theirs_game.new_initial_state()
        ours = ours_game.new_initial_state(2, **options)
        while not theirs.is_terminal():
            if theirs.is_chance_node():
                assert ours.is_chance_node()
                got, expected = sorted(ours.chance_outcomes()), sorted(theirs.chance_outcomes())
                assert [a for a, _ in got] == [a for a, _ in expected]
                assert [q for _, q in got] == pytest.approx([q for _, q in expected])
                a = rng.choice(theirs.legal_actions())
                theirs.apply_action(a)
                ours.apply(a)
                continue
            joint = []
            for p in (0, 1):
                assert ours.current_player() == p
                assert ours.legal_actions() == theirs.legal_actions(p)
                key = (p, theirs.information_state_string(p))
                assert by_theirs.setdefault(key, (p, ours.infoset_key(p))) == (p, ours.infoset_key(p))
                assert by_ours.setdefault((p, ours.infoset_key(p)), key) == key
                joint.append(rng.choice(theirs.legal_actions(p)))
                ours.apply(joint[-1])
            theirs.apply_actions(joint)
        assert ours.is_terminal() and ours.returns() == pytest.approx(theirs.returns())


def test_goofspiel_determinize_is_consistent_with_what_was_seen():
    """imp_info: the other seat's past bids are resampled so that every turn's winner is unchanged."""
    game = load_game("goofspiel")
    rng = random.Random(2)
    for _ in range(100):
        st = game.new_initial_state(2, num_cards=6, imp_info=True, points_order="descending")
        for _ in range(rng.randrange(0, 10)):
            if st.is_terminal():
                break
            st.apply(rng.choice(st.legal_actions()))
        if st.is_terminal():
            continue
        p = st.current_player()
        st.make_current(p)          # as the search does: the seat keeps the move after determinizing
        det = st.determinize(p, rng.getrandbits(32))
        assert det.infoset_key(p) == st.infoset_key(p) and det.legal_actions() == st.legal_actions()
        a, b = st.describe(), det.describe()
        assert a["points"] == b["points"] and a[f"bids{p}"] == b[f"bids{p}"]
        assert a["winners"] == b["winners"]
