"""The bench scripts still run (tiny budgets; their figures are not checked here, only that they come out)."""
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"

RUNS = {
    "analysis_cost.py": (["--iterations", "50", "--repeat", "1", "--moves", "2"], "analysis/plain"),
    "playouts.py": (["--seconds", "0.05"], "playouts"),
    "ismcts_speed.py": (["--iterations", "200", "--repeat", "1"], "KoL 4 players, opening"),
    "gangs_of_kyoto_deck.py": (["--games", "3"], "Stay Late"),
    "fagins_gang_balance.py": (["--games", "2", "--ismcts-games", "2", "--iterations", "10"], "ISMCTS choices"),
    "calibration.py": (["--game", "gangs_of_kyoto", "--games", "3", "--positions", "2", "--iterations", "30",
                        "--min-bin", "1", "--tolerance", "100"], "Brier score"),
    "game_costs.py": (["--game", "london", "--seconds", "0.02", "--rounds", "1", "--iterations", "50",
                       "--midgame", "20"], "iteration/playout"),
    "oliver_twist_balance.py": (["--games", "2", "--players", "2"], "effect"),
    "goofspiel_exploitability.py": (["--iterations", "200", "--seeds", "1", "--cards", "4"], "OOS"),
    "peer_openspiel.py": (["--seconds", "0.2", "--hands", "4", "--simulations", "10",
                           "--cfr-iterations", "2"], "CFR+"),
    "grpc_overhead.py": (["--repeat", "1", "--rounds", "1", "--positions", "4",
                          "--batch-iterations", "20"], "== targets"),
    "server_faults.py": (["--streams", "20", "--seconds", "1", "--sample-s", "0.5", "--grace-seconds", "0.2",
                          "--long-ms", "20000", "--kept-trees", "2", "--kept-iterations", "2000"],
                         "process exited (0)"),
    "scheduler_probe.py": (["--pair-ms", "200", "--deadlines", "0.5", "--tries", "1", "--drain-seconds", "0.5",
                            "--grace-seconds", "0.2", "--clients", "2", "--batches", "5", "--items", "3"],
                           "refused batch"),
    "http_faults.py": (["--cases", "bodies,connections,fd-limit", "--wait-s", "5", "--nofile", "128",
                        "--connections", "140", "--server-args", "--http-idle-timeout 1 --http-body-timeout 1"],
                       "idle connection: closed after"),
    "request_cost.py": (["--positions", "1", "--rounds", "3"], "outside search"),
    "level_time.py": (["--game", "kids_of_london", "--players", "2", "--games", "1", "--level", "3"],
                      "every move within"),
    "level_chips.py": (["--game", "kuhn_poker", "--hands", "20"], "| 10 |"),
    "strength.py": (["--game", "kids_of_london", "--ns", "4", "--games", "4", "--positions", "2",
                     "--diag-budgets", "8", "16", "--settings", "policy:prior=3", "--progress"],
                    "ismcts:16:policy:prior=3 vs ismcts:4:policy:prior=3"),
    "fuzz_states.py": (["--inputs", "300", "--games", "kuhn_poker,liars_dice", "--quiet"], "0 defects"),
    "search_fingerprints.py": (["--check", str(BENCH / "data" / "search_fingerprints.json"), "--every", "97"],
                               "searches checked, 0 differ"),
    "events_cost.py": (["--games", "1", "--players", "2"], "every seat, median/mean us"),
    "record_replay.py": (["--games", "1", "--players", "2", "--iterations", "50"], "replayed and checked"),
    "session_value.py": (["--game", "kids_of_london", "--experiment", "ponder", "--deals", "1", "--iterations", "50"],
                         "scores"),
    # This checkout stands in for the earlier build (make test builds its .venv here).
    "equal_time.py": (["--game", "kuhn_poker", "--against", str(BENCH.parent), "--theirs", "ismcts:20",
                       "--ours", "ismcts:40", "--games", "1"], "equal time is about"),
}


def test_every_bench_script_is_covered():
    assert sorted(RUNS) == sorted(p.name for p in BENCH.glob("*.py"))


#: The runs that take longest (seconds, for the test scheduler); the others take one or two.
SECONDS = {"http_faults.py": 12, "scheduler_probe.py": 9, "grpc_overhead.py": 4, "playouts.py": 3,
           "session_value.py": 4}


@pytest.mark.parametrize("script", [pytest.param(s, marks=pytest.mark.long(SECONDS.get(s, 1.5)))
                                    for s in sorted(RUNS)])
def test_bench_script_runs(script):
    args, expected = RUNS[script]
    done = subprocess.run([sys.executable, str(BENCH / script), *args], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert expected in done.stdout, done.stdout[-2000:]
