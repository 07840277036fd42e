"""How long a bot level thinks a move: the wall time of each of its decisions in whole games.

A frontend's top level must answer within a second a move on this machine. This
plays whole games in which every seat is the level under test (so the positions are the ones
that level meets), times each decision of each seat on one core, and prints per game and
player count the decisions timed and the mean, median, 95th percentile and slowest move in
milliseconds, with whether the slowest stayed within the limit:

    .venv/bin/python bench/level_time.py                       # level 10, every seed game, 2-4 players
    .venv/bin/python bench/level_time.py --game london --players 2 3 --games 3 --level 10

Run it on an idle machine: a loaded core stretches every move.
"""
import argparse
import statistics
import time

from fagin.engines.registry import GAMES
from fagin.search.bots import LevelBot

from equal_time import decision_times     # bench/, the script's own folder

SEED_GAMES = ("kids_of_london", "london", "oliver_twist", "gangs_of_kyoto", "fagins_gang")


def move_times(game_id, players, level, seed):
    """The milliseconds of every decision in one game that ``level`` plays at every seat."""
    return decision_times(game_id, players, LevelBot(level), seed, time.perf_counter)


def percentile(xs, q):
    """The ``q`` quantile of ``xs`` (nearest rank)."""
    ordered = sorted(xs)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", choices=sorted(GAMES), action="append",
                    help="a game (repeatable); default: the five seed games")
    ap.add_argument("--players", type=int, nargs="+", help="player counts (default 2 to 4, within the game's)")
    ap.add_argument("--level", type=int, default=10)
    ap.add_argument("--games", type=int, default=2, help="whole games a game and player count")
    ap.add_argument("--limit-ms", type=float, default=1000.0, help="the most a move may take")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    print(f"level {args.level}: milliseconds a move, every seat playing it, one core")
    print("| game | players | moves | mean | median | p95 | slowest | within limit |")
    print("|---|---|---|---|---|---|---|---|")
    over = []
    for game_id in args.game or SEED_GAMES:
        spec = GAMES[game_id]
        counts = args.players or range(2, 5)
        for players in [n for n in counts if spec.min_players <= n <= spec.max_players]:
            times = []
            for g in range(args.games):
                times += move_times(game_id, players, args.level, args.seed * 1_000_003 + g)
            slowest = max(times)
            ok = slowest <= args.limit_ms
            if not ok:
                over.append(f"{game_id} at {players}")
            print(f"| {game_id} | {players} | {len(times)} | {statistics.fmean(times):.1f} | "
                  f"{statistics.median(times):.1f} | {percentile(times, 0.95):.1f} | {slowest:.1f} | "
                  f"{'yes' if ok else 'NO'} |", flush=True)
    print(f"\nevery move within {args.limit_ms:g} ms: " + ("yes" if not over else "no: " + ", ".join(over)))
    return 0 if not over else 1


if __name__ == "__main__":
    raise SystemExit(main())
