"""What a server's kept trees are worth, through the public API: cross-turn tree reuse from
game records, and pondering.

Two bots play paired deals (each deal with every seating, the same chance outcomes) on one
local server with two workers, each move searched with the same budget, ``--iterations`` and
the decided stop (``stop_when_decided``), or ``--time-ms``:

- ``--experiment reuse``: bot A sends its position as the game's record with a session, so
  its kept tree continues across turns in every game (London and Gangs of Kyoto key a
  position by the history the seat saw, which only a record carries); bot B sends the
  record without a session: a fresh search every move.
- ``--experiment cross-turn``: A as above; B sends the bare state with a session, as a
  client could before records (its tree continues within a turn in London and Gangs of
  Kyoto, across turns in the games keyed by what a position shows): what records add.
- ``--experiment ponder``: both send records with sessions; bot A also asks the server to
  ponder (``ponder_ms``) while the other seats think: their searches take one worker, A's
  pondering the idle one.

Equal time: with an iteration budget each call searches at most the same iterations (fewer
where the decided stop ends it: a head start decides moves sooner), so the work each bot
searched a move, printed beside the score, is what its thinking cost: A's at most B's
means A scored what it did at no more time than B (pondering's iterations, on the idle
worker while the others think, are printed apart).  A time budget is equal time by
construction, but only on a machine with idle cores: a loaded machine stretches both.

Prints A's score (a deal's games averaged: 1 a win, 0.5 a tie, against each other seat) with
its 95 % interval::

    .venv/bin/python bench/session_value.py --game london --experiment reuse --deals 100 --iterations 200

Runs in parallel: each its own --seed (other deals) and --out file, summed up by --combine.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
import uuid

import grpc

from fagin.engines.registry import load_game
from fagin.search.arena import mean_interval, pairwise_score
from fagin.server.codec import encode_state
from fagin.v1 import fagin_pb2 as pb
from fagin.v1 import fagin_pb2_grpc


def start_server(workers):
    env = {**os.environ, "FAGIN_WORKERS": str(workers), "FAGIN_LOG_LEVEL": "WARNING"}
    proc = subprocess.Popen([sys.executable, "-m", "fagin.server", "--port", "0", "--http-port", "0",
                             "--max-time-ms", "60000"], env=env, stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    if not line.startswith("fagin listening on"):
        proc.kill()
        raise RuntimeError(f"server did not start: {line!r}")
    return proc, line.split(" on ")[1].strip()


class Bot:
    """How one bot asks: by record or by state, with a session or not, pondering or not."""

    def __init__(self, name, record, session, ponder_ms=0):
        self.name, self.record, self.session, self.ponder_ms = name, record, session, ponder_ms
        self.reset()

    def request(self, state, record, seat, session, budget, seed):
        req = pb.RecommendRequest(seat=seat, search=pb.SearchSettings(seed=seed, **budget))
        if self.record:
            req.record.CopyFrom(record)
        else:
            req.state.CopyFrom(encode_state(state))
        if self.session:
            req.session = session
            req.ponder_ms = self.ponder_ms
        return req

    def reset(self):
        """Counts of what this bot did from now on (a deal's, for its row)."""
        self.calls = self.iterations = self.continued = self.heads = self.pondered = 0
        self.search_ms = 0.0

    def stats(self):
        return {"name": self.name, "calls": self.calls, "iterations": self.iterations,
                "search_ms": self.search_ms, "continued": self.continued, "heads": self.heads,
                "pondered": self.pondered, "ponders": bool(self.ponder_ms)}

    def saw(self, answer):
        self.calls += 1
        self.iterations += answer.iterations
        self.search_ms += answer.elapsed_ms
        if answer.session.continued:
            self.continued += 1
            self.heads += answer.session.head_start
            self.pondered += answer.session.pondered


def play(stub, game, players, bots, seats_of, chance_seed, bot_seed, budget):
    """One game; ``seats_of[i]``: the seat of bot i. Returns the returns by bot."""
    state = game.new_initial_state(players)
    record = pb.GameRecord(game=game.id, players=players)
    chance, rng = random.Random(chance_seed), random.Random(bot_seed)
    bot_at = {seat: bots[i] for i, seat in enumerate(seats_of)}
    sessions = {seat: uuid.uuid4().hex for seat in range(players)}
    while not state.is_terminal():
        if state.is_chance_node():
            action = state.sample_chance(chance.getrandbits(63))
            record.moves.add(action_id=action)
        else:
            seat = state.current_player()
            bot = bot_at[seat]
            answer = stub.Recommend(bot.request(state, record, seat, sessions[seat], budget,
                                                rng.getrandbits(63)), timeout=120)
            bot.saw(answer)
            action = answer.action.id
            record.moves.add(seat=seat, action_id=action)
        state.apply(action)
    returns = state.returns()
    return [returns[seats_of[i]] for i in range(len(bots))]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", default="london")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--experiment", choices=("reuse", "cross-turn", "ponder"))
    ap.add_argument("--deals", type=int, default=100, help="deals, each played with every seating (2 games at 2 players)")
    budget = ap.add_mutually_exclusive_group()
    budget.add_argument("--iterations", type=int, default=200,
                        help="each move's iteration budget, both bots, with the decided stop (default)")
    budget.add_argument("--time-ms", type=int, help="each move's search time instead, both bots")
    ap.add_argument("--ponder-ms", type=int, default=10_000, help="A's ponder_ms (ponder experiment)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", help="append each deal's result to this file (JSON lines), so that runs "
                                  "in parallel (other --seed) can be summed up with --combine")
    ap.add_argument("--combine", nargs="+", metavar="FILE", help="sum up --out files of one experiment; "
                                                                  "plays nothing")
    args = ap.parse_args(argv)
    if args.combine:
        return combine(args.combine)
    if args.experiment is None:
        ap.error("give --experiment (or --combine)")
    if args.experiment == "reuse":
        a, b = Bot("record+session", True, True), Bot("record", True, False)
    elif args.experiment == "cross-turn":
        a, b = Bot("record+session", True, True), Bot("state+session", False, True)
    else:
        a, b = Bot("record+session+ponder", True, True, args.ponder_ms), Bot("record+session", True, True)
    bots = [a] + [b] * (args.players - 1)
    game = load_game(args.game)
    if args.time_ms:
        budget, said = dict(time_ms=args.time_ms), f"{args.time_ms} ms a move each"
    else:
        budget = dict(iterations=args.iterations, stop_when_decided=True)
        said = f"{args.iterations} iterations a move each with the decided stop"
    proc, address = start_server(2)
    channel = grpc.insecure_channel(address, options=[("grpc.max_send_message_length", 64 << 20)])
    stub = fagin_pb2_grpc.FaginStub(channel)
    rows, began = [], time.monotonic()
    try:
        for deal in range(args.deals):
            scores = []
            for shift in range(args.players):
                seats_of = [(i + shift) % args.players for i in range(args.players)]
                returns = play(stub, game, args.players, bots, seats_of, args.seed * 1_000_003 + deal,
                               (args.seed * 1_000_003 + deal) * 8 + shift, budget)
                scores.append(pairwise_score(returns, 0))
            rows.append({"game": args.game, "players": args.players, "experiment": args.experiment,
                         "budget": said, "seed": args.seed, "deal": deal, "score": sum(scores) / len(scores),
                         "games": args.players, "bots": [bot.stats() for bot in (a, b)]})
            for bot in (a, b):
                bot.reset()
            if args.out:
                with open(args.out, "a") as f:
                    f.write(json.dumps(rows[-1]) + "\n")
            if (deal + 1) % 10 == 0 or deal + 1 == args.deals:
                m, lo, hi = mean_interval([r["score"] for r in rows])
                print(f"  {deal + 1} deals, {(deal + 1) * args.players} games: A {100 * m:.1f} % "
                      f"[{100 * lo:.1f}, {100 * hi:.1f}] ({time.monotonic() - began:.0f} s)", flush=True)
    finally:
        channel.close()
        proc.terminate()
        proc.wait(10)
    summarize(rows)


def combine(paths):
    """Prints the summary of --out files, checked to be of one experiment and of other deals."""
    rows = [json.loads(line) for path in paths for line in open(path) if line.strip()]
    if not rows:
        raise SystemExit("no deals in " + ", ".join(paths))
    first = rows[0]
    if any((r["game"], r["players"], r["experiment"], r["budget"]) !=
           (first["game"], first["players"], first["experiment"], first["budget"]) for r in rows):
        raise SystemExit("the files hold different experiments")
    deals = {(r["seed"], r["deal"]) for r in rows}
    if len(deals) != len(rows):
        raise SystemExit("a deal appears twice (runs of the same --seed?)")
    summarize(rows)


def summarize(rows):
    """Prints A's score over the deals' rows, with its interval, and each bot's sums."""
    first = rows[0]
    m, lo, hi = mean_interval([r["score"] for r in rows])
    games = sum(r["games"] for r in rows)
    names = [b["name"] for b in first["bots"]]
    print(f"{first['game']} {first['players']}p, {first['experiment']}, {first['budget']}, {len(rows)} deals "
          f"({games} games, seats rotated, paired deals): A ({names[0]}) scores {100 * m:.1f} % "
          f"[{100 * lo:.1f}, {100 * hi:.1f}] against B ({names[1]})")
    for i, name in enumerate(names):
        tot = {k: sum(r["bots"][i][k] for r in rows) for k in ("calls", "iterations", "search_ms", "continued",
                                                               "heads", "pondered")}
        calls, cont = max(1, tot["calls"]), max(1, tot["continued"])
        print(f"  {name}: {tot['calls']} moves, {tot['iterations'] / calls:.1f} iterations and "
              f"{tot['search_ms'] / calls:.2f} ms a move searched, tree continued at "
              f"{100 * tot['continued'] / calls:.1f} % of moves with a head start of {tot['heads'] / cont:.0f} visits "
              f"on average" + (f", {tot['pondered'] / cont:.0f} of them pondered" if first["bots"][i]["ponders"] else ""))


if __name__ == "__main__":
    main()
