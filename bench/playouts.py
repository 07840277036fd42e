"""Random playouts per second of each engine, per player count (one core).

    .venv/bin/python bench/playouts.py [--seconds S]
"""
import argparse

from fagin.engines import new_game
from fagin.search.playouts import random_playouts


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=1.0, help="time per row (approx.)")
    args = ap.parse_args()
    print(f"{'game':<16}{'players':>8}{'playouts/s':>14}{'actions/playout':>17}{'mean return':>13}")
    for players in (2, 3, 4, 5):
        st = new_game("kids_of_london", players)
        random_playouts(st, 2000)                       # warm up
        _, _, t = random_playouts(st, 20000)
        n = max(1000, int(20000 * args.seconds / t))
        means, length, t = random_playouts(st, n, seed=1)
        print(f"{'kids_of_london':<16}{players:>8}{n / t:>14,.0f}{length:>17.1f}"
              f"{sum(means) / len(means):>13.3f}")


if __name__ == "__main__":
    main()
