"""fagin against OpenSpiel's C++ solvers and bots, side by side in one run, on Leduc poker.

Rows (ratios are ours / OpenSpiel's; higher is better for speeds):
  * ISMCTS simulations per second at the first decision (random rollouts, same count);
  * CFR+ iterations per second;
  * external- and outcome-sampling MCCFR iterations per second, and NashConv after --seconds;
  * a head-to-head of our ISMCTS against pyspiel.ISMCTSBot at equal simulations, seats
    alternated: our mean chips per hand with a 95 % interval.

    .venv/bin/python bench/peer_openspiel.py [--seconds 10] [--hands 2000] [--simulations 1000]
"""
import argparse
import math
import random
import statistics
import time

import pyspiel

from fagin.engines import load_game
from fagin.search import ismcts
from fagin.search.cfr import GameTree, Solver


def timed(fn):
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def first_decision(seed):
    rng = random.Random(seed)
    theirs = pyspiel.load_game("leduc_poker").new_initial_state()
    ours = load_game("leduc_poker").new_initial_state(2)
    while theirs.is_chance_node():
        a = rng.choice(theirs.legal_actions())
        theirs.apply_action(a)
        ours.apply(a)
    return theirs, ours


def ismcts_speed(sims, repeat):
    evaluator = pyspiel.RandomRolloutEvaluator(1, 1)
    bot = pyspiel.ISMCTSBot(1, evaluator, 2.0, sims, -1, pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
                            False, False)
    ours_t, theirs_t = [], []
    for r in range(repeat):
        theirs, ours = first_decision(r)
        ours_t.append(timed(lambda: ismcts.run_search(ours, 0, iterations=sims, seed=r, exploration=2.0)))
        theirs_t.append(timed(lambda: bot.step(theirs)))
    return sims / statistics.median(ours_t), sims / statistics.median(theirs_t)


def cfr_plus_speed(iterations, tree):
    game = pyspiel.load_game("leduc_poker")
    theirs = pyspiel.CFRPlusSolver(game)
    ours = Solver(tree, "cfr+")
    t_ours = timed(lambda: ours.run(iterations))
    t_theirs = timed(lambda: [theirs.evaluate_and_update_policy() for _ in range(iterations)])
    return iterations / t_ours, iterations / t_theirs


def mccfr_race(kind, seconds, tree):
    """Iterations per second and NashConv after `seconds` of each solver."""
    game = pyspiel.load_game("leduc_poker")
    if kind == "external_sampling":
        theirs = pyspiel.ExternalSamplingMCCFRSolver(game, 1, pyspiel.MCCFRAverageType.SIMPLE)
    else:
        theirs = pyspiel.OutcomeSamplingMCCFRSolver(game, 0.6, 1)
    ours = Solver(tree, kind, seed=1)
    n_ours, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        ours.run(1000)
        n_ours += 1000
    t_ours = time.perf_counter() - start
    n_theirs, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(100):
            theirs.run_iteration()
        n_theirs += 100
    t_theirs = time.perf_counter() - start
    nc_ours = tree.nash_conv(ours.average_policy())
    nc_theirs = 2 * pyspiel.exploitability(game, theirs.average_policy())
    return n_ours / t_ours, n_theirs / t_theirs, nc_ours, nc_theirs


def head_to_head(hands, sims, seed):
    game = pyspiel.load_game("leduc_poker")
    evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
    bot = pyspiel.ISMCTSBot(seed, evaluator, 2.0, sims, -1, pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
                            False, False)
    rng = random.Random(seed)
    results = []
    for h in range(hands):
        our_seat = h % 2
        theirs = game.new_initial_state()
        ours = load_game("leduc_poker").new_initial_state(2)
        while not theirs.is_terminal():
            if theirs.is_chance_node():
                a = rng.choice(theirs.legal_actions())
            elif theirs.current_player() == our_seat:
                a = ismcts.run_search(ours, our_seat, iterations=sims, seed=rng.getrandbits(32),
                                  exploration=2.0).action
            else:
                a = bot.step(theirs)
            theirs.apply_action(a)
            ours.apply(a)
        results.append(theirs.returns()[our_seat])
    mean = statistics.mean(results)
    half = 1.96 * statistics.stdev(results) / math.sqrt(len(results))
    return mean, half


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--hands", type=int, default=2000)
    ap.add_argument("--simulations", type=int, default=1000)
    ap.add_argument("--cfr-iterations", type=int, default=200)
    args = ap.parse_args()
    tree = GameTree(load_game("leduc_poker").new_initial_state(2))
    print(f"{'measure':<44}{'fagin':>14}{'OpenSpiel':>14}{'ratio':>8}")
    o, t = ismcts_speed(args.simulations, 15)
    print(f"{'ISMCTS simulations/s (Leduc, first decision)':<44}{o:>14,.0f}{t:>14,.0f}{o / t:>8.2f}")
    o, t = cfr_plus_speed(args.cfr_iterations, tree)
    print(f"{'CFR+ iterations/s':<44}{o:>14,.1f}{t:>14,.1f}{o / t:>8.2f}")
    for kind, label in (("external_sampling", "ES-MCCFR"), ("outcome_sampling", "OS-MCCFR")):
        o, t, nco, nct = mccfr_race(kind, args.seconds, tree)
        print(f"{label + ' iterations/s':<44}{o:>14,.0f}{t:>14,.0f}{o / t:>8.2f}")
        print(f"{label + f' NashConv after {args.seconds:g} s':<44}{nco:>14.4f}{nct:>14.4f}"
              f"{nct / nco if nco else float('inf'):>8.2f}")
    mean, half = head_to_head(args.hands, args.simulations, 7)
    print(f"head-to-head, {args.hands} hands at {args.simulations} simulations: fagin ISMCTS wins "
          f"{mean:+.3f} chips/hand (95 % interval {mean - half:+.3f} .. {mean + half:+.3f})")


if __name__ == "__main__":
    main()
