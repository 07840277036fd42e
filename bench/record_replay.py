"""What a game record costs the server, in process: replaying and checking a complete record (every
move in C through the ABI, ``State.replay``) per move for every game, beside a Python step per
move (``legal_actions`` and ``apply``) for comparison; every game's seat's views of whole games
made (ViewRecord) and replayed (a call's part), per move and per game; a whole London record
decoded from its GameRecord message and replayed as a call does, its seat's view made and
replayed, and the search a call then runs, for scale. Seeded random games, the same every run,
each cut at its last decision (where a bot is asked); thread CPU, median over the games (and,
for views, over every seat of each).

    .venv/bin/python bench/record_replay.py --games 5

``--compare DIR`` measures the seat's views in this build and in another checkout whose
extensions are built in place (for example ``git archive COMMIT | tar -x -C ../fagin-base && cd
../fagin-base && make build``), side by side, each in a process of its own.
"""
import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from ismcts_speed import shim_for   # bench/: the checkout to compare with, as `import fagin`

from fagin.engines import GAMES, load_game
from fagin.engines import records

#: The games whose seats' views are measured: those with something hidden, longest first.
VIEW_GAMES = ("london", "oliver_twist", "fagins_gang", "gangs_of_kyoto", "kids_of_london")


def playout(game_id, players, seed):
    rng = random.Random(f"{seed}/{game_id}/{players}")
    state = load_game(game_id).new_initial_state(players)
    start, moves = state.clone(), []
    while not state.is_terminal():
        if state.is_chance_node():
            seat, action = None, state.sample_chance(rng.getrandbits(63))
        else:
            seat = rng.choice(state.pending_seats())
            state.make_current(seat)
            action = rng.choice(state.legal_actions())
        moves.append(records.Move(seat, action))
        state.apply(action)
    return start, moves


def to_last_decision(moves):
    """The moves before the game's last decision: the record a bot is sent for it."""
    return moves[:max(i for i, m in enumerate(moves) if m.seat is not None)]


def cpu(fn, repeat=1):
    """The thread CPU seconds of one call of ``fn`` (the least of ``repeat``)."""
    best = None
    for _ in range(repeat):
        t = time.thread_time()
        fn()
        took = time.thread_time() - t
        best = took if best is None else min(best, took)
    return best


def python_steps(start, moves):
    state = start.clone()
    for m in moves:
        if m.seat is not None:
            state.make_current(m.seat)
        if m.action not in (state.legal_actions() if m.seat is not None else
                            [a for a, p in state.chance_outcomes() if p > 0]):
            raise AssertionError("illegal")
        state.apply(m.action)


def view_figures(game_id, players, games, seed):
    """Each seat's view of ``games`` whole games, cut at the last decision: (moves, unseen moves,
    seconds to make, seconds to replay, refused) for every game and seat. A view whose replay is
    refused (no fill found within the bound) is counted with the time it took."""
    rows = []
    for g in range(games):
        start, moves = playout(game_id, players, seed + g)
        moves = to_last_decision(moves)
        for seat in range(players):
            made = cpu(lambda: records.seat_view(start, moves, seat))
            view = records.seat_view(start, moves, seat)
            refused = []

            def replay():
                try:
                    records.replay_view(start, view, seat)
                except records.RecordError:
                    refused.append(1)
            replayed = cpu(replay)
            rows.append((len(moves), sum(m.unseen for m in view), made, replayed, bool(refused)))
    return rows


def view_summary(rows):
    """Medians: moves, unseen, made (ms a game, us a move), replayed (ms, us), and the refused count."""
    med = statistics.median
    return {"moves": med(r[0] for r in rows), "unseen": med(r[1] for r in rows),
            "made_ms": med(r[2] for r in rows) * 1e3, "made_us": med(r[2] / r[0] for r in rows) * 1e6,
            "replayed_ms": med(r[3] for r in rows) * 1e3, "replayed_us": med(r[3] / r[0] for r in rows) * 1e6,
            "worst_replayed_ms": max(r[3] for r in rows) * 1e3, "refused": sum(r[4] for r in rows),
            "views": len(rows)}


def view_configurations(london_players):
    for game_id in VIEW_GAMES:
        spec = GAMES[game_id]
        for players in sorted({spec.min_players, spec.max_players} if game_id != "london" else {london_players}):
            yield game_id, players


def all_view_summaries(args):
    return {f"{g} {p}p": view_summary(view_figures(g, p, args.games, args.seed))
            for g, p in view_configurations(args.players)}


VIEW_HEADER = (f"{'game':19} {'moves':>6} {'unseen':>6} {'made, ms':>9} {'us/move':>8} "
               f"{'replayed, ms':>13} {'us/move':>8} {'worst, ms':>10} {'refused':>8}")


def view_line(name, s):
    return (f"{name:19} {s['moves']:6.0f} {s['unseen']:6.0f} {s['made_ms']:9.2f} {s['made_us']:8.1f} "
            f"{s['replayed_ms']:13.2f} {s['replayed_us']:8.1f} {s['worst_replayed_ms']:10.1f} "
            f"{s['refused']:>4}/{s['views']:<3}")


def compare(args):
    """This build's seats' views beside another checkout's, each measured in its own process."""
    here = Path(__file__).resolve()
    shim = shim_for(args.compare)
    common = [sys.executable, str(here), "--views-json", "--games", str(args.games), "--players",
              str(args.players), "--seed", str(args.seed)]
    try:
        theirs = json.loads(subprocess.run(common, env=dict(os.environ, PYTHONPATH=str(shim)), check=True,
                                           capture_output=True, text=True).stdout)
    finally:
        shutil.rmtree(shim)
    ours = json.loads(subprocess.run(common, check=True, capture_output=True, text=True).stdout)
    print(f"seats' views of whole games ({args.games} games, every seat, cut at the last decision): "
          f"this build, then {args.compare}; median, worst replay")
    print(VIEW_HEADER)
    for name in ours:
        print(view_line(name, ours[name]))
        print(view_line("  " + Path(args.compare).name, theirs[name]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=5, help="random games per game id (default 5)")
    ap.add_argument("--players", type=int, default=3, help="London's players (others: their least and most; "
                                                             "default 3)")
    ap.add_argument("--iterations", type=int, default=2000, help="the search run after a London replay")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--compare", metavar="DIR", help="another checkout, extensions built in place")
    ap.add_argument("--views-json", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.views_json:
        print(json.dumps(all_view_summaries(args)))
        return
    if args.compare:
        return compare(args)

    from fagin.search import ismcts
    from fagin.server import records as wire

    print(f"{'game':15} {'moves/game':>10} {'C replay, ns/move':>18} {'Python steps, ns/move':>22}")
    for game_id, spec in GAMES.items():
        players = args.players if game_id == "london" else spec.min_players
        c, py, lengths = [], [], []
        for g in range(args.games):
            start, moves = playout(game_id, players, args.seed + g)
            lengths.append(len(moves))
            c.append(cpu(lambda: records.replay(start.clone(), list(moves)), 3) / len(moves))
            py.append(cpu(lambda: python_steps(start, moves), 1) / len(moves))
        print(f"{game_id:15} {statistics.median(lengths):10.0f} {statistics.median(c) * 1e9:18.0f} "
              f"{statistics.median(py) * 1e9:22.0f}")

    print(f"\nseats' views of whole games ({args.games} games, every seat, cut at the last decision; "
          f"median, worst replay):")
    print(VIEW_HEADER)
    for name, s in all_view_summaries(args).items():
        print(view_line(name, s))

    game = load_game("london")
    rows = []
    for g in range(args.games):
        start, moves = playout("london", args.players, args.seed + g)
        # The last decision of the game, so that a search can follow the replay.
        last = max(i for i, m in enumerate(moves) if m.seat is not None)
        cut = moves[:last]
        decoded = records.replay(start.clone(), list(cut))
        seat = moves[last].seat
        msg = wire.encode_record(game, args.players, {}, None, cut, None)
        whole = cpu(lambda: wire.decode_record(msg), 3)
        made = cpu(lambda: records.seat_view(start, cut, seat))
        view = records.seat_view(start, cut, seat)
        view_msg = wire.encode_record(game, args.players, {}, None, view, seat)
        replayed_view = cpu(lambda: wire.decode_record(view_msg))
        decoded.make_current(seat)
        search = cpu(lambda: ismcts.run_search(decoded, seat=seat, iterations=args.iterations, seed=1))
        rows.append((len(cut), sum(m.unseen for m in view), whole, made, replayed_view, search, msg.ByteSize()))
    med = [statistics.median(r[k] for r in rows) for k in range(7)]
    print(f"\nwhole London games ({args.players} players, {args.games} games, to the last decision; "
          f"median of {med[0]:.0f} moves, {med[6] / 1024:.1f} KB a record):")
    print(f"  complete record decoded, replayed and checked (a call's part): {med[2] * 1e3:8.2f} ms")
    print(f"  a seat's view made (ViewRecord), {med[1]:.0f} moves unseen:           {med[3] * 1e3:8.2f} ms")
    print(f"  a seat's view decoded and replayed (a call's part):           {med[4] * 1e3:8.2f} ms")
    print(f"  the search after it, {args.iterations} iterations:                       {med[5] * 1e3:8.2f} ms")


if __name__ == "__main__":
    main()
