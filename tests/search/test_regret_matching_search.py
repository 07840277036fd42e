"""The regret-matching selection (SM-MCTS-RM) of the info-set search."""
import pytest

from fagin.engines import load_game, new_game
from fagin.search import ismcts
from fagin.search.cfr import GameTree
from fagin.search.ismcts import ISMCTS, SearchSettings


def test_rm_recommends_a_mixed_strategy():
    st = new_game("kids_of_london", 3, seed=4)
    r = ismcts.run_search(st, 0, iterations=3000, seed=2, selection="rm")
    assert sum(s.policy for s in r.stats) == pytest.approx(1.0)
    assert sum(s.visits for s in r.stats) == 3000
    assert r.action == max(r.stats, key=lambda s: s.policy).action
    assert ismcts.run_search(st, 0, iterations=3000, seed=2, selection="rm").stats == r.stats


def test_rm_average_policy_is_far_less_exploitable_than_uniform():
    root = load_game("goofspiel").new_initial_state(2, num_cards=4, imp_info=True, points_order="descending")
    tree = GameTree(root)
    s = ISMCTS(root, 0, SearchSettings(selection="rm", gamma=0.1), 1)
    s.run(iterations=20000)
    searched = tree.nash_conv(tree.policy_from(s.node_policy))
    assert searched < 0.5 * tree.nash_conv(tree.uniform_policy())


def test_bad_selection_settings():
    st = new_game("kids_of_london", 3, seed=4)
    with pytest.raises(ValueError, match="selection"):
        ISMCTS(st, 0, SearchSettings(selection="greedy"))
    with pytest.raises(ValueError, match="gamma"):
        ISMCTS(st, 0, SearchSettings(selection="rm", gamma=0.0))


def test_online_outcome_sampling_converges_where_ucb_does_not():
    """OOS's average strategy is less exploitable than ISMCTS's policy at the same budget."""
    root = load_game("goofspiel").new_initial_state(2, num_cards=4, imp_info=True, points_order="descending")
    tree = GameTree(root)
    results = {}
    for name, kwargs in (("ucb", dict(selection="ucb", exploration=2.0)), ("os", dict(selection="os", gamma=0.6))):
        s = ISMCTS(root, 0, SearchSettings(**kwargs), 2)
        s.run(iterations=100_000)
        results[name] = tree.nash_conv(tree.policy_from(s.node_policy))
    assert results["os"] < results["ucb"]
    assert results["os"] < 0.25 * tree.nash_conv(tree.uniform_policy())


def test_oos_is_reproducible_and_reports_every_iteration():
    st = new_game("gangs_of_kyoto", 3, seed=1)
    a = ismcts.run_search(st, 0, iterations=1000, seed=5, selection="os", gamma=0.6)
    b = ismcts.run_search(st, 0, iterations=1000, seed=5, selection="os", gamma=0.6)
    assert a.stats == b.stats and sum(s.visits for s in a.stats) == 1000
