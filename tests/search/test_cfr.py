"""The solvers, checked against known values and against OpenSpiel (which no one here wrote)."""
import numpy as np
import pytest

from fagin.engines import load_game
from fagin.search.cfr import GameTree, Solver, to_openspiel_policy


@pytest.fixture(scope="module")
def kuhn():
    return GameTree(load_game("kuhn_poker").new_initial_state(2))


@pytest.fixture(scope="module")
def leduc():
    return GameTree(load_game("leduc_poker").new_initial_state(2))


def test_trees(kuhn, leduc):
    assert (kuhn.num_nodes, kuhn.num_infosets) == (58, 12)
    assert (leduc.num_nodes, leduc.num_infosets) == (9457, 936)


def test_cfr_plus_solves_kuhn_poker(kuhn):
    solver = Solver(kuhn, "cfr+").run(200)
    policy = solver.average_policy()
    assert kuhn.expected_value(policy) == pytest.approx(-1 / 18, abs=1e-3)
    assert kuhn.exploitability(policy) <= 1e-3


def test_every_algorithm_converges_on_leduc(leduc):
    uniform = leduc.nash_conv(leduc.uniform_policy())
    for algorithm, iterations, bound in [("cfr", 300, 0.2), ("cfr+", 300, 0.01), ("dcfr", 300, 0.01),
                                         ("external_sampling", 1000, 2.5),
                                         ("outcome_sampling", 10000, 3.07)]:
        # The MCCFR bounds are OpenSpiel's own test thresholds; OpenSpiel's external
        # sampling itself lands between 2.25 and 2.75 after 1,000 iterations across seeds.
        solver = Solver(leduc, algorithm, seed=4).run(iterations)
        nash_conv = leduc.nash_conv(solver.average_policy())
        assert nash_conv <= bound < uniform, (algorithm, nash_conv)


def test_solvers_are_reproducible(leduc):
    a = Solver(leduc, "outcome_sampling", seed=3).run(500).average_policy()
    b = Solver(leduc, "outcome_sampling", seed=3).run(500).average_policy()
    c = Solver(leduc, "outcome_sampling", seed=4).run(500).average_policy()
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_unknown_algorithm(kuhn):
    with pytest.raises(ValueError, match="algorithm"):
        Solver(kuhn, "alphazero")


pyspiel = pytest.importorskip("pyspiel")


def test_cfr_plus_matches_openspiel_iteration_for_iteration(kuhn, leduc):
    from open_spiel.python.algorithms import cfr, exploitability
    for tree, name, iterations in ((kuhn, "kuhn_poker", 100), (leduc, "leduc_poker", 10)):
        game = pyspiel.load_game(name)
        theirs = cfr.CFRPlusSolver(game)
        for _ in range(iterations):
            theirs.evaluate_and_update_policy()
        ours = Solver(tree, "cfr+").run(iterations).average_policy()
        assert tree.nash_conv(ours) == pytest.approx(
            exploitability.nash_conv(game, theirs.average_policy()), abs=1e-9)


def test_exploitability_agrees_with_openspiel(kuhn, leduc):
    from open_spiel.python.algorithms import exploitability
    rng = np.random.default_rng(1)
    for tree, name in ((kuhn, "kuhn_poker"), (leduc, "leduc_poker")):
        game = pyspiel.load_game(name)
        randomish = rng.random(tree.num_infoset_actions)
        policies = [tree.uniform_policy(), Solver(tree, "cfr+").run(30).average_policy()]
        # A random policy, normalised per information set.
        pol = randomish.copy()
        start = 0
        for acts in tree.infoset_actions:
            block = pol[start:start + len(acts)]
            pol[start:start + len(acts)] = block / block.sum()
            start += len(acts)
        policies.append(pol)
        for policy in policies:
            theirs = exploitability.exploitability(game, to_openspiel_policy(tree, policy, game))
            assert tree.exploitability(policy) == pytest.approx(theirs, abs=1e-6)
