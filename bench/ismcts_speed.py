"""ISMCTS iterations per second on one core.

Rows: Kids of London at the opening of each player count and at turn 5
(hour 6) of a 4-player game reached by random play; Gangs of Kyoto at the
first decision of a 2- and a 5-player game.

    .venv/bin/python bench/ismcts_speed.py [--iterations N] [--repeat R]
"""
import argparse
import random
import statistics

from fagin.engines import new_game
from fagin.search import ismcts


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


if __name__ == "__main__":
    main()
