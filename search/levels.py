"""Bot levels 1-10, the ``auto`` algorithm, and the temperature of a move choice.

A frontend offers levels, not iteration counts: ``SearchSettings.level``
(and the bot spec ``level:N``) picks a search budget, an algorithm and a
temperature from the game's ladder (``GameSpec.levels``, else
:data:`DEFAULT_LADDER`).  Low levels are weak because they search little and
play their policy at a high temperature (the search's policy raised to the
power 1/T and drawn from), so that they make the mistakes of a beginner
rather than random ones; high levels search more and play the best move.
Each game's spec records the calibration (``python -m fagin.search.levels
--game G``): neighbouring levels in seat-rotated games, each shown to beat
the one below.

``auto``, the default algorithm, resolves per game and player count to what
the arena shows strongest (``GameSpec.auto``), e.g. regret-matching ISMCTS
playing its mixed policy in Leduc poker.
"""
from __future__ import annotations

import argparse
import math
import random
import sys

from fagin.engines.game import AutoAlgorithm, Level

#: The levels a client may ask for.
MIN_LEVEL, MAX_LEVEL = 1, 10
#: The hottest temperature a client may ask for (T=10 is all but uniform over the policy's support).
MAX_TEMPERATURE = 10.0
#: The search algorithms, and the selection each runs in the tree (UCB, regret matching,
#: outcome sampling).
ALGORITHMS = ("ismcts", "ismcts_rm", "oos")
SELECTION = {"ismcts": "ucb", "ismcts_rm": "rm", "oos": "os"}


#: Ten levels spaced by measured strength, not by budget (the measurements: docs/search.md, "Bot levels").
DEFAULT_LADDER = (
    Level(1), Level(4, 1.0), Level(4, 0.4), Level(4), Level(8),
    Level(16), Level(32), Level(64), Level(300), Level(4000),
)


def ladder(spec):
    """The game's ten levels: ``GameSpec.levels`` (ten :class:`Level` records), else
    :data:`DEFAULT_LADDER`."""
    own = getattr(spec, "levels", None)
    if not own:
        return DEFAULT_LADDER
    if len(own) != MAX_LEVEL - MIN_LEVEL + 1:
        raise ValueError(f"{spec.id}: GameSpec.levels holds {len(own)} levels, not {MAX_LEVEL}")
    return tuple(own)


def level(spec, n: int) -> Level:
    """Level ``n`` (1 to 10) of the game ``spec``; ValueError naming the range otherwise."""
    if isinstance(n, bool) or not isinstance(n, int) or not MIN_LEVEL <= n <= MAX_LEVEL:
        raise ValueError(f"level: must be from {MIN_LEVEL} to {MAX_LEVEL}, got {n!r}")
    return ladder(spec)[n - 1]


def auto_algorithm(spec, players: int) -> tuple:
    """(algorithm, sample_action) that ``auto`` runs for ``players`` seats of the game."""
    table = {entry.players: entry for entry in getattr(spec, "auto", ()) or ()}
    chosen = table.get(players) or table.get(None) or AutoAlgorithm(players, "ismcts", False)
    return chosen.algorithm, chosen.sample_action


def resolve(spec, players: int, algorithm: str) -> tuple:
    """(algorithm, sample_action by default) for a named algorithm or ``auto`` / empty."""
    if algorithm in ("", "auto"):
        return auto_algorithm(spec, players)
    return algorithm, False


def choose(stats, temperature: float, rng: random.Random, best: int):
    """The action to play from root statistics: ``best`` at temperature 0, else drawn with
    probability proportional to policy^(1/temperature) (1: the policy itself)."""
    if temperature <= 0:
        return best
    weights = [s.policy for s in stats]
    if temperature != 1.0:
        top = max(weights)
        if top <= 0:
            weights = [1.0] * len(stats)
        else:
            # Scaled by the largest first, so that a cold temperature does not underflow.
            weights = [(w / top) ** (1.0 / temperature) if w > 0 else 0.0 for w in weights]
    if sum(weights) <= 0:
        return best
    return rng.choices([s.action for s in stats], weights)[0]


def check_temperature(t: float, field: str = "temperature") -> float:
    if not (math.isfinite(t) and 0 <= t <= MAX_TEMPERATURE):
        raise ValueError(f"{field}: must be a number from 0 to {MAX_TEMPERATURE:g}, got {t}")
    return t


# ------------------------------------------------------------------ calibration

def calibrate(game_id, players, games, seed=1, workers=None, levels=range(MIN_LEVEL, MAX_LEVEL + 1),
              progress=True):
    """Seat-rotated games between neighbouring levels; rows (level, score against the one
    below, its 95 % interval, results) and the tournament's ratings."""
    import os

    from fagin.search.arena import run_games, wilson
    from fagin.search.tournament import GameRecord, pairwise_results, rate
    levels = list(levels)
    bots = [f"level:{n}" for n in levels]
    per = -(-games // players) * players
    jobs = []
    for k in range(1, len(bots)):
        lo, hi = bots[k - 1], bots[k]
        # The stronger level at one seat, the weaker at the rest, and the other way round:
        # with more than two players both kinds of table are met.
        for lineup in ([hi] + [lo] * (players - 1), [lo] + [hi] * (players - 1)) if players > 2 else ([hi, lo],):
            for g in range(per):
                seats_of = [(i + g) % players for i in range(players)]
                jobs.append((game_id, list(lineup), seats_of, (seed * 1_000_003 + k) * 100_003 + g
                             + (0 if lineup[0] == hi else 50_000), None))
    results = run_games(jobs, workers or os.cpu_count() or 1, progress)
    records = [GameRecord(list(j[1]), list(r)) for j, r in zip(jobs, results)]
    pairs = pairwise_results(records)
    rows = []
    for k in range(1, len(bots)):
        s, n = pairs.get((bots[k], bots[k - 1]), (0.0, 0))
        rows.append((levels[k], s / n if n else 0.0, wilson(s, n), n))
    return rows, rate(records, bots, samples=100, seed=seed)


def calibration_table(spec, players, rows, ratings):
    """The markdown table a game's spec records."""
    by = {r.bot: r for r in ratings}
    lines = [f"| level | iterations | temperature | algorithm | Elo ({players} players, level 1 = 0) "
             f"| score against the level below | 95 % interval |", "|---|---|---|---|---|---|---|"]
    below = {lv: (s, ci, n) for lv, s, ci, n in rows}
    for n in range(MIN_LEVEL, MAX_LEVEL + 1):
        lv = level(spec, n)
        r = by.get(f"level:{n}")
        elo = f"{r.elo:.0f} [{r.low:.0f}, {r.high:.0f}]" if r else ""
        s = below.get(n)
        vs = f"{s[0]:.1%} of {s[2]}" if s else ""
        ci = f"[{s[1][0]:.1%}, {s[1][1]:.1%}]" if s else ""
        lines.append(f"| {n} | {lv.iterations} | {lv.temperature:g} | {lv.algorithm} | {elo} | {vs} | {ci} |")
    return "\n".join(lines)


def main(argv=None):
    from fagin.engines.registry import GAMES
    parser = argparse.ArgumentParser(prog="python -m fagin.search.levels", description="Calibrates a game's bot levels: seat-rotated games "
                                                 "between neighbouring levels, printed as its spec's table.")
    parser.add_argument("--game", required=True)
    parser.add_argument("--players", type=int, help="default: the game's fewest")
    parser.add_argument("--games", type=int, default=100, help="games per pair of neighbouring levels")
    parser.add_argument("--levels", default=f"{MIN_LEVEL}-{MAX_LEVEL}", help="a range, e.g. 1-6")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int)
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    spec = GAMES.get(args.game)
    if spec is None:
        parser.error(f"--game: unknown game {args.game!r}; known games: {', '.join(sorted(GAMES))}")
    first, _, last = args.levels.partition("-")
    try:
        span = range(int(first), int(last or first) + 1)
        for n in span:
            level(spec, n)
    except ValueError:
        parser.error(f"--levels: a range within {MIN_LEVEL}-{MAX_LEVEL}, e.g. 1-6; got {args.levels!r}")
    players = args.players or spec.min_players
    rows, ratings = calibrate(args.game, players, args.games, args.seed, args.workers, span, not args.quiet)
    print(calibration_table(spec, players, rows, ratings))
    weak = [lv for lv, s, (lo, _), _ in rows if lo <= 0.5]
    print(f"\neach level beats the one below clearly (95 % interval above 50 %): "
          f"{'yes' if not weak else 'no, not levels ' + ', '.join(map(str, weak))}")
    return 0 if not weak else 1


if __name__ == "__main__":
    sys.exit(main())
