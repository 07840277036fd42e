"""Gangs of Kyoto's evaluations (seeds/gangs_of_kyoto.md, "A learned evaluation"): the room's
features and hand-written evaluation, read only from what every seat sees (GK-17), and the
model fitted to the features (``python -m fagin.train --game gangs_of_kyoto``), evaluated in C
by the search when asked.  The contract every learned room keeps (a seat outside the game
refused, the shipped model, C against the trainer's logistic) is checked in
tests/engines/test_learned_rooms.py."""
import json
import math

import pytest

from fagin.engines import load_game, new_game
from fagin.engines.gangs_of_kyoto import engine as E
from .helpers import REFUSE, STAY_LATE, bell, card, position
from ...positions import played_positions

GAME = load_game("gangs_of_kyoto")
NAMES = E.FEATURE_NAMES


def _positions(players, seed, count, every=0.15):
    return played_positions("gangs_of_kyoto", players, seed, count, every)[0]


def _all_estimates(data):
    return ([E.features(data, p) for p in range(GAME.engine.describe(data)["players"])],
            E.evaluation(data), E.learned_evaluation(data))


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_features_are_finite_and_progress_runs_from_one_to_zero(players):
    progress = NAMES.index(E.PROGRESS_FEATURE)
    seen = []
    for st in _positions(players, players, 30):
        for seat in range(players):
            f = E.features(st.to_bytes(), seat)
            assert len(f) == len(NAMES)
            assert all(math.isfinite(x) for x in f)
            assert 0.0 <= f[progress] <= 1.0
        seen.append(f[progress])
    assert max(seen) > min(seen)        # the game moves on


def test_features_at_the_start_are_even_and_the_whole_game_is_ahead():
    st = new_game("gangs_of_kyoto", 3, seed=2)
    data = st.to_bytes()
    f = [E.features(data, p) for p in range(3)]
    for p in range(3):
        assert f[p][NAMES.index("bells_left")] == 1.0
        assert f[p][NAMES.index("bells")] == 0 and f[p][NAMES.index("worth")] == 0
        assert f[p][NAMES.index("to_act")] == (1.0 if p == st.current_player() else 0.0)
        assert f[p][NAMES.index("hand_logit")] == pytest.approx(math.log(0.5))     # a third each
    assert E.evaluation(data) == pytest.approx([1 / 3] * 3)


def test_the_features_read_the_table():
    """Seat 0: 9 bells in its pile, a row of 5 + 3 with 2 bells (at 18 by its Stay Late card)
    and a Refuse card; seat 1: 4 bells, an empty row; seat 0 deals."""
    st = position(players=2, rows={0: [card(5, 2), card(3), STAY_LATE, REFUSE]},
                  vp={0: [card(5, 2), card(4, 2), card(3, 2), card(2, 1), bell(2)], 1: [bell(2), bell(2)]},
                  revealed=card(1), deal=[card(2)], active=0)
    f0, f1 = (dict(zip(NAMES, E.features(st.to_bytes(), p))) for p in range(2))
    assert f0["bells"] == 9 - 4 and f1["bells"] == 4 - 9
    assert f0["row_bells"] == 2 and f0["row_sum"] == 8 and f0["headroom"] == 10 - 13
    assert f0["refuse"] == 1 and f0["stay_late"] == 1 and f1["refuse"] == -1
    assert f0["kept_row_bells"] == pytest.approx(2 * 10 / 18)
    assert f0["worth"] == pytest.approx(5 + 2 * 10 / 18)
    assert (f0["to_act"], f1["to_act"]) == (1, 0)
    assert (f0["received"], f1["received"]) == (0, 0)
    assert (f0["deals_in"], f1["deals_in"]) == (0, 0.5)
    assert f0["bells_left"] == f1["bells_left"] == pytest.approx(4 / 13)
    assert f0["worth_by_bells_left"] == pytest.approx(f0["worth"] * 4 / 13)
    hand = E.evaluation(st.to_bytes())
    assert hand[0] > 0.8 and sum(hand) == pytest.approx(1.0)
    assert f0["hand_logit"] == pytest.approx(math.log(hand[0] / hand[1]))
    assert E.learned_evaluation(st.to_bytes())[0] > 0.7


def _twins():
    """Pairs of positions that differ only in cards some seat cannot see: the deck's order and
    make-up, the face-down deal, the cards put back on top, and seat 1's face-down Bell card
    (worth 1 or 2 bells; seat 1 alone knows which)."""
    rows = {0: [card(3, 1), card(2)], 1: [card(4)], 2: [card(1, 1)]}
    vp = {0: [bell(1)], 2: [card(3, 2)]}
    common = dict(players=3, rows=rows, vp=vp, revealed=card(2, 1), received=(2,), active=0)
    yield (position(**common, hidden={1: [bell(1)]}, deal=[card(4)]),
           position(**common, hidden={1: [bell(2)]}, deal=[bell(2)]))
    yield (position(**common, hidden={1: [bell(2)]}, deal=[card(0, draw=True)], deck_top=[card(5, 2)]),
           position(**common, hidden={1: [bell(1)]}, deal=[STAY_LATE], deck_top=[REFUSE]))


def test_features_and_evaluations_read_only_what_every_seat_sees():
    """Twin positions that differ only in hidden cards give every seat the same features and
    both evaluations the same values; a hidden Bell card counts as the deck's mean one."""
    for a, b in _twins():
        da, db = a.to_bytes(), b.to_bytes()
        assert a.describe() != b.describe()                     # they do differ, in hidden cards
        assert [a.view(p) for p in (0, 2)] == [b.view(p) for p in (0, 2)]
        assert _all_estimates(da) == _all_estimates(db)
        # Seat 1's face-down card counts as the deck's mean Bell card, against seat 2's 2 bells.
        mean = sum(c["bells"] * c["count"] for c in E.CARDS if c["kind"] == "bell") / \
            sum(c["count"] for c in E.CARDS if c["kind"] == "bell")
        assert E.features(da, 1)[NAMES.index("bells")] == pytest.approx(mean - 2)
        assert [E.features(da, p)[NAMES.index("received")] for p in range(3)] == [0, 0, 1]


def test_a_determinization_does_not_move_the_estimates():
    """The search evaluates determinized states: whatever a determinization deals into the
    places a seat cannot see, the features and evaluations stay as they were."""
    moved, piles = set(), set()
    for a, _ in _twins():
        for observer in range(3):
            for seed in range(30):
                d = a.determinize(observer, seed)
                moved.add(json.dumps(d.describe(), sort_keys=True))
                if observer != 1:
                    piles.add(d.describe()["seats"][1]["bells"])
                assert _all_estimates(d.to_bytes()) == _all_estimates(a.to_bytes())
    assert len(moved) > 10                  # the determinizations dealt the hidden cards anew,
    assert piles == {1, 2}                  # seat 1's face-down Bell card among them
    for st in _positions(3, 11, 10):
        for seed in range(3):
            d = st.determinize(st.current_player(), seed)
            assert _all_estimates(d.to_bytes()) == _all_estimates(st.to_bytes())


def _swapped(players_rows, players_vp, active):
    return position(players=2, rows=players_rows, vp=players_vp, revealed=card(3, 1), deal=[card(0)], active=active,
                    first=active)


def test_features_are_seat_symmetric():
    """Two seats' features are the same function of their own position: with the seats
    exchanged (and so the active seat), their features and evaluations exchange; each relative
    feature of one seat is the other's negated."""
    rows = {0: [card(4, 2), REFUSE], 1: [card(2), card(1, 1), STAY_LATE]}
    vp = {0: [bell(2), card(5, 2)], 1: [card(3, 1)]}
    a = _swapped(rows, vp, 0)
    b = _swapped({0: rows[1], 1: rows[0]}, {0: vp[1], 1: vp[0]}, 1)
    da, db = a.to_bytes(), b.to_bytes()
    assert E.features(da, 0) == E.features(db, 1) and E.features(da, 1) == E.features(db, 0)
    assert E.evaluation(da) == pytest.approx(E.evaluation(db)[::-1])
    assert E.learned_evaluation(da) == pytest.approx(E.learned_evaluation(db)[::-1])
    f0, f1 = E.features(da, 0), E.features(da, 1)
    for i in range(8):      # the seat values, relative to the best other seat
        assert f0[i] == -f1[i]
    assert f0[NAMES.index("hand_logit")] == pytest.approx(-f1[NAMES.index("hand_logit")])


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_evaluations_are_probabilities(players):
    """The hand-written evaluation is a share of the win (it sums to 1); the learned one gives
    each seat its own probability, which over many positions sums to about 1 too; at the end
    both are the returns."""
    sums = []
    positions, last = played_positions("gangs_of_kyoto", players, 20 + players, 40, every=0.5)
    for st in positions:
        data = st.to_bytes()
        hand, learned = E.evaluation(data), E.learned_evaluation(data)
        assert len(hand) == len(learned) == players
        assert all(0.0 < x < 1.0 for x in hand + learned)
        assert sum(hand) == pytest.approx(1.0)
        sums.append(sum(learned))
    assert abs(sum(sums) / len(sums) - 1.0) < 0.15
    while not last.is_terminal():
        last.apply(last.sample_chance(1) if last.is_chance_node()
                   else E.heuristic_action(last.to_bytes(), 1))
    assert E.evaluation(last.to_bytes()) == E.learned_evaluation(last.to_bytes()) == list(last.returns())


def test_the_leader_near_the_line_is_favoured():
    near = position(players=3, vp={0: [card(5, 2)] * 5 + [bell(1)], 1: [bell(2)], 2: [card(1, 1)]},
                    revealed=card(2), deal=[card(1), card(3)], active=1)
    for evaluate in (E.evaluation, E.learned_evaluation):
        v = evaluate(near.to_bytes())
        assert v[0] > 0.6 and v[0] > 2 * max(v[1], v[2])


def test_the_nogil_heuristic_is_the_policy_without_its_uniform_share():
    """heuristic_action (GameDef.heuristic_action) keeps a bell card for itself, refuses a card
    that would bust its row, and plays legal moves whatever the seed."""
    from fagin.search.playouts import rollout_policy_answers
    keep = position(players=3, revealed=bell(2), deal=[card(1), card(3)], active=1)
    assert E.heuristic_action(keep.to_bytes(), 5) == E.ACTION_GIVE + 1
    bust = position(players=2, phase="refuse", rows={0: [card(4), card(4), REFUSE, card(3)]},
                    arriving=card(4), receiver=0, deal=[card(1)], received=(0,), active=1)
    assert E.heuristic_action(bust.to_bytes(), 1) == E.ACTION_REFUSE
    policy = rollout_policy_answers(keep, 400, 3)
    assert max(policy, key=policy.get) == E.ACTION_GIVE + 1 and len(policy) > 1
    for st in _positions(4, 3, 20):
        for seed in range(3):
            assert E.heuristic_action(st.to_bytes(), seed) in st.legal_actions()


def test_the_search_scores_no_playout_by_an_evaluation_unless_a_cut_off_is_asked_for():
    """By default the search plays Gangs of Kyoto's playouts to the end, with the policy too
    (GameDef.rollout_depth is 0; no prior): no playout is scored by an evaluation.  A cut-off
    scored by the evaluation asked for: tests/engines/test_learned_rooms.py."""
    from fagin.search import ismcts
    st = new_game("gangs_of_kyoto", 3, seed=3)
    default = ismcts.ISMCTS(st, st.current_player(), ismcts.SearchSettings(rollout="policy"), 1)
    default.run(iterations=200)
    assert default.evaluated == 0 and default.prior == 0.0 and default.evaluation == "handwritten"
