"""Kids of London's evaluations (seeds/kids_of_london.md, "A learned evaluation"): the room's
features and hand-written evaluation, read only from what every seat sees (KL-18), and the
model fitted to the features (``python -m fagin.train --game kids_of_london``), evaluated in C
by the search when asked.  The contract every learned room keeps (a seat outside the game
refused, the shipped model, C against the trainer's logistic) is checked in
tests/engines/test_learned_rooms.py."""
import math

import pytest

from fagin.engines import new_game
from fagin.engines.kids_of_london import engine as E
from fagin.search.settings import SearchSettings
from .helpers import play, position
from ...positions import played_positions

NAMES = E.FEATURE_NAMES
COMEDIAN, PRINCE = E.ACTION_COMEDIAN, E.ACTION_PRINCE


def _positions(players, seed, count, every=0.3):
    return played_positions("kids_of_london", players, seed, count, every)[0]


def _players(data):
    return E.describe(data)["players"]


def _all_estimates(data):
    return ([E.features(data, p) for p in range(_players(data))], E.evaluation(data), E.learned_evaluation(data))


def _named(data, seat):
    return dict(zip(NAMES, E.features(data, seat)))


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_features_are_finite_and_progress_runs_from_one_to_zero(players):
    progress = NAMES.index(E.PROGRESS_FEATURE)
    seen = []
    for seed in range(3):
        for st in _positions(players, 10 * players + seed, 40):
            for seat in range(players):
                f = E.features(st.to_bytes(), seat)
                assert len(f) == len(NAMES)
                assert all(math.isfinite(x) for x in f)
                assert 0.0 <= f[progress] <= 1.0
            seen.append(f[progress])
    assert max(seen) == 1.0 and min(seen) <= 2 / 9     # from the first hour to the eighth


@pytest.mark.parametrize("players", [2, 3])
def test_features_at_the_start_are_even_and_the_whole_game_is_ahead(players):
    data = new_game("kids_of_london", players, seed=2).to_bytes()
    seats = players + (1 if players == 2 else 0)          # the fictitious player counts too (KL-16)
    for p in range(players):
        f = _named(data, p)
        assert f["hours_left"] == 1.0
        assert f["coins"] == f["hand_sum"] == f["leader"] == f["high_cards"] == 0
        assert f["richest"] == f["second"] == 0
        assert f["hand_logit"] == pytest.approx(math.log((1 / seats) / (1 - 1 / seats)), abs=1e-4)
    assert E.evaluation(data) == pytest.approx([1 / seats] * players, abs=1e-4)


def test_the_features_read_the_table():
    """Hour 4 of 9 (3 hours completed), the banker face up: seat 0 has 5 coins, seat 1 9, seat
    2 2; their hands as given."""
    st = position(3, "banker", coins=[5, 9, 2], turn=3,
                  hands=[[0, 1, 4, 5, 6, 8], [3, 4, 5, 6, 7, 8], [0, 1, 2, 3, 4, 5]])
    data = st.to_bytes()
    f0, f1, f2 = (_named(data, p) for p in range(3))
    assert (f0["coins"], f1["coins"], f2["coins"]) == (5 - 9, 9 - 5, 2 - 9)
    assert (f0["lead_size"], f1["lead_size"], f2["lead_size"]) == (4, 4, 7)
    assert (f0["second_gap"], f1["second_gap"], f2["second_gap"]) == (5 - 2, 9 - 2, 2 - 5)
    assert (f0["richest"], f1["richest"], f2["richest"]) == (0, 1, 0)
    assert (f0["second"], f1["second"], f2["second"]) == (1, 0, 0)
    assert f0["hand_sum"] == 24 - 33 and f2["hand_sum"] == 15 - 33
    assert (f0["leader"], f2["leader"]) == (0, -1)
    assert (f0["high_cards"], f1["high_cards"], f2["high_cards"]) == (2 - 3, 3 - 2, 0 - 3)
    assert f0["hours_left"] == pytest.approx(6 / 9)
    assert f0["lead_by_hours_left"] == pytest.approx(-4 * 6 / 9)
    assert f2["gap_by_hours_left"] == pytest.approx(-3 * 6 / 9)
    hand = E.evaluation(data)
    assert hand[0] == max(hand) and sum(hand) == pytest.approx(1.0, abs=1e-4)   # seat 0 is second now
    assert f0["hand_logit"] == pytest.approx(math.log(hand[0] / (1 - hand[0])))


def _twins():
    """Pairs of positions that differ only in a secret choice of the hour some seat cannot see:
    the card seat 0 put down (KL-18), and its choice of the prince or the comedian (KL-13)."""
    yield play(position(4, "banker", coins=[3, 6, 1, 4]), 5), play(position(4, "banker", coins=[3, 6, 1, 4]), 2)
    yield (play(position(3, "merchant", coins=[2, 0, 7], turn=2, hands=[[2, 3, 4, 5, 6, 7, 8]] * 3), 8, 3),
           play(position(3, "merchant", coins=[2, 0, 7], turn=2, hands=[[2, 3, 4, 5, 6, 7, 8]] * 3), 2, 3))
    yield (play(position(2, "jeweller", coins=[4, 1], fict_card=3, fict_coins=6), 7),
           play(position(2, "jeweller", coins=[4, 1], fict_card=3, fict_coins=6), 0))
    prince = play(position(4, "prince", coins=[1, 5, 2, 0]), 6, 6, 6, 1)
    yield prince.clone().apply(PRINCE), prince.clone().apply(COMEDIAN)


def test_features_and_evaluations_read_only_what_every_seat_sees():
    """Twin positions that differ only in a secret choice give every seat the same features and
    both evaluations the same values: a card put down counts as still in its owner's hand.  A
    feature that read the hand as the state holds it would tell the twins apart."""
    for a, b in _twins():
        da, db = a.to_bytes(), b.to_bytes()
        assert a.describe() != b.describe()                     # they do differ, in the secret choice
        assert a.view(1) == b.view(1)                           # which another seat cannot see
        assert _all_estimates(da) == _all_estimates(db)
        if a.describe()["phase"] == "choose_card":
            # The state's own hands differ (the card put down is out of them): the check bites.
            hand_sums = [sum(s["hand"]) for s in a.describe()["seats"]], [sum(s["hand"]) for s in b.describe()["seats"]]
            assert hand_sums[0] != hand_sums[1]
            public = [sum(s["hand"]) for s in a.view(1)["seats"]]
            assert _named(da, 0)["hand_sum"] == public[0] - max(public[1:])


def test_a_determinization_does_not_move_the_estimates():
    """The search evaluates determinized states, and states a playout reached from them, where
    the other seats' secret choices are forgotten or made afresh: the features and evaluations
    stay as they were."""
    for a, _ in _twins():
        for observer in range(1, _players(a.to_bytes())):
            for seed in range(5):
                d = a.determinize(observer, seed)
                assert d.describe() != a.describe()
                assert _all_estimates(d.to_bytes()) == _all_estimates(a.to_bytes())
    checked = 0
    for st in _positions(4, 11, 20):
        for seed in range(3):
            seat = st.current_player()
            d = st.determinize((seat + 1) % 4, seed)
            assert _all_estimates(d.to_bytes()) == _all_estimates(st.to_bytes())
            checked += 1
    assert checked >= 30


def test_features_are_seat_symmetric():
    """Two seats' features are the same function of their own position: with their coins and
    hands exchanged, their features and evaluations exchange; each relative feature of the one
    is the other's negated when they are the only two."""
    hands = [[0, 2, 3, 5, 7, 8], [1, 2, 4, 5, 6, 8], [0, 1, 2, 3, 4, 5]]
    a = position(3, "jeweller", coins=[6, 3, 1], turn=3, hands=hands)
    b = position(3, "jeweller", coins=[3, 6, 1], turn=3, hands=[hands[1], hands[0], hands[2]])
    da, db = a.to_bytes(), b.to_bytes()
    assert E.features(da, 0) == E.features(db, 1) and E.features(da, 1) == E.features(db, 0)
    assert E.features(da, 2) == E.features(db, 2)
    assert E.evaluation(da) == pytest.approx([E.evaluation(db)[i] for i in (1, 0, 2)])
    assert E.learned_evaluation(da) == pytest.approx([E.learned_evaluation(db)[i] for i in (1, 0, 2)])
    f0, f1 = _named(da, 0), _named(da, 1)
    for name in ("coins", "hand_sum", "leader", "high_cards"):
        assert f0[name] == -f1[name]


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_evaluations_are_probabilities(players):
    """Each seat's estimate lies strictly between 0 and 1; the hand-written one is a share of
    the win (with no fictitious player exactly one seat is second, so it sums to 1); at the end
    both are the returns."""
    positions = []
    for seed in range(4):
        more, last = played_positions("kids_of_london", players, 20 * seed + players, 60, every=0.5)
        positions += more
    assert len(positions) >= 10
    for st in positions:
        data = st.to_bytes()
        hand, learned = E.evaluation(data), E.learned_evaluation(data)
        assert len(hand) == len(learned) == players
        assert all(0.0 < x < 1.0 for x in hand + learned)
        if players > 2:
            assert sum(hand) == pytest.approx(1.0, abs=0.01)
        else:
            assert sum(hand) < 1.0          # the fictitious player may be the second richest
    while not last.is_terminal():
        last.apply(last.sample_chance(1) if last.is_chance_node()
                   else E.heuristic_action(last.to_bytes(), 1))
    assert E.evaluation(last.to_bytes()) == E.learned_evaluation(last.to_bytes()) == list(last.returns())


def test_the_richest_near_the_end_is_not_favoured():
    """KL-20: at the last choice of the game a seat far ahead will be stripped; the seat just
    behind it is the likeliest winner, by both evaluations."""
    pile = {name: 0 for name in E.CHARACTERS}
    pile["beggar"] = 1
    st = position(3, "merchant", coins=[30, 12, 4], turn=7, hands=[[1, 6], [2, 6], [3, 7]], pile=pile)
    for evaluate in (E.evaluation, E.learned_evaluation):
        v = evaluate(st.to_bytes())
        assert v[1] > 0.6 and v[1] > 2 * max(v[0], v[2])
        assert v[0] < 0.2


def test_the_nogil_heuristic_is_the_policy_without_its_uniform_share():
    """heuristic_action (GameDef.heuristic_action) plays a high card for a rich hour it can take
    without becoming the richest (its 7, not the gang leader, KL-7), its lowest for the beggar, takes the comedian when the
    prince would make it the richest, and plays legal moves whatever the seed."""
    from fagin.search.playouts import rollout_policy_answers
    banker = position(3, "banker", coins=[0, 9, 2], turn=2, hands=[[2, 3, 4, 5, 6, 7, 8]] * 3)
    assert {E.heuristic_action(banker.to_bytes(), seed) for seed in range(8)} == {E.ACTION_CARD + 7}
    beggar = position(3, "beggar", coins=[0, 9, 2], turn=2, hands=[[2, 3, 4, 5, 6, 7, 8]] * 3)
    assert E.heuristic_action(beggar.to_bytes(), 3) == E.ACTION_CARD + 2
    rich = play(position(4, "prince", coins=[9, 5, 2, 0]), 6, 6, 6, 1)
    assert rich.current_player() == 0 and E.heuristic_action(rich.to_bytes(), 1) == COMEDIAN
    poor = play(position(4, "prince", coins=[0, 5, 9, 0]), 6, 6, 6, 1)
    assert E.heuristic_action(poor.to_bytes(), 1) == PRINCE
    policy = rollout_policy_answers(banker, 400, 3)
    assert max(policy, key=policy.get) == E.ACTION_CARD + 7 and len(policy) > 1
    for st in _positions(4, 3, 20):
        for seed in range(3):
            assert E.heuristic_action(st.to_bytes(), seed) in st.legal_actions()


def test_the_search_scores_no_playout_by_an_evaluation_unless_a_cut_off_is_asked_for():
    """By default the search plays Kids of London's playouts to the end, with the policy too
    (GameDef.rollout_depth is 0; no prior): no playout is scored by an evaluation.  A cut-off
    scored by the evaluation asked for: tests/engines/test_learned_rooms.py."""
    from fagin.search import ismcts
    st = position(3, "jeweller", coins=[2, 5, 1], turn=1, hands=[list(range(1, 9))] * 3)
    default = ismcts.ISMCTS(st, st.current_player(), SearchSettings(rollout="policy"), 1)
    default.run(iterations=300)
    assert default.evaluated == 0 and default.prior == 0.0 and default.evaluation == "handwritten"


def test_the_two_player_default_plays_the_policy_with_a_prior_where_it_was_measured():
    """seeds/kids_of_london.md, "The default at 2 players": at 2 players a search on time alone
    (the 100 ms a move measured) and one of 1,000 iterations or more play the rollout policy with
    a prior of 10; smaller iteration budgets (bot levels 1-9, calibrated on them) keep uniform
    playouts and no prior; 3 to 5 players keep uniform playouts everywhere."""
    from fagin.engines.registry import GAMES
    from fagin.search import limits
    from fagin.search.ismcts import ISMCTS
    spec = GAMES["kids_of_london"]
    new = {"rollout": "policy", "prior": 10.0}
    for iterations in (None, 1000, 4000):
        assert limits.tuned(spec, 2, iterations).given() == new
    for iterations in (1, 4, 300, 999):
        assert limits.tuned(spec, 2, iterations).given() == {"rollout": "random", "prior": 0.0}
    for players in (3, 4, 5):
        assert limits.tuned(spec, players).given() == {} and limits.default_rollout(spec, players) == "random"
    st = new_game("kids_of_london", 2)
    while st.is_chance_node():
        st.apply(st.sample_chance(1))
    seat = st.current_player()
    assert ISMCTS(st, seat, SearchSettings(rollout=limits.default_rollout(spec, 2))).prior == 10.0
    assert ISMCTS(st, seat, SearchSettings(budget=300, rollout=limits.default_rollout(spec, 2, 300))).prior == 0.0
