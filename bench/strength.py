"""Search strength against budget: the win share of 4N iterations against N, and per-decision diagnostics.

The curve: for each N (64, 256, 1,024 and 4,096 by default) ISMCTS at 4N
iterations a move plays ISMCTS at N (every other seat) in paired deals, each
deal played once per seat rotation with the same chance draws
(``fagin.search.arena``), until an SPRT decides or ``--games`` are played.
Each row gives 4N's pairwise score against N with its 95 % interval over
deals: above 50 % with the interval clear of it, more thought pays.
``--against SPEC`` instead plays ISMCTS at N against SPEC at every other seat
(``heuristic``, ``level:7``, ``remote:HOST:PORT:level:10``, ...).

The diagnostics, per decision: positions are taken from games the game's
heuristic (random play where it has none) plays against itself, and
searched at each budget; for each budget the mean root branching (legal
actions), the best move's share of the root's visits, and how often the
move chosen differs from the one chosen at the next budget (at 256 and
1,024 iterations: the question whether a longer search still changes its
mind), and how often it is the move of one iteration (where the game has a
prior, the rollout policy's pick: how often the search overrides it).  Then
where the tree grew: the share of its nodes that are the searching seat's
decisions ("own nodes"; the rest are the other seats'), the share visited
more than once ("revisited": a node visited once only added itself), and the
mean actions a playout played outside the tree ("playout").
"ms a search" is wall time, so it grows when the machine is shared.

    .venv/bin/python bench/strength.py --game london [--players 2] [--ns 64 256 1024 4096]
        [--games 300] [--stop sprt|interval|none] [--workers 2] [--positions 40] [--seed 1]
        [--settings policy:prior=3] [--progress]
"""
import argparse
import random
import sys
import time

from fagin.engines import new_game
from fagin.engines.game import decisions
from fagin.engines.registry import GAMES
from fagin.search import arena, ismcts
from fagin.search.bots import make_bot
from fagin.search.limits import default_rollout


def curve(game, players, ns, games, stop, delta, workers, seed, against=None, options=None, progress=False,
          settings=""):
    rows = []
    more = f":{settings}" if settings else ""
    for n in ns:
        if against:
            lineup = [f"ismcts:{n}{more}"] + [against] * (players - 1)
        else:
            lineup = [f"ismcts:{4 * n}{more}"] + [f"ismcts:{n}{more}"] * (players - 1)
        started = time.monotonic()
        result = arena.match(game, lineup, games, seed=seed, workers=workers, progress=progress, options=options,
                             paired=True, stop=stop, sprt_delta=delta)
        rows.append((lineup, result, time.monotonic() - started))
        m, lo, hi = result.score
        print(f"{lineup[0]:>14} vs {lineup[1]:<22}{result.games:>7}{m:>9.1%}   [{lo:.1%}, {hi:.1%}]"
              f"{result.entries[0].share:>9.1%}   {result.verdict or 'undecided':<14}"
              f"{time.monotonic() - started:>7.0f} s", flush=True)
    return rows


def positions(game, players, count, seed, options=None):
    """``count`` decisions (more than one legal action) from heuristic self-play, spread over games."""
    spec = GAMES[game]
    bot = spec.make_heuristic() if spec.heuristic else None
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        st = new_game(game, players, **(options or {}))
        choices = []
        for seat in decisions(st, rng):
            legal = st.legal_actions(seat)
            if len(legal) > 1:
                choices.append((st.clone(), seat))
            st.apply(bot.choose(st, seat, rng.getrandbits(63)) if bot else rng.choice(legal))
        # At most 8 decisions a game, drawn over the whole game.
        for d in sorted(rng.sample(range(len(choices)), min(8, len(choices)))):
            found.append(choices[d])
    return found[:count]


def diagnostics(game, players, budgets, count, seed, options=None, settings=""):
    def search_settings(b):
        # The curve's bot at this budget: the room's settings for it (GameSpec.budget_settings)
        # and --settings' parts, as make_bot reads them.
        bot = make_bot(f"ismcts:{b}" + (f":{settings}" if settings else ""))
        rollout = bot.rollout or default_rollout(GAMES[game], players, b)
        given = {} if bot.exploration is None else {"exploration": bot.exploration}
        return {"rollout": rollout, "budget": b, **given, **(bot.tuning or {})}
    picks = {b: [] for b in budgets}
    share = {b: [] for b in budgets}
    branching, first = [], []
    spent = {b: 0.0 for b in budgets}
    own = {b: [] for b in budgets}
    revisited = {b: [] for b in budgets}
    playout = {b: [] for b in budgets}
    for k, (st, seat) in enumerate(positions(game, players, count, seed, options)):
        branching.append(len(st.legal_actions(seat)))
        first.append(ismcts.run_search(st, seat, iterations=1, seed=seed * 7919 + k, **search_settings(1)).action)
        for b in budgets:
            search = ismcts.ISMCTS(st, seat, ismcts.SearchSettings(**search_settings(b)), seed * 7919 + k)
            r = search.result(search.run(iterations=b))
            census = search.tree_census()
            nodes = sum(row[0] for row in census.values()) or 1
            own[b].append(census.get(seat, (0, 0, 0))[0] / nodes)
            revisited[b].append(sum(row[1] for row in census.values()) / nodes)
            playout[b].append(search.rollout_actions / max(1, search.iterations))
            total = sum(s.visits for s in r.stats) or 1
            picks[b].append(r.action)
            share[b].append(max(s.visits for s in r.stats) / total)
            spent[b] += r.elapsed_ms
    n = len(branching)
    print(f"\n{n} decisions from heuristic self-play, {players} players; mean root branching "
          f"{sum(branching) / n:.1f} (median {sorted(branching)[n // 2]}, most {max(branching)})")
    print(f"{'iterations':>10}{'best share':>12}{'differs from next':>19}{'same as 1 iteration':>21}"
          f"{'ms a search':>13}{'own nodes':>11}{'revisited':>11}{'playout':>9}")
    for i, b in enumerate(budgets):
        nxt = budgets[i + 1] if i + 1 < len(budgets) else None
        differ = (f"{sum(x != y for x, y in zip(picks[b], picks[nxt])) / n:>12.0%} ({nxt})" if nxt else "")
        same = sum(x == y for x, y in zip(picks[b], first)) / n
        print(f"{b:>10}{sum(share[b]) / n:>12.1%}{differ:>19}{same:>21.0%}{spent[b] / n:>13.1f}"
              f"{sum(own[b]) / n:>11.1%}{sum(revisited[b]) / n:>11.1%}{sum(playout[b]) / n:>9.1f}")
    return picks, share, branching


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", required=True)
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--ns", type=int, nargs="+", default=[64, 256, 1024, 4096], help="the budgets N of 4N vs N")
    ap.add_argument("--games", type=int, default=300, help="most games a step (ends earlier once decided)")
    ap.add_argument("--stop", choices=arena.STOP_RULES, default="sprt")
    ap.add_argument("--sprt-delta", type=float, default=0.08,
                    help="the SPRT's alternative: 4N scores this much above 50 %% (0.08: the 58 %% target)")
    ap.add_argument("--against", metavar="SPEC", help="play ISMCTS at N against this bot instead of 4N vs N")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--positions", type=int, default=40, help="decisions for the diagnostics (0: none)")
    ap.add_argument("--diag-budgets", type=int, nargs="+", default=None,
                    help="the diagnostics' budgets (default: --ns)")
    ap.add_argument("--no-curve", action="store_true", help="the diagnostics only")
    ap.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--settings", default="", metavar="SPEC",
                    help="bot spec parts added to both budgets' ISMCTS (for example policy:prior=3, "
                         "see fagin.search.bots.make_bot): the curve of a candidate before it is a default")
    ap.add_argument("--progress", action="store_true",
                    help="print each step's running score to stderr every few deals (a long run "
                         "stopped part way still leaves its figures)")
    args = ap.parse_args(argv)
    if args.game not in GAMES:
        ap.error(f"--game: unknown game {args.game!r}; known games: {', '.join(sorted(GAMES))}")
    options = dict(item.partition("=")[::2] for item in args.option)
    spec = GAMES[args.game]
    print(f"{spec.name}, {args.players} players: paired deals, seats rotated, stopping rule {args.stop}"
          f"{f' (delta {args.sprt_delta:g})' if args.stop == 'sprt' else ''}, at most {args.games} games a step; "
          f"rollout {spec.rollout}"
          + "".join(f", from {entry.least_iterations} iterations {entry.settings}" for entry in spec.budget_settings
                    if entry.players in (None, args.players))
          + f"; seed {args.seed}")
    if not args.no_curve:
        print(f"{'bot':>14}    {'against':<22}{'games':>7}{'score':>9}   95% interval{'wins':>9}   "
              f"{'verdict':<14}{'time':>7}")
        curve(args.game, args.players, args.ns, args.games, args.stop, args.sprt_delta, args.workers, args.seed,
              args.against, options, progress=args.progress, settings=args.settings)
    if args.positions > 0:
        diagnostics(args.game, args.players, args.diag_budgets or args.ns, args.positions, args.seed, options,
                    args.settings)
    return 0


if __name__ == "__main__":
    sys.exit(main())
