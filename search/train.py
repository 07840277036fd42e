"""Trains a game's learned evaluation: each seat's chance to win and expected final margin.

    python -m fagin.train --game GAME --seed 1 [--games 3000] [--players 2,3,4]
        [--sample 0.02] [--bot SPEC] [--workers 2] [--ray ADDRESS]
        [--out engines/GAME/data/learned.json]

Self-play positions come from games played by the game's rollout policy (the
heuristic player with the search's small uniform share, ``GameDef.rollout_action``:
the very positions a search's cut-off playouts reach), each decision kept with
probability ``--sample`` (:func:`fagin.search.playouts.sampled_playouts`).  With
``--bot SPEC`` (an arena bot spec, for example ``ismcts:64``) every seat is played
by that bot instead, so a position's label is who won under the search's own
play rather than the rollout policy's: slower (a search a decision), and a step
of expert iteration when the bot's search uses the room's current model.  Each
kept position gives one row per seat: the room's features for that seat
(``engine.features(data, seat)``, defined once in the engine), whether the
seat won, and its final score margin (its final score less the best other
seat's, ``GameDef.scores``, in the game's own units).  One logistic regression
per player count (scikit-learn, on standardised features; the weights are then
stated on the raw features) learns the win probability, and one ridge regression
the margin.  Every fifth game is held out, whole, so that no position of a
held-out game is seen in training; the held-out log loss and the accuracy at
naming the winner are printed beside the hand-written evaluation's
(``engine.evaluation``, already a win probability), and the margin's error (root
mean square and mean absolute, in score units) beside that of the margin as it
stands at the position (what an analysis reported where a playout stopped early
before there was a margin model), over every held-out position and over the
mid-game ones: those where the room's progress feature (``engine.PROGRESS_FEATURE``,
the share of the game still ahead, 1 at the start and 0 at the end: London's deck
left) lies between a third and two thirds.  The margin model is written only when
its held-out error over every position is below the as-it-stands margin's.

Everything follows from ``--seed``: the games' seeds, their order (the pool's
``map`` keeps it) and the solver (lbfgs, no randomness), so a run is repeatable.
Generation runs over ``--workers`` local processes, or on a Ray cluster with
``--ray ADDRESS`` (``local`` starts one here).  ``--out`` writes the model, with
its command and held-out figures, as the JSON the room loads.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from fagin.engines.registry import GAMES, load_game

#: Games one generation task plays (a task is one pool job).
GAMES_PER_TASK = 20
#: Every HOLD_OUT-th game is held out for the figures.
HOLD_OUT = 5
#: The mid-game positions: the room's progress feature (the share of the game still ahead)
#: from MID[0] to MID[1].
MID = (1 / 3, 2 / 3)


def _engine(game_id):
    if game_id not in GAMES:
        raise ValueError(f"--game: unknown game {game_id!r}; games: {', '.join(sorted(GAMES))}")
    engine = load_game(game_id).engine
    if not hasattr(engine, "features") or not hasattr(engine, "FEATURE_NAMES"):
        raise ValueError(f"--game: {game_id} defines no features for a learned evaluation")
    if getattr(engine, "PROGRESS_FEATURE", None) not in engine.FEATURE_NAMES:
        raise ValueError(f"--game: {game_id} names no progress feature (PROGRESS_FEATURE) among its features")
    return engine


def _task_seed(seed, players, task):
    return (seed * 1_000_003 + players * 10_007 + task) & 0xFFFFFFFFFFFFFFFF


def bot_games(game_id, players, games, seed, sample, bot):
    """``games`` games with the bot ``bot`` (an arena spec) at every seat, each decision's
    state bytes kept with probability ``sample``: ``(positions, returns, scores)`` per game, as
    :func:`fagin.search.playouts.sampled_playouts` gives them.  Chance, the bot's seeds and
    the sampling each draw from their own stream of ``seed``."""
    import random
    from fagin.engines import new_game
    from fagin.search.bots import make_bot
    player = make_bot(bot)
    chance, seeds, keep = (random.Random(seed * 3 + i) for i in range(3))
    played = []
    for _ in range(games):
        state, kept = new_game(game_id, players), []
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply(state.sample_chance(chance.getrandbits(63)))
                continue
            if keep.random() < sample:
                kept.append(state.to_bytes())
            state.apply(player.choose(state, state.current_player(), seeds.getrandbits(63)))
        played.append((kept, list(state.returns()), state.scores()))
    return played


def margins(scores):
    """Each seat's score less the best other seat's (a lone seat's margin is its score): what
    an analysis reports as a seat's score margin; None for None."""
    if scores is None:
        return None
    if len(scores) == 1:
        return list(scores)
    return [s - max(t for q, t in enumerate(scores) if q != p) for p, s in enumerate(scores)]


def generate(job):
    """One task: ``(game_id, players, seed, task, games, sample, bot)`` -> rows ``(game within
    the task, features per seat, hand-written estimate per seat, won per seat, final margin per
    seat, margin as it stands per seat)`` (both margins None for a game without scores);
    ``bot`` None plays the rollout policy, else that bot spec at every seat."""
    from fagin.engines import new_game
    from fagin.search.playouts import sampled_playouts
    game_id, players, seed, task, games, sample, bot = job
    engine = _engine(game_id)
    start = new_game(game_id, players)
    rows = []
    if bot is None:
        played = sampled_playouts(start, games, _task_seed(seed, players, task), sample)
    else:
        played = bot_games(game_id, players, games, _task_seed(seed, players, task), sample, bot)
    for g, (positions, returns, scores) in enumerate(played):
        won = [1 if r > 0.5 else 0 for r in returns]
        final = margins(scores)
        for data in positions:
            now = margins(start.game._trusted(data).scores()) if final is not None else None
            rows.append((g, [engine.features(data, p) for p in range(players)],
                         engine.evaluation(data), won, final, now))
    return rows


def _run_ray_task(job):
    return generate(job)


def _map(jobs, workers, ray_address):
    if ray_address:
        try:
            import ray
        except ImportError:
            raise ValueError("--ray needs Ray: pip install 'fagin[ray]'") from None
        started = not ray.is_initialized()
        if started:
            from fagin.search.arena import init_ray
            init_ray(None if ray_address == "local" else ray_address)
        try:
            task = ray.remote(num_cpus=1, max_retries=3)(_run_ray_task)
            refs = [task.remote(j) for j in jobs]
            return [ray.get(r) for r in refs]
        finally:
            if started:
                ray.shutdown()
    if workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(generate, jobs))
    return [generate(j) for j in jobs]


def _log_loss(p, y):
    p = min(max(p, 1e-6), 1 - 1e-6)
    return -math.log(p) if y else -math.log(1 - p)


def figures(rows, predict):
    """Held-out figures of a predictor (``predict(features per seat, hand-written per seat)``
    -> a win probability per seat): per-seat log loss and accuracy at naming a winner (the
    seat with the highest estimate won), over the rows given."""
    loss = n = hits = 0
    for _, feats, hand, won, *_ in rows:
        probs = predict(feats, hand)
        for p, y in zip(probs, won):
            loss += _log_loss(p, y)
            n += 1
        best = max(range(len(probs)), key=lambda p: probs[p])
        hits += won[best]
    return {"positions": len(rows), "log_loss": loss / max(n, 1), "accuracy": hits / max(len(rows), 1)}


def fit(rows, seed):
    """A logistic regression on the rows' seats: ``(weights, bias)`` on the raw features."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler
    x = np.array([f for _, feats, *_ in rows for f in feats], dtype=float)
    y = np.array([w for _, _, _, won, *_ in rows for w in won], dtype=int)
    scaler = StandardScaler().fit(x)
    scale = np.where(scaler.scale_ > 0, scaler.scale_, 1.0)
    model = LogisticRegression(C=1.0, max_iter=2000, random_state=seed).fit((x - scaler.mean_) / scale, y)
    w = model.coef_[0] / scale
    b = float(model.intercept_[0] - np.dot(w, scaler.mean_))
    return [float(v) for v in w], b


def fit_margin(rows):
    """A ridge regression of the seats' final margins on their features: ``(weights, bias)`` on
    the raw features (fitted on standardised ones; no randomness)."""
    import numpy as np
    from sklearn.linear_model import Ridge
    from sklearn.preprocessing import StandardScaler
    x = np.array([f for _, feats, *_ in rows for f in feats], dtype=float)
    y = np.array([m for row in rows for m in row[4]], dtype=float)
    scaler = StandardScaler().fit(x)
    scale = np.where(scaler.scale_ > 0, scaler.scale_, 1.0)
    model = Ridge(alpha=1.0).fit((x - scaler.mean_) / scale, y)
    w = model.coef_ / scale
    b = float(model.intercept_ - np.dot(w, scaler.mean_))
    return [float(v) for v in w], b


def margin_figures(rows, predict):
    """Held-out figures of a margin predictor (``predict(features per seat, margin as it
    stands per seat)`` -> a margin per seat) against the final margins: per-seat root mean
    square and mean absolute error, in score units, over the rows given."""
    sq = ab = n = 0.0
    for _, feats, _, _, final, now in rows:
        for guess, truth in zip(predict(feats, now), final):
            sq += (guess - truth) ** 2
            ab += abs(guess - truth)
            n += 1
    return {"positions": len(rows), "rmse": math.sqrt(sq / n) if n else 0.0, "mae": ab / n if n else 0.0}


def margin_with(weights, bias):
    def predict(feats, now):
        return [bias + sum(w * v for w, v in zip(weights, f)) for f in feats]
    return predict


def as_it_stands(feats, now):
    return now


def predict_with(weights, bias):
    def predict(feats, hand):
        out = []
        for f in feats:
            z = bias + sum(w * v for w, v in zip(weights, f))
            out.append(1.0 / (1.0 + math.exp(-z)) if z > -700 else 0.0)
        return out
    return predict


def hand_written(feats, hand):
    return hand


def train(game_id, seed=1, games=3000, players=(2, 3, 4), sample=0.02, workers=1, ray_address=None,
          progress=True, bot=None):
    """Generates, trains and measures; returns the model document (see :func:`main`).
    ``bot``: an arena bot spec to play the self-play games (None: the rollout policy)."""
    engine = _engine(game_id)
    spec = GAMES[game_id]
    for n in players:
        spec.check_players(n)
    if bot is not None:
        from fagin.search.bots import make_bot
        try:
            make_bot(bot)
        except ValueError as e:
            raise ValueError(f"--bot: {e}") from None
    if games < HOLD_OUT:
        raise ValueError(f"--games: at least {HOLD_OUT}, got {games}")
    names = list(engine.FEATURE_NAMES)
    at = names.index(engine.PROGRESS_FEATURE)        # the progress feature's place
    doc = {"game": game_id, "seed": seed, "games": games, "sample": sample, "features": names,
           "models": {}, "held_out": {}}
    if bot is not None:
        doc["bot"] = bot
    for n in players:
        t0 = time.perf_counter()
        tasks = -(-games // GAMES_PER_TASK)
        jobs = [(game_id, n, seed, t, min(GAMES_PER_TASK, games - t * GAMES_PER_TASK), sample, bot)
                for t in range(tasks)]
        rows = []
        base = 0
        for job, part in zip(jobs, _map(jobs, workers, ray_address)):
            rows.extend((base + g, *rest) for g, *rest in part)     # games numbered in job order
            base += job[4]
        train_rows = [r for r in rows if r[0] % HOLD_OUT]
        test_rows = [r for r in rows if r[0] % HOLD_OUT == 0]
        if not train_rows or not test_rows:
            raise ValueError(f"--games/--sample: too few positions at {n} players ({len(rows)})")
        weights, bias = fit(train_rows, seed)
        mid = [r for r in test_rows if MID[0] <= r[1][0][at] <= MID[1]]
        learned = predict_with(weights, bias)
        result = {
            "train_positions": len(train_rows),
            "all": {"learned": figures(test_rows, learned), "hand_written": figures(test_rows, hand_written)},
            "mid_game": {"learned": figures(mid, learned), "hand_written": figures(mid, hand_written)},
        }
        doc["models"][str(n)] = {"bias": bias, "weights": weights}
        if rows[0][4] is not None:
            m_weights, m_bias = fit_margin(train_rows)
            guess = margin_with(m_weights, m_bias)
            margin = {
                "all": {"learned": margin_figures(test_rows, guess),
                        "as_it_stands": margin_figures(test_rows, as_it_stands)},
                "mid_game": {"learned": margin_figures(mid, guess), "as_it_stands": margin_figures(mid, as_it_stands)},
            }
            margin["shipped"] = margin["all"]["learned"]["rmse"] < margin["all"]["as_it_stands"]["rmse"]
            if margin["shipped"]:
                doc["models"][str(n)]["margin"] = {"bias": m_bias, "weights": m_weights}
            result["margin"] = margin
        doc["held_out"][str(n)] = result
        if progress:
            print(report_line(n, result, time.perf_counter() - t0), flush=True)
    return doc


def report_line(players, result, seconds):
    parts = [f"{players} players: {result['train_positions']} training positions, {seconds:.1f} s"]
    for subset in ("all", "mid_game"):
        le, hw = result[subset]["learned"], result[subset]["hand_written"]
        parts.append(f"  held-out {subset.replace('_', '-')} ({le['positions']} positions): "
                     f"log loss learned {le['log_loss']:.4f} vs hand-written {hw['log_loss']:.4f}; "
                     f"winner accuracy learned {le['accuracy']:.3f} vs hand-written {hw['accuracy']:.3f}")
    margin = result.get("margin")
    if margin is not None:
        for subset in ("all", "mid_game"):
            le, now = margin[subset]["learned"], margin[subset]["as_it_stands"]
            parts.append(f"  final margin, held-out {subset.replace('_', '-')}: root mean square error learned "
                         f"{le['rmse']:.3f} vs as it stands {now['rmse']:.3f}; mean absolute error learned "
                         f"{le['mae']:.3f} vs as it stands {now['mae']:.3f}")
        parts.append("  margin model " + ("shipped" if margin["shipped"] else
                                          "not shipped: no better than the margin as it stands"))
    return "\n".join(parts)


def main(argv=None):
    from fagin.search.bots import spec_help
    ap = argparse.ArgumentParser(prog="python -m fagin.train", description=__doc__.split("\n")[0],
                                 epilog=spec_help(), formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--games", type=int, default=3000, help="self-play games per player count")
    ap.add_argument("--players", default="2,3,4", help="player counts, comma-separated")
    ap.add_argument("--sample", type=float, default=0.02, help="share of decisions kept as positions")
    ap.add_argument("--bot", default=None, metavar="SPEC",
                    help="play the self-play games with this arena bot (e.g. ismcts:64) instead of "
                         "the rollout policy")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--ray", default=None, metavar="ADDRESS")
    ap.add_argument("--out", default=None, help="write the model JSON here")
    args = ap.parse_args(argv)
    try:
        players = tuple(int(x) for x in args.players.split(","))
        doc = train(args.game, args.seed, args.games, players, args.sample, max(1, args.workers), args.ray,
                    bot=args.bot)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    doc["command"] = ("python -m fagin.train " + " ".join(sys.argv[1:] if argv is None else argv)).strip()
    if args.out:
        with open(args.out, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
