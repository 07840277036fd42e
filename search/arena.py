"""Seat-rotated matches between bots, with win shares and confidence intervals.

Command line::

    python -m fagin.search.arena --game kids_of_london --players 4 --games 400 \\
        --lineup ismcts:2000 random random random --workers 2

Game ``g`` seats lineup entry ``i`` at seat ``(i + g) % players``, so every
entry plays every seat equally often (for ``games`` a multiple of the player
count).  With ``--paired`` the games come in deals of ``players`` games: one
deal's games see the same chance draws (each chance event of a game takes the
deal's next random number: the same opening, and the same draws for as long
as the games stay alike), each with the seats rotated once more, so that luck
of the deal favours no entry; then the interval is over deals.

``--stop sprt`` or ``--stop interval`` ends a match early once it is decided
(looked at after every ``--check-every`` deals, so the result does not depend
on ``--workers``): the SPRT accepts "entry 0 scores ``--sprt-delta`` above the
fair share" or "it scores the fair share" (error rates 5 % each; the normal
approximation of the GSPRT, on deals); ``interval`` stops when the 95 %
interval of entry 0's score excludes the fair share.  Neither decides before
``MIN_DEALS`` deals: both estimate the spread of the deals' scores from the
deals themselves, and a handful of alike deals (four wins out of four) would
otherwise look like certainty.  ``--games`` is then the
most games played.  A bot's win share is its wins over its games; a game may have
several winners or none (Kids of London ties), so the fair share is the mean
number of winners per game over the number of players, printed beside it.

A game that fails (a remote bot's server gone, a bot that recommends an illegal
move, as an earlier build may under a rule fixed since) does not end the match
on the command line: it is reported, with the other games of its deal left out
of the figures so that every deal counted is whole, and the exit status is 1.
"""
from __future__ import annotations

import argparse
import math
import random
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from fagin.engines import new_game
from fagin.engines.game import decisions
from fagin.search.bots import make_bot, spec_help


def play_game(game_id, lineup, seats_of, seed, options=None):
    """Plays one game; ``seats_of[i]`` is the seat of lineup entry ``i``. Returns per-entry returns.

    ``seed`` is one number (chance and the bots' seeds drawn from one stream), or a pair
    ``(chance_seed, bot_seed)`` of separate streams: games of one deal share the chance seed."""
    bots = [make_bot(spec) for spec in lineup]
    players = len(lineup)
    entry_at = {seat: i for i, seat in enumerate(seats_of)}
    state = new_game(game_id, players, **(options or {}))
    if isinstance(seed, (tuple, list)):
        chance, rng = random.Random(seed[0]), random.Random(seed[1])
    else:
        chance = rng = random.Random(seed)
    for seat in decisions(state, chance):
        state.apply(bots[entry_at[seat]].choose(state, seat, rng.getrandbits(63)))
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


@dataclass
class GameFailed:
    """A game that ended in an error (a remote bot that failed, or recommended an illegal
    move) instead of returns: what :func:`match` with ``keep_going`` reports and leaves out."""
    error: str


def _play_kept(args):
    try:
        return play_game(*args)
    except Exception as e:      # any bot's failure ends only its own game
        return GameFailed(f"{type(e).__name__}: {e}")


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


def pairwise_score(returns, entry=0):
    """Entry ``entry``'s score against the other entries of one game: over each other seat,
    1 for a higher return, 0.5 for an equal one, 0 for a lower; 50 % is fair at any count."""
    mine = returns[entry]
    others = [r for i, r in enumerate(returns) if i != entry]
    return sum(1.0 if mine > r else 0.5 if mine == r else 0.0 for r in others) / len(others)


def mean_interval(xs, z=1.96):
    """(mean, low, high) of observations ``xs`` (deals' scores): the normal interval of the mean,
    clipped to [0, 1]; with no spread yet, Wilson's on the mean as a share of ``len(xs)``."""
    n = len(xs)
    if n == 0:
        return 0.0, 0.0, 1.0
    m = sum(xs) / n
    var = sum((x - m) ** 2 for x in xs) / (n - 1) if n > 1 else 0.0
    if var <= 0:
        lo, hi = wilson(m * n, n, z)
        return m, lo, hi
    half = z * math.sqrt(var / n)
    return m, max(0.0, m - half), min(1.0, m + half)


#: SPRT error rates (false "stronger", false "not stronger") and the bounds on its log-likelihood ratio.
SPRT_ALPHA = SPRT_BETA = 0.05
SPRT_LOWER = math.log(SPRT_BETA / (1 - SPRT_ALPHA))
SPRT_UPPER = math.log((1 - SPRT_BETA) / SPRT_ALPHA)
STOP_RULES = ("none", "sprt", "interval")
MIN_DEALS = 20      # no early verdict on fewer deals (40 games at 2 players)


def sprt_llr(xs, delta, fair=0.5):
    """The log-likelihood ratio of "the mean score is fair + delta" over "it is fair", from the
    deals' scores ``xs`` (the GSPRT's normal approximation, the variance estimated from ``xs``;
    0 while there is no spread to estimate it from)."""
    n = len(xs)
    if n < 2:
        return 0.0
    m = sum(xs) / n
    var = sum((x - m) ** 2 for x in xs) / (n - 1)
    if var <= 0:
        var = 1.0 / (4 * n)       # no spread yet (every deal alike): as if one more deal differed
    mu0, mu1 = fair, fair + delta
    return (mu1 - mu0) / var * (sum(xs) - n * (mu0 + mu1) / 2)


def decided(xs, rule, delta=0.05, fair=0.5):
    """The verdict of stopping rule ``rule`` on deals' scores ``xs``: None while undecided,
    else "stronger" or "weaker" (interval) / "stronger" or "not stronger" (SPRT); None on
    fewer than ``MIN_DEALS`` deals."""
    if len(xs) < MIN_DEALS:
        return None
    if rule == "interval":
        _, lo, hi = mean_interval(xs)
        if lo > fair:
            return "stronger"
        if hi < fair:
            return "weaker"
    elif rule == "sprt":
        llr = sprt_llr(xs, delta, fair)
        if llr >= SPRT_UPPER:
            return "stronger"
        if llr <= SPRT_LOWER:
            return "not stronger"
    return None


@dataclass
class MatchResult:
    game: str
    players: int
    games: int
    entries: list
    fair_share: float
    paired: bool = False
    deal_scores: list = None      # entry 0's pairwise score in each deal (a game each when unpaired)
    stop: str = "none"
    verdict: str | None = None    # what the stopping rule decided (None: it did not stop early)
    failed: list = field(default_factory=list)   # (game number, error) of the games that failed
    left_out: int = 0             # games left out of the figures: the failed ones and their deals'

    @property
    def score(self):
        """(mean, low, high): entry 0's pairwise score against the others, the interval over deals."""
        return mean_interval(self.deal_scores or [])

    def table(self):
        kind = f"{self.games // self.players} paired deals ({self.games} games)" if self.paired else \
            f"{self.games} seat-rotated games"
        lines = [f"{self.game}, {self.players} players, {kind}; "
                 f"fair share {self.fair_share:.1%}",
                 f"{'entry':<4}{'bot':<16}{'wins':>8}{'share':>9}   95% interval    mean return"]
        for i, e in enumerate(self.entries):
            lo, hi = e.interval
            lines.append(f"{i:<4}{e.spec:<16}{e.wins:>8.0f}{e.share:>9.1%}   [{lo:.1%}, {hi:.1%}]"
                         f"{e.mean_return:>15.3f}")
        if self.deal_scores:
            m, lo, hi = self.score
            unit = "deals" if self.paired else "games"
            lines.append(f"entry 0's pairwise score against the others: {m:.1%} [{lo:.1%}, {hi:.1%}] "
                         f"(95 %, over {len(self.deal_scores)} {unit}; fair 50 %)")
        if self.failed:
            g, error = self.failed[0]
            lines.append(f"{len(self.failed)} game(s) failed and {self.left_out} game(s) are left out of the "
                         f"figures{' (every game of a failed deal)' if self.paired else ''}; "
                         f"the first, game {g}: {error}")
        if self.stop != "none":
            lines.append(f"stopping rule {self.stop}: " + (f"stopped, {self.verdict}" if self.verdict
                                                          else "undecided at the most games"))
        return "\n".join(lines)


def match_jobs(game_id, lineup, games, seed=0, options=None, paired=False):
    """The jobs (play_game's arguments) of a match, in deal order: ``paired``, deal ``d``'s
    games ``d * players + r`` share one chance seed, rotation ``r`` each."""
    players = len(lineup)
    jobs = []
    for g in range(games):
        seats_of = [(i + g) % players for i in range(players)]
        if paired:
            deal = g // players
            game_seed = (seed * 1_000_003 + deal, seed * 1_000_003 + g + 7_777_777)
        else:
            game_seed = seed * 1_000_003 + g
        jobs.append((game_id, list(lineup), seats_of, game_seed, options))
    return jobs


def match(game_id, lineup, games, seed=0, workers=1, progress=False, options=None, paired=False,
          stop="none", check_every=4, sprt_delta=0.05, ray_address=None, keep_going=False):
    """Plays ``games`` seat-rotated games of ``lineup`` (one bot spec per seat); ``paired``: in
    deals of one game per rotation; ``stop``: a stopping rule (see the module's docstring);
    ``ray_address``: the games are tasks of that Ray cluster (:class:`RayPool`) instead of
    ``workers`` local processes.  A game that fails (a bot's error) ends the match with that
    error, unless ``keep_going``: then it is recorded in ``MatchResult.failed`` and left out of
    the figures, with the other games of its deal when ``paired`` (so that every deal counted
    is whole), and the match plays on."""
    if stop not in STOP_RULES:
        raise ValueError(f"stop: one of {', '.join(STOP_RULES)}, got {stop!r}")
    players = len(lineup)
    for spec in lineup:
        make_bot(spec)      # fail fast on a bad spec
    if paired:
        games = -(-games // players) * players
    jobs = match_jobs(game_id, lineup, games, seed, options, paired)
    per_deal = players if paired else 1
    # In batches of check_every deals when a verdict may stop the match; otherwise all at
    # once, so that the pool never waits at a batch's end.  A running score (``progress``)
    # is printed every check_every deals as the games come in, in order: a long match
    # stopped part way still leaves its figures.
    batched = stop != "none"
    batch = max(1, check_every) * per_deal if batched else len(jobs)
    every = max(1, check_every) * per_deal
    played, results, failed, deal_scores, verdict = [], [], [], [], None

    def figures():
        failed = [(g, r.error) for g, r in enumerate(played) if isinstance(r, GameFailed)]
        bad = {g // per_deal for g, _ in failed}
        results = [r for g, r in enumerate(played) if g // per_deal not in bad]
        deal_scores = [sum(pairwise_score(r) for r in results[d:d + per_deal]) / per_deal
                       for d in range(0, len(results), per_deal)]
        return failed, results, deal_scores

    def report(deal_scores, count):
        m, lo, hi = mean_interval(deal_scores)
        print(f"  {count} games: entry 0 scores {m:.1%} [{lo:.1%}, {hi:.1%}]", file=sys.stderr, flush=True)

    with _pool(workers, ray_address) as pool:
        for start in range(0, len(jobs), batch):
            for r in _games(jobs[start:start + batch], pool, chunksize=1 if batched else 4,
                            keep_errors=keep_going):
                played.append(r)
                if progress and not batched and (len(played) % every == 0 or len(played) == len(jobs)):
                    _, results, deal_scores = figures()
                    report(deal_scores, len(results))
            failed, results, deal_scores = figures()
            verdict = decided(deal_scores, stop, sprt_delta)
            if progress and batched:
                report(deal_scores, len(results))
            if verdict:
                break
    totals = [0.0] * players
    returns = [0.0] * players
    winners = 0.0
    for r in results:
        wins = wins_of(r)
        for i in range(players):
            totals[i] += wins[i]
            returns[i] += r[i]
        winners += sum(wins)
    counted = len(results)
    entries = [EntryResult(spec, counted, totals[i], returns[i]) for i, spec in enumerate(lineup)]
    return MatchResult(game_id, players, counted, entries, winners / counted / players if counted else 0.0,
                       paired, deal_scores, stop, verdict, failed, len(played) - counted)


class _NoPool:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def _play_many(jobs, keep_errors=False):
    return [_play_kept(job) if keep_errors else play_game(*job) for job in jobs]


def init_ray(address):
    """``ray.init`` for a match, a calibration or a training run (``address`` as Ray takes it).
    Ray waits a fixed 30 s for a starting node's raylet to register; on a loaded machine a
    local start can miss that, so a start that times out is shut down and tried once more."""
    import ray
    for attempt in (1, 2):
        try:
            ray.init(address=address, include_dashboard=False, log_to_driver=False)
            return
        except Exception as e:      # Ray raises a bare Exception for this timeout
            if attempt == 2 or "timed out during startup" not in str(e):
                raise
            ray.shutdown()


class RayPool:
    """Plays games as tasks of a Ray cluster (``address``; ``"local"`` starts one here), one
    CPU a task, with the ``map`` of an executor: a user with a cluster plays a match, a
    calibration or a tuning study in minutes.  Ray is an optional dependency (``fagin[ray]``)."""

    def __init__(self, address):
        try:
            import ray
        except ImportError:
            raise ValueError("--ray needs Ray: pip install 'fagin[ray]'") from None
        self._ray = ray
        self._started_here = not ray.is_initialized()
        if self._started_here:
            init_ray(address)
        self._task = ray.remote(num_cpus=1, max_retries=3)(_play_many)

    def map(self, fn, jobs, chunksize=1):
        if fn not in (_play, _play_kept):
            raise ValueError("RayPool plays games (arena jobs) only")
        jobs = list(jobs)
        step = max(1, chunksize)
        refs = [self._task.remote(jobs[i:i + step], fn is _play_kept) for i in range(0, len(jobs), step)]
        for ref in refs:            # in job order, as an executor's map
            yield from self._ray.get(ref)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self._started_here:
            self._ray.shutdown()
        return False


def _pool(workers, ray_address=None):
    if ray_address:
        return RayPool(ray_address)
    return ProcessPoolExecutor(max_workers=workers) if workers > 1 else _NoPool()


def _games(jobs, pool, chunksize, keep_errors):
    """Each job's result as it comes in, in job order, from ``pool`` (None: played here)."""
    play = _play_kept if keep_errors else _play
    return map(play, jobs) if pool is None else pool.map(play, jobs, chunksize=chunksize)


def run_games(jobs, workers=1, progress=False, chunksize=2, pool=None, keep_errors=False):
    """Each job's per-entry returns (a job is :func:`play_game`'s arguments), played on
    ``workers`` processes (or ``pool``'s), with a progress bar if asked (levels, tournaments).
    A game that fails raises its error, or with ``keep_errors`` gives a :class:`GameFailed`
    in its place."""
    if pool is None and workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            return _progress(_games(jobs, pool, chunksize, keep_errors), len(jobs), progress)
    return _progress(_games(jobs, pool, chunksize, keep_errors), len(jobs), progress)


def _progress(iterable, total, enabled):
    if enabled:
        try:
            from tqdm import tqdm
            return list(tqdm(iterable, total=total, unit="game", file=sys.stderr))
        except ImportError:
            pass
    return list(iterable)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=spec_help(),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="kids_of_london")
    parser.add_argument("--players", type=int, help="defaults to the lineup's length")
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="game option (repeatable)")
    parser.add_argument("--lineup", nargs="+", required=True,
                        help="one bot spec per seat (the bot specs below)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--paired", action="store_true",
                        help="deals of one game per seat rotation, sharing their chance draws")
    parser.add_argument("--stop", choices=STOP_RULES, default="none",
                        help="stop early once decided: an SPRT, or the 95 %% interval excluding 50 %%")
    parser.add_argument("--check-every", type=int, default=4, metavar="DEALS",
                        help="deals between looks of the stopping rule")
    parser.add_argument("--sprt-delta", type=float, default=0.05,
                        help="the SPRT's alternative: entry 0 scores this much above 50 %%")
    parser.add_argument("--ray", metavar="ADDRESS",
                        help="play the games as tasks of a Ray cluster ('local': one started here)")
    args = parser.parse_args(argv)
    if args.players is not None and args.players != len(args.lineup):
        parser.error(f"--players {args.players} does not match the {len(args.lineup)} bots of --lineup")
    options = {}
    for item in args.option:
        name, sep, value = item.partition("=")
        if not sep:
            parser.error(f"--option: expected NAME=VALUE, got {item!r}")
        options[name] = value
    try:
        result = match(args.game, args.lineup, args.games, seed=args.seed, workers=args.workers,
                       progress=True, options=options, paired=args.paired, stop=args.stop,
                       check_every=args.check_every, sprt_delta=args.sprt_delta, ray_address=args.ray,
                       keep_going=True)
    except ValueError as e:
        parser.error(str(e))
    print(result.table())
    if result.failed:
        for g, error in result.failed:
            print(f"game {g} failed: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
