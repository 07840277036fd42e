"""ISMCTS iterations per second on one core, and root parallelism on all of them.

Rows: Kids of London at the opening of each player count and at turn 5
(hour 6) of a 4-player game reached by random play; Gangs of Kyoto at the
first decision of a 2- and a 5-player game; London at the first decision of
a 2- and a 4-player game and at turn 20 of a 2-player game reached by random
play (a mid-game position: stacks built, boroughs bought); Fagin's Gang at the
first decision of a 2- and a 6-player game; each with uniformly random
rollouts and with the game's rollout policy, and the tree's bytes per
iteration (``tree_bytes``: the memory it holds, its node and slot chunks and
hash tables, the free room at their ends included; builds before the chunked
tree counted only what was in use).  Then, for the Kids of London 4-player opening and the
Gangs of Kyoto 5-player opening, the same number of iterations as one search
on 1 thread and on every core (root parallelism,
``fagin.search.root_parallel``), alternating, with the wall-time speed-up.

``--compare DIR`` instead measures this build against another checkout whose
extensions are built in place (for example ``git worktree add ../fagin-base
COMMIT && cd ../fagin-base && make build``): the Kids of London 4-player and
Gangs of Kyoto 5-player openings, London's 2-player turn 12 and Fagin's Gang's
2-player round 3, each run in a
fresh process with random rollouts and with the rollout policy, the two builds
alternating, with the iterations/s ratios and the bytes per iteration of
both.  A build whose search has no ``tree_bytes`` (before nodes were sized by
their legal actions) is charged what its layout took: 16 bytes a node plus a
40-byte slot for each of ``max_decision_actions``, plus its hash table.

    .venv/bin/python bench/ismcts_speed.py [--iterations N] [--repeat R]
    .venv/bin/python bench/ismcts_speed.py --compare ../fagin-base [--iterations N] [--repeat R]
"""
import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from fagin.engines import new_game
from fagin.search import ismcts
from fagin.search import root_parallel


def _reached(game_id, players, seed, reached, choose=None):
    """The first decision at which ``reached(state)`` holds in a seeded game played from its
    opening, uniformly at random or by ``choose(state, rng)``."""
    st = new_game(game_id, players, seed=seed)
    rng = random.Random(seed)
    while not reached(st) or st.is_chance_node():
        if st.is_chance_node():
            st.resolve_chance(rng.getrandbits(32))
        else:
            st.apply(choose(st, rng) if choose else rng.choice(st.legal_actions()))
    return st


def at_turn(players, turn, seed):
    return _reached("kids_of_london", players, seed, lambda st: st.describe()["turn"] >= turn)


def london_at_turn(players, turn, seed):
    """A London position reached by uniformly random play: the first decision of turn ``turn``."""
    from fagin.engines.london import engine as london
    return _reached("london", players, seed, lambda st: london._raw(st.to_bytes())["turns"] >= turn)


def fagins_gang_at_round(players, rounds, seed):
    """A Fagin's Gang position reached by the heuristic's play: the first decision after
    ``rounds`` rounds (urchins on the board, goods in hand)."""
    from fagin.engines.fagins_gang import engine as fagins_gang
    return _reached("fagins_gang", players, seed, lambda st: st.describe()["round"] >= rounds,
                    lambda st, rng: fagins_gang.heuristic_action(st.to_bytes(), seed=rng.getrandbits(32)))


def tree_bytes(search, st):
    """The search's tree bytes; for a build without ``tree_bytes``, what its
    fixed layout took (16-byte nodes with max_decision_actions 40-byte slots
    each, a table of the next power of two >= twice the node capacity, which
    doubled from 1,024)."""
    if hasattr(search, "tree_bytes"):
        return search.tree_bytes
    nodes, cap = search.num_nodes, 1024
    while cap < nodes:
        cap *= 2
    table = 16
    while table < 2 * cap:
        table *= 2
    return nodes * (16 + 40 * st.game.max_decision_actions) + 4 * table


def _root_parallel_search():
    """The root-parallel search of the build imported (its name differs in builds older than
    this one, which --compare runs this script against)."""
    return getattr(root_parallel, "root_parallel_search", None) or root_parallel.search


def run_one(st, iterations, seed, rollout):
    """One search: (iterations/s, nodes, tree bytes per iteration)."""
    settings = {} if rollout is None else {"rollout": rollout}
    if hasattr(ismcts, "SearchSettings"):
        s = ismcts.ISMCTS(st, st.current_player(), ismcts.SearchSettings(**settings), seed)
    else:                      # a build before the settings record took keywords
        s = ismcts.ISMCTS(st, st.current_player(), seed=seed, **settings)
    s.run(iterations=iterations)
    return s.iterations / (s.elapsed_ms / 1000), s.num_nodes, tree_bytes(s, st) / s.iterations


def measure(st, iterations, repeat, rollout):
    runs = [run_one(st, iterations, r, rollout) for r in range(repeat)]
    return statistics.median(r[0] for r in runs), runs[-1][1], runs[-1][2]


COMPARED = {
    "KoL 4 players, opening": lambda: new_game("kids_of_london", 4, seed=1),
    "GoK 5 players, opening": lambda: new_game("gangs_of_kyoto", 5, seed=1),
    "London 2 players, turn 12": lambda: london_at_turn(2, 12, seed=3),
    "FG 2 players, round 3": lambda: fagins_gang_at_round(2, 3, seed=3),
}


def child(args):
    """--one: a single search in this process, printed as JSON."""
    st = COMPARED[args.one]()
    rollout = args.rollout if hasattr(ismcts, "ROLLOUTS") else None
    rate, nodes, per_iter = run_one(st, args.iterations, args.seed, rollout)
    print(json.dumps({"rate": rate, "nodes": nodes, "bytes_per_iteration": per_iter}))


def shim_for(root):
    """A directory that makes ``import fagin`` load the checkout at `root`
    (put first on PYTHONPATH; this environment's editable finder comes after it)."""
    root = Path(root).resolve()
    shim = Path(tempfile.mkdtemp(prefix="fagin-compare-"))
    pkg = shim / "fagin"
    pkg.mkdir()
    for entry in (root / "proto" / "fagin").iterdir():
        (pkg / entry.name).symlink_to(entry)
    for name in ("engines", "search", "server", "clients"):
        (pkg / name).symlink_to(root / name)
    return shim


def compare(args):
    here = Path(__file__).resolve()
    shim = shim_for(args.compare)
    try:
        _compare(args, here, dict(os.environ, PYTHONPATH=str(shim)))
    finally:
        shutil.rmtree(shim)


def _compare(args, here, other_env):
    builds = [("this build, random rollouts", None, "random"),
              ("this build, rollout policy", None, "policy"),
              (f"{args.compare}, random rollouts", other_env, "random"),
              (f"{args.compare}, rollout policy", other_env, "policy")]
    print(f"{args.iterations:,} iterations a run, {args.repeat} rounds, builds alternating, one process a run")
    print(f"{'position':<26}{'build':<32}{'iter/s (median)':>16}{'B/iteration':>13}{'nodes':>10}")
    for name in COMPARED:
        got = {label: [] for label, _, _ in builds}
        for r in range(args.repeat):
            order = builds if r % 2 == 0 else builds[::-1]
            for label, env, rollout in order:
                out = subprocess.run([sys.executable, str(here), "--one", name, "--iterations", str(args.iterations),
                                      "--seed", str(r), "--rollout", rollout],
                                     env=env, capture_output=True, text=True, check=True)
                got[label].append(json.loads(out.stdout))
        rates = {}
        for label, _, _ in builds:
            runs = got[label]
            rates[label] = statistics.median(x["rate"] for x in runs)
            print(f"{name:<26}{label:<32}{rates[label]:>16,.0f}{runs[-1]['bytes_per_iteration']:>13,.0f}"
                  f"{runs[-1]['nodes']:>10,}")
        print(f"{name:<26}{'ratio this/other, random':<32}{rates[builds[0][0]] / rates[builds[2][0]]:>15.3f}x")
        print(f"{name:<26}{'ratio this/other, policy':<32}{rates[builds[1][0]] / rates[builds[3][0]]:>15.3f}x")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--compare", metavar="DIR", help="another checkout, extensions built in place")
    ap.add_argument("--one", choices=sorted(COMPARED), help=argparse.SUPPRESS)
    ap.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--rollout", default="random", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        return child(args)
    if args.compare:
        return compare(args)
    print(f"{'position':<28}{'iterations':>11}{'rollout':>9}{'iter/s (median)':>17}{'nodes':>10}"
          f"{'B/iteration':>13}")
    rows = [(f"KoL {p} players, opening", new_game("kids_of_london", p, seed=1)) for p in (2, 3, 4, 5)]
    rows.append(("KoL 4 players, turn 5", at_turn(4, 5, seed=2)))
    rows += [(f"GoK {p} players, opening", new_game("gangs_of_kyoto", p, seed=1)) for p in (2, 5)]
    rows += [(f"London {p} players, opening", new_game("london", p, seed=1)) for p in (2, 4)]
    rows.append(("London 2 players, turn 20", london_at_turn(2, 20, seed=2)))
    rows += [(f"FG {p} players, opening", new_game("fagins_gang", p, seed=1)) for p in (2, 6)]
    for name, st in rows:
        for rollout in ismcts.ROLLOUTS:
            rate, nodes, per_iter = measure(st, args.iterations, args.repeat, rollout)
            print(f"{name:<28}{args.iterations:>11,}{rollout:>9}{rate:>17,.0f}{nodes:>10,}{per_iter:>13,.0f}")

    threads = len(os.sched_getaffinity(0))
    print(f"\n{'root parallelism':<28}{'iterations':>11}{'1 thread s':>12}{f'{threads} threads s':>13}"
          f"{'speed-up':>10}")
    for name, st in (("KoL 4 players, opening", new_game("kids_of_london", 4, seed=1)),
                     ("GoK 5 players, opening", new_game("gangs_of_kyoto", 5, seed=1))):
        walls = {1: [], threads: []}
        for r in range(args.repeat):
            for t in ((1, threads) if r % 2 == 0 else (threads, 1)):
                start = time.perf_counter()
                _root_parallel_search()(st, st.current_player(), iterations=args.iterations, seed=r, threads=t)
                walls[t].append(time.perf_counter() - start)
        one, many = statistics.median(walls[1]), statistics.median(walls[threads])
        print(f"{name:<28}{args.iterations:>11,}{one:>12.3f}{many:>13.3f}{one / many:>9.2f}x")


if __name__ == "__main__":
    main()
