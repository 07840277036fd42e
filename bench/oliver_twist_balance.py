"""How the reconstructed Oliver Twist plays (OT-2, OT-3, OT-5, OT-8, OT-32): self-play figures.

For each player count, games with the heuristic bot in every seat (or, with
``--ismcts N``, ISMCTS with N iterations a decision in every seat): actions
(chance events included) and seats' decisions per game, the first player's win share (seat 0 starts the day),
final scores (mean, spread, the winner's margin), how the score is made
(Fagin's sets, Reward tokens, leftover sets, fines, Burglary cards), and for
each Character card how often it was drawn, played for its effect, or used
to hide.

    .venv/bin/python bench/oliver_twist_balance.py [--games N] [--players 2,3,4] [--ismcts N]
"""
import argparse
import random
import statistics
from collections import Counter

from fagin.engines import new_game
from fagin.engines.oliver_twist import engine as E
from fagin.search.bots import make_bot


def play(players, seed, bots):
    rng = random.Random(seed)
    st = new_game("oliver_twist", players, seed=seed)
    actions = turns = 0
    played, hidden = Counter(), Counter()
    fagin_sets = 0
    while not st.is_terminal():
        if st.is_chance_node():
            st.apply(st.sample_chance(rng.getrandbits(63)))
            actions += 1
            continue
        p = st.current_player()
        d = st.describe()
        a = bots[p].choose(st, p, rng.getrandbits(32))
        turns += 1
        if E.ACTION_PLAY <= a < E.ACTION_HIDE:
            played[E.CHARACTERS[a - E.ACTION_PLAY]] += 1
        elif E.ACTION_HIDE <= a < E.ACTION_SEAT:
            hidden[E.CHARACTERS[a - E.ACTION_HIDE]] += 1
        elif E.ACTION_FAGIN <= a < E.ACTION_KIND:
            fagin_sets += 1
        st.apply(a)
        actions += 1
    d = st.describe()
    scores = [s["final_score"] for s in d["seats"]]
    burglary = [sum(s["burglary_cards"]) for s in d["seats"]]
    return dict(actions=actions, turns=turns, scores=scores, winners=d["winners"], played=played,
                hidden=hidden, sets=fagin_sets, burglary=burglary)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--players", default="2,3,4")
    ap.add_argument("--ismcts", type=int, default=0, help="ISMCTS iterations a decision (0: heuristic bots)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    spec = f"ismcts:{args.ismcts}" if args.ismcts else "heuristic"
    print(f"Oliver Twist self-play, {spec} in every seat, {args.games} games per player count")
    played_all, hidden_all = Counter(), Counter()
    for players in [int(x) for x in args.players.split(",")]:
        bots = [make_bot(spec) for _ in range(players)]
        res = [play(players, args.seed * 100000 + g, bots) for g in range(args.games)]
        scores = [s for r in res for s in r["scores"]]
        margins = [sorted(r["scores"])[-1] - sorted(r["scores"])[-2] for r in res]
        wins_by_seat = [sum(1 / len(r["winners"]) for r in res if p in r["winners"]) / len(res)
                        for p in range(players)]
        print(f"\n{players} players: actions/game {statistics.mean(r['actions'] for r in res):.0f}, "
              f"decisions/game {statistics.mean(r['turns'] for r in res):.0f}, sets to Fagin/game "
              f"{statistics.mean(r['sets'] for r in res):.1f}")
        print("  win share by seat (seat 0 starts the day): "
              + ", ".join(f"{w:.1%}" for w in wins_by_seat) + f" (fair {1 / players:.1%})")
        print(f"  final scores: mean {statistics.mean(scores):.1f}, sd {statistics.pstdev(scores):.1f}, "
              f"min {min(scores)}, max {max(scores)}; winner's score {statistics.mean(max(r['scores']) for r in res):.1f}, "
              f"margin {statistics.mean(margins):.1f}; Burglary cards per seat "
              f"{statistics.mean(b for r in res for b in r['burglary']):.1f}")
        for r in res:
            played_all.update(r["played"])
            hidden_all.update(r["hidden"])
    print("\nCharacter cards over all games: played for the effect / used to hide")
    for c in E.CHARACTERS:
        n = played_all[c] + hidden_all[c]
        share = played_all[c] / n if n else 0.0
        print(f"  {c:<15}{played_all[c]:>6}{hidden_all[c]:>6}   effect {share:.0%}")


if __name__ == "__main__":
    main()
