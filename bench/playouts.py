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
    for game in ("kids_of_london", "gangs_of_kyoto"):
        for players in (2, 3, 4, 5):
            st = new_game(game, players)
            random_playouts(st, 200)                        # warm up
            _, _, t = random_playouts(st, 2000)
            n = max(500, int(2000 * args.seconds / t))
            means, length, t = random_playouts(st, n, seed=1)
            print(f"{game:<16}{players:>8}{n / t:>14,.0f}{length:>17.1f}"
                  f"{sum(means) / len(means):>13.3f}")


if __name__ == "__main__":
    main()
