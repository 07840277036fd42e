"""Tournaments: many bots on one game, seat-rotated, rated on an Elo scale with intervals.

Command line (``fagin arena`` is the same)::

    python -m fagin.search.tournament --game gangs_of_kyoto --players 3 \\
        --bots random heuristic ismcts:100 ismcts:300 ismcts:1000 --games 60 --workers 2 \\
        --report reports/gangs_of_kyoto

Every lineup (a choice of bots for the seats) plays ``games`` games, rotated
so that each of its entries sits at every seat equally often.  With two
players the lineups are every pair of bots; with more, every choice of bots
for the seats that holds at least two different ones (a bot may fill several
seats), or a seeded sample of them when there are more than ``max_lineups``.

Each game is read as pairwise results between the seats of different bots:
the higher return wins, equal returns draw.  The ratings are the
Bradley-Terry (Elo) maximum-likelihood fit of all those results -- a batch
fit, so the order of the games does not matter, as it would to an online
rating (Elo's updates, TrueSkill, OpenSkill) of bots whose strength never
changes -- on the Elo scale (400 points: 10 to 1 odds), anchored so that the
first bot named is 0.  Intervals are the 2.5th and 97.5th percentiles of
the fit over games resampled with replacement (a bootstrap).
"""
from __future__ import annotations

import argparse
import itertools
import math
import random
import sys
import time
from dataclasses import dataclass, field

import numpy as np

from fagin.engines.registry import GAMES
from fagin.search.arena import STOP_RULES, match, run_games
from fagin.search.bots import make_bot, spec_help

ELO = 400.0 / math.log(10.0)      # Elo points per natural-log unit of odds


@dataclass
class GameRecord:
    """One game played: its lineup (a bot spec per entry) and each entry's return."""

    lineup: list
    returns: list


@dataclass
class Rating:
    bot: str
    elo: float
    low: float
    high: float
    games: int
    score: float          # share of its pairwise results won (draws half)


@dataclass
class TournamentResult:
    game: str
    players: int
    bots: list
    records: list
    ratings: list
    pairwise: dict = field(default_factory=dict)      # (a, b) -> [score of a, results]
    seconds: float = 0.0

    def table(self):
        lines = [f"{self.game}, {self.players} players: {len(self.records)} games, "
                 f"{len({tuple(r.lineup) for r in self.records})} seat-rotated lineups",
                 f"{'rank':<5}{'bot':<24}{'Elo':>7}   95% interval{'games':>8}{'score':>8}"]
        for i, r in enumerate(sorted(self.ratings, key=lambda r: -r.elo)):
            lines.append(f"{i + 1:<5}{r.bot:<24}{r.elo:>7.0f}   [{r.low:>5.0f}, {r.high:>5.0f}]"
                         f"{r.games:>8}{r.score:>8.1%}")
        lines.append("")
        lines.append("score of the row's bot against the column's (pairwise results, draws half):")
        width = max(10, max(len(b) for b in self.bots) + 2)
        lines.append(" " * width + "".join(f"{b[:width - 2]:>{width}}" for b in self.bots))
        for a in self.bots:
            cells = []
            for b in self.bots:
                s, n = self.pairwise.get((a, b), (0.0, 0))
                cells.append(f"{'-' if a == b or not n else f'{s / n:.0%}':>{width}}")
            lines.append(f"{a:<{width}}" + "".join(cells))
        return "\n".join(lines)

    def to_json(self):
        return {
            "game": self.game, "players": self.players, "bots": self.bots, "seconds": round(self.seconds, 1),
            "ratings": [vars(r) for r in self.ratings],
            "pairwise": [{"bot": a, "against": b, "score": s, "results": n}
                         for (a, b), (s, n) in sorted(self.pairwise.items())],
            "games": [{"lineup": r.lineup, "returns": r.returns} for r in self.records],
        }


def lineups(bots, players, max_lineups=60, seed=0):
    """The lineups a tournament plays (see the module's docstring)."""
    if len(set(bots)) != len(bots):
        raise ValueError("bots: each bot once (a lineup may seat one bot several times)")
    if len(bots) < 2:
        raise ValueError("bots: at least two")
    if players == 2:
        found = list(itertools.combinations(bots, 2))
    else:
        found = [c for c in itertools.combinations_with_replacement(bots, players) if len(set(c)) > 1]
    if len(found) > max_lineups:
        found = sorted(random.Random(seed).sample(found, max_lineups), key=found.index)
    return [list(c) for c in found]


def pairwise_results(records):
    """{(a, b): (a's score, results)} over every pair of seats of different bots."""
    out = {}
    for r in records:
        for i, j in itertools.permutations(range(len(r.lineup)), 2):
            a, b = r.lineup[i], r.lineup[j]
            if a == b:
                continue
            s, n = out.get((a, b), (0.0, 0))
            x, y = r.returns[i], r.returns[j]
            out[(a, b)] = (s + (1.0 if x > y else 0.5 if x == y else 0.0), n + 1)
    return out


def _wins_matrix(records, index):
    """W[a, b]: a's score against b (draws half); the games' pairs counted once each way."""
    w = np.zeros((len(index), len(index)))
    for r in records:
        for i, j in itertools.combinations(range(len(r.lineup)), 2):
            a, b = index[r.lineup[i]], index[r.lineup[j]]
            if a == b:
                continue
            x, y = r.returns[i], r.returns[j]
            s = 1.0 if x > y else 0.5 if x == y else 0.0
            w[a, b] += s
            w[b, a] += 1.0 - s
    return w


def bradley_terry(w, iterations=2000, prior=0.5):
    """Log-strengths of the Bradley-Terry fit of score matrix ``w`` (Hunter's MM algorithm),
    with ``prior`` draws against a virtual equal player for each bot so that an undefeated
    or winless one has a finite rating (the fit is then unique); the first is 0."""
    k = len(w)
    n = w + w.T                                  # results between each pair
    wins = w.sum(axis=1) + prior
    p = np.ones(k)
    for _ in range(iterations):
        denom = (n / (p[:, None] + p[None, :])).sum(axis=1) + 2 * prior / (p + 1.0)
        new = wins / denom
        new /= math.exp(np.log(new).mean())
        if np.max(np.abs(new - p)) < 1e-10:
            p = new
            break
        p = new
    logs = np.log(p)
    return logs - logs[0]


def rate(records, bots, samples=200, seed=0):
    """Ratings of ``bots`` from ``records``: the fit, and the bootstrap's 95 % interval."""
    index = {b: i for i, b in enumerate(bots)}
    fit = bradley_terry(_wins_matrix(records, index)) * ELO
    rng = random.Random(seed)
    boot = []
    for _ in range(samples):
        resampled = [records[rng.randrange(len(records))] for _ in records]
        boot.append(bradley_terry(_wins_matrix(resampled, index), iterations=500) * ELO)
    boot = np.array(boot)
    pairs = pairwise_results(records)
    out = []
    for b, i in index.items():
        played = sum(1 for r in records if b in r.lineup)
        s = sum(v[0] for (x, _), v in pairs.items() if x == b)
        n = sum(v[1] for (x, _), v in pairs.items() if x == b)
        lo, hi = np.percentile(boot[:, i], [2.5, 97.5]) if samples else (fit[i], fit[i])
        out.append(Rating(b, float(fit[i]), float(lo), float(hi), played, s / n if n else 0.0))
    return out


def tournament(game_id, bots, players, games=40, seed=1, workers=1, progress=False, options=None,
               max_lineups=60, bootstrap=200, paired=False):
    """Plays every lineup ``games`` seat-rotated games (rounded up to a multiple of the
    players) and rates the bots; ``paired``: a lineup's games come in deals of one game per
    rotation sharing their chance draws (see :mod:`fagin.search.arena`)."""
    spec = GAMES.get(game_id)
    if spec is None:
        raise ValueError(f"game: unknown game {game_id!r}; known games: {', '.join(sorted(GAMES))}")
    if not spec.min_players <= players <= spec.max_players:
        raise ValueError(f"players: {game_id} takes {spec.min_players} to {spec.max_players} players")
    for b in bots:
        make_bot(b)          # a bad spec fails before any game
    per_lineup = -(-games // players) * players
    jobs = []
    for li, lineup in enumerate(lineups(bots, players, max_lineups, seed)):
        for g in range(per_lineup):
            seats_of = [(i + g) % players for i in range(players)]
            game_seed = (seed * 1_000_003 + li) * 100_003 + g
            if paired:
                deal_seed = (seed * 1_000_003 + li) * 100_003 + g // players
                game_seed = (deal_seed, game_seed + 50_000_017)
            jobs.append((game_id, lineup, seats_of, game_seed, options))
    started = time.monotonic()
    results = run_games(jobs, workers, progress)
    records = [GameRecord(list(job[1]), list(ret)) for job, ret in zip(jobs, results)]
    return TournamentResult(game_id, players, list(bots), records, rate(records, list(bots), bootstrap, seed),
                            pairwise_results(records), time.monotonic() - started)


def build_parser(parser=None):
    parser = parser or argparse.ArgumentParser(prog="fagin arena", description=__doc__.split("\n\n")[0],
                                               formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.epilog = spec_help()
    parser.add_argument("--game", required=True, help="game id (fagin games)")
    parser.add_argument("--players", type=int, help="default: the game's fewest")
    parser.add_argument("--bots", nargs="+", required=True,
                        help="bot specs, one per entrant (the bot specs below)")
    parser.add_argument("--games", type=int, default=40, help="games per lineup (rounded up to a multiple "
                                                                "of the players)")
    parser.add_argument("--max-lineups", type=int, default=60)
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="game option (repeatable)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=None, help="processes (default: one per core)")
    parser.add_argument("--bootstrap", type=int, default=200, help="resamples for the rating intervals")
    parser.add_argument("--report", metavar="DIR", help="write results.json, PNG plots and report.html here")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--paired", action="store_true",
                        help="each deal played once per seat rotation, with the same chance draws")
    parser.add_argument("--stop", choices=STOP_RULES, default="none",
                        help="two bots only: a match that stops once decided (an SPRT, or the 95 %% "
                             "interval of the first bot's score excluding 50 %%); --games is then the most")
    parser.add_argument("--check-every", type=int, default=4, metavar="DEALS",
                        help="with --stop: deals between looks of the stopping rule")
    parser.add_argument("--sprt-delta", type=float, default=0.05,
                        help="with --stop sprt: the alternative, the first bot scoring this much above 50 %%")
    return parser


def run(args):
    """Runs the tournament a parsed command line asks for; returns the exit status."""
    import os
    options = {}
    for item in args.option:
        name, sep, value = item.partition("=")
        if not sep:
            print(f"--option: expected NAME=VALUE, got {item!r}", file=sys.stderr)
            return 2
        options[name] = value
    spec = GAMES.get(args.game)
    players = args.players or (spec.min_players if spec else 2)
    if args.stop != "none":
        return _stopping_match(args, players, options)
    try:
        result = tournament(args.game, args.bots, players, games=args.games, seed=args.seed,
                            workers=args.workers or os.cpu_count() or 1, progress=not args.quiet,
                            options=options, max_lineups=args.max_lineups, bootstrap=args.bootstrap,
                            paired=args.paired)
    except ValueError as e:
        print(f"fagin arena: {e}", file=sys.stderr)
        return 2
    print(result.table())
    if args.report:
        from fagin.search.report import write_report
        path = write_report(result, args.report, command=command_line(getattr(args, "argv", sys.argv[1:])))
        print(f"report: {path}")
    return 0


def _stopping_match(args, players, options):
    """``--stop``: the first bot at one seat, the second at the others, until decided."""
    import os
    if len(args.bots) != 2:
        print("fagin arena: --stop: give exactly two bots (the first is tested against the second)",
              file=sys.stderr)
        return 2
    lineup = [args.bots[0]] + [args.bots[1]] * (players - 1)
    try:
        result = match(args.game, lineup, args.games, seed=args.seed,
                       workers=args.workers or os.cpu_count() or 1, progress=not args.quiet, options=options,
                       paired=args.paired, stop=args.stop, check_every=args.check_every,
                       sprt_delta=args.sprt_delta, keep_going=True)
    except ValueError as e:
        print(f"fagin arena: {e}", file=sys.stderr)
        return 2
    print(result.table())
    for g, error in result.failed:
        print(f"fagin arena: game {g} failed: {error}", file=sys.stderr)
    return 1 if result.failed else 0


def command_line(argv, prog="python -m fagin.search.tournament"):
    """The command as a report shows it: a path inside the current directory relative to it, so
    that a report names no checkout (``--report /x/fagin/docs/arena/g`` run in /x/fagin: docs/arena/g)."""
    import os
    import shlex
    cwd = os.getcwd()

    def relative(word):
        flag, sep, value = word.partition("=") if word.startswith("--") else ("", "", word)
        if os.path.isabs(value) and os.path.commonpath([cwd, os.path.abspath(value)]) == cwd:
            value = os.path.relpath(value, cwd)
        return flag + sep + value

    return " ".join([prog] + [shlex.quote(relative(str(word))) for word in argv])


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser().parse_args(argv)
    args.argv = argv
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
