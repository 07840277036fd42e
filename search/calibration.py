"""Calibrated win probabilities: what a search's value of a position means in games won.

A search's mean return for the asking seat is an estimate of its win chance, but not a
calibrated one: the playouts' policy and the cut-off evaluations bias it, and the tree's
own seat plays better than the playouts' other seats, so the search is too sure of itself
(a London position it put at 0.85 was won 63 % of the time; each seed game's spec has the
tables).  Each seed game's room therefore ships a **calibration map** per player count, in
``data/calibration.json``: a monotone function from the raw value a 1,000-iteration
search gives the asking seat to the share of such positions that seat went on to win.

The map is the **isotonic regression** of the outcomes on the raw values (scikit-learn's
``IsotonicRegression``), read between its knots by linear interpolation: the closest
non-decreasing fit, so it never reorders two values, and free in shape (a London value
is too sure at both ends, a Kids of London one only at the top; a temperature or a
two-parameter fit cannot follow both).  It is fitted, with its command and seed, by::

    python -m fagin.search.calibration --game GAME --players 2 --seed 2 \\
        --out engines/GAME/data/calibration.json

on positions drawn from self-play between bots of a cheap level (level 3), each searched
for the seat to act (:func:`sample_pairs`, the very positions ``bench/calibration.py``
judges a map on, there from another seed: held out).

The analysis answer (:mod:`fagin.search.analysis`) reports calibrated win probabilities
wherever the game ships a map for the player count, with their errors carried through
the map's mean slope around the raw value (:meth:`CalibrationMap.carry_error`) and lower
bounds 1.96 of those errors below; the search itself, its ``mean_value`` and
its choice of move use the raw values (a monotone map changes no ranking).  The other
seats' probabilities are scaled to fill what the asking seat's calibrated share leaves.
A map is fitted at 1,000 iterations: other budgets get the same map, close but not
fitted for them.
"""
from __future__ import annotations

import argparse
import bisect
import functools
import importlib.util
import json
import math
import pathlib
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from fagin.engines.room_data import data_path, read_json

#: Predictions are clipped to [EPS, 1 - EPS] in the log loss.
EPS = 1e-4
FILE = "calibration.json"


@dataclass(frozen=True)
class CalibrationMap:
    """A non-decreasing piecewise-linear map through the knots ``(xs[i], ys[i])``
    (``xs`` increasing, both in [0, 1]); constant beyond the first and the last knot."""
    xs: tuple
    ys: tuple

    def __call__(self, p: float) -> float:
        xs, ys = self.xs, self.ys
        if p <= xs[0]:
            return ys[0]
        if p >= xs[-1]:
            return ys[-1]
        i = bisect.bisect_right(xs, p)
        x0, x1 = xs[i - 1], xs[i]
        return ys[i - 1] + (ys[i] - ys[i - 1]) * (p - x0) / (x1 - x0)

    def carry_error(self, p: float, error: float, z: float) -> float:
        """The error of ``self(p)`` for a raw value ``p`` with standard error ``error``: the
        error times the map's mean slope over ``p`` plus or minus ``z`` errors (a secant,
        not the slope at ``p``: the map rises in steps, flat between them)."""
        lo, hi = max(0.0, p - z * error), min(1.0, p + z * error)
        if error <= 0 or hi <= lo:
            return 0.0
        return (self(hi) - self(lo)) / (hi - lo) * error


def calibrate_seats(fmap: CalibrationMap, probabilities, seat: int) -> list:
    """Every seat's win probability with the asking ``seat``'s calibrated and the others
    scaled to fill what is left, in the proportions the search gave them (the share in
    which nobody wins, in Kids of London, KL-20, is scaled alike)."""
    p = probabilities[seat]
    mine = fmap(p)
    rest = 1.0 - p
    out = []
    for q, x in enumerate(probabilities):
        if q == seat:
            out.append(mine)
        elif rest > 1e-12:
            out.append(x * (1.0 - mine) / rest)
        else:
            out.append((1.0 - mine) / (len(probabilities) - 1))
    return out


def _path(game_id: str) -> pathlib.Path:
    spec = importlib.util.find_spec(f"fagin.engines.{game_id}")
    if spec is None or spec.origin is None:
        raise ValueError(f"game: no room named {game_id!r}")
    return data_path(spec.origin, FILE)


def read_maps(path, game_id: str, min_players: int, max_players: int) -> dict:
    """``{players: CalibrationMap}`` from the file at ``path`` (``{}`` when there is none);
    a file that does not fit is refused with a ValueError naming the file and the field."""
    path = pathlib.Path(path)
    if not path.exists():
        return {}
    where = path.name
    doc = read_json(path, what="a calibration file", expect=None)
    maps = doc.get("maps") if isinstance(doc, dict) else None
    if not isinstance(maps, dict):
        raise ValueError(f"{where}: maps: an object of player counts expected")
    out = {}
    for key, entry in maps.items():
        n = int(key) if key.isdigit() else None
        if n is None or not min_players <= n <= max_players:
            raise ValueError(f"{where}: maps.{key}: not a player count of {game_id}")
        if not isinstance(entry, dict):
            raise ValueError(f"{where}: maps.{key}: an object with knots x and y expected")
        knots = []
        for name in ("x", "y"):
            values = entry.get(name)
            if not isinstance(values, list) or len(values) < 2:
                raise ValueError(f"{where}: maps.{key}.{name}: a list of at least 2 numbers expected")
            for i, v in enumerate(values):
                if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0.0 <= v <= 1.0:
                    raise ValueError(f"{where}: maps.{key}.{name}[{i}]: a number from 0 to 1 expected, got {v!r}")
            knots.append(tuple(float(v) for v in values))
        xs, ys = knots
        if len(xs) != len(ys):
            raise ValueError(f"{where}: maps.{key}: {len(xs)} x knots but {len(ys)} y knots")
        if any(b <= a for a, b in zip(xs, xs[1:])):
            raise ValueError(f"{where}: maps.{key}.x: must increase")
        if any(b < a for a, b in zip(ys, ys[1:])):
            raise ValueError(f"{where}: maps.{key}.y: must not decrease (a map that reorders values)")
        out[n] = CalibrationMap(xs, ys)
    return out


@functools.lru_cache(maxsize=None)
def _maps(game_id: str) -> dict:
    from fagin.engines.registry import GAMES
    spec = GAMES[game_id]
    return read_maps(_path(game_id), game_id, spec.min_players, spec.max_players)


def calibration_map(game_id: str, players: int) -> CalibrationMap | None:
    """The game's map for ``players`` seats, or None where it ships none (the raw values stand)."""
    return _maps(game_id).get(players)


# ------------------------------------------------------------------ positions and fitting

def _game(args):
    """One self-play game: its sampled positions' (raw value, outcome) for the seat to act."""
    from fagin.engines import GAMES, new_game
    from fagin.engines.game import decisions
    from fagin.search import ismcts, levels
    from fagin.search.limits import default_rollout
    from fagin.search.arena import wins_of
    from fagin.search.bots import make_bot
    game_id, players, level, positions, iterations, seed = args
    spec = GAMES[game_id]
    rng = random.Random(seed)
    bot = make_bot(f"level:{level}")
    state = new_game(game_id, players, seed=rng.getrandbits(31))
    met = []
    for seat in decisions(state, rng):
        met.append((state.clone(), seat))
        state.apply(bot.choose(state, seat, rng.getrandbits(63)))
    wins = wins_of(state.returns())
    chosen = rng.sample(met, min(positions, len(met)))
    algorithm, _ = levels.resolve(spec, players, "auto")
    out = []
    for position, seat in chosen:
        result = ismcts.run_search(position, seat, iterations=iterations, seed=rng.getrandbits(63),
                               rollout=default_rollout(spec, players, iterations, levels.SELECTION[algorithm]),
                               budget=iterations, selection=levels.SELECTION[algorithm])
        visits = sum(s.visits for s in result.stats)
        if visits == 0:
            continue
        # the root's value for the seat: the visit-weighted mean of its actions' values,
        # as the analysis answer's root value is
        value = sum(s.visits * s.mean_value for s in result.stats) / visits
        out.append((min(1.0, max(0.0, value)), wins[seat]))
    return out


def sample_pairs(game_id, players=2, games=200, positions=10, level=3, iterations=1000, seed=1,
                 workers=1, progress=False) -> list:
    """``(raw value, outcome)`` for ``positions`` decisions of each of ``games`` self-play
    games between level-``level`` bots, each searched for the seat to act with
    ``iterations`` iterations; the outcome is that seat's share of the win.  Everything
    follows from ``seed`` (the pool's ``map`` keeps the games' order)."""
    rng = random.Random(seed)
    jobs = [(game_id, players, level, positions, iterations, rng.getrandbits(63)) for _ in range(games)]
    pool = ProcessPoolExecutor(max_workers=workers) if workers > 1 else None
    try:
        results = pool.map(_game, jobs) if pool else map(_game, jobs)
        if progress:
            from tqdm import tqdm
            results = tqdm(results, total=len(jobs), unit="game", file=sys.stderr)
        return [pair for game in results for pair in game]
    finally:
        if pool:
            pool.shutdown()


def log_loss(pairs, f=lambda p: p) -> float:
    """The mean log loss of the predictions ``f(p)`` (clipped to [EPS, 1 - EPS])."""
    total = 0.0
    for p, o in pairs:
        q = min(1.0 - EPS, max(EPS, f(p)))
        total -= o * math.log(q) + (1.0 - o) * math.log(1.0 - q)
    return total / len(pairs)


def brier(pairs, f=lambda p: p) -> float:
    return statistics.fmean((f(p) - o) ** 2 for p, o in pairs)


def fit(pairs) -> CalibrationMap:
    """The isotonic regression of the outcomes on the raw values of ``pairs``
    (scikit-learn), as the knots of a :class:`CalibrationMap`."""
    from sklearn.isotonic import IsotonicRegression
    xs = [p for p, _ in pairs]
    model = IsotonicRegression(y_min=0.0, y_max=1.0, increasing=True, out_of_bounds="clip").fit(
        xs, [o for _, o in pairs])
    kx = [float(x) for x in model.X_thresholds_]
    ky = [float(y) for y in model.y_thresholds_]
    if len(kx) < 2:                      # every value alike: a flat map over [0, 1]
        kx, ky = [0.0, 1.0], [ky[0], ky[0]] if ky else [0.5, 0.5]
    return CalibrationMap(tuple(kx), tuple(ky))


def add_position_arguments(ap, games, seed):
    """The options of :func:`sample_pairs` (shared with ``bench/calibration.py``)."""
    from fagin.engines import GAMES
    # The seed games return each seat's share of the win, so their values are win chances.
    ap.add_argument("--game", required=True, choices=sorted(g for g, s in GAMES.items() if s.reference is None))
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--games", type=int, default=games)
    ap.add_argument("--positions", type=int, default=10, help="positions sampled per game")
    ap.add_argument("--level", type=int, default=3, help="the self-play bots' level (cheap)")
    ap.add_argument("--iterations", type=int, default=1000, help="iterations of each position's search")
    ap.add_argument("--seed", type=int, default=seed)
    ap.add_argument("--workers", type=int, default=1)


def pairs_for_arguments(ap, args) -> list:
    """:func:`sample_pairs` for the options :func:`add_position_arguments` added (and
    ``--progress``); a player count the game does not take is a usage error."""
    from fagin.engines import GAMES
    spec = GAMES[args.game]
    if not spec.min_players <= args.players <= spec.max_players:
        ap.error(f"--players: {spec.name} takes {spec.min_players}-{spec.max_players}")
    return sample_pairs(args.game, args.players, args.games, args.positions, args.level, args.iterations,
                        args.seed, args.workers, args.progress)


def main(argv=None):
    from fagin.engines import GAMES
    ap = argparse.ArgumentParser(prog="python -m fagin.search.calibration",
                                 description="Fits a seed game's calibration map (see the module's docstring).")
    add_position_arguments(ap, games=100, seed=2)
    ap.add_argument("--out", help="write the map into this file (kept: the other player counts' maps)")
    ap.add_argument("--progress", action="store_true")
    args = ap.parse_args(argv)
    spec = GAMES[args.game]
    started = time.perf_counter()
    pairs = pairs_for_arguments(ap, args)
    if len(pairs) < 20:
        sys.exit(f"only {len(pairs)} positions: too few to fit a map")
    fmap = fit(pairs)
    base = statistics.fmean(o for _, o in pairs)
    figures = {
        "positions": len(pairs),
        "log_loss_raw": round(log_loss(pairs), 4), "log_loss": round(log_loss(pairs, fmap), 4),
        "brier_raw": round(brier(pairs), 4), "brier": round(brier(pairs, fmap), 4),
        "brier_constant": round(brier(pairs, lambda p: base), 4),
    }
    print(f"{spec.name}, {args.players} players: {len(pairs)} positions from {args.games} games "
          f"({time.perf_counter() - started:.0f} s)")
    print(f"map: {len(fmap.xs)} knots, " + ", ".join(f"{x:.2f}->{fmap(x):.2f}" for x in (0.05, 0.25, 0.5, 0.75, 0.95)))
    print(f"fitted positions: log loss {figures['log_loss_raw']} raw, {figures['log_loss']} calibrated; "
          f"Brier {figures['brier_raw']} raw, {figures['brier']} calibrated, {figures['brier_constant']} "
          f"a constant (judge a map on held-out positions: bench/calibration.py)")
    if args.out:
        out = pathlib.Path(args.out)
        doc = read_json(out, what="a calibration file") if out.exists() else {}
        doc.update({"game": args.game, "method": "isotonic regression, read by linear interpolation between knots"})
        command = (f"python -m fagin.search.calibration --game {args.game} --players {args.players} "
                   f"--games {args.games} --positions {args.positions} --level {args.level} "
                   f"--iterations {args.iterations} --seed {args.seed} --out {args.out}")
        doc.setdefault("maps", {})[str(args.players)] = {
            "command": command, "seed": args.seed,
            "games": args.games, "level": args.level, "iterations": args.iterations, **figures,
            "x": list(fmap.xs), "y": list(fmap.ys)}
        doc["maps"] = dict(sorted(doc["maps"].items(), key=lambda kv: int(kv[0])))
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
        print(f"written: {out}")


if __name__ == "__main__":
    main()
