"""Tunes a game's search settings with Optuna, by games played: measure, don't guess.

Each trial draws a set of ISMCTS settings and plays a candidate bot with them
(``ismcts:N:c=..:prior=..``, see :func:`fagin.search.bots.make_bot`) against
``--against`` (by default plain ``ismcts:N``, the game's current defaults at
the same iterations: equal budget) in paired, seat-rotated deals.  Every trial
plays the same deals (the same ``--seed``), so trials differ by their settings
and the bots' own draws, not by their luck of the deal.  The trial's value is
the candidate's pairwise score (``fagin.search.arena``); Optuna's TPE sampler,
seeded, proposes the next settings.  The settings searched:

* ``c``: the UCB exploration constant (log-uniform from 0.02 to 2);
* ``prior``: the progressive bias toward the rollout policy's pick, for games
  whose default rollout is the policy (0 to 30);
* ``cut``: rollout actions before the game's evaluation scores the playout
  (0: played to the end), for games that have an evaluation;
* ``turns``: for games that have an evaluation, also cut a playout where its
  first, second or fourth turn out of the tree ends (0: by ``cut`` alone);
* ``eval``: what scores a cut-off playout: the hand-written evaluation, the
  learned one (for games that ship one) or the score margin against the best
  other seat (for games that keep a score), with ``mscale``, the margin's scale
  in score units (log-uniform from 0.5 to 50), drawn for margin trials only;
* ``opp``: whose view keys the other seats' nodes, their own ("own": one tree
  per seat's information sets) or the searching seat's ("observer": one tree);
* ``oprior``: the prior's weight at the other seats' nodes (0 to 100), for
  games whose default rollout is the policy;
* ``widen``: progressive widening in the rollout policy's order (0: off; a node
  considers ceil(widen * sqrt(n + 1)) of its actions after n visits), for
  games whose default rollout is the policy;
* ``final``: the final-move rule, most visits or the lower confidence bound.

It prints every trial and the best settings, as a game's ``GameSpec.tuned_settings``
entry.  A tuned setting is only taken into a room with the evidence of a
separate confirmation match (more games, other seeds), recorded in its spec:
a best-of-many trial's score is biased upward.

    python -m fagin.search.tune --game london --players 2 --iterations 256 \\
        --trials 20 --games 24 --workers 2 --seed 1 [--against heuristic] \\
        [--storage sqlite:///tune.db] [--ray ADDRESS]
"""
from __future__ import annotations

import argparse
import sys

from fagin.engines import new_game
from fagin.engines.registry import GAMES
from fagin.search import arena
from fagin.search.bots import spec_help
from fagin.search.ismcts import EVALUATIONS, FINAL_RULES, OPPONENT_KEYS
from fagin.search.limits import default_rollout
from fagin.search.playouts import has_evaluation, has_learned_evaluation, has_rollout_policy, has_scores

#: The cut-offs a game with an evaluation tries, in rollout actions (0: to the end).
CUTOFFS = (0, 6, 12, 24, 48, 96)
#: The turn cut-offs it tries: turns out of the tree (0: none).
TURN_CUTOFFS = (0, 1, 2, 4)
#: The progressive-widening factors it tries (0: every action at once).
WIDENINGS = (0.0, 0.5, 1.0, 2.0, 4.0)


def space(game_id: str, players: int, iterations: int | None = None) -> dict:
    """What a trial may vary for this game at ``iterations`` a move: setting name -> the
    values' description (the policy's settings where the game's search at that budget plays
    its rollout policy, ``limits.default_rollout``)."""
    spec = GAMES[game_id]
    state = new_game(game_id, players)
    policy = default_rollout(spec, players, iterations) == "policy" and has_rollout_policy(state)
    out = {"c": ("log", 0.02, 2.0)}
    if policy:
        out["prior"] = ("float", 0.0, 30.0)
        out["oprior"] = ("float", 0.0, 100.0)
        out["widen"] = ("choice", WIDENINGS)
        if has_evaluation(state):
            out["cut"] = ("choice", CUTOFFS)
            out["turns"] = ("choice", TURN_CUTOFFS)
            evaluations = [e for e in EVALUATIONS if (e != "learned" or has_learned_evaluation(state))
                           and (e != "margin" or has_scores(state))]
            if len(evaluations) > 1:
                out["eval"] = ("choice", tuple(evaluations))
            if "margin" in evaluations:
                out["mscale"] = ("log", 0.5, 50.0)      # drawn only for a trial scoring by margin
    out["opp"] = ("choice", OPPONENT_KEYS)
    out["final"] = ("choice", FINAL_RULES)
    return out


def suggest(trial, settings: dict) -> dict:
    """One trial's settings, drawn by Optuna from ``settings`` (see :func:`space`)."""
    chosen = {}
    for name, (kind, *args) in settings.items():
        if name == "mscale" and chosen.get("eval") != "margin":
            continue
        if kind == "log":
            chosen[name] = trial.suggest_float(name, args[0], args[1], log=True)
        elif kind == "float":
            chosen[name] = trial.suggest_float(name, args[0], args[1])
        else:
            chosen[name] = trial.suggest_categorical(name, list(args[0]))
    return chosen


def bot_spec(iterations: int, chosen: dict) -> str:
    """The bot spec that plays ``chosen`` at ``iterations`` a move."""
    parts = [f"ismcts:{iterations}"]
    for name, value in chosen.items():
        parts.append(f"{name}={value:.4g}" if isinstance(value, float) else f"{name}={value}")
    return ":".join(parts)


def run(game_id, players, iterations, trials, games, seed=1, against=None, workers=1, storage=None,
        study_name=None, ray_address=None, progress=True):
    """Runs the study; returns it (``study.best_trial`` and ``study.trials`` hold the figures)."""
    try:
        import optuna
    except ImportError:
        raise SystemExit("fagin.search.tune needs Optuna: pip install 'fagin[tune]'") from None
    settings = space(game_id, players, iterations)
    opponent = against or f"ismcts:{iterations}"
    sampler = optuna.samplers.TPESampler(seed=seed, n_startup_trials=min(8, max(1, trials // 3)))
    study = optuna.create_study(direction="maximize", sampler=sampler, storage=storage,
                                study_name=study_name, load_if_exists=storage is not None)
    optuna.logging.set_verbosity(optuna.logging.WARNING)

    def objective(trial):
        chosen = suggest(trial, settings)
        lineup = [bot_spec(iterations, chosen)] + [opponent] * (players - 1)
        result = arena.match(game_id, lineup, games, seed=seed, workers=workers, paired=True,
                             ray_address=ray_address)
        m, lo, hi = result.score
        trial.set_user_attr("interval", (lo, hi))
        trial.set_user_attr("games", result.games)
        if progress:
            print(f"trial {trial.number:>3}: {m:6.1%} [{lo:.1%}, {hi:.1%}] of {result.games}  "
                  f"{lineup[0]}", flush=True)
        return m

    study.optimize(objective, n_trials=trials)
    return study


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m fagin.search.tune", description=__doc__.split("\n\n")[0],
                                     epilog=spec_help(), formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", required=True)
    parser.add_argument("--players", type=int, help="default: the game's fewest")
    parser.add_argument("--iterations", type=int, default=256, help="iterations a move, both sides")
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--games", type=int, default=24, help="games a trial (paired deals)")
    parser.add_argument("--against", help="the opponent's bot spec (the bot specs below; default: ismcts:ITERATIONS)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--storage", help="an Optuna storage URL (e.g. sqlite:///tune.db): a study to resume")
    parser.add_argument("--study", help="the study's name in --storage")
    parser.add_argument("--ray", metavar="ADDRESS", help="play the games on a Ray cluster ('local': one started here)")
    args = parser.parse_args(argv)
    spec = GAMES.get(args.game)
    if spec is None:
        parser.error(f"--game: unknown game {args.game!r}; known games: {', '.join(sorted(GAMES))}")
    players = args.players or spec.min_players
    if not spec.min_players <= players <= spec.max_players:
        parser.error(f"--players: {spec.id} takes {spec.min_players} to {spec.max_players}, got {players}")
    if args.iterations < 1 or args.trials < 1 or args.games < 1:
        parser.error("--iterations, --trials and --games must be positive")
    study = run(args.game, players, args.iterations, args.trials, args.games, args.seed, args.against,
                args.workers, args.storage, args.study, args.ray)
    print("\n| trial | score | 95 % interval | games | settings |\n|---|---|---|---|---|")
    for t in sorted(study.trials, key=lambda t: -(t.value or 0)):
        lo, hi = t.user_attrs.get("interval", (0, 0))
        print(f"| {t.number} | {t.value:.1%} | [{lo:.1%}, {hi:.1%}] | {t.user_attrs.get('games')} | "
              f"{bot_spec(args.iterations, t.params)} |")
    best = study.best_trial
    print(f"\nbest: {bot_spec(args.iterations, best.params)} scored {best.value:.1%} "
          f"(confirm it with more games and another seed before taking it into GameSpec.tuned_settings)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
