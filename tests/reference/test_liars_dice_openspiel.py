"""Liar's Dice replays OpenSpiel's ``liars_dice`` action by action.

At every step: the same player to act, the same legal actions (so the same
bid ids and the same id for "Liar"), the same chance outcomes and
probabilities, at the end the same returns; and our information sets are the
same partition of decision histories as OpenSpiel's information-state
strings. The served game is OpenSpiel's default; the engine's rules are
also replayed for other parameters (more dice, fewer sides, the other bid
order).
"""
import random

import pytest

pyspiel = pytest.importorskip("pyspiel")

from fagin.engines import CHANCE, TERMINAL, load_game  # noqa: E402
from fagin.search.cfr import GameTree, Solver  # noqa: E402

# OpenSpiel parameters; {} is the served game.
PARAMS = [
    {},
    {"numdice": 2},
    {"numdice": 2, "dice_sides": 4, "bidding_rule": "reset-quantity"},
    {"numdice": 3, "dice_sides": 3},
]


def _pair(params):
    theirs = pyspiel.load_game("liars_dice", dict(params))
    game = load_game("liars_dice")
    if not params:
        return theirs, lambda: game.new_initial_state(2)
    # Non-default parameters are not served (see engines/liars_dice/__init__.py);
    # their rules are reached through the engine's own constructor.
    return theirs, lambda: game._trusted(game.engine.initial_state_bytes(2, **params))


def _player(ours):
    p = ours.current_player()
    return {CHANCE: pyspiel.PlayerId.CHANCE, TERMINAL: pyspiel.PlayerId.TERMINAL}.get(p, p)


@pytest.mark.parametrize("params", PARAMS, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()) or "default")
def test_random_games_match_openspiel_step_by_step(params):
    theirs_game, new_ours = _pair(params)
    rng = random.Random(11)
    by_theirs, by_ours = {}, {}
    for _ in range(300):
        theirs, ours = theirs_game.new_initial_state(), new_ours()
        while not theirs.is_terminal():
            assert _player(ours) == theirs.current_player()
            if theirs.is_chance_node():
                got, expected = sorted(ours.chance_outcomes()), sorted(theirs.chance_outcomes())
                assert [a for a, _ in got] == [a for a, _ in expected]
                assert [q for _, q in got] == pytest.approx([q for _, q in expected])
            else:
                assert ours.legal_actions() == theirs.legal_actions()
                p = theirs.current_player()
                t, o = (p, theirs.information_state_string(p)), (p, ours.infoset_key(p))
                assert by_theirs.setdefault(t, o) == o
                assert by_ours.setdefault(o, t) == t
            # Call "Liar" early now and then, so that short and long games both occur.
            legal = theirs.legal_actions()
            action = legal[-1] if not theirs.is_chance_node() and rng.random() < 0.3 else rng.choice(legal)
            theirs.apply_action(action)
            ours.apply(action)
        assert ours.is_terminal()
        assert ours.returns() == pytest.approx(theirs.returns())
    assert len(by_theirs) > 200


def test_the_served_game_has_openspiel_sizes():
    theirs = pyspiel.load_game("liars_dice")
    game = load_game("liars_dice")
    st = game.new_initial_state(2)
    st.resolve_chance(1)
    # The liar call is id numdice_total * sides = 12 and ids stay below OpenSpiel's bound.
    assert max(st.legal_actions()) == theirs.num_distinct_actions() - 2
    assert st.action_label(theirs.num_distinct_actions() - 1) == "liar"
    assert game.num_distinct_actions >= theirs.num_distinct_actions()
    assert game.max_game_length >= theirs.max_game_length() + 2     # + the two rolls


def test_determinize_redraws_only_the_other_seats_dice():
    game = load_game("liars_dice")
    rng = random.Random(4)
    seen_other = set()
    for _ in range(200):
        st = game._trusted(game.engine.initial_state_bytes(2, numdice=2))
        st.resolve_chance(rng.getrandbits(32))
        for _ in range(rng.randrange(0, 4)):
            bids = [a for a in st.legal_actions() if a != 24]       # 24 calls "Liar" with 4 dice
            if bids:
                st.apply(rng.choice(bids))
        p = st.current_player()
        det = st.determinize(p, rng.getrandbits(32))
        assert det.infoset_key(p) == st.infoset_key(p) and det.legal_actions() == st.legal_actions()
        a, b = st.describe(), det.describe()
        assert a[f"dice{p}"] == b[f"dice{p}"] and a["actions"] == b["actions"]
        assert b[f"dice{1 - p}"] == sorted(b[f"dice{1 - p}"])
        seen_other.add(tuple(b[f"dice{1 - p}"]))
    assert len(seen_other) == 21        # every multiset of two dice occurs


def test_cfr_plus_matches_openspiel_on_a_small_game():
    """CFR+ on 1-die, 3-sided Liar's Dice: the same exploitability as OpenSpiel's CFR+."""
    from open_spiel.python.algorithms import cfr, exploitability
    params = {"dice_sides": 3}
    theirs_game, new_ours = _pair(params)
    tree = GameTree(new_ours())
    uniform = tree.nash_conv(tree.uniform_policy())
    ours = tree.nash_conv(Solver(tree, "cfr+").run(100).average_policy())
    solver = cfr.CFRPlusSolver(theirs_game)
    for _ in range(100):
        solver.evaluate_and_update_policy()
    theirs = exploitability.nash_conv(theirs_game, solver.average_policy())
    assert ours == pytest.approx(theirs, abs=1e-6)
    assert ours < uniform / 20
