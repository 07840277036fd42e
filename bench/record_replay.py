"""What a game record costs the server, in process: replaying and checking a complete record (every
move in C through the ABI, ``State.replay``) per move for every game and for whole London games,
beside a Python step per move (``legal_actions`` and ``apply``) for comparison; a whole London
record decoded from its GameRecord message and replayed as a call does; a seat's view of it made
(ViewRecord) and replayed; and the search a call then runs, for scale. Seeded random games, the
same every run; thread CPU, median over the games.

    .venv/bin/python bench/record_replay.py --games 5
"""
import argparse
import random
import statistics
import time

from fagin.engines import GAMES, load_game
from fagin.engines import records
from fagin.search import ismcts
from fagin.server import records as wire


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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=5, help="random games per game id (default 5)")
    ap.add_argument("--players", type=int, default=3, help="London's players (others: their least, default 3)")
    ap.add_argument("--iterations", type=int, default=2000, help="the search run after a London replay")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

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

    game = load_game("london")
    rows = []
    for g in range(args.games):
        start, moves = playout("london", args.players, args.seed + g)
        # The last decision of the game, so that a search can follow the replay.
        state = start.clone()
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
        del state
    med = [statistics.median(r[k] for r in rows) for k in range(7)]
    print(f"\nwhole London games ({args.players} players, {args.games} games, to the last decision; "
          f"median of {med[0]:.0f} moves, {med[6] / 1024:.1f} KB a record):")
    print(f"  complete record decoded, replayed and checked (a call's part): {med[2] * 1e3:8.2f} ms")
    print(f"  a seat's view made (ViewRecord), {med[1]:.0f} moves unseen:           {med[3] * 1e3:8.2f} ms")
    print(f"  a seat's view decoded and replayed (a call's part):           {med[4] * 1e3:8.2f} ms")
    print(f"  the search after it, {args.iterations} iterations:                       {med[5] * 1e3:8.2f} ms")


if __name__ == "__main__":
    main()
