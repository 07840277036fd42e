"""One game's costs beside Gangs of Kyoto's, measured side by side in one run (one core).

1. Engine speed: playouts from the opening of the game at its least, a middle and its
   greatest player count, uniformly random and with its rollout policy (where it has
   none, a policy playout is a random one), beside Gangs of Kyoto at 2 and 5 players:
   playouts/s, actions per playout, actions/s (chance events included), ns per action,
   and the game's cost per action over Gangs of Kyoto's.
2. Search cost: ISMCTS iterations/s at the opening (least and greatest player count)
   and at a mid-game position (the heuristic bot's play, ``--midgame`` decisions in),
   and one iteration's cost over one playout's from the same position (the target the
   project holds every engine to: at most 2x), with random playouts and rollouts, then
   with the rollout policy for both.

Rows alternate between the games in rounds and report medians, so that a machine that
slows down part way through hurts every row alike.

    .venv/bin/python bench/game_costs.py --game london [--seconds S] [--rounds R] [--iterations N]
"""
import argparse
import random
import statistics

from fagin.engines import GAMES, new_game
from fagin.search import ismcts
from fagin.search.playouts import random_playouts

BASELINE = "gangs_of_kyoto"


def playout_rate(st, seconds, seed, policy=False, trial=20):
    """(playouts/s, actions per playout) over about ``seconds``, sized by a ``trial`` run."""
    _, _, t = random_playouts(st, trial, seed=seed, policy=policy)
    n = max(2 * trial, int(trial * seconds / max(t, 1e-6)))
    _, length, t = random_playouts(st, n, seed=seed, policy=policy)
    return n / t, length


def iteration_rate(st, iterations, seed, rollout):
    s = ismcts.ISMCTS(st, st.current_player(), ismcts.SearchSettings(rollout=rollout), seed)
    s.run(iterations=iterations)
    return s.iterations / (s.elapsed_ms / 1000)


def midgame(game_id, players, decisions, seed=5):
    """A position ``decisions`` decisions into a game the heuristic bot plays against itself
    (chance drawn from the seed), or the last one before the end."""
    bot = GAMES[game_id].make_heuristic()
    rng = random.Random(seed)
    st = new_game(game_id, players, seed=seed)
    made = 0
    while not st.is_terminal():
        if st.is_chance_node():
            st.apply(st.sample_chance(rng.getrandbits(63)))
            continue
        if made == decisions:
            break
        nxt = st.clone()
        nxt.apply(bot.choose(st, st.current_player(), rng.getrandbits(32)))
        if nxt.is_terminal():
            break
        st, made = nxt, made + 1
    return st, made


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", required=True, choices=sorted(GAMES))
    ap.add_argument("--seconds", type=float, default=0.5, help="time per playout measurement (approx.)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--iterations", type=int, default=5_000, help="ISMCTS iterations per measurement")
    ap.add_argument("--midgame", type=int, default=40, help="decisions into the mid-game position")
    args = ap.parse_args()
    spec = GAMES[args.game]
    counts = sorted({spec.min_players, (spec.min_players + spec.max_players) // 2, spec.max_players})

    engines = [(f"{spec.name} {p}p", new_game(args.game, p, seed=1), False) for p in counts]
    engines += [(f"{spec.name} {p}p policy", new_game(args.game, p, seed=1), True)
                for p in (counts[0], counts[-1])]
    if args.game != BASELINE:
        engines += [(f"GoK {p}p", new_game(BASELINE, p, seed=1), False) for p in (2, 5)]
    width = max(len(name) for name, _, _ in engines) + 2
    got = {name: [] for name, _, _ in engines}
    for r in range(args.rounds):
        for name, st, policy in (engines if r % 2 == 0 else engines[::-1]):
            got[name].append(playout_rate(st, args.seconds, r, policy))
    print(f"1. engine speed (playouts from the opening; medians of {args.rounds} rounds)")
    print(f"{'engine':<{width}}{'playouts/s':>12}{'actions/playout':>17}{'actions/s':>13}{'ns/action':>11}")
    per_action = {}
    for name, _, _ in engines:
        rate = statistics.median(x[0] for x in got[name])
        length = statistics.median(x[1] for x in got[name])
        per_action[name] = 1e9 / (rate * length)
        print(f"{name:<{width}}{rate:>12,.0f}{length:>17.1f}{rate * length:>13,.0f}{per_action[name]:>11.0f}")
    baseline = [per_action[n] for n in per_action if n.startswith("GoK")]
    if baseline:
        gk = statistics.mean(baseline)
        print(f"{spec.name} / Gangs of Kyoto cost per action (GoK: the mean of its rows):")
        for name in per_action:
            if not name.startswith("GoK") and "policy" not in name:
                print(f"  {name:<{width}}{per_action[name] / gk:>6.2f}x")

    middle, made = midgame(args.game, counts[0] + (1 if len(counts) > 1 else 0), args.midgame)
    positions = [(f"{spec.name} {counts[0]}p opening", new_game(args.game, counts[0], seed=1)),
                 (f"{spec.name} {counts[-1]}p opening", new_game(args.game, counts[-1], seed=1)),
                 (f"{spec.name} {middle.num_players}p decision {made}", middle)]
    width = max(len(name) for name, _ in positions) + 2
    print(f"\n2. one ISMCTS iteration / one playout from the same position ({args.iterations:,} iterations; "
          f"target <= 2x)")
    print(f"{'position':<{width}}{'rollout':>8}{'playouts/s':>12}{'iterations/s':>14}{'iteration/playout':>19}")
    for name, st in positions:
        if st.is_terminal() or st.is_chance_node():
            continue
        for rollout in ("random", "policy"):
            plays, iters = [], []
            for r in range(args.rounds):
                plays.append(playout_rate(st, args.seconds, r, policy=rollout == "policy")[0])
                iters.append(iteration_rate(st, args.iterations, r, rollout))
            p, i = statistics.median(plays), statistics.median(iters)
            print(f"{name:<{width}}{rollout:>8}{p:>12,.0f}{i:>14,.0f}{p / i:>18.2f}x")


if __name__ == "__main__":
    main()
