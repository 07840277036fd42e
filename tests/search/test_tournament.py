"""fagin arena: lineups, the Bradley-Terry ratings and their intervals, the report."""
import json
import math
import random

import pytest

from fagin.clients import cli
from fagin.search import tournament
from fagin.search.report import budget_families
from fagin.search.tournament import ELO, GameRecord


def test_two_player_lineups_are_every_pair_and_more_players_seat_a_bot_several_times():
    assert tournament.lineups(["a", "b", "c"], 2) == [["a", "b"], ["a", "c"], ["b", "c"]]
    three = tournament.lineups(["a", "b"], 3)
    assert three == [["a", "a", "b"], ["a", "b", "b"]]
    many = tournament.lineups([f"b{i}" for i in range(6)], 4, max_lineups=10, seed=3)
    assert len(many) == 10 and all(len(set(x)) > 1 for x in many)
    assert many == tournament.lineups([f"b{i}" for i in range(6)], 4, max_lineups=10, seed=3)
    with pytest.raises(ValueError, match="bots: each bot once"):
        tournament.lineups(["a", "a"], 2)


def _synthetic(p_win, games, seed=0):
    """Games of a against b (and b against c) that a wins with probability p_win."""
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        w = rng.random() < p_win
        out.append(GameRecord(["a", "b"], [1.0, 0.0] if w else [0.0, 1.0]))
        w = rng.random() < p_win
        out.append(GameRecord(["b", "c"], [1.0, 0.0] if w else [0.0, 1.0]))
    return out


def test_the_fit_recovers_known_odds_on_the_elo_scale():
    """a beats b and b beats c 3 times in 4: 3:1 odds, 400 log10(3) = 191 Elo a step."""
    ratings = {r.bot: r for r in tournament.rate(_synthetic(0.75, 4000), ["a", "b", "c"], samples=30)}
    step = ELO * math.log(3)
    assert ratings["a"].elo == 0
    assert ratings["b"].elo == pytest.approx(-step, abs=25)
    assert ratings["c"].elo == pytest.approx(-2 * step, abs=40)
    for r in ratings.values():
        assert r.low <= r.elo <= r.high
    assert ratings["b"].high - ratings["b"].low < 60


def test_draws_count_half_and_a_winless_bot_has_a_finite_rating():
    records = [GameRecord(["a", "b"], [0.5, 0.5])] * 10 + [GameRecord(["a", "c"], [1.0, 0.0])] * 10
    r = {x.bot: x for x in tournament.rate(records, ["a", "b", "c"], samples=10)}
    # Even with a (the prior, half a draw against an equal player each, pulls a little).
    assert r["b"].elo == pytest.approx(0, abs=30) and r["b"].score == 0.5
    assert -2000 < r["c"].elo < -200 and r["c"].score == 0.0
    assert tournament.pairwise_results(records)[("a", "c")] == (10.0, 10)


def test_a_small_tournament_writes_its_report(tmp_path):
    result = tournament.tournament("kuhn_poker", ["random", "ismcts:30", "ismcts:100"], 2, games=4,
                                   seed=2, bootstrap=20)
    assert len(result.records) == 3 * 4
    assert {r.bot for r in result.ratings} == {"random", "ismcts:30", "ismcts:100"}
    from fagin.search.report import write_report
    page = write_report(result, tmp_path / "r", command="test")
    text = page.read_text()
    assert "<table>" in text and "ismcts:100" in text and "budget.png" in text
    for png in ("ladder.png", "budget.png"):
        assert (tmp_path / "r" / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    data = json.loads((tmp_path / "r" / "results.json").read_text())
    assert len(data["games"]) == 12 and data["ratings"][0]["bot"] == "random"


def test_budget_families_group_bots_differing_only_in_budget():
    fams = budget_families(["random", "ismcts:100", "ismcts:1000", "ismcts@5ms", "ismcts@20ms",
                            "ismcts:100:random", "ismcts:300:random", "ismcts:50x2"])
    assert fams == {"ismcts (iterations a move)": [(100, "ismcts:100"), (1000, "ismcts:1000")],
                    "ismcts (ms a move)": [(5, "ismcts@5ms"), (20, "ismcts@20ms")],
                    "ismcts:random (iterations a move)": [(100, "ismcts:100:random"),
                                                          (300, "ismcts:300:random")]}


def test_fagin_arena_runs_and_refuses_bad_input_by_name(tmp_path, capsys):
    assert cli.main(["arena", "--game", "kuhn_poker", "--bots", "random", "heuristic", "--games", "2",
                     "--workers", "1", "--quiet", "--bootstrap", "5", "--report", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "Elo" in out and "report:" in out and (tmp_path / "report.html").exists()
    assert cli.main(["arena", "--game", "chess", "--bots", "random", "heuristic", "--quiet"]) == 2
    assert "game: unknown game 'chess'" in capsys.readouterr().err
    assert cli.main(["arena", "--game", "kuhn_poker", "--players", "5", "--bots", "random", "heuristic"]) == 2
    assert "players: kuhn_poker takes 2 to 2 players" in capsys.readouterr().err
    assert cli.main(["arena", "--game", "kuhn_poker", "--bots", "random", "ismcts:zero"]) == 2
    assert "ismcts:zero" in capsys.readouterr().err


def test_fagin_arena_stop_reports_a_failed_game_and_exits_1(monkeypatch, capsys):
    from fagin.search import arena
    real = arena.play_game

    def flaky(game_id, lineup, seats_of, seed, options=None):
        if seed[0] % 1_000_003 == 2:          # every game of deal 2
            raise RuntimeError("remote:x: the server is gone")
        return real(game_id, lineup, seats_of, seed, options)

    monkeypatch.setattr(arena, "play_game", flaky)
    assert cli.main(["arena", "--game", "kuhn_poker", "--bots", "random", "heuristic", "--games", "200",
                     "--paired", "--stop", "interval", "--check-every", "4", "--workers", "1", "--quiet"]) == 1
    captured = capsys.readouterr()
    assert "2 game(s) failed and 2 game(s) are left out" in captured.out
    assert "fagin arena: game 4 failed: RuntimeError: remote:x: the server is gone" in captured.err
