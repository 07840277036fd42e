"""The ``fagin`` command line.

States on disk and on stdin/stdout are the protobuf JSON form of
``fagin.v1.GameState``; ``-`` means stdin.  Every command but ``serve``
talks to a server given by ``--server HOST:PORT`` (default 127.0.0.1:50051),
before or after the command's name, as ``--timeout`` is.

    fagin serve                                  # run a server
    fagin new kids_of_london --players 4 --seed 1 > game.json
    fagin legal --state game.json
    fagin recommend --state game.json --seat 0 --iterations 20000
    fagin analyse --state game.json --seat 0 --iterations 20000   # win %, margins, plans, beliefs
    fagin apply --state game.json --action 8 > next.json          # by id,
    fagin apply --state game.json --action "play 8" > next.json   # by label,
    fagin apply --state game.json --typed '{"kids_of_london": {"kind": "KIND_PLAY_CARD", "card": 8}}'
    fagin view --state next.json --seat 1 --text
    fagin play kids_of_london --players 3        # play against bots in the terminal
    fagin loadtest --spawn --duration 10 --concurrency 64   # load a local server, report
    fagin batch positions.jsonl answers.jsonl --server a:50051 --server b:50051

A secured server (docs/operating.md, Security): ``--tls-ca ca.pem`` (or ``--tls`` for the
system's roots), ``--tls-cert``/``--tls-key`` for mTLS, and the token from
``FAGIN_AUTH_TOKEN`` or ``--auth-token-file``.
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import random
import re
import secrets
import sys
import textwrap

import grpc
from google.protobuf import descriptor_pool, json_format

from fagin.clients import loadtest
from fagin.clients.client import DEFAULT_TARGET, FaginClient, message_to_dict
from fagin.v1 import fagin_pb2 as pb


class CliError(Exception):
    """A user error, printed without a traceback."""


def to_json(msg) -> str:
    # The spelling of the HTTP API's answers and of `fagin batch`: one JSON for every client.
    return json.dumps(message_to_dict(msg), indent=2)


def read_state(path: str) -> pb.GameState:
    return _read_message(path, pb.GameState(), "--state", stdin_ok=True)


def _read_message(path, message, flag, stdin_ok=False):
    """``message`` filled from the proto JSON in the file at ``path`` (``-``: stdin, where
    ``stdin_ok``); an unreadable or malformed file is a CliError naming ``flag``."""
    try:
        if path == "-" and stdin_ok:
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as f:
                text = f.read()
    except OSError as e:
        raise CliError(f"{flag}: cannot read {path}: {e.strerror}") from None
    try:
        return json_format.Parse(text, message)
    except json_format.ParseError as e:
        raise CliError(f"{flag}: {path} is not a {message.DESCRIPTOR.full_name} in JSON: {e}") from None


def _whole(lo: int, hi: int, what: str):
    """An argparse type: a whole number from ``lo`` to ``hi`` (the range of the request
    field the flag fills), so a number out of range is a usage error, not a traceback."""
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"{what} from {lo} to {hi}, got {value}")
        return value
    return parse


INT32 = _whole(-2**31, 2**31 - 1, "a 32-bit whole number")
SEED = _whole(0, 2**64 - 1, "a seed")
INT64 = _whole(-2**63, 2**63 - 1, "a 64-bit whole number")


def _normal_label(text: str) -> str:
    return " ".join(text.lower().split())


def as_id(text: str):
    """``text`` as an action id, or None if it is not a whole number.

    A whole number is always an id (labels are words, e.g. "play 3"), so a
    label never shadows an id.
    """
    try:
        number = int(text.strip())
    except ValueError:
        return None
    if not -2**31 <= number < 2**31:
        raise CliError(f"action id {number} is out of range (ids are 32-bit whole numbers)")
    return number


def find_action(legal, text: str, flag: str = "--action") -> int:
    """The id of the legal action that ``text`` names by id, by label (in any case), or by
    the beginning of exactly one label."""
    text = text.strip()
    number = as_id(text)
    if number is not None:
        return number
    wanted = _normal_label(text)
    matches = [a.id for a in legal if _normal_label(a.label) == wanted]
    if not matches and wanted:
        # A unique beginning of a label will do ("buy w" for "buy Westminster").
        matches = [a.id for a in legal if _normal_label(a.label).startswith(wanted)]
    if len(matches) == 1:
        return matches[0]
    known = ", ".join(f"{a.label!r} ({a.id})" for a in legal) or "none"
    if matches:
        raise CliError(f"{flag}: {text!r} names several actions; type more of the label or give the id: {known}")
    raise CliError(f"{flag}: {text!r} is not a legal action here; legal: {known}")


def _enum_hint(error: str) -> str:
    """The accepted names, when protobuf's JSON parser refused an enum value."""
    m = re.search(r"Invalid enum value (\S+) for enum type ([\w.]+)", error)
    if not m:
        return ""
    try:
        enum = descriptor_pool.Default().FindEnumTypeByName(m.group(2))
    except KeyError:
        return ""
    names = [v.name for v in enum.values if not v.name.endswith("_UNSPECIFIED")]
    return f" (accepted: {', '.join(names)})"


def parse_typed(text: str) -> pb.Action:
    try:
        action = json_format.Parse(text, pb.Action())
    except json_format.ParseError as e:
        raise CliError(f"--typed: not a fagin.v1.Action in JSON: {e}{_enum_hint(str(e))}") from None
    if action.WhichOneof("typed") is None:
        raise CliError("--typed: give the typed form under the game's name, e.g. "
                       '\'{"kids_of_london": {"kind": "KIND_PLAY_CARD", "card": 3}}\'')
    return action


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
        players = (f"{g.min_players}" if g.min_players == g.max_players
                   else f"{g.min_players}-{g.max_players}")
        print(f"{g.id:<18}{g.name:<22}{players + ' players':<13}  "
              f"algorithms: {', '.join(g.algorithms)}  options: {opts}")


def cmd_new(client, args):
    options = {}
    for item in args.option or []:
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise CliError(f"--option: expected NAME=VALUE, got {item!r}")
        if name in options:
            raise CliError(f"--option: {name} given twice")
        options[name] = value
    resp = _new_game(client, args.game, args.players, args.seed, options)
    print(to_json(resp.state))


def _new_game(client, game, players, seed, options=None):
    """NewGame, with the server's field names in errors turned into the flags the user typed."""
    try:
        return client.new_game(game, players, seed, **(options or {}))
    except grpc.RpcError as e:
        m = _NEW_GAME_FIELD.match(e.details() or "")
        if e.code() != grpc.StatusCode.INVALID_ARGUMENT or not m:
            raise
        flag = f"--option {m.group(2)}" if m.group(2) else _NEW_GAME_FLAGS[m.group(1)]
        raise CliError(flag + e.details()[m.end(1):]) from None


_NEW_GAME_FIELD = re.compile(r"^(options\.(\w+)|options|players|game):")
_NEW_GAME_FLAGS = {"options": "--option", "players": "--players", "game": "GAME"}


def cmd_legal(client, args):
    resp = client.legal_actions(read_state(args.state), args.seat)
    if args.json:
        print(to_json(resp))
        return
    if resp.status.terminal:
        print(f"the game is over; returns {list(resp.status.returns)}: {resp.status.final_scores.explanation}")
    for i, a in enumerate(resp.actions):
        prob = f"  p={resp.probabilities[i]:.3f}" if resp.probabilities else ""
        print(f"{a.id:>4}  {a.label}{prob}")


def cmd_apply(client, args):
    state = read_state(args.state)
    if args.typed is not None:
        action = parse_typed(args.typed)
    elif args.action is not None:
        action = as_id(args.action)
        if action is None:      # a label: the server lists what it may name
            action = find_action(client.legal_actions(state, args.seat).actions, args.action)
    else:
        action = None
    resp = client.apply(state, action, seat=args.seat, seed=args.seed, stop_at_chance=args.stop_at_chance)
    print(to_json(resp.state))
    for a in resp.applied:
        print(f"applied: {a.label}", file=sys.stderr)


def cmd_view(client, args):
    resp = client.view(read_state(args.state), args.seat)
    print(resp.text if args.text else to_json(resp.state))
    if args.text and resp.status.terminal:
        print(final_result(list(resp.status.returns), args.seat, resp.status.final_scores))


def cmd_recommend(client, args):
    rec = client.recommend(read_state(args.state), args.seat, iterations=args.iterations,
                           time_ms=args.time_ms, seed=args.seed, exploration=args.exploration,
                           algorithm=args.algorithm, gamma=args.gamma, sample_action=args.sample,
                           threads=args.threads, rollout=args.rollout or "", level=args.level,
                           temperature=args.temperature)
    print(to_json(rec) if args.json else _stats_table(rec))


#: The terminal's width: ``fagin play`` wraps every line it prints to it.
COLUMNS = 80


def _say(text, out, prefix="", indent=""):
    """Prints ``text`` wrapped to COLUMNS, line by line (a table's short lines as they are)."""
    for line in text.splitlines() or [""]:
        if len(prefix + line) <= COLUMNS:
            print(prefix + line, file=out)
        else:
            print(textwrap.fill(line, COLUMNS, initial_indent=prefix,
                                subsequent_indent=indent or " " * (len(prefix) + 2),
                                break_on_hyphens=False), file=out)
        prefix = indent or prefix


def narrate(events, out):
    """A seat's events as ``fagin play`` prints them: "-- " before a move or a chance
    outcome, "== " before a summary (a round's or the game's end, a set-up's), wrapped to
    COLUMNS. An event a later summary sums up (``summed_up``: one card of a deal) is left to
    that summary."""
    for e in events:
        if not e.summed_up:
            _say(e.label, out, "== " if e.summary else "-- ", "   ")


def _percent(x) -> str:
    return f"{100 * x:5.1f}%"


def analysis_table(rec) -> str:
    """An analysis answer for people: the candidates with win %, margin +- error, visits,
    prior and principal variation, the position's value, and the beliefs."""
    lines = [f"analysis for seat {rec.seat}: {rec.action.label} (action {rec.action.id}, "
             f"final move by {rec.analysis.final_move})",
             f"{rec.iterations} iterations, {rec.nodes} nodes, {rec.elapsed_ms:.0f} ms, "
             f"stopped by {pb.StopReason.Name(rec.stop_reason).removeprefix('STOP_REASON_').lower()}"]
    root = rec.root
    if root.win_probabilities:
        lines.append("position: win " + ", ".join(f"seat {p} {_percent(w).strip()}"
                                                 for p, w in enumerate(root.win_probabilities)))
    else:
        lines.append("position: value " + ", ".join(f"seat {p} {v:.3f}" for p, v in enumerate(root.values)))
    if root.score_margins:
        lines.append("          margin " + ", ".join(f"seat {p} {m:+.2f}" for p, m in enumerate(root.score_margins)))
    lines.append(f"{'#':>3}  {'action':<34}{'win':>7}{'lcb':>7}  {'margin':>15}{'visits':>8}{'prior':>7}  pv")
    candidates = sorted((s for s in rec.actions if s.HasField("analysis")), key=lambda s: s.analysis.rank)
    for s in candidates:
        x = s.analysis
        win = _percent(x.win_probability) if x.HasField("win_probability") else f"{s.mean_value:6.3f}"
        lcb = _percent(x.win_probability_lcb) if x.HasField("win_probability") else f"{x.win_probability_lcb:6.3f}"
        margin = (f"{x.score_margin:+7.2f} ± {x.score_margin_error:5.2f}" if x.HasField("score_margin")
                  else "-")
        pv = "; ".join(m.action.label + ("" if m.visits or m.seat < 0 else "°") if m.seat in (rec.seat, -1)
                       else f"[seat {m.seat}] {m.action.label}" for m in x.pv)
        close = "≈" if x.close_to_best else " "
        lines.append(f"{close}{x.rank:>2}  {s.action.label[:34]:<34}{win:>7}{lcb:>7}  {margin:>15}{s.visits:>8}"
                     f"{x.prior:>7.3f}  {pv}")
    if any(m.visits == 0 and m.seat == rec.seat for s in rec.actions for m in s.analysis.pv):
        lines.append("° past the search tree: the game's rollout policy finishes the turn")
    lines += close_call_lines(rec, candidates)
    if rec.HasField("beliefs"):
        if not rec.beliefs.places:
            lines.append("beliefs: nothing hidden that the search's determinizations fix")
        else:
            lines.append(f"beliefs ({rec.beliefs.determinizations} determinizations):")
        for place in rec.beliefs.places:
            items = ", ".join(f"{b.item} {_percent(b.share).strip()}" +
                              (f" (x{b.copies:.2f})" if abs(b.copies - b.share) > 1e-9 else "")
                              for b in place.items)
            lines.append(f"  {place.place}: {items}")
    lines += [f"note: {n}" for n in rec.notes]
    return "\n".join(lines)


def close_call_lines(rec, candidates):
    """What a close call means, for people: without it two runs that recommend different
    plays (another seed, another budget) read as a contradiction."""
    close = [s.action.label for s in candidates if s.analysis.close_to_best]
    if not rec.too_close_to_call:
        return [f"≈ within the search's error of {rec.action.label}: {', '.join(close)}"] if close else []
    return [f"too close to call: {rec.action.label} is no surer a pick than {_listed(close)} (≈: the "
            f"difference is within the search's error); another seed may recommend any of them, "
            f"more iterations tell them apart"]


def _listed(words):
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def cmd_analyse(client, args):
    budget = {}
    if args.iterations is None and args.time_ms is None:
        budget["iterations"] = 10000
    rec = client.recommend(read_state(args.state), args.seat, iterations=args.iterations,
                           time_ms=args.time_ms, seed=args.seed, threads=args.threads,
                           algorithm=args.algorithm, rollout=args.rollout or "",
                           analysis=dict(candidates=args.candidates, pv_depth=args.pv_depth,
                                         beliefs=not args.no_beliefs, final_move=args.final_move),
                           **budget)
    print(to_json(rec) if args.json else analysis_table(rec))


def cmd_play(client, args, stdin=None, out=None):
    """Plays a game in the terminal: you at --seat, bots (server recommendations) elsewhere.
    Every move and chance outcome is told as your seat saw it (ApplyAction's events).

    The game is kept as its complete record (GameRecord), which every call takes in place of a
    state: ``--save FILE`` writes it after every move, ``--load FILE`` resumes it, and ``undo``
    takes back your last move with the bots' replies after it.

    Each bot seat keeps its search tree between its moves (a session of its own, with the
    decided stop): a bot that continues what it learnt last move plays markedly stronger for
    the same time (London: 73.3 % at equal time against the earlier level 10, seeds/london.md,
    "Tree reuse and the decided stop").  The record carries what the seat saw, so the tree is
    found again across turns.  ``--no-sessions``
    plays every move afresh to the whole budget, as before."""
    stdin = stdin or sys.stdin
    out = out or sys.stdout
    rng = random.Random(args.seed)
    # A caller's plain namespace may leave out the flags of a later version.
    save, load = getattr(args, "save", None), getattr(args, "load", None)
    if load:
        record = read_record(load)
        if args.game is not None and args.game != record.game:
            raise CliError(f"--load: {load} is a game of {record.game}, not {args.game}")
        if args.players is not None and args.players != record.players:
            raise CliError(f"--load: {load} is a game of {record.players} players, not {args.players}")
        args.game, args.players = record.game, record.players
    elif args.game is None:
        raise CliError("GAME: name the game to play, or resume one with --load FILE")
    else:
        record = None
    if args.players is None:
        info = {g.id: g for g in client.list_games()}.get(args.game)
        args.players = 4 if info is None else min(max(4, info.min_players), info.max_players)
    if not 0 <= args.seat < args.players:
        raise CliError(f"--seat: must be from 0 to {args.players - 1}")
    if record is None:
        resp = _new_game(client, args.game, args.players, rng.getrandbits(63))
        record, status = resp.record, resp.status
        opening = next((s.events for s in resp.events if s.seat == args.seat), [])
    else:
        status = _status_of(client, record, args.seat, f"--load: {load}")
        opening = []
    _write_record(save, record)
    # A session name per bot seat, unguessable (it is all that keeps the seat's tree its own
    # on a server without tokens), new for every game; an undo keeps them (the server moves
    # the kept tree back, or searches afresh and says so).
    keep_trees = not getattr(args, "no_sessions", False)
    sessions = {}
    _say(f"You are seat {args.seat}. Type an action's id, its label or the label's start "
         "(help: the commands and the table's symbols; q to quit).", out)
    if load:
        _say(f"resumed {load}: {len(record.moves)} moves played", out)
    narrate(opening, out)
    _say(client.view(record=record, seat=args.seat).text, out)
    while not status.terminal:
        seat = status.current_seat
        if seat == args.seat:
            legal = client.legal_actions(record=record, seat=seat).actions
            _say("your options: " + ", ".join(f"[{a.id}] {a.label}" for a in legal), out, indent="  ")
            while True:
                print("> ", end="", file=out, flush=True)
                line = stdin.readline()
                if line and not _is_terminal(stdin):
                    # Typed input is echoed by the terminal; read from a pipe, it is said
                    # here, so that the transcript reads as a session and a prompt never
                    # shares a line with what follows.
                    print(line.strip(), file=out)
                command = line.strip().lower()
                if not line or command in ("q", "quit"):
                    print("bye" + (f" (the game is saved in {save}: --load resumes it)" if save else ""), file=out)
                    return
                if command in ("help", "h", "?"):
                    _say(play_help(args.game), out, indent="  ")
                    continue
                if command in ("table", "t"):
                    _say(client.view(record=record, seat=args.seat).text, out)
                    _say("your options: " + ", ".join(f"[{a.id}] {a.label}" for a in legal), out, indent="  ")
                    continue
                if command in ("undo", "u"):
                    taken = take_back(record, args.seat)
                    if taken is None:
                        _say("nothing to take back: you have not moved yet", out)
                        continue
                    _write_record(save, record)
                    _say(f"took back your last move ({taken} moves undone)", out)
                    break
                try:
                    choice = find_action(legal, line)
                except CliError:
                    choice = None
                if choice in {a.id for a in legal}:
                    break
                _say(f"not an option: {line.strip()!r} (help lists the commands)", out)
            if command in ("undo", "u"):
                status = _status_of(client, record, args.seat, "undo")
                _say(client.view(record=record, seat=args.seat).text, out)
                continue
        else:
            level = getattr(args, "level", None)      # absent when called with a plain namespace
            budget = {"level": level} if level is not None else {"iterations": args.iterations}
            if keep_trees:
                budget.update(session=sessions.setdefault(seat, secrets.token_hex(16)), stop_when_decided=True)
            rec = client.recommend(record=record, seat=seat, seed=rng.getrandbits(63), **budget)
            choice = rec.action.id
        resp = client.apply(record=record, action=choice, seat=seat, seed=rng.getrandbits(63), observer=args.seat)
        record, status = resp.record, resp.status
        _write_record(save, record)
        narrate(resp.events[0].events, out)
        if not status.terminal and status.current_seat == args.seat:
            _say(client.view(record=record, seat=args.seat).text, out)
    _say(client.view(record=record, seat=args.seat).text, out)
    _say(final_result(list(status.returns), args.seat, status.final_scores), out)


def read_record(path: str) -> pb.GameRecord:
    """A game record (fagin.v1.GameRecord) from a JSON file, as ``fagin play --save`` writes it."""
    return _read_message(path, pb.GameRecord(), "--load")


def _write_record(path, record):
    """Writes the record to ``path`` (if any) whole or not at all: a game interrupted mid-write
    still resumes from its last move."""
    if not path:
        return
    part = f"{path}.part"
    try:
        with open(part, "w", encoding="utf-8") as f:
            f.write(to_json(record) + "\n")
        os.replace(part, path)
    except OSError as e:
        raise CliError(f"--save: cannot write {path}: {e.strerror}") from None


def _status_of(client, record, seat, what):
    """The record's position's status (whose turn, or the result), the record checked by the
    server: a bad record file is refused naming ``what`` and the move at fault."""
    try:
        return client.view(record=record, seat=seat).status
    except grpc.RpcError as e:
        if e.code() != grpc.StatusCode.INVALID_ARGUMENT:
            raise
        raise CliError(f"{what}: {e.details()}") from None


def take_back(record, seat):
    """Takes back ``seat``'s last move and every move after it (the others' replies and the
    chance events between) from a complete record, in place; how many moves went, or None if
    the seat has not moved."""
    mine = [i for i, m in enumerate(record.moves) if m.HasField("seat") and m.seat == seat]
    if not mine:
        return None
    taken = len(record.moves) - mine[-1]
    del record.moves[mine[-1]:]
    return taken


def _is_terminal(stream) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def final_result(returns, you, scores=None) -> str:
    """The end of a game for people: each seat's result, and yours said plainly.  With
    ``scores`` (the status's ``final_scores``, fagin.v1.FinalScores), the server's sentence
    saying why the winners won, then each seat's final score with its parts; without, a game
    whose returns are wins and losses (the seed games) says won/lost, the others (chips,
    points) show the return."""
    if scores is not None and scores.seats:
        return _final_scores_text(scores, you)
    wins_and_losses = all(r in (0, 1) for r in returns)
    lines = ["game over:"]
    for seat, r in enumerate(returns):
        result = ("won" if r else "lost") if wins_and_losses else f"{r:+g}"
        lines.append(f"  seat {seat}{' (you)' if seat == you else '':<6}  {result}")
    if wins_and_losses:
        winners = [seat for seat, r in enumerate(returns) if r]
        lines.append("you win!" if you in winners and len(winners) == 1 else
                     "you share the win" if you in winners else
                     f"seat {winners[0]} wins" if len(winners) == 1 else
                     f"seats {', '.join(map(str, winners))} share the win" if winners else "nobody wins")
    else:
        lines.append(f"your result: {returns[you]:+g}")
    return "\n".join(lines)


def _amount(unit, x) -> str:
    """A score in its unit: "£38", "14 VP", "return -2"."""
    if unit == "£":
        return f"£{x:g}" if x >= 0 else f"-£{-x:g}"
    return f"return {x:g}" if unit == "return" else f"{x:g} {unit}"


def _final_scores_text(scores, you) -> str:
    """FinalScores as lines: a line per seat (won or lost, its total, and its parts as a sum,
    zero parts left out, or as the ranking's keys in order; how the end treated it), the
    server's sentence saying why the winners won, and yours said plainly."""
    winners = list(scores.winners)
    names = [s.name + (" (you)" if s.seat == you else "") for s in scores.seats]
    width = max(len(n) for n in names)
    lines = ["game over:"]
    for s, who in zip(scores.seats, names):
        text = f"  {who:<{width}}  {'won ' if s.seat in winners else 'lost'}  {_amount(scores.unit, s.total)}"
        if scores.parts_add_up:
            shown = [p for p in s.parts if p.points]
            if len(shown) > 1:
                text += " = " + " ".join(
                    (("-" if p.points < 0 else "") if i == 0 else ("- " if p.points < 0 else "+ "))
                    + f"{abs(p.points):g} {p.name}" for i, p in enumerate(shown))
        elif s.parts:
            text += " (" + ", ".join(f"{p.name} {p.points:g}" for p in s.parts) + ")"
        if s.note:
            text += f"; {s.note}"
        lines.append(text)
    lines.append(scores.explanation)
    lines.append("you win!" if winners == [you] else "you share the win" if you in winners else
                 "you lose")
    return "\n".join(lines)


#: What `help` says in `fagin play`, whatever the game.
PLAY_COMMANDS = (
    ("ID", "play the action with that id (the number in [ ] in your options)"),
    ("LABEL", "play the action with that label, or the label's unique start (any case): buy w"),
    ("table, t", "show the table again, then your options"),
    ("undo, u", "take back your last move, and the bots' replies after it"),
    ("help, h, ?", "this help"),
    ("q, quit", "leave the game"),
)
#: The symbols every game's table uses.
COMMON_SYMBOLS = (
    ("*seat N", "the seat to play"),
    ("-- ...", "a move or a chance outcome, as your seat saw it"),
    ("== ...", "a summary: a round's end, the scoring, the game's end"),
)


def play_help(game) -> str:
    """The commands of `fagin play` and the table's symbols (the game's own, its ``SYMBOLS``,
    from the module that renders its table)."""
    symbols = COMMON_SYMBOLS + tuple(getattr(_render_module(game), "SYMBOLS", ()))
    width = max(len(k) for k, _ in PLAY_COMMANDS + symbols)
    return "\n".join(["commands:"] + [f"  {k:<{width}}  {what}" for k, what in PLAY_COMMANDS]
                     + ["the table's symbols:"] + [f"  {k:<{width}}  {what}" for k, what in symbols])


def _render_module(game):
    """The module beside the game's ``render``: its Python state module, or, for a game whose
    state is Cython, its compiled engine (which includes the state)."""
    found = None
    # The engine first: a Python state module imports its engine, which imports it back, so
    # the state module alone cannot be imported before its engine.
    for name in ("engine", "state"):
        try:
            found = importlib.import_module(f"fagin.engines.{game}.{name}")
        except ImportError:      # no such module here, or the engines not installed with this client
            continue
    return found


def _global_options(parser, defaults: bool):
    # Given to the main parser with defaults and to every command without
    # (SUPPRESS: absent, it leaves the main parser's value), so that they may
    # come before or after the command's name; the later one wins.
    default = (lambda value: value) if defaults else (lambda value: argparse.SUPPRESS)
    parser.add_argument("--server", default=default(DEFAULT_TARGET),
                        help=f"HOST:PORT of the server (default {DEFAULT_TARGET})")
    parser.add_argument("--timeout", type=float, default=default(None),
                        help="deadline of each call, seconds")
    # Security (docs/operating.md, Security). The token has no flag: a flag is visible in the process list.
    parser.add_argument("--tls", action="store_true", default=default(False),
                        help="connect with TLS, verifying the server against the system's roots")
    for flag, metavar, text in (
            ("--tls-ca", "FILE", "connect with TLS, verifying the server against this CA (PEM)"),
            ("--tls-cert", "FILE", "client certificate (PEM) for a server that requires one (mTLS)"),
            ("--tls-key", "FILE", "private key (PEM) of --tls-cert"),
            ("--tls-server-name", "NAME", "the name in the server's certificate, when not the --server host"),
            ("--auth-token-file", "FILE", "file whose first token line is the bearer token to send "
                                          "(default: environment FAGIN_AUTH_TOKEN, if set)")):
        parser.add_argument(flag, metavar=metavar, default=default(None), help=text)


def build_parser():
    parser = argparse.ArgumentParser(prog="fagin", description="fagin: AI opponents for tabletop games.")
    _global_options(parser, defaults=True)
    common = argparse.ArgumentParser(add_help=False)
    _global_options(common, defaults=False)
    sub = parser.add_subparsers(dest="command", required=True)

    def command(name, **kw):
        return sub.add_parser(name, parents=[common], **kw)

    sub.add_parser("serve", help="run a server (fagin serve --help)", add_help=False)
    sub.add_parser("batch", help="recommendations for a file of positions, through servers or Ray "
                   "(fagin batch --help)", add_help=False)
    sub.add_parser("arena", help="a tournament between bots, with ratings and a report, in this process "
                   "(fagin arena --help)", add_help=False)
    p = command("games", help="list the games served")
    p.add_argument("--json", action="store_true")
    p = command("new", help="start a game; prints its state")
    p.add_argument("game")
    p.add_argument("--players", type=INT32, required=True)
    p.add_argument("--seed", type=SEED, default=0)
    p.add_argument("--option", action="append", metavar="NAME=VALUE")
    p = command("legal", help="list legal actions")
    p.add_argument("--state", required=True, help="FILE or - for stdin")
    p.add_argument("--seat", type=INT32)
    p.add_argument("--json", action="store_true")
    p = command("apply", help="apply an action; prints the next state")
    p.add_argument("--state", required=True)
    which = p.add_mutually_exclusive_group()
    which.add_argument("--action", help='an action id or label, e.g. 8 or "play 8" '
                       "(omit both at a chance event to draw it)")
    which.add_argument("--typed", metavar="JSON", help="the action in typed form, a fagin.v1.Action "
                       """in JSON, e.g. '{"kids_of_london": {"kind": "KIND_PLAY_CARD", "card": 8}}'""")
    p.add_argument("--seat", type=INT32)
    p.add_argument("--seed", type=SEED, default=0)
    p.add_argument("--stop-at-chance", action="store_true")
    p = command("view", help="the state as one seat sees it")
    p.add_argument("--state", required=True)
    p.add_argument("--seat", type=INT32, required=True)
    p.add_argument("--text", action="store_true", help="print the table instead of JSON")
    p = command("recommend", help="ask for the best move")
    p.add_argument("--state", required=True)
    p.add_argument("--seat", type=INT32, required=True)
    p.add_argument("--iterations", type=INT64)
    p.add_argument("--time-ms", type=INT64)
    p.add_argument("--seed", type=SEED, default=0)
    p.add_argument("--exploration", type=float)
    p.add_argument("--algorithm", default="", help="auto (default: the game's choice), ismcts, ismcts_rm or oos")
    p.add_argument("--level", type=INT32, help="bot level 1-10: sets iterations, algorithm and temperature "
                   "(given flags win)")
    p.add_argument("--temperature", type=float, help="0: the best move (default); above 0, up to 10: a move "
                   "drawn from the policy raised to 1/temperature")
    p.add_argument("--gamma", type=float, help="ismcts_rm's and oos's exploration mix")
    p.add_argument("--threads", type=INT32, help="threads for this search (root parallelism; default 1)")
    p.add_argument("--rollout", choices=("random", "policy"),
                   help="rollouts: uniformly random or the game's rollout policy (default: the game's choice, policy for London, random elsewhere)")
    p.add_argument("--sample", action="store_true", help="draw the action from the policy")
    p.add_argument("--json", action="store_true")
    p = command("analyse", help="analyse a position: the best plays with win %%, margins, plans and beliefs")
    p.add_argument("--state", required=True)
    p.add_argument("--seat", type=INT32, required=True)
    p.add_argument("--iterations", type=INT64, help="search budget (default 10000 when --time-ms is not given)")
    p.add_argument("--time-ms", type=INT64)
    p.add_argument("--seed", type=SEED, default=0)
    p.add_argument("--threads", type=INT32)
    p.add_argument("--algorithm", default="", help="auto (default), ismcts, ismcts_rm or oos")
    p.add_argument("--rollout", choices=("random", "policy"))
    p.add_argument("--candidates", type=INT32, help="plays reported in full (default 5)")
    p.add_argument("--pv-depth", type=INT32, help="moves past the seat's turn in each plan (default 4)")
    p.add_argument("--final-move", default="", choices=("", "visits", "value", "lcb"),
                   help="how the best play is chosen (default visits)")
    p.add_argument("--no-beliefs", action="store_true", help="leave out the beliefs")
    p.add_argument("--json", action="store_true")
    p = command("play", help="play against bots in the terminal")
    p.add_argument("game", nargs="?", help="the game (left out with --load: the saved game's)")
    p.add_argument("--save", metavar="FILE", help="keep the game's record (JSON) in FILE, written after every move")
    p.add_argument("--load", metavar="FILE", help="resume the game whose record FILE holds (from --save)")
    p.add_argument("--players", type=INT32, default=None,
                   help="default: 4, or the nearest count the game takes (ListGames)")
    p.add_argument("--seat", type=INT32, default=0, help="your seat")
    bots = p.add_mutually_exclusive_group()
    bots.add_argument("--iterations", type=INT64, default=2000, help="bots' search budget (default 2000)")
    bots.add_argument("--level", type=INT32, choices=range(1, 11), metavar="1-10",
                      help="bots' level: the game's calibrated ladder, 1 weakest, 10 strongest")
    p.add_argument("--seed", type=SEED, default=None)
    p.add_argument("--no-sessions", action="store_true",
                   help="bots search every move afresh to the whole budget, instead of keeping each seat's "
                        "search tree between its moves and stopping once the move is decided (stronger "
                        "for the time)")
    p = command("loadtest", help="load a server on this machine and report (fagin loadtest --help)")
    loadtest.add_arguments(p)
    return parser


def client_security(args, environ=None) -> dict:
    """FaginClient's security options from the command line (and FAGIN_AUTH_TOKEN)."""
    environ = os.environ if environ is None else environ
    token = environ.get("FAGIN_AUTH_TOKEN") or None
    if args.auth_token_file:
        from fagin.server.security import parse_token_file
        try:
            with open(args.auth_token_file, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            raise CliError(f"--auth-token-file: cannot read {args.auth_token_file}: {e.strerror}") from None
        try:
            token = parse_token_file(text, "--auth-token-file")[0]
        except ValueError as e:
            raise CliError(str(e)) from None
    if bool(args.tls_cert) != bool(args.tls_key):
        raise CliError("--tls-cert and --tls-key go together (a client certificate and its key)")
    return dict(tls=args.tls, ca_file=args.tls_ca, cert_file=args.tls_cert, key_file=args.tls_key,
                token=token, server_name=args.tls_server_name)


COMMANDS = {"games": cmd_games, "new": cmd_new, "legal": cmd_legal, "apply": cmd_apply,
            "view": cmd_view, "recommend": cmd_recommend, "analyse": cmd_analyse, "play": cmd_play}


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    # `serve` takes the server's own flags.
    if argv[:1] == ["serve"]:
        from fagin.server.app import main as serve_main
        return serve_main(argv[1:])
    # `batch` too: it may name several servers, or none (--ray).
    if argv[:1] == ["batch"]:
        from fagin.clients.batch import main as batch_main
        return batch_main(argv[1:])
    # `arena` plays bots against each other in this process: no server.
    if argv[:1] == ["arena"]:
        from fagin.search.tournament import main as arena_main
        return arena_main(argv[1:])
    parser = build_parser()
    args, rest = parser.parse_known_args(argv)
    if args.command == "serve":
        parser.error("serve takes the server's own flags and no client options: fagin serve [--help]")
    if args.command == "batch":
        parser.error("batch takes its own flags after its name: fagin batch [--help]")
    if args.command == "arena":
        parser.error("arena takes its own flags after its name: fagin arena [--help]")
    if rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    if args.command == "loadtest":       # its own channels, many of them
        return loadtest.run(args)
    try:
        try:
            client = FaginClient(args.server, timeout=args.timeout, **client_security(args))
        except ValueError as e:
            raise CliError(str(e)) from None
        with client:
            COMMANDS[args.command](client, args)
        # Output is written out here, inside the try, so that a closed pipe is
        # met below rather than at exit.
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (`fagin legal | head -1`): stop quietly, as
        # Unix tools killed by SIGPIPE do. Whatever is still buffered goes to
        # devnull, or Python would report the pipe again at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
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
