"""Seat-rotated matches between bots, with win shares and confidence intervals.

Command line::

    python -m fagin.search.arena --game kids_of_london --players 4 --games 400 \\
        --lineup ismcts:2000 random random random --workers 2

Game ``g`` seats lineup entry ``i`` at seat ``(i + g) % players``, so every
entry plays every seat equally often (for ``games`` a multiple of the player
count).  A bot's win share is its wins over its games; a game may have
several winners or none (Kids of London ties), so the fair share is the mean
number of winners per game over the number of players, printed beside it.
"""
from __future__ import annotations

import argparse
import math
import random
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from fagin.engines import new_game
from fagin.search.bots import make_bot


def play_game(game_id, lineup, seats_of, seed, options=None):
    """Plays one game; ``seats_of[i]`` is the seat of lineup entry ``i``. Returns per-entry returns."""
    bots = [make_bot(spec) for spec in lineup]
    players = len(lineup)
    entry_at = {seat: i for i, seat in enumerate(seats_of)}
    state = new_game(game_id, players, **(options or {}))
    rng = random.Random(seed)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply(state.sample_chance(rng.getrandbits(63)))
            continue
        seat = state.current_player()
        action = bots[entry_at[seat]].choose(state, seat, rng.getrandbits(63))
        state.apply(action)
    returns = state.returns()
    return [returns[seats_of[i]] for i in range(players)]


def wins_of(returns):
    """Each entry's share of the win: a game's returns as they are where they are win/loss
    (0 to 1 each, adding up to at most 1); otherwise (chips, points) the highest return wins,
    shared on a tie, and nobody wins when all are equal."""
    if all(0.0 <= r <= 1.0 for r in returns) and sum(returns) <= 1.0 + 1e-9:
        return list(returns)
    top = max(returns)
    if top == min(returns):
        return [0.0] * len(returns)
    best = [r == top for r in returns]
    return [1.0 / sum(best) if b else 0.0 for b in best]


def _play(args):
    return play_game(*args)


def wilson(wins, n, z=1.96):
    """95 % Wilson score interval of a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class EntryResult:
    spec: str
    games: int
    wins: float
    total_return: float = 0.0

    @property
    def mean_return(self):
        return self.total_return / self.games if self.games else 0.0

    @property
    def share(self):
        return self.wins / self.games if self.games else 0.0

    @property
    def interval(self):
        return wilson(self.wins, self.games)


@dataclass
class MatchResult:
    game: str
    players: int
    games: int
    entries: list
    fair_share: float

    def table(self):
        lines = [f"{self.game}, {self.players} players, {self.games} seat-rotated games; "
                 f"fair share {self.fair_share:.1%}",
                 f"{'entry':<4}{'bot':<16}{'wins':>8}{'share':>9}   95% interval    mean return"]
        for i, e in enumerate(self.entries):
            lo, hi = e.interval
            lines.append(f"{i:<4}{e.spec:<16}{e.wins:>8.0f}{e.share:>9.1%}   [{lo:.1%}, {hi:.1%}]"
                         f"{e.mean_return:>15.3f}")
        return "\n".join(lines)


def match(game_id, lineup, games, seed=0, workers=1, progress=False, options=None):
    """Plays ``games`` seat-rotated games of ``lineup`` (one bot spec per seat)."""
    players = len(lineup)
    for spec in lineup:
        make_bot(spec)      # fail fast on a bad spec
    jobs = []
    for g in range(games):
        seats_of = [(i + g) % players for i in range(players)]
        jobs.append((game_id, list(lineup), seats_of, seed * 1_000_003 + g, options))
    results = run_games(jobs, workers, progress, chunksize=4)
    totals = [0.0] * players
    returns = [0.0] * players
    winners = 0.0
    for r in results:
        wins = wins_of(r)
        for i in range(players):
            totals[i] += wins[i]
            returns[i] += r[i]
        winners += sum(wins)
    entries = [EntryResult(spec, games, totals[i], returns[i]) for i, spec in enumerate(lineup)]
    return MatchResult(game_id, players, games, entries, winners / games / players if games else 0.0)


def run_games(jobs, workers=1, progress=False, chunksize=2):
    """Each job's per-entry returns (a job is :func:`play_game`'s arguments), played on
    ``workers`` processes, with a progress bar if asked."""
    if workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            return _progress(pool.map(_play, jobs, chunksize=chunksize), len(jobs), progress)
    return _progress(map(_play, jobs), len(jobs), progress)


def _progress(iterable, total, enabled):
    if enabled:
        try:
            from tqdm import tqdm
            return list(tqdm(iterable, total=total, unit="game", file=sys.stderr))
        except ImportError:
            pass
    return list(iterable)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="kids_of_london")
    parser.add_argument("--players", type=int, help="defaults to the lineup's length")
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="game option (repeatable)")
    parser.add_argument("--lineup", nargs="+", required=True,
                        help="one bot spec per seat: random, heuristic, ismcts[:ITERATIONS[xTHREADS]], "
                             "ismcts@MSms[xTHREADS], each ismcts spec optionally ending in :policy or :random "
                             "(see fagin.search.bots.make_bot)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)
    if args.players is not None and args.players != len(args.lineup):
        parser.error(f"--players {args.players} does not match the {len(args.lineup)} bots of --lineup")
    options = {}
    for item in args.option:
        name, sep, value = item.partition("=")
        if not sep:
            parser.error(f"--option: expected NAME=VALUE, got {item!r}")
        options[name] = value
    result = match(args.game, args.lineup, args.games, seed=args.seed, workers=args.workers,
                   progress=True, options=options)
    print(result.table())
    return 0


if __name__ == "__main__":
    sys.exit(main())
