"""ISMCTS iterations per second on one core, and root parallelism on all of them.

Rows: Kids of London at the opening of each player count and at turn 5
(hour 6) of a 4-player game reached by random play; Gangs of Kyoto at the
first decision of a 2- and a 5-player game.  Then, for the Kids of London
4-player opening and the Gangs of Kyoto 5-player opening, the same number of
iterations as one search on 1 thread and on every core (root parallelism,
``fagin.search.root_parallel``), alternating, with the wall-time speed-up.

    .venv/bin/python bench/ismcts_speed.py [--iterations N] [--repeat R]
"""
import argparse
import random
import statistics

import os
import time

from fagin.engines import new_game
from fagin.search import ismcts, root_parallel


def at_turn(players, turn, seed):
    st = new_game("kids_of_london", players, seed=seed)
    rng = random.Random(seed)
    while st.describe()["turn"] < turn or st.is_chance_node():
        if st.is_chance_node():
            st.resolve_chance(rng.getrandbits(32))
        else:
            st.apply(rng.choice(st.legal_actions()))
    return st


def measure(st, iterations, repeat):
    rates = []
    for r in range(repeat):
        res = ismcts.search(st, st.current_player(), iterations=iterations, seed=r)
        rates.append(res.iterations / (res.elapsed_ms / 1000))
    return statistics.median(rates), res.nodes


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(f"{'position':<28}{'iterations':>11}{'iter/s (median)':>17}{'nodes':>10}")
    rows = [(f"KoL {p} players, opening", new_game("kids_of_london", p, seed=1)) for p in (2, 3, 4, 5)]
    rows.append(("KoL 4 players, turn 5", at_turn(4, 5, seed=2)))
    rows += [(f"GoK {p} players, opening", new_game("gangs_of_kyoto", p, seed=1)) for p in (2, 5)]
    for name, st in rows:
        rate, nodes = measure(st, args.iterations, args.repeat)
        print(f"{name:<28}{args.iterations:>11,}{rate:>17,.0f}{nodes:>10,}")

    threads = len(os.sched_getaffinity(0))
    print(f"\n{'root parallelism':<28}{'iterations':>11}{'1 thread s':>12}{f'{threads} threads s':>13}"
          f"{'speed-up':>10}")
    for name, st in (("KoL 4 players, opening", new_game("kids_of_london", 4, seed=1)),
                     ("GoK 5 players, opening", new_game("gangs_of_kyoto", 5, seed=1))):
        walls = {1: [], threads: []}
        for r in range(args.repeat):
            for t in ((1, threads) if r % 2 == 0 else (threads, 1)):
                start = time.perf_counter()
                root_parallel.search(st, st.current_player(), iterations=args.iterations, seed=r, threads=t)
                walls[t].append(time.perf_counter() - start)
        one, many = statistics.median(walls[1]), statistics.median(walls[threads])
        print(f"{name:<28}{args.iterations:>11,}{one:>12.3f}{many:>13.3f}{one / many:>9.2f}x")


if __name__ == "__main__":
    main()
