"""London's costs beside Gangs of Kyoto's, measured side by side in one run (one core).

1. Engine speed: uniformly random playouts of London (2, 3, 4 players) and
   Gangs of Kyoto (2 and 5 players) from the opening: playouts/s, actions per
   playout, actions/s (chance events included), and London's cost per action
   over Gangs of Kyoto's (the issue's target: within 4x).  London's rollout
   policy is measured beside its random playouts.
2. Search cost: for London's 2-player opening and a mid-game position (turn 20
   of a 2-player game reached by random play) and the 4-player opening, the
   cost of one ISMCTS iteration over the cost of one playout from the same
   position (the issue's target: at most 2x), with uniformly random playouts
   and ISMCTS's random rollouts, then with the rollout policy for both.

Rows alternate between the games in rounds and report medians, so that a
machine that slows down part way through hurts every row alike.

    .venv/bin/python bench/london_costs.py [--seconds S] [--rounds R] [--iterations N]
"""
import argparse
import statistics
import time

from fagin.engines import new_game
from fagin.search import ismcts
from fagin.search.playouts import random_playouts

from ismcts_speed import london_at_turn     # bench/ is the script's folder, so on sys.path


def playout_rate(st, seconds, seed, policy=False, trial=100):
    """(playouts/s, actions per playout) over about ``seconds``, sized by a ``trial`` run."""
    _, _, t = random_playouts(st, trial, seed=seed, policy=policy)
    n = max(2 * trial, int(trial * seconds / max(t, 1e-6)))
    _, length, t = random_playouts(st, n, seed=seed, policy=policy)
    return n / t, length


def iteration_rate(st, iterations, seed, rollout):
    s = ismcts.ISMCTS(st, st.current_player(), seed=seed, rollout=rollout)
    s.run(iterations=iterations)
    return s.iterations / (s.elapsed_ms / 1000)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=0.5, help="time per playout measurement (approx.)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--iterations", type=int, default=20_000, help="ISMCTS iterations per measurement")
    args = ap.parse_args()

    engines = [(f"London {p}p", new_game("london", p), False) for p in (2, 3, 4)]
    engines += [(f"London {p}p policy", new_game("london", p), True) for p in (2, 4)]
    engines += [(f"GoK {p}p", new_game("gangs_of_kyoto", p), False) for p in (2, 5)]
    got = {name: [] for name, _, _ in engines}
    for r in range(args.rounds):
        for name, st, policy in (engines if r % 2 == 0 else engines[::-1]):
            got[name].append(playout_rate(st, args.seconds, r, policy))
    print("1. engine speed (random playouts from the opening; medians of", args.rounds, "rounds)")
    print(f"{'engine':<20}{'playouts/s':>12}{'actions/playout':>17}{'actions/s':>13}{'ns/action':>11}")
    per_action = {}
    for name, _, _ in engines:
        rate = statistics.median(x[0] for x in got[name])
        length = statistics.median(x[1] for x in got[name])
        per_action[name] = 1e9 / (rate * length)
        print(f"{name:<20}{rate:>12,.0f}{length:>17.1f}{rate * length:>13,.0f}{per_action[name]:>11.0f}")
    gk = statistics.mean(per_action[n] for n in per_action if n.startswith("GoK"))
    print(f"London / Gangs of Kyoto cost per action (GoK: mean of its rows; target <= 4x):")
    for name in per_action:
        if name.startswith("London") and "policy" not in name:
            print(f"  {name:<18}{per_action[name] / gk:>6.2f}x")

    positions = [("London 2p opening", new_game("london", 2, seed=1)),
                 ("London 2p turn 20", london_at_turn(2, 20, seed=2)),
                 ("London 4p opening", new_game("london", 4, seed=1))]
    print(f"\n2. one ISMCTS iteration / one playout from the same position ({args.iterations:,} iterations; "
          f"target <= 2x)")
    print(f"{'position':<20}{'rollout':>8}{'playouts/s':>12}{'iterations/s':>14}{'iteration/playout':>19}")
    for name, st in positions:
        for rollout in ("random", "policy"):
            plays, iters = [], []
            for r in range(args.rounds):
                plays.append(playout_rate(st, args.seconds, r, policy=rollout == "policy")[0])
                iters.append(iteration_rate(st, args.iterations, r, rollout))
            p, i = statistics.median(plays), statistics.median(iters)
            print(f"{name:<20}{rollout:>8}{p:>12,.0f}{i:>14,.0f}{p / i:>18.2f}x")


if __name__ == "__main__":
    main()
