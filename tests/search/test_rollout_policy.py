"""The games' rollout policies (GameDef.rollout_action): legal everywhere, and heuristic where it matters."""
import pytest

from fagin.engines import new_game
from fagin.engines.gangs_of_kyoto import engine as gk
from fagin.engines.kids_of_london import engine as kol
from fagin.search import ismcts
from fagin.search.playouts import (has_rollout_policy, random_playouts, rollout_policy_answers,
                                   rollout_policy_violations)

from ..games.gangs_of_kyoto import helpers as gk_helpers
from ..games.kids_of_london.helpers import position as kol_position

# Legality at every decision, for every game with a policy, is a contract check
# (tests/contract/test_game_contract.py); here: what the policies prefer.


def test_games_without_a_policy_say_so():
    assert has_rollout_policy(new_game("kids_of_london", 3))
    assert not has_rollout_policy(new_game("kuhn_poker", 2))
    with pytest.raises(ValueError, match="no rollout policy"):
        rollout_policy_violations(new_game("kuhn_poker", 2), 10)


def test_policy_playouts_play_whole_games():
    st = new_game("gangs_of_kyoto", 4, seed=1)
    means, length, _ = random_playouts(st, 200, seed=1, policy=True)
    assert sum(means) == pytest.approx(1.0) and length > 20     # GK-14: one winner a game


def _mean_card(answers):
    """The mean card value played (action v plays the card of value v)."""
    return sum(a * n for a, n in answers.items()) / sum(answers.values())


def test_kids_of_london_policy_robs_only_when_it_does_not_make_it_the_richest():
    """KL-20: the richest are stripped, so the policy plays high cards on a banker
    only while robbing it keeps its seat below the richest rival."""
    poor = rollout_policy_answers(kol_position(4, "banker", coins=[0, 10, 12, 9]), 2000, seed=1)
    rich = rollout_policy_answers(kol_position(4, "banker", coins=[30, 10, 12, 9]), 2000, seed=1)
    assert set(poor) <= set(range(9)) and set(rich) <= set(range(9))
    assert _mean_card(poor) > 5.5 and _mean_card(rich) < 3.5
    # KL-13: seats 0 and 1 tie for the prince and would share its 8; seat 0
    # takes its 4 unless that makes it the richest.
    for coins, wanted in (([0, 30, 5], kol.ACTION_PRINCE), ([28, 30, 5], kol.ACTION_COMEDIAN)):
        st = kol_position(3, "prince", coins=coins)
        for a in (7, 7, 0):
            st.apply(a)
        assert st.current_player() == 0 and st.legal_actions() == [kol.ACTION_COMEDIAN, kol.ACTION_PRINCE]
        assert rollout_policy_answers(st, 1000, seed=2)[wanted] > 850


def test_gangs_of_kyoto_policy_keeps_bells_and_refuses_a_bust():
    bell = gk_helpers.bell(2)
    st = gk_helpers.position(3, revealed=bell, deal=[gk_helpers.card(0), gk_helpers.card(1)])   # GK-3: a full deal
    answers = rollout_policy_answers(st, 1000, seed=1)
    assert set(answers) <= set(st.legal_actions())
    assert answers[0] > 700          # GK-7: a bell card is worth most in its own pile (action p gives to seat p)
    # GK-10: a card that would bust a row with a Refuse card in it is refused.
    row = [gk_helpers.card(5, 2), gk_helpers.card(4, 1), gk_helpers.REFUSE, gk_helpers.card(2)]
    st = gk_helpers.position(3, phase="refuse", rows={1: row}, arriving=gk_helpers.card(4), receiver=1,
                             active=0, received=[1], deal=[gk_helpers.card(0), gk_helpers.card(1)])
    answers = rollout_policy_answers(st, 1000, seed=1)
    assert set(answers) <= {gk.ACTION_ACCEPT, gk.ACTION_REFUSE}
    assert answers[gk.ACTION_REFUSE] > 850


def test_rollout_setting_chooses_the_playouts():
    st = new_game("kids_of_london", 4, seed=1)
    policy = ismcts.run_search(st, st.current_player(), iterations=2000, seed=3, rollout="policy")
    random = ismcts.run_search(st, st.current_player(), iterations=2000, seed=3, rollout="random")
    assert policy.stats != random.stats
    # A game without a policy plays uniformly either way.
    kuhn = new_game("kuhn_poker", 2, seed=1)
    while kuhn.is_chance_node():
        kuhn.apply(kuhn.legal_actions()[0])
    a = ismcts.run_search(kuhn, kuhn.current_player(), iterations=500, seed=3, rollout="policy")
    b = ismcts.run_search(kuhn, kuhn.current_player(), iterations=500, seed=3, rollout="random")
    assert a.stats == b.stats
    with pytest.raises(ValueError, match="rollout"):
        ismcts.ISMCTS(st, st.current_player(), ismcts.SearchSettings(rollout="greedy"))


def _london_opening(players=2, seed=3):
    state = new_game("london", players)
    state.resolve_chance(seed)
    return state


def test_the_prior_defaults_on_only_where_policy_playouts_are_cut_short():
    """London (GameDef.rollout_depth) searches with the policy's prior by default; a game whose
    policy playouts run to the end, or a uniform rollout, has none; ``prior`` is checked."""
    from fagin.search.limits import MAX_PRIOR, PRIOR_WEIGHT
    london = _london_opening()
    assert ismcts.ISMCTS(london, london.current_player(), ismcts.SearchSettings(rollout="policy")).prior == PRIOR_WEIGHT
    assert ismcts.ISMCTS(london, london.current_player(), ismcts.SearchSettings(rollout="random")).prior == 0.0
    rm = ismcts.SearchSettings(rollout="policy", selection="rm")
    assert ismcts.ISMCTS(london, london.current_player(), rm).prior == 0.0
    kids = new_game("kids_of_london", 3)
    kids.resolve_chance(1)
    assert ismcts.ISMCTS(kids, kids.current_player(), ismcts.SearchSettings(rollout="policy")).prior == 0.0
    assert ismcts.ISMCTS(kids, kids.current_player(), ismcts.SearchSettings(rollout="policy", prior=2.0)).prior == 2.0
    for bad in (-1.0, MAX_PRIOR * 2, float("nan")):
        with pytest.raises(ValueError, match="prior"):
            ismcts.ISMCTS(london, london.current_player(), ismcts.SearchSettings(rollout="policy", prior=bad))


def test_the_prior_tries_the_policys_pick_first():
    """With the prior, a node's first visit goes to the rollout policy's pick (the heuristic's
    choice but for the policy's uniform share); without it, to a uniform untried action."""
    import random
    from fagin.engines.london.heuristic import LondonHeuristicBot
    bot = LondonHeuristicBot()
    state = _london_opening()
    rng = random.Random(5)
    while True:     # a decision with many choices and one clear favourite of the heuristic
        if state.is_chance_node():
            state.apply(state.sample_chance(rng.getrandbits(63)))
            continue
        seat = state.current_player()
        picks = {bot.choose(state, seat, s) for s in range(12)}
        if len(state.legal_actions()) >= 6 and len(picks) == 1:
            break
        state.apply(bot.choose(state, seat, rng.getrandbits(63)))

    def first_choices(prior):
        hits = 0
        for seed in range(30):
            search = ismcts.ISMCTS(state, seat, ismcts.SearchSettings(rollout="policy", prior=prior), seed)
            search.run(iterations=1)
            visited = [s.action for s in search.result().stats if s.visits > 0]
            hits += visited == list(picks)
        return hits

    assert first_choices(1.0) >= 25
    assert first_choices(0.0) <= 15
