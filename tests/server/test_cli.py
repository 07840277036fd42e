"""The `fagin` command line against a real server, and `python -m fagin.server` as a process."""
import io
import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time

import grpc
import pytest
from google.protobuf import json_format
from grpc_health.v1 import health_pb2, health_pb2_grpc

from fagin.clients import FaginClient, cli
from fagin.engines import load_game
from fagin.server import codec
from fagin.v1 import fagin_pb2 as pb

from ..games.london.helpers import scored
from ..serving import line_reader
from .test_metrics import free_port


def run(server, *args, stdin=None, capsys=None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = cli.main(["--server", server.target, *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_games_new_legal_apply_view_recommend(server, tmp_path, capsys, monkeypatch):
    code, out, _ = run(server, "games", capsys=capsys)
    assert code == 0 and "kids_of_london" in out and "2-5 players" in out
    code, out, _ = run(server, "new", "kids_of_london", "--players", "3", "--seed", "4", capsys=capsys)
    assert code == 0
    game = tmp_path / "game.json"
    game.write_text(out)
    # proto3 JSON's lowerCamelCase, the HTTP API's spelling (before: the .proto's kids_of_london).
    assert json.loads(out)["kidsOfLondon"]["players"] == 3
    code, out, _ = run(server, "legal", "--state", str(game), capsys=capsys)
    assert code == 0 and "play 8" in out
    code, out, err = run(server, "apply", "--state", str(game), "--action", "6", capsys=capsys)
    assert code == 0 and "applied: play 6" in err
    nxt = tmp_path / "next.json"
    nxt.write_text(out)
    code, out, _ = run(server, "view", "--state", "-", "--seat", "1", "--text",
                       stdin=nxt.read_text(), capsys=capsys, monkeypatch=monkeypatch)
    assert code == 0 and "seat 0:" in out and "has chosen" in out and "6" not in out.split("seat 0:")[1].split("\n")[0].split("hand")[0]
    code, out, _ = run(server, "recommend", "--state", str(nxt), "--seat", "2", "--iterations", "500",
                       capsys=capsys)
    assert code == 0 and "recommended for seat 2" in out and "500 iterations" in out
    code, out, _ = run(server, "recommend", "--state", str(nxt), "--seat", "2", "--iterations", "300",
                       "--json", capsys=capsys)
    rec = json.loads(out)
    assert int(rec["iterations"]) == 300 and len(rec["actions"]) == 9
    code, out, _ = run(server, "recommend", "--state", str(nxt), "--seat", "1", "--iterations", "300",
                       "--algorithm", "ismcts_rm", "--sample", "--json", capsys=capsys)
    rec = json.loads(out)
    assert rec["settings"]["algorithm"] == "ismcts_rm" and rec["settings"]["sampleAction"]
    code, out, _ = run(server, "recommend", "--state", str(nxt), "--seat", "2", "--iterations", "301",
                       "--threads", "2", "--json", capsys=capsys)
    rec = json.loads(out)
    assert rec["settings"]["threads"] == 2 and int(rec["iterations"]) == 301
    code, out, _ = run(server, "recommend", "--state", str(nxt), "--seat", "2", "--level", "2",
                       "--json", capsys=capsys)
    rec = json.loads(out)
    assert rec["settings"]["level"] == 2 and rec["settings"]["temperature"] == 1.0
    code, out, _ = run(server, "recommend", "--state", str(nxt), "--seat", "2", "--iterations", "50",
                       "--temperature", "3", "--json", capsys=capsys)
    assert json.loads(out)["settings"]["temperature"] == 3.0


def test_cli_errors_are_reported_without_tracebacks(server, tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"kids_of_london": {"players": 9}}')
    code, _, err = run(server, "legal", "--state", str(bad), capsys=capsys)
    assert code == 2 and err.startswith("fagin: INVALID_ARGUMENT: state.kids_of_london.players")
    bad.write_text("not json")
    code, _, err = run(server, "legal", "--state", str(bad), capsys=capsys)
    assert code == 2 and "--state" in err
    code, _, err = run(server, "legal", "--state", str(tmp_path / "missing.json"), capsys=capsys)
    assert code == 2 and "cannot read" in err
    code = cli.main(["--server", "127.0.0.1:1", "--timeout", "2", "games"])
    assert code == 3
    assert "cannot reach" in capsys.readouterr().err


def test_play_a_full_game_in_the_terminal(server, capsys, monkeypatch):
    moves = "\n".join(["x", "99"] + [str(c) for c in range(9)] * 3) + "\n"
    code, out, _ = run(server, "play", "kids_of_london", "--players", "3", "--seed", "2",
                       "--iterations", "100", stdin=moves, capsys=capsys, monkeypatch=monkeypatch)
    assert code == 0
    assert "You are seat 0" in out and "not an option: 'x' (help lists the commands)" in out
    # The result as a table, not Python lists (before: "game over: returns [0.0, 1.0, 0.0]").
    assert "game over:\n  seat 0 (you)  " in out and "returns [" not in out
    # With each seat's coins and the sentence saying why the winner won (issue 50, item 5).
    assert re.search(r"\n  seat 0 \(you\)  (won |lost)  \d+ coins", out) and "(KL-20)." in out
    # Each move is told as seat 0 saw it: its own card named, the bots' not.
    assert out.count("-- you put your ") >= 8
    assert out.count("-- seat 1 puts a card down") >= 8 and out.count("-- seat 2 puts a card down") >= 8
    assert out.count("== hour ") == 9 and "== game over: " in out
    assert max(len(line) for line in out.splitlines()) <= cli.COLUMNS


def test_play_quits_on_q(server, capsys, monkeypatch):
    code, out, _ = run(server, "play", "kids_of_london", "--players", "2", "--seat", "1",
                       stdin="q\n", capsys=capsys, monkeypatch=monkeypatch)
    assert code == 0 and out.rstrip().endswith("bye")


def test_server_process_serves_health_and_stops_gracefully_on_sigterm():
    # DEBUG: the server logs "search started", which the test waits for before SIGTERM.
    env = {**os.environ, "FAGIN_WORKERS": "1", "FAGIN_GRACE_SECONDS": "20", "FAGIN_LOG_LEVEL": "DEBUG"}
    proc = subprocess.Popen([sys.executable, "-m", "fagin.server", "--port", "0", "--http-port", "0"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    err_lines = queue.Queue()

    def read_stderr():
        for err_line in proc.stderr:
            err_lines.put(err_line)
        err_lines.put(None)
    threading.Thread(target=read_stderr, daemon=True).start()
    err = []
    try:
        line = proc.stdout.readline()
        assert line.startswith("fagin listening on 127.0.0.1:"), line
        target = line.split(" on ")[1].strip()
        channel = grpc.insecure_channel(target)
        status = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
        assert status.status == health_pb2.HealthCheckResponse.SERVING
        with FaginClient(target, timeout=30) as client:
            state = client.new_game("kids_of_london", 4, seed=1).state
            result = {}

            def call():
                began = time.monotonic()
                result["rec"] = client.recommend(state, 0, time_ms=1500)
                result["wall_s"] = time.monotonic() - began

            t = threading.Thread(target=call)
            t.start()
            # SIGTERM once the call's search has started: after a fixed sleep, a loaded machine
            # may not have had the call accepted yet (it would be refused, not drained).
            while not err or "search started" not in err[-1]:
                err.append(err_lines.get(timeout=30))
                assert err[-1] is not None, "".join(err[:-1])
            proc.send_signal(signal.SIGTERM)
            t.join(20)
        # The call accepted before SIGTERM finished normally: it ran out its time budget
        # (not cancelled).  The budget is wall-clock from the call's start, so the search's
        # own elapsed_ms (time inside its slices) may fall short of it on a loaded machine;
        # the client's wall time may not.
        assert result["rec"].stop_reason == pb.STOP_REASON_TIME
        assert result["wall_s"] >= 1.45
        assert proc.wait(20) == 0
        while err[-1] is not None:
            err.append(err_lines.get(timeout=30))
        err = "".join(err[:-1])
        assert "shutting down" in err and "Recommend" in err
        channel.close()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_server_flags_and_environment():
    from fagin.server import config
    import argparse
    parser = argparse.ArgumentParser()
    config.add_arguments(parser)
    ns = parser.parse_args(["--port", "6000", "--workers", "3"])
    c = config.from_namespace(ns, environ={"FAGIN_PORT": "7000", "FAGIN_MAX_TIME_MS": "900"})
    assert (c.port, c.workers, c.max_time_ms) == (6000, 3, 900)
    with pytest.raises(ValueError, match="FAGIN_WORKERS"):
        config.from_namespace(None, environ={"FAGIN_WORKERS": "many"})
    with pytest.raises(ValueError, match="workers"):
        config.ServerConfig(workers=0)
    # Limits a search could not honour are refused at start-up, not met later as internal errors.
    with pytest.raises(ValueError, match="max_time_ms"):
        config.ServerConfig(max_time_ms=10**9)
    with pytest.raises(ValueError, match="max_iterations"):
        config.ServerConfig(max_iterations=10**13)


def test_play_gangs_of_kyoto_to_the_end(server, capsys, monkeypatch):
    moves = "\n".join(["0", "1", "2", "5"] * 600) + "\n"
    code, out, _ = run(server, "play", "gangs_of_kyoto", "--players", "3", "--seed", "3",
                       "--iterations", "50", stdin=moves, capsys=capsys, monkeypatch=monkeypatch)
    assert code == 0 and "Gangs of Kyoto" in out and "game over:\n  seat 0 (you)  " in out
    assert re.search(r"\n  seat 0 \(you\)  (won |lost)  \d+ bells", out)
    assert re.search(r"Seat \d wins Gangs of Kyoto with \d+ bells?, .*\(GK-1[469]\)", out)
    # The bots' gifts and every round's end are narrated, within 80 columns.
    assert "-- seat 1 gives " in out and "== round 1 is over: " in out
    assert max(len(line) for line in out.splitlines()) <= cli.COLUMNS


@pytest.mark.parametrize("game_id", ["london", "oliver_twist", "fagins_gang"])
def test_play_narrates_the_bots_turns_and_the_round_summaries(server, capsys, monkeypatch, game_id):
    """`fagin play` prints every move as your seat saw it, with the round
    summaries, and keeps to 80 columns: here until your first decisions (the first option
    each time), then quits."""
    moves = "\n".join(["0"] * 12 + ["q"]) + "\n"
    code, out, err = run(server, "play", game_id, "--players", "3", "--seat", "2", "--seed", "4",
                         "--iterations", "20", stdin=moves, capsys=capsys, monkeypatch=monkeypatch)
    assert code == 0, err
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= cli.COLUMNS, max(lines, key=len)
    assert any(line.startswith("-- seat 0") for line in lines) and any(line.startswith("-- seat 1") for line in lines)
    assert "acted" not in out and "moved" not in out
    # Read from a pipe, what was typed is said after the prompt, which shares its line with
    # nothing else.
    assert all(re.fullmatch(r"> \S*", line) for line in lines if line.startswith(">")), \
        [line for line in lines if line.startswith(">")]
    # A set-up told item by item is given as the summary that ends it.
    summary = {"london": "== the deal: ", "oliver_twist": "== the board: "}.get(game_id)
    if summary:
        assert summary in out
        opening = out[:out.index(summary)]
        assert "comes up on space" not in opening and " draws " not in opening, opening


def test_global_options_work_before_and_after_the_command(server, capsys):
    code = cli.main(["games", "--server", server.target, "--timeout", "30"])
    out, err = capsys.readouterr()
    assert code == 0 and "kids_of_london" in out, err
    # Given twice, the later one wins, as in git and kubectl.
    code = cli.main(["--server", "127.0.0.1:1", "--timeout", "2", "games", "--server", server.target])
    assert code == 0 and "kids_of_london" in capsys.readouterr().out
    code = cli.main(["--server", server.target, "games", "--server", "127.0.0.1:1", "--timeout", "2"])
    assert code == 3 and "cannot reach a server at 127.0.0.1:1" in capsys.readouterr().err
    # The form before the command still works, and the defaults hold without either.
    args = cli.build_parser().parse_args(["games"])
    assert (args.server, args.timeout) == (cli.DEFAULT_TARGET, None)
    args = cli.build_parser().parse_args(["--timeout", "5", "legal", "--state", "-", "--server", "h:1"])
    assert (args.server, args.timeout) == ("h:1", 5.0)


def test_every_command_ends_its_output_with_one_newline(server, tmp_path, capsys, monkeypatch):
    game = tmp_path / "game.json"
    code, out, _ = run(server, "new", "kids_of_london", "--players", "3", "--seed", "4", capsys=capsys)
    game.write_text(out)
    outputs = {"new": out}
    for args in [("games",), ("games", "--json"), ("legal", "--state", str(game)),
                 ("legal", "--state", str(game), "--json"), ("apply", "--state", str(game), "--action", "1"),
                 ("view", "--state", str(game), "--seat", "0"),
                 ("view", "--state", str(game), "--seat", "0", "--text"),
                 ("recommend", "--state", str(game), "--seat", "0", "--iterations", "50"),
                 ("recommend", "--state", str(game), "--seat", "0", "--iterations", "50", "--json")]:
        code, out, err = run(server, *args, capsys=capsys)
        assert code == 0, (args, err)
        outputs[" ".join(args[:1] + args[-1:])] = out
    for name, out in outputs.items():
        assert out.endswith("\n") and not out.endswith("\n\n"), (name, out[-40:])
    assert "  2 players " in outputs["games games"]      # not "2-2 players"


def test_a_closed_pipe_ends_the_command_quietly(server, tmp_path):
    # `fagin legal --json | head -1`: the reader is gone before the output is written.
    game = tmp_path / "game.json"
    with FaginClient(server.target, timeout=30) as client:
        game.write_text(cli.to_json(client.new_game("goofspiel", 2, seed=1).state))
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run([sys.executable, "-m", "fagin.clients.cli", "--server", server.target,
                               "legal", "--json", "--state", str(game)],
                              stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=60)
    finally:
        os.close(write_end)
    assert proc.stderr == "" and proc.returncode == 141


def test_apply_takes_an_action_by_id_label_or_typed_form(server, tmp_path, capsys):
    code, out, _ = run(server, "new", "kids_of_london", "--players", "3", "--seed", "4", capsys=capsys)
    game = tmp_path / "game.json"
    game.write_text(out)
    by_id = run(server, "apply", "--state", str(game), "--action", "6", capsys=capsys)
    by_label = run(server, "apply", "--state", str(game), "--action", " Play  6", capsys=capsys)
    typed = '{"kids_of_london": {"kind": "KIND_PLAY_CARD", "card": 6}}'
    by_type = run(server, "apply", "--state", str(game), "--typed", typed, capsys=capsys)
    assert by_id[0] == by_label[0] == by_type[0] == 0
    assert by_id[1] == by_label[1] == by_type[1] and "applied: play 6" in by_label[2]
    # An unknown label lists the legal ones.
    code, _, err = run(server, "apply", "--state", str(game), "--action", "bid 6", capsys=capsys)
    assert code == 2 and err.startswith("fagin: --action: 'bid 6' is not a legal action here; legal: ")
    assert "'play 0' (0)" in err and "'play 8' (8)" in err
    # Another seat's labels are those the server lists for it.
    code, out, err = run(server, "apply", "--state", str(game), "--seat", "2", "--action", "PLAY 8",
                         capsys=capsys)
    assert code == 0 and "applied: play 8" in err
    # A typed form that is not one, or misspells an enum, says what is accepted.
    code, _, err = run(server, "apply", "--state", str(game), "--typed", "{}", capsys=capsys)
    assert code == 2 and err.startswith("fagin: --typed: give the typed form under the game's name")
    code, _, err = run(server, "apply", "--state", str(game), "--typed",
                       '{"kids_of_london": {"kind": "PLAY"}}', capsys=capsys)
    assert code == 2 and err.startswith("fagin: --typed:") and "accepted: KIND_PLAY_CARD, " in err
    assert "KIND_UNSPECIFIED" not in err
    code, _, err = run(server, "apply", "--state", str(game), "--typed", '{"goofspiel": {"card": 1}}',
                       capsys=capsys)
    assert code == 2 and "INVALID_ARGUMENT: action.typed" in err


def test_apply_by_label_at_a_chance_event(server, tmp_path, capsys):
    # After both Goofspiel bids, turning up the next point card is a chance
    # event: its outcomes are listed, and named, like actions.
    code, out, _ = run(server, "new", "goofspiel", "--players", "2", "--seed", "3", capsys=capsys)
    game = tmp_path / "game.json"
    for bid in ("card 1", "card 2"):
        game.write_text(out)
        code, out, err = run(server, "apply", "--state", str(game), "--action", bid, "--stop-at-chance",
                             capsys=capsys)
        assert code == 0, err
    game.write_text(out)
    code, legal, _ = run(server, "legal", "--state", str(game), capsys=capsys)
    assert "p=" in legal
    label = legal.splitlines()[-1].split("  p=")[0].split(None, 1)[1]
    code, out, err = run(server, "apply", "--state", str(game), "--action", label.upper(), capsys=capsys)
    assert code == 0 and f"applied: {label}" in err


def test_new_game_errors_name_the_flags(server, capsys):
    def err_of(*args):
        code, _, err = run(server, "new", *args, capsys=capsys)
        assert code == 2
        return err.strip()
    assert err_of("goofspiel", "--players", "2", "--option", "num_cards=x") == (
        "fagin: --option num_cards: expected a whole number from 2 to 13, got 'x'")
    assert err_of("goofspiel", "--players", "2", "--option", "foo=1").startswith(
        "fagin: --option: unknown option 'foo' for goofspiel; known: num_cards, ")
    assert err_of("goofspiel", "--players", "3") == "fagin: --players: Goofspiel takes 2 players, got 3"
    assert err_of("no_such_game", "--players", "2").startswith("fagin: GAME: unknown game 'no_such_game'")
    assert err_of("goofspiel", "--players", "2", "--option", "num_cards") == (
        "fagin: --option: expected NAME=VALUE, got 'num_cards'")
    assert err_of("goofspiel", "--players", "2", "--option", "=3") == "fagin: --option: expected NAME=VALUE, got '=3'"
    assert err_of("goofspiel", "--players", "2", "--option", "num_cards=3", "--option", "num_cards=4") == (
        "fagin: --option: num_cards given twice")


def test_play_takes_labels_too(server, capsys, monkeypatch):
    code, out, _ = run(server, "play", "kids_of_london", "--players", "2", "--seed", "2",
                       "--iterations", "20", stdin="Play 4\nq\n", capsys=capsys, monkeypatch=monkeypatch)
    assert code == 0 and "-- you put your 4 down" in out and "not an option" not in out


def test_read_state_closes_its_file(tmp_path, monkeypatch):
    import builtins
    opened = []
    real_open = builtins.open

    def tracking_open(*a, **kw):
        f = real_open(*a, **kw)
        opened.append(f)
        return f
    path = tmp_path / "s.json"
    path.write_text('{"kuhn_poker": {}}')
    monkeypatch.setattr(builtins, "open", tracking_open)
    cli.read_state(str(path))
    assert opened and all(f.closed for f in opened)


@pytest.mark.parametrize("args, flag", [
    (["new", "kids_of_london", "--players", "99999999999"], "--players"),
    (["new", "kuhn_poker", "--players", "2", "--seed", "-1"], "--seed"),
    (["recommend", "--state", "-", "--seat", "99999999999"], "--seat"),
])
def test_numbers_out_of_a_fields_range_are_usage_errors(server, capsys, args, flag):
    with pytest.raises(SystemExit) as e:
        cli.main(["--server", server.target, *args])
    assert e.value.code == 2
    assert f"argument {flag}:" in capsys.readouterr().err


def test_play_names_the_players_flag(server, capsys):
    code = cli.main(["--server", server.target, "play", "kuhn_poker", "--players", "4"])
    assert code == 2
    assert capsys.readouterr().err.startswith("fagin: --players: Kuhn poker takes 2 players")


def test_play_defaults_to_a_player_count_the_game_takes(server, capsys, monkeypatch):
    code, out, err = run(server, "play", "kuhn_poker", "--seed", "3", stdin="q\n", capsys=capsys,
                         monkeypatch=monkeypatch)
    assert code == 0, err
    assert "You are seat 0" in out


# ---------------------------------------------------------------- IPv6 hosts

@pytest.mark.parametrize("host", ["::1", "[::1]"])
def test_an_ipv6_host_is_served_with_or_without_brackets(host):
    # Before: `--host ::1` crashed with "RuntimeError: Failed to bind to address ::1:PORT".
    # The HTTP port's URL has the brackets too (before: "http://::1:8080", which no browser opens).
    http_port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "fagin.server", "--host", host, "--port", "0",
                             "--http-port", str(http_port), "--workers", "1", "--grace-seconds", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    next_line = line_reader(proc.stdout)
    try:
        line = next_line()
        assert line.startswith("fagin listening on [::1]:"), (line, proc.stderr.read() if not line else "")
        assert next_line().strip() == f"fagin http listening on http://[::1]:{http_port}"
        assert next_line().startswith(f"the browser page: open http://[::1]:{http_port}/ ")
        target = line.split(" on ")[1].strip()
        with grpc.insecure_channel(target) as channel:
            status = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
        assert status.status == health_pb2.HealthCheckResponse.SERVING
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_an_address_that_cannot_be_bound_is_a_clear_error_not_a_traceback():
    # 192.0.2.1 (TEST-NET-1) is no address of this machine.
    proc = subprocess.run([sys.executable, "-m", "fagin.server", "--host", "192.0.2.1", "--port", "0",
                           "--http-port", "0", "--workers", "1"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert "fagin serve: error: cannot listen on 192.0.2.1:0" in proc.stderr


def test_an_action_may_be_named_by_the_unique_start_of_its_label():
    """fagin play and --action take a label's unique beginning ("buy w" for "buy Westminster");
    a beginning that fits several labels is refused with the choices listed."""
    legal = [pb.Action(id=0, label="pass"), pb.Action(id=1, label="bet"), pb.Action(id=7, label="Buy Westminster"),
             pb.Action(id=8, label="buy Whitechapel")]
    assert cli.find_action(legal, "Be") == 1
    assert cli.find_action(legal, "buy wes") == 7
    assert cli.find_action(legal, "pass") == 0
    with pytest.raises(cli.CliError, match="several actions"):
        cli.find_action(legal, "buy w")
    with pytest.raises(cli.CliError, match="not a legal action"):
        cli.find_action(legal, "fold")


def test_play_takes_a_label_start_and_a_bot_level(server, capsys, monkeypatch):
    code, out, err = run(server, "play", "kuhn_poker", "--seed", "3", "--level", "4", stdin="b\nq\n",
                         capsys=capsys, monkeypatch=monkeypatch)
    assert code == 0, err
    assert "not an option" not in out and ("-- you bet" in out or "game over" in out)
    with pytest.raises(SystemExit):
        cli.main(["--server", server.target, "play", "kuhn_poker", "--level", "11"])
    with pytest.raises(SystemExit):
        cli.main(["--server", server.target, "play", "kuhn_poker", "--level", "3", "--iterations", "50"])


def test_play_london_shows_costs_prices_help_and_the_result_as_a_table(server, capsys, monkeypatch):
    """A newcomer's London (before: no card costs, colours or VP, no borough prices, `help`
    "not an option", and the result as Python lists)."""
    code, out, _ = run(server, "play", "london", "--players", "2", "--seed", "4", "--iterations", "20",
                       stdin="help\nt\nq\n", capsys=capsys, monkeypatch=monkeypatch)
    assert code == 0 and "not an option" not in out
    assert re.search(r"hand: .*\((blue|brown|pink|grey) £\d+(, \d+ VP)?\)", out)
    assert "for sale, north bank: Bethnal Green" in out and "Hackney £3 (5 cards, 2 VP)" in out
    assert "commands:" in out and "table, t" in out and "the table's symbols:" in out
    assert "(blue £6, 2 VP)" in out and "a borough's price" in out
    assert out.count("your options: ") == 2          # `t` shows the table and the options again
    assert max(len(line) for line in out.splitlines()) <= cli.COLUMNS


@pytest.mark.parametrize("returns, you, lines", [
    ([0.0, 1.0, 0.0], 0, ["game over:", "  seat 0 (you)  lost", "  seat 1        won", "  seat 2        lost",
                          "seat 1 wins"]),
    ([1.0, 1.0], 1, ["game over:", "  seat 0        won", "  seat 1 (you)  won", "you share the win"]),
    ([1.0, 0.0], 0, ["game over:", "  seat 0 (you)  won", "  seat 1        lost", "you win!"]),
    ([-2.0, 2.0], 0, ["game over:", "  seat 0 (you)  -2", "  seat 1        +2", "your result: -2"]),
])
def test_the_final_result_is_a_table(returns, you, lines):
    assert cli.final_result(returns, you).splitlines() == lines


def test_the_final_result_shows_the_final_scores_and_why():
    """Issue 50, item 5: with the status's final_scores, each seat's score and its parts (a sum,
    zero parts left out), how the end treated it, and the sentence saying why the winner won."""
    st = finished_kids_of_london([12, 10], fict=28)
    scores = codec.status_of(st).final_scores
    assert cli.final_result(list(st.returns()), 1, scores).splitlines() == [
        "game over:",
        "  seat 0                 won   12 coins; the most coins after the richest (KL-20)",
        "  seat 1 (you)           lost  10 coins",
        "  the fictitious player  lost  0 coins = 28 coins - 28 stripped; the richest: stripped of everything, "
        "ranked last (KL-20)",
        "Seat 0 wins Kids of London with 12 coins, the most after the richest: the fictitious player was the "
        "richest with 28 coins and was stripped (KL-20).",
        "you lose"]
    london = codec.status_of(scored(money={0: 40, 1: 0}, loans={0: 3}, vp={0: 3, 1: 1})).final_scores
    # Seat 0: £40 repays 2 of its 3 loans, £10 left is 3 VP, the loan left -7 (LN-76, LN-78).
    assert cli.final_result([0.0, 1.0], 0, london).splitlines() == [
        "game over:",
        "  seat 0 (you)  lost  -1 VP = 3 VP counters + 3 money - 7 unpaid loans",
        "  seat 1        won   1 VP",
        "Seat 1 wins London with 1 VP: 1 from VP counters.",
        "you lose"]


def finished_kids_of_london(coins, fict=None):
    d = {"players": len(coins), "turn": 9, "phase": "over", "pile": [],
         "seats": [{"coins": c, "hand": []} for c in coins]}
    if fict is not None:
        d["fictitious"] = {"coins": fict, "deck": []}
    return load_game("kids_of_london").from_description(d)


def test_view_of_a_finished_game_shows_the_final_scores(server, tmp_path, capsys):
    """`fagin view --text` of a finished game adds the final scores and why the winner won."""
    game = tmp_path / "over.json"
    game.write_text(json_format.MessageToJson(codec.encode_state(finished_kids_of_london([7, 7, 22, 4, 15]))))
    code, out, _ = run(server, "view", "--state", str(game), "--seat", "4", "--text", capsys=capsys)
    assert code == 0 and "game over:\n  seat 0        lost  7 coins" in out
    assert "  seat 4 (you)  won   15 coins" in out and out.rstrip().endswith("you win!")
    assert ("Seat 4 wins Kids of London with 15 coins, the most after the richest: seat 2 was the richest with "
            "22 coins and was stripped (KL-20).") in out
    code, out, _ = run(server, "legal", "--state", str(game), capsys=capsys)
    assert code == 0 and out.startswith("the game is over; returns [0.0, 0.0, 0.0, 0.0, 1.0]: Seat 4 wins Kids")


# The Python list or dict a table once printed: "[]", "[4, 7, 7]", "['ring']", "{...}".
LIST_REPR = re.compile(r"\[[^\]]*\]|\{[^}]*\}")
# Markers a seed game's table may print, each with the entry of its SYMBOLS that explains it.
MARKERS = {
    "london": {r"\(\w+ £\d+": "(blue £6, 2 VP)", r"\[\d\]": "[N]", r"\(face down\)": "(face down)"},
    "oliver_twist": {r"@@": "@@", r"\[\]": "[]", r"\?\?": "??", r"\$\$": "$$", r"\bt[BRCLP]\b": "tB tR tC tL tP",
                     r"\b[ah][12]\b": "a1, a2", r"\bCh\b": "Ch", r"\bxx\b": "xx", r"police file": "police file",
                     r"burglary cards": "burglary cards"},
    "kids_of_london": {r"\bhand \d": "hand 0 2 8", r"hand empty": "hand empty", r"cards played": "cards played",
                       r"fictitious": "fictitious", r"has chosen": "has chosen",
                       r"face-up card \d": "face-up card N"},
    "gangs_of_kyoto": {r"^F": "F", r"\b\d+b+\b": "5bb", r"\b\d+b*d\b": "5d", r"\bS18\b": "S18",
                       r"\bB+\b": "B, BB", r"\bX\b": "X", r"\bR\b": "R", r"hidden\)": "(+N hidden)",
                       r"row empty": "row empty"},
    "fagins_gang": {r"^F": "F", r"C[v^]": "C^, Cv", r"\bL0\b": "street, L0-L5", r"\b(Bl|Pu|Gr|Ye|Bk|Re)\d":
                    "Bl2", r"\b\d+s\b": "Bl 2s", r"(?<!L)\b\d{2,}\b(?= )": "12", r"white hands": "white hands N"},
}


def _allowed_brackets(game, line, found):
    """The brackets a table means: London's "[N]", a borough's owner (and "[seat]", its key),
    and Oliver Twist's "[]", the paved square, on its map (no colon or comma there) or its key."""
    if game == "london":
        return re.fullmatch(r"\[(\d|seat)\]", found)
    if game == "oliver_twist":
        return found == "[]" and (line.lstrip().startswith("@@ Gang pawn") or not re.search(r"[:,]", line))
    return False


def _played_tables(game, players, seed, seats):
    """The tables ``seats`` see at several points of a seeded random game, the end included."""
    import random
    from fagin.engines import load_game
    rng = random.Random(seed)
    st = load_game(game).new_initial_state(players)
    tables = []
    for step in range(2000):
        if step % 5 == 3 or st.is_terminal():
            tables += [st.render(s) for s in seats]
        if st.is_terminal():
            return tables
        if st.is_chance_node():
            st.apply(st.sample_chance(rng.getrandbits(63)))
        else:
            st = st.with_seat_to_act(rng.choice(st.pending_seats()))
            st.apply(rng.choice(st.legal_actions()))
    raise AssertionError(f"{game}: no end after 2000 steps")


@pytest.mark.parametrize("game, players", [("london", 3), ("london", 4), ("oliver_twist", 2), ("oliver_twist", 4),
                                           ("kids_of_london", 2), ("kids_of_london", 5),
                                           ("gangs_of_kyoto", 3), ("gangs_of_kyoto", 5),
                                           ("fagins_gang", 3), ("fagins_gang", 6)])
def test_every_seed_game_table_reads_as_text_within_80_columns_with_its_symbols_explained(game, players):
    """Every seed game's terminal table, through a game to its end (before: Python lists such
    as "stash []", "cards [4, 7, 7]", "row [5bb 1b]", Oliver Twist's map 95 columns wide,
    and no symbol explained but London's)."""
    help_text = cli.play_help(game)
    symbols = cli._render_module(game).SYMBOLS
    assert symbols and all(f"  {key}  " in help_text for key, _ in symbols)
    assert not any(re.search(r"\b[A-Z]{2}-\d+\b", key + what) for key, what in symbols)   # no rule ids
    keys = {key for key, _ in symbols}
    used = set()
    for table in _played_tables(game, players, seed=7, seats=(0, players - 1)):
        for line in table.splitlines():
            assert len(line) <= cli.COLUMNS, line
            assert not re.search(r"\b(None|True|False)\b", line), line
            for found in LIST_REPR.findall(line):
                assert _allowed_brackets(game, line, found), line
            used |= {key for marker, key in MARKERS[game].items() if re.search(marker, line)}
    assert used and used <= keys, used - keys


def test_play_help_finds_a_games_symbols_in_a_fresh_process():
    """A Python state module imports its engine, which imports it back: the help reads the
    symbols whichever is imported first."""
    code = "from fagin.clients import cli; print(cli.play_help('oliver_twist'))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "the Gang pawn" in out and "a Burglary token" in out


def _saved(path):
    from google.protobuf import json_format
    return json_format.Parse(path.read_text(encoding="utf-8"), cli.pb.GameRecord())


def test_play_saves_resumes_and_takes_back_a_move(server, tmp_path, capsys, monkeypatch):
    """fagin play keeps the game's record: --save writes it after every move, undo takes back
    your last move with the bots' replies, and --load resumes the game where it was left."""
    monkeypatch.chdir(tmp_path)          # a short path: the messages that name it wrap at 80 columns
    saved = tmp_path / "game.json"
    code, out, _ = run(server, "play", "kids_of_london", "--players", "3", "--seed", "5", "--iterations", "60",
                       "--save", "game.json", stdin="undo\n3\n4\n", capsys=capsys, monkeypatch=monkeypatch)
    said = " ".join(out.split())       # long paths wrap at the terminal's width
    assert code == 0 and "nothing to take back: you have not moved yet" in said
    assert f"the game is saved in game.json" in said
    two_moves = _saved(saved)
    assert two_moves.game == "kids_of_london" and two_moves.players == 3
    mine = [m for m in two_moves.moves if m.HasField("seat") and m.seat == 0]
    assert [m.action_id for m in mine] == [3, 4]
    # Resumed, the second move taken back: the record ends just before it.
    code, out, _ = run(server, "play", "--load", "game.json", "--iterations", "60", "--seed", "6", "--save", "game.json",
                       stdin="u\nq\n", capsys=capsys, monkeypatch=monkeypatch)
    said = " ".join(out.split())
    assert code == 0 and f"resumed game.json: {len(two_moves.moves)} moves played" in said
    assert "took back your last move (" in said
    one_move = _saved(saved)
    cut = [i for i, m in enumerate(two_moves.moves) if m.HasField("seat") and m.seat == 0][-1]
    assert list(one_move.moves) == list(two_moves.moves[:cut])
    # And played on to the end from there.
    moves = "\n".join([str(c) for c in range(9)] * 4) + "\n"
    code, out, _ = run(server, "play", "kids_of_london", "--load", "game.json", "--iterations", "60", "--seed", "7",
                       stdin=moves, capsys=capsys, monkeypatch=monkeypatch)
    assert code == 0 and "game over:\n  seat 0 (you)  " in out


def test_play_refuses_a_record_it_cannot_resume(server, tmp_path, capsys, monkeypatch):
    saved = tmp_path / "game.json"
    code, _, err = run(server, "play", "--load", str(tmp_path / "missing.json"), capsys=capsys)
    assert code == 2 and "--load: cannot read" in err
    saved.write_text("not json")
    code, _, err = run(server, "play", "--load", str(saved), capsys=capsys)
    assert code == 2 and "--load: " in err and "not a fagin.v1.GameRecord" in err
    saved.write_text(json.dumps({"game": "kids_of_london", "players": 3,
                                 "moves": [{"seat": 0, "actionId": 99}]}))
    code, _, err = run(server, "play", "--load", str(saved), capsys=capsys)
    assert code == 2 and "--load: " in err and "moves[0]" in err
    code, _, err = run(server, "play", "london", "--load", str(saved), capsys=capsys)
    assert code == 2 and "is a game of kids_of_london, not london" in err
    code, _, err = run(server, "play", capsys=capsys)
    assert code == 2 and "GAME: name the game" in err


def _recommendations(monkeypatch):
    """The bots' Recommend requests and answers of a `fagin play` run, as (settings, answer)."""
    seen = []
    ask = FaginClient.recommend

    def recording(self, state=None, seat=0, **settings):
        rec = ask(self, state, seat, **settings)
        seen.append((dict(settings, seat=seat), rec))
        return rec
    monkeypatch.setattr(FaginClient, "recommend", recording)
    return seen


@pytest.mark.parametrize("flag", [(), ("--no-sessions",)])
def test_play_keeps_each_bots_tree_between_its_moves(server, capsys, monkeypatch, flag):
    """Each bot seat asks with a session of its own, the same all game, and the decided stop:
    its kept tree is continued from the record (a head start); --no-sessions asks afresh."""
    seen = _recommendations(monkeypatch)
    moves = "\n".join(str(c) for c in range(9)) * 3 + "\n"
    code, out, _ = run(server, "play", "kids_of_london", "--players", "3", "--seed", "5", "--iterations", "150",
                       *flag, stdin=moves, capsys=capsys, monkeypatch=monkeypatch)
    assert code == 0 and "game over:" in out
    assert len(seen) >= 16 and {s["seat"] for s, _ in seen} == {1, 2}
    if flag:
        assert all("session" not in s and not rec.HasField("session") for s, rec in seen)
        assert not any(rec.settings.stop_when_decided for _, rec in seen)
        return
    names = {seat: {s["session"] for s, _ in seen if s["seat"] == seat} for seat in (1, 2)}
    assert all(len(n) == 1 for n in names.values()) and names[1] != names[2]
    assert all(len(next(iter(n))) == 32 for n in names.values())     # 128 random bits
    assert all(rec.settings.stop_when_decided for _, rec in seen)
    continued = [rec for _, rec in seen if rec.session.continued]
    assert continued and all(rec.session.head_start > 0 for rec in continued)
