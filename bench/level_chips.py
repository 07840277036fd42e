"""Chips a hand that each bot level wins from the level below it, in a poker game.

The level calibration (``python -m fagin.search.levels``) scores hands won and lost,
which in poker rewards calling down and punishes a sound fold; a bot level's worth at
the table is its chips. This plays seat-alternated hands between neighbouring levels
and prints each level's mean chips a hand against the one below with a 95 % interval
(normal approximation), one core:

    .venv/bin/python bench/level_chips.py --game leduc_poker --hands 4000 --seed 7
"""
import argparse
import statistics

from fagin.search.arena import run_games
from fagin.search.levels import MAX_LEVEL, MIN_LEVEL


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="leduc_poker")
    ap.add_argument("--hands", type=int, default=4000, help="hands per pair of neighbouring levels")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    print("| level | chips a hand against the level below | 95 % interval |\n|---|---|---|")
    for n in range(MIN_LEVEL + 1, MAX_LEVEL + 1):
        lineup = [f"level:{n}", f"level:{n - 1}"]
        jobs = [(args.game, lineup, [g % 2, (g + 1) % 2], (args.seed * 1_000_003 + n) * 100_003 + g, None)
                for g in range(args.hands)]
        won = [r[0] for r in run_games(jobs, 1, False)]
        mean, half = statistics.fmean(won), 1.96 * statistics.stdev(won) / len(won) ** 0.5
        print(f"| {n} | {mean:+.3f} | [{mean - half:+.3f}, {mean + half:+.3f}] |", flush=True)


if __name__ == "__main__":
    main()
