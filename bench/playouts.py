"""Playouts per second of each engine, per player count (one core): uniformly
random decisions, and the game's rollout policy (what ISMCTS plays outside its
tree by default).

    .venv/bin/python bench/playouts.py [--seconds S]
"""
import argparse

from fagin.engines import new_game
from fagin.search.playouts import has_rollout_policy, random_playouts


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=1.0, help="time per row (approx.)")
    args = ap.parse_args()
    print(f"{'game':<16}{'players':>8}{'decisions':>10}{'playouts/s':>14}{'actions/playout':>17}"
          f"{'actions/s':>12}{'mean return':>13}")
    for game, counts in (("kids_of_london", (2, 3, 4, 5)), ("gangs_of_kyoto", (2, 3, 4, 5)), ("london", (2, 3, 4)),
                         ("oliver_twist", (2, 3, 4)), ("fagins_gang", (2, 6))):
        for players in counts:
            st = new_game(game, players)
            for policy in (False, True):
                if policy and not has_rollout_policy(st):
                    continue
                # Warm up, then size the row by time: a policy playout of a long game
                # (Fagin's Gang, 6 players) takes ~20 ms, a random Kuhn-sized one microseconds.
                random_playouts(st, 20, policy=policy)
                _, _, t = random_playouts(st, 50, policy=policy)
                n = max(50, int(50 * args.seconds / t))
                means, length, t = random_playouts(st, n, seed=1, policy=policy)
                print(f"{game:<16}{players:>8}{'policy' if policy else 'random':>10}{n / t:>14,.0f}"
                      f"{length:>17.1f}{n * length / t:>12,.0f}{sum(means) / len(means):>13.3f}")


if __name__ == "__main__":
    main()
