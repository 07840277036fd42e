"""The ``fagin`` command line.

States on disk and on stdin/stdout are the protobuf JSON form of
``fagin.v1.GameState``; ``-`` means stdin.  Every command but ``serve``
talks to a server given by ``--server HOST:PORT`` (default 127.0.0.1:50051).

    fagin serve                                  # run a server
    fagin new kids_of_london --players 4 --seed 1 > game.json
    fagin legal --state game.json
    fagin recommend --state game.json --seat 0 --iterations 20000
    fagin apply --state game.json --action 8 > next.json
    fagin view --state next.json --seat 1 --text
    fagin play kids_of_london --players 3        # play against bots in the terminal
"""
from __future__ import annotations

import argparse
import random
import sys

import grpc
from google.protobuf import json_format

from fagin.clients.client import DEFAULT_TARGET, FaginClient
from fagin.v1 import fagin_pb2 as pb


class CliError(Exception):
    """A user error, printed without a traceback."""


def to_json(msg) -> str:
    try:
        return json_format.MessageToJson(msg, preserving_proto_field_name=True,
                                         always_print_fields_with_no_presence=True)
    except TypeError:      # protobuf < 5
        return json_format.MessageToJson(msg, preserving_proto_field_name=True,
                                         including_default_value_fields=True)


def read_state(path: str) -> pb.GameState:
    try:
        text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
    except OSError as e:
        raise CliError(f"--state: cannot read {path}: {e.strerror}") from None
    try:
        return json_format.Parse(text, pb.GameState())
    except json_format.ParseError as e:
        raise CliError(f"--state: {path} is not a fagin.v1.GameState in JSON: {e}") from None


def _stats_table(rec) -> str:
    lines = [f"recommended for seat {rec.seat}: {rec.action.label} (action {rec.action.id})",
             f"{rec.iterations} iterations, {rec.nodes} nodes, {rec.elapsed_ms:.0f} ms, "
             f"stopped by {pb.StopReason.Name(rec.stop_reason).removeprefix('STOP_REASON_').lower()}",
             f"{'id':>4}  {'action':<28}{'visits':>9}{'mean':>8}{'policy':>8}"]
    for s in rec.actions:
        mark = "*" if s.action.id == rec.action.id else " "
        lines.append(f"{s.action.id:>4}{mark} {s.action.label:<28}{s.visits:>9}{s.mean_value:>8.3f}"
                     f"{s.policy:>8.3f}")
    lines += [f"note: {n}" for n in rec.notes]
    return "\n".join(lines)


def cmd_games(client, args):
    games = client.list_games()
    if args.json:
        print(to_json(pb.ListGamesResponse(games=games)))
        return
    for g in games:
        opts = ", ".join(f"{o.name}={o.default_value}" for o in g.options) or "none"
        print(f"{g.id:<18}{g.name:<22}{g.min_players}-{g.max_players} players  "
              f"algorithms: {', '.join(g.algorithms)}  options: {opts}")


def cmd_new(client, args):
    options = {}
    for item in args.option or []:
        name, sep, value = item.partition("=")
        if not sep:
            raise CliError(f"--option: expected NAME=VALUE, got {item!r}")
        options[name] = value
    print(to_json(client.new_game(args.game, args.players, args.seed, **options).state))


def cmd_legal(client, args):
    resp = client.legal_actions(read_state(args.state), args.seat)
    if args.json:
        print(to_json(resp))
        return
    if resp.status.terminal:
        print(f"the game is over; returns {list(resp.status.returns)}")
    for i, a in enumerate(resp.actions):
        prob = f"  p={resp.probabilities[i]:.3f}" if resp.probabilities else ""
        print(f"{a.id:>4}  {a.label}{prob}")


def cmd_apply(client, args):
    resp = client.apply(read_state(args.state), args.action, seat=args.seat, seed=args.seed,
                        stop_at_chance=args.stop_at_chance)
    print(to_json(resp.state))
    for a in resp.applied:
        print(f"applied: {a.label}", file=sys.stderr)


def cmd_view(client, args):
    resp = client.view(read_state(args.state), args.seat)
    print(resp.text if args.text else to_json(resp.state))


def cmd_recommend(client, args):
    rec = client.recommend(read_state(args.state), args.seat, iterations=args.iterations,
                           time_ms=args.time_ms, seed=args.seed, exploration=args.exploration,
                           algorithm=args.algorithm, gamma=args.gamma, sample_action=args.sample,
                           threads=args.threads)
    print(to_json(rec) if args.json else _stats_table(rec))


def cmd_play(client, args, stdin=None, out=None):
    """Plays a game in the terminal: you at --seat, bots (server recommendations) elsewhere."""
    stdin = stdin or sys.stdin
    out = out or sys.stdout
    rng = random.Random(args.seed)
    resp = client.new_game(args.game, args.players, rng.getrandbits(63))
    state, status = resp.state, resp.status
    if not 0 <= args.seat < args.players:
        raise CliError(f"--seat: must be from 0 to {args.players - 1}")
    print(f"You are seat {args.seat}. Type an action id (or q to quit).", file=out)
    print(client.view(state, args.seat).text, file=out)
    while not status.terminal:
        seat = status.current_seat
        if seat == args.seat:
            legal = client.legal_actions(state, seat).actions
            ids = {a.id for a in legal}
            print("your options: " + ", ".join(f"[{a.id}] {a.label}" for a in legal), file=out)
            while True:
                print("> ", end="", file=out, flush=True)
                line = stdin.readline()
                if not line or line.strip().lower() in ("q", "quit"):
                    print("bye", file=out)
                    return
                try:
                    choice = int(line.strip())
                except ValueError:
                    choice = None
                if choice in ids:
                    break
                print(f"not an option: {line.strip()!r}", file=out)
            who = "you"
        else:
            rec = client.recommend(state, seat, iterations=args.iterations, seed=rng.getrandbits(63))
            choice = rec.action.id
            who = f"seat {seat} (bot)"
        resp = client.apply(state, choice, seat=seat, seed=rng.getrandbits(63))
        state, status = resp.state, resp.status
        print(f"-- {who} acted", file=out)
        print(client.view(state, args.seat).text, file=out)
    returns = list(status.returns)
    winners = [s for s, r in enumerate(returns) if r > 0]
    print(f"game over: returns {returns}; "
          + ("you win!" if args.seat in winners else f"winners: {winners or 'nobody'}"), file=out)


def build_parser():
    parser = argparse.ArgumentParser(prog="fagin", description="fagin: AI opponents for tabletop games.")
    parser.add_argument("--server", default=DEFAULT_TARGET, help="HOST:PORT of the server")
    parser.add_argument("--timeout", type=float, default=None, help="deadline of each call, seconds")
    sub = parser.add_subparsers(dest="command", required=True)

    sub.add_parser("serve", help="run a server (fagin serve --help)", add_help=False)
    p = sub.add_parser("games", help="list the games served")
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("new", help="start a game; prints its state")
    p.add_argument("game")
    p.add_argument("--players", type=int, required=True)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--option", action="append", metavar="NAME=VALUE")
    p = sub.add_parser("legal", help="list legal actions")
    p.add_argument("--state", required=True, help="FILE or - for stdin")
    p.add_argument("--seat", type=int)
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("apply", help="apply an action; prints the next state")
    p.add_argument("--state", required=True)
    p.add_argument("--action", type=int, help="action id (omit at a chance event to draw it)")
    p.add_argument("--seat", type=int)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--stop-at-chance", action="store_true")
    p = sub.add_parser("view", help="the state as one seat sees it")
    p.add_argument("--state", required=True)
    p.add_argument("--seat", type=int, required=True)
    p.add_argument("--text", action="store_true", help="print the table instead of JSON")
    p = sub.add_parser("recommend", help="ask for the best move")
    p.add_argument("--state", required=True)
    p.add_argument("--seat", type=int, required=True)
    p.add_argument("--iterations", type=int)
    p.add_argument("--time-ms", type=int)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--exploration", type=float)
    p.add_argument("--algorithm", default="", help="ismcts (default), ismcts_rm or oos")
    p.add_argument("--gamma", type=float, help="ismcts_rm's and oos's exploration mix")
    p.add_argument("--threads", type=int, help="threads for this search (root parallelism; default 1)")
    p.add_argument("--sample", action="store_true", help="draw the action from the policy")
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("play", help="play against bots in the terminal")
    p.add_argument("game")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--seat", type=int, default=0, help="your seat")
    p.add_argument("--iterations", type=int, default=2000, help="bots' search budget")
    p.add_argument("--seed", type=int, default=None)
    return parser


COMMANDS = {"games": cmd_games, "new": cmd_new, "legal": cmd_legal, "apply": cmd_apply,
            "view": cmd_view, "recommend": cmd_recommend, "play": cmd_play}


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    # `serve` takes the server's own flags.
    if "serve" in argv[:1] or argv[:1] == ["serve"]:
        from fagin.server.app import main as serve_main
        return serve_main(argv[1:])
    args = build_parser().parse_args(argv)
    try:
        with FaginClient(args.server, timeout=args.timeout) as client:
            COMMANDS[args.command](client, args)
    except CliError as e:
        print(f"fagin: {e}", file=sys.stderr)
        return 2
    except grpc.RpcError as e:
        if e.code() == grpc.StatusCode.UNAVAILABLE:
            print(f"fagin: cannot reach a server at {args.server} ({e.details()})", file=sys.stderr)
            return 3
        print(f"fagin: {e.code().name}: {e.details()}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
