"""Equal time against an earlier build: how many iterations of this build's search cost what
the earlier build's bot spends a move.

Comparing today's search with an earlier build's level 10 "at equal time" is played as
an iteration budget: a budget stays fair on a machine shared with other jobs, where a time
budget does not.  This finds the budget.  Each build's bot plays every seat of whole games
(the positions it meets itself), and the CPU time of each of its decisions is summed.  The
two builds alternate game by game, each in its own process, so that both see the same
machine:

    .venv/bin/python bench/equal_time.py --game london --players 2 --against ../old73
    .venv/bin/python bench/equal_time.py --game oliver_twist --players 3 --ours ismcts:8192 \\
        --against ../old73 --theirs level:10 --games 2

``--against DIR`` is the earlier build's checkout, built, with its own ``DIR/.venv`` (a ``git
worktree`` and ``make build``).  ``--ours`` is an ``ismcts:N`` spec of this build; the answer
is ``N`` times the ratio of the two times a move, so time ``--ours`` near the answer (the
cost of an iteration grows with the tree).  Only the public Python API that both builds share
is used (``new_game``, ``make_bot``, the state's methods).  This build's side runs under the
interpreter that runs this script: run it with this checkout's ``.venv/bin/python``.
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time


def decision_times(game_id, players, bot, seed, clock):
    """One whole game with ``bot`` at every seat, chance drawn from ``seed``: the milliseconds
    by ``clock`` (``time.perf_counter`` for wall time, ``time.process_time`` for CPU) of each
    of its decisions.  Uses only the API every build has (also bench/level_time.py's)."""
    from fagin.engines import new_game
    state = new_game(game_id, players, seed=seed)
    rng = random.Random(seed)
    times = []
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply(state.sample_chance(rng.getrandbits(63)))
            continue
        seat = state.current_player()
        start = clock()
        action = bot.choose(state, seat, rng.getrandbits(63))
        times.append((clock() - start) * 1000.0)
        state.apply(action)
    return times


def cpu_ms_a_move(game_id, players, spec, seed):
    """One whole game with ``spec`` at every seat: (decisions, CPU ms of all of them)."""
    from fagin.search.bots import make_bot
    times = decision_times(game_id, players, make_bot(spec), seed, time.process_time)
    return len(times), sum(times)


def timed_in(python, cwd, game_id, players, spec, seed):
    """cpu_ms_a_move run by ``python`` (a build's interpreter) in a process of its own."""
    out = subprocess.run([python, os.path.abspath(__file__), "--one", json.dumps([game_id, players, spec, seed])],
                         cwd=cwd, capture_output=True, text=True, check=False)
    lines = out.stdout.strip().splitlines()
    try:
        if out.returncode != 0 or not lines:
            raise ValueError("no result")
        return json.loads(lines[-1])
    except ValueError:
        raise SystemExit(f"timing {spec} in {cwd} failed (exit {out.returncode}):\n{out.stderr.strip()[-2000:]}")


def iterations_of(spec):
    """The iteration budget of a search bot spec (``ismcts:256``, ...); ValueError otherwise."""
    from fagin.search.bots import ISMCTSBot, make_bot
    bot = make_bot(spec)
    if not isinstance(bot, ISMCTSBot) or bot.time_ms is not None or not bot.iterations:
        raise ValueError(f"--ours {spec!r}: a search with an iteration budget, e.g. ismcts:256")
    return bot.iterations


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--game")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--against", metavar="DIR", help="the earlier build's checkout, with DIR/.venv")
    ap.add_argument("--theirs", default="level:10", help="the earlier build's bot spec (default level:10)")
    ap.add_argument("--ours", default="ismcts:256", help="this build's search, ismcts:N (default ismcts:256)")
    ap.add_argument("--games", type=int, default=2, help="whole games a build (default 2)")
    ap.add_argument("--seed", type=int, default=100, help="the first game's seed; the next ones follow")
    args = ap.parse_args(argv)
    if args.one:
        print(json.dumps(cpu_ms_a_move(*json.loads(args.one))))
        return 0
    if not args.game or not args.against:
        ap.error("--game and --against are required")
    if args.games < 1:
        ap.error(f"--games {args.games}: at least 1")
    args.against = os.path.abspath(args.against)
    theirs_python = os.path.join(args.against, ".venv", "bin", "python")
    if not os.access(theirs_python, os.X_OK):
        ap.error(f"--against {args.against}: no built checkout there ({theirs_python} is missing)")
    try:
        n = iterations_of(args.ours)
    except ValueError as e:
        ap.error(str(e))
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    print(f"{args.game}, {args.players} players: CPU ms a move over whole games, each bot at every seat")
    print("| seed | theirs: moves | theirs: ms a move | ours: moves | ours: ms a move |")
    print("|---|---|---|---|---|")
    their_ms, our_ms = [], []
    for g in range(args.games):
        seed = args.seed + g
        # Each build goes first every other game, so that neither always meets the machine first.
        runs = {"theirs": (theirs_python, args.against, args.theirs), "ours": (sys.executable, here, args.ours)}
        timed = {side: timed_in(python, cwd, args.game, args.players, spec, seed)
                 for side, (python, cwd, spec) in sorted(runs.items(), reverse=g % 2 == 0)}
        (tm, tt), (om, ot) = timed["theirs"], timed["ours"]
        their_ms.append(tt / tm)
        our_ms.append(ot / om)
        print(f"| {seed} | {tm} | {tt / tm:.2f} | {om} | {ot / om:.2f} |", flush=True)
    theirs, ours = statistics.fmean(their_ms), statistics.fmean(our_ms)
    print(f"\n{args.theirs} (earlier build) {theirs:.2f} ms a move, {args.ours} (this build) {ours:.2f}: "
          f"equal time is about {round(n * theirs / ours)} iterations of this build's search")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
