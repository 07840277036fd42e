"""Seeded searches' fingerprints: the net under a refactor of the search or the engines.

Runs small seeded searches on an iteration budget over every registered game, every player
count, two positions (the opening, and a position a few random moves in, searched for the
last seat with a decision pending) and every search setting: random and policy rollouts, the
progressive bias, cut-off playouts scored by the hand-written, learned and margin
evaluations (by action count and by turns), the opponent models (own, observer, policy),
progressive widening, the final-move rules, regret matching (``ismcts_rm``), outcome
sampling (``oos``), root parallelism on a fixed number of threads, and an analysis with
beliefs.  A search with a fixed seed, budget and thread count is deterministic, so each
search's fingerprint is exact: its root actions' visits, values and policy, its iteration
and node counts (and for the analysis, its root sums, beliefs and principal variations).
A setting a game cannot take (a learned evaluation it does not ship, say) is fingerprinted
by the error it raises.

    .venv/bin/python bench/search_fingerprints.py --write bench/data/search_fingerprints.json
    .venv/bin/python bench/search_fingerprints.py --check bench/data/search_fingerprints.json

``--check`` lists every search whose fingerprint differs from the stored one (and the
fields that differ) and exits 1 if any does.  ``--every N`` runs every N-th search only (a
quick check; tests/search/test_search_fingerprints.py runs such a subset).
"""
from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from pathlib import Path

from fagin.engines import new_game
from fagin.engines.registry import GAMES
from fagin.search import analysis as analysis_module
from fagin.search.ismcts import ISMCTS
from fagin.search.limits import default_rollout
from fagin.search.root_parallel import RootParallelSearch
from fagin.search.settings import SearchSettings

#: Iterations of each search: enough for a tree of a few levels, small enough that the
#: whole run takes a minute or two on one core.
ITERATIONS = 200
#: Iterations of the "long" searches, whose trees outgrow their first chunks and hash table.
LONG_ITERATIONS = 3000
#: Random moves (and chance events) from the opening to the second position.
PLIES = 9
#: Threads of the root-parallel searches (their answer is reproducible for a seed and count).
THREADS = 2

#: (name, how it runs, SearchSettings fields): "plain" runs one ISMCTS, "long" one of
#: LONG_ITERATIONS, "parallel" a root-parallel search on THREADS threads, "analysis" an
#: ISMCTS gathering analysis and beliefs.  Settings
#: left out take the game's tuned values (``limits.tuned``), as a server's search does.
SETTINGS = (
    ("tuned", "plain", {}),
    ("random", "plain", {"rollout": "random"}),
    ("policy", "plain", {"rollout": "policy"}),
    ("exploration", "plain", {"rollout": "random", "exploration": 1.4}),
    ("prior", "plain", {"rollout": "policy", "prior": 4.0, "opponent_prior": 9.0}),
    ("cutoff_handwritten", "plain", {"rollout": "policy", "cutoff": 6, "evaluation": "handwritten"}),
    ("cutoff_learned", "plain", {"rollout": "policy", "cutoff": 6, "evaluation": "learned"}),
    ("cutoff_margin", "plain", {"rollout": "policy", "cutoff": 6, "evaluation": "margin", "margin_scale": 3.0}),
    ("cutoff_turns", "plain", {"rollout": "policy", "cutoff": 400, "turns": 2}),
    ("no_cutoff", "plain", {"rollout": "policy", "cutoff": 0}),
    ("opponents_own", "plain", {"rollout": "policy", "opponents": "own"}),
    ("opponents_observer", "plain", {"rollout": "random", "opponents": "observer"}),
    ("opponents_policy", "plain", {"rollout": "policy", "opponents": "policy"}),
    ("widen", "plain", {"rollout": "policy", "widen": 1.0}),
    ("final_lcb", "plain", {"rollout": "random", "final": "lcb"}),
    ("final_prior", "plain", {"rollout": "policy", "prior": 4.0, "final": "prior"}),
    ("ismcts_rm", "plain", {"rollout": "random", "selection": "rm"}),
    ("oos", "plain", {"rollout": "random", "selection": "os"}),
    ("root_parallel", "parallel", {"rollout": "random"}),
    ("root_parallel_policy", "parallel", {"rollout": "policy"}),
    ("analysis_beliefs", "analysis", {"rollout": "random"}),
    ("analysis_policy", "analysis", {"rollout": "policy", "prior": 4.0}),
    ("long", "long", {"rollout": "random"}),
    ("long_policy", "long", {"rollout": "policy"}),
)


def positions(game_id, players):
    """(name, state, seat): the opening for its first seat to act, and a position PLIES
    random moves in for its last seat with a decision pending."""
    opening = new_game(game_id, players, seed=players)
    yield "opening", opening, opening.pending_seats()[0]
    st, rng, last = opening.clone(), random.Random(players), opening
    for _ in range(PLIES):
        while st.is_chance_node():
            st.resolve_chance(rng.getrandbits(32))
        if st.is_terminal():
            break
        last = st.clone()
        st.apply(rng.choice(st.legal_actions()))
    while st.is_chance_node():
        st.resolve_chance(rng.getrandbits(32))
    if st.is_terminal():
        st = last
    yield f"ply{PLIES}", st, st.pending_seats()[-1]


def cases():
    """Every (key, game, players, position name, state, seat, setting name, kind, settings)."""
    for game_id, spec in GAMES.items():
        for players in range(spec.min_players, spec.max_players + 1):
            for where, st, seat in positions(game_id, players):
                for name, kind, settings in SETTINGS:
                    key = f"{game_id}/{players}/{where}/{name}"
                    yield key, st, seat, kind, settings


def _stats(result):
    return {"action": result.action, "iterations": result.iterations, "nodes": result.nodes,
            "stop": result.stop_reason,
            "root": [[s.action, s.visits, s.mean_value, s.policy] for s in result.stats]}


def fingerprint(st, seat, kind, settings, seed):
    """One search's fingerprint (a dict of plain values), or its error."""
    settings = dict(settings)
    iterations = LONG_ITERATIONS if kind == "long" else ITERATIONS
    settings.setdefault("rollout", default_rollout(st.game.spec, st.num_players, iterations,
                                                   settings.get("selection", "ucb")))
    try:
        if kind == "parallel":
            search = RootParallelSearch(st, seat, threads=THREADS, seed=seed, budget=iterations, **settings)
            return _stats(search.result(search.run(iterations=iterations)))
        search = ISMCTS(st, seat, SearchSettings(budget=iterations, analysis=kind == "analysis",
                                                 beliefs=kind == "analysis", **settings), seed)
    except ValueError as e:
        return {"error": str(e)}
    out = _stats(search.result(search.run(iterations=iterations)))
    if kind == "analysis":
        sums = search.analysis_sums()
        out["sums"] = {"root": sorted([a, *row] for a, row in sums["root"].items()),
                       "picks": sorted(sums["picks"].items()), "determinizations": sums["determinizations"],
                       "copies": sums["copies"], "present": sums["present"]}
        an = analysis_module.analyse([search], st, seat, beliefs=True, seed=seed)
        out["analysis"] = {"best": an.best, "values": an.values, "margins": an.margins,
                           "pv": [[c.action, [[m.action, m.seat, m.visits] for m in c.pv]] for c in an.candidates()],
                           "beliefs": [[p.place, p.seat, [[i.item, i.share, i.copies] for i in p.items]]
                                       for p in an.beliefs]}
    return out


def run(every=1, out=sys.stderr):
    """{key: fingerprint} of every `every`-th search, seeded by its index."""
    found = {}
    t0 = time.perf_counter()
    for i, (key, st, seat, kind, settings) in enumerate(cases()):
        if i % every:
            continue
        # Through JSON and back, so that a run compares with a stored file as it would be stored.
        found[key] = json.loads(json.dumps({"seat": seat, "kind": kind, "settings": settings,
                                            **fingerprint(st, seat, kind, settings, seed=1000 + i)}))
    print(f"{len(found)} searches in {time.perf_counter() - t0:.1f} s", file=out)
    return found


def differences(stored, found, tolerance=0.0):
    """Lines naming every search (and field) whose fingerprint differs: values within
    `tolerance` of each other agree (0: exactly)."""
    lines = []
    for key in sorted(set(stored) | set(found)):
        if key not in found:
            continue                       # a subset run leaves searches out
        if key not in stored:
            lines.append(f"{key}: not in the stored file")
            continue
        for where in _diff(stored[key], found[key], tolerance, ""):
            lines.append(f"{key}: {where}")
    return lines


def _diff(a, b, tolerance, path):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                yield f"{path}.{k}: only in the {'run' if k in b else 'stored file'}"
            else:
                yield from _diff(a[k], b[k], tolerance, f"{path}.{k}")
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            yield f"{path}: {len(a)} entries stored, {len(b)} now"
        else:
            for i, (x, y) in enumerate(zip(a, b)):
                yield from _diff(x, y, tolerance, f"{path}[{i}]")
    elif (isinstance(a, float) or isinstance(b, float)) and isinstance(a, (int, float)) \
            and isinstance(b, (int, float)) and not isinstance(a, bool) and not isinstance(b, bool):
        if not (a == b or math.isclose(a, b, rel_tol=tolerance, abs_tol=tolerance)):
            yield f"{path}: {a!r} stored, {b!r} now"
    elif a != b:
        yield f"{path}: {a!r} stored, {b!r} now"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", metavar="FILE", help="write the fingerprints to FILE")
    mode.add_argument("--check", metavar="FILE", help="compare with the fingerprints stored in FILE")
    parser.add_argument("--every", type=int, default=1, help="run every N-th search only (with --check)")
    parser.add_argument("--tolerance", type=float, default=0.0,
                        help="values within this (absolute or relative) agree; 0, the default: exactly")
    args = parser.parse_args(argv)
    if args.write and args.every != 1:
        parser.error("--every: a stored file holds every search")
    found = run(args.every)
    if args.write:
        Path(args.write).parent.mkdir(parents=True, exist_ok=True)
        Path(args.write).write_text(json.dumps(found, indent=None, separators=(",", ":"), sort_keys=True)
                                    .replace('},"', '},\n"') + "\n")
        print(f"wrote {len(found)} fingerprints to {args.write}")
        return 0
    stored = json.loads(Path(args.check).read_text())
    lines = differences(stored, found, args.tolerance)
    for line in lines:
        print(line)
    missing = len(set(stored) - set(found)) if args.every == 1 else 0
    if missing:
        print(f"{missing} stored searches were not run (a game or setting removed?)")
    print(f"{len(found)} searches checked, {len({l.split(':')[0] for l in lines})} differ")
    return 1 if lines or missing else 0


if __name__ == "__main__":
    sys.exit(main())
