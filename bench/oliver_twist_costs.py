"""Oliver Twist's costs beside the other games', measured side by side in one run (one core).

1. Engine speed: random playouts from the opening of Oliver Twist (2 and 4
   players, uniformly random and with its rollout policy) beside Kids of
   London (4), Gangs of Kyoto (2, 5) and London (2, 4): playouts/s, actions
   per playout, actions/s (chance events included), ns per action.
2. Search cost: ISMCTS iterations/s at Oliver Twist's first decision with 2
   and 4 players and at a night position (the first night turn of a 3-player
   game played by the heuristic bot), and one iteration's cost over one
   playout's from the same position (issue 12's target: at most 2x), with
   uniformly random playouts and rollouts, then with the rollout policy.

Rows alternate in rounds and report medians.

    .venv/bin/python bench/oliver_twist_costs.py [--seconds S] [--rounds R] [--iterations N]
"""
import argparse
import random
import statistics

from fagin.engines import GAMES, new_game

import london_costs     # bench/ is the script's folder, so on sys.path
from london_costs import iteration_rate


def playout_rate(st, seconds, seed, policy=False):
    # Oliver Twist's playouts are long: a shorter trial sizes the run.
    return london_costs.playout_rate(st, seconds, seed, policy, trial=20)


def night_position(players=3, seed=5):
    """The first night turn of a game played by the heuristic bot."""
    bot = GAMES["oliver_twist"].make_heuristic()
    rng = random.Random(seed)
    st = new_game("oliver_twist", players, seed=seed)
    while True:
        if st.is_chance_node():
            st.apply(st.sample_chance(rng.getrandbits(63)))
            continue
        d = st.describe()
        if d["night"] and d["phase"] == "turn":
            return st
        st.apply(bot.choose(st, st.current_player(), rng.getrandbits(32)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=0.5, help="time per playout measurement (approx.)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--iterations", type=int, default=5_000, help="ISMCTS iterations per measurement")
    args = ap.parse_args()
    engines = [(f"Oliver Twist {p}p", new_game("oliver_twist", p, seed=1), False) for p in (2, 4)]
    engines += [(f"Oliver Twist {p}p policy", new_game("oliver_twist", p, seed=1), True) for p in (2, 4)]
    engines += [("KoL 4p", new_game("kids_of_london", 4, seed=1), False)]
    engines += [(f"GoK {p}p", new_game("gangs_of_kyoto", p, seed=1), False) for p in (2, 5)]
    engines += [(f"London {p}p", new_game("london", p, seed=1), False) for p in (2, 4)]
    got = {name: [] for name, _, _ in engines}
    for r in range(args.rounds):
        for name, st, policy in (engines if r % 2 == 0 else engines[::-1]):
            got[name].append(playout_rate(st, args.seconds, r, policy))
    print("1. engine speed (playouts from the opening; medians of", args.rounds, "rounds)")
    print(f"{'engine':<26}{'playouts/s':>12}{'actions/playout':>17}{'actions/s':>13}{'ns/action':>11}")
    for name, _, _ in engines:
        rate = statistics.median(x[0] for x in got[name])
        length = statistics.median(x[1] for x in got[name])
        print(f"{name:<26}{rate:>12,.0f}{length:>17.1f}{rate * length:>13,.0f}{1e9 / (rate * length):>11.0f}")
    positions = [("Oliver Twist 2p opening", new_game("oliver_twist", 2, seed=1)),
                 ("Oliver Twist 4p opening", new_game("oliver_twist", 4, seed=1)),
                 ("Oliver Twist 3p night", night_position())]
    print(f"\n2. one ISMCTS iteration / one playout from the same position ({args.iterations:,} iterations; "
          f"target <= 2x)")
    print(f"{'position':<26}{'rollout':>8}{'playouts/s':>12}{'iterations/s':>14}{'iteration/playout':>19}")
    for name, st in positions:
        for rollout in ("random", "policy"):
            plays, iters = [], []
            for r in range(args.rounds):
                plays.append(playout_rate(st, args.seconds, r, policy=rollout == "policy")[0])
                iters.append(iteration_rate(st, args.iterations, r, rollout))
            p, i = statistics.median(plays), statistics.median(iters)
            print(f"{name:<26}{rollout:>8}{p:>12,.0f}{i:>14,.0f}{p / i:>18.2f}x")


if __name__ == "__main__":
    main()
