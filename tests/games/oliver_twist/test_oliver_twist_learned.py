"""Oliver Twist's evaluations (seeds/oliver_twist.md, "The evaluation at a cut-off"): the
hand-written one (rollout.pxi: a softmax of the pounds each seat would hold if the round ended
now), the room's features and the learned one fitted to them, and the search's use of them.
The contract every learned room keeps is checked in tests/engines/test_learned_rooms.py."""
import pytest

from fagin.engines import new_game
from fagin.engines.oliver_twist import engine as E

from .helpers import TOP, position

NAMES = E.FEATURE_NAMES


def _feature(state, seat, name):
    return E.features(state.to_bytes(), seat)[NAMES.index(name)]


def test_the_evaluation_is_a_distribution_that_favours_the_richer_seat():
    st = position(players=3, money={0: 25, 1: 10, 2: 10}, board={TOP[0]: "apple_1"})
    p = E.evaluation(st.to_bytes())
    assert sum(p) == pytest.approx(1.0)
    assert p[0] > p[1] == pytest.approx(p[2])
    even = E.evaluation(position(players=3, board={TOP[0]: "apple_1"}).to_bytes())
    assert even == pytest.approx([1 / 3] * 3)


def test_the_worth_counts_leftover_sets_burglary_cards_and_the_fine_OT_21_OT_22_OT_29():
    """The pounds a seat would hold if the round ended now: money, its Burglary cards (OT-29),
    its leftover sets (OT-21: three handkerchiefs and a Wallet bring £2), less the fine of
    the fullest file (OT-22: a type each)."""
    st = position(players=2, night=True, board={TOP[0]: ("fd", "", [])},
                  stashes={0: ["handkerchief_1", "handkerchief_1", "handkerchief_2", "wallet"]},
                  kept={1: [7]}, files={1: ["apple_1", "brooch"]})
    # Seat 0: £10 and £2 of sets; its stash and file together (4 tokens) are the fullest, but
    # its file holds no type: no fine.  Seat 1: £10 and a £7 card.
    assert [_feature(st, p, "worth") for p in range(2)] == [12 - 17, 17 - 12]
    assert [_feature(st, p, "worth_by_game_left") for p in range(2)] == pytest.approx(
        [-5 * _feature(st, 0, "game_left"), 5 * _feature(st, 0, "game_left")])
    assert _feature(st, 0, "leftover") == 2 and _feature(st, 1, "burglary") == 7
    assert _feature(st, 1, "file") == 2 and _feature(st, 1, "file_types") == 2


def test_the_game_left_runs_from_one_through_a_half_at_nightfall_to_zero():
    start = new_game("oliver_twist", 2)
    assert _feature(start, 0, "game_left") == 1.0           # the day board being laid
    day_full = new_game("oliver_twist", 2, seed=1)
    assert _feature(day_full, 0, "game_left") == 1.0
    day_one_left = position(players=2, board={TOP[0]: "apple_1"})
    assert 0.5 < _feature(day_one_left, 0, "game_left") < 0.52
    night_one_left = position(players=2, night=True, board={TOP[0]: ("fd", "", [])})
    assert 0.0 < _feature(night_one_left, 0, "game_left") < 0.02
    assert _feature(night_one_left, 0, "night") == 1.0 and _feature(day_one_left, 0, "night") == 0.0


def test_features_are_relative_to_the_best_other_seat():
    st = position(players=3, money={0: 25, 1: 10, 2: 14}, board={TOP[0]: "apple_1"})
    assert [_feature(st, p, "money") for p in range(3)] == [11, -15, -11]
    assert [_feature(st, p, "to_act") for p in range(3)] == [1.0, 0.0, 0.0]


def test_by_default_playouts_run_to_the_end_and_a_cut_off_is_scored_by_the_evaluation():
    """OT_DEF.rollout_depth is 0: a search that names no cut-off (and no tuned one, GameSpec.tuned_settings)
    plays every playout out; with one, the evaluation scores them."""
    from fagin.search import ismcts
    st = new_game("oliver_twist", 4, seed=3)
    seat = st.current_player()
    full = ismcts.ISMCTS(st, seat, ismcts.SearchSettings(rollout="policy", cutoff=0), 1)
    full.run(iterations=20)
    assert full.evaluated == 0
    for evaluation in ("handwritten", "learned"):
        cut = ismcts.ISMCTS(st, seat, ismcts.SearchSettings(rollout="policy", cutoff=8, evaluation=evaluation), 1)
        cut.run(iterations=20)
        assert cut.evaluated > 0 and cut.rollout_actions <= 20 * 8


def test_the_tuned_search_widens_and_models_the_others_at_three_players_only():
    """seeds/oliver_twist.md, "The last points at 3 players": every player count cuts playouts
    after 48 actions, scores them by the learned evaluation and takes prior 3; 3 players also
    widen progressively in the rollout policy's order (widen 1) and model the other seats as the
    rollout policy (opponents "policy"), measured against two heuristic bots and in self-play;
    2 and 4 players consider every action and keep a tree per seat."""
    from fagin.engines.registry import GAMES
    from fagin.search import ismcts, limits
    base = {"cutoff": 48, "evaluation": "learned", "prior": 3.0}
    three = base | {"widen": 1.0, "opponents": "policy"}
    for players, widen, opponents in ((2, 0.0, "own"), (3, 1.0, "policy"), (4, 0.0, "own")):
        assert limits.tuned(GAMES["oliver_twist"], players).given() == (three if players == 3 else base)
        st = new_game("oliver_twist", players, seed=3)
        s = ismcts.ISMCTS(st, st.current_player(), ismcts.SearchSettings(rollout="policy"), 1)
        assert (s.evaluation, s.prior, s.widen, s.opponents) == ("learned", 3.0, widen, opponents), players
        # The opponent model is the rollout policy's: a search without it keeps a tree per seat.
        assert ismcts.ISMCTS(st, st.current_player(), ismcts.SearchSettings(rollout="random")).opponents == "own"
        assert ismcts.ISMCTS(st, st.current_player(), ismcts.SearchSettings(rollout="policy", widen=0)).widen == 0.0
