"""Figures behind the Gangs of Kyoto deck ruling (GK-2): how the designed deck plays.

Plays whole games between heuristic bots (seeds/gangs_of_kyoto.md, GK-2) and
prints, per player count: rounds per game, turns per round and per game,
how rounds end, the winner's bells, and how often each kind of card comes
off the deck.

    .venv/bin/python bench/gangs_of_kyoto_deck.py [--games 200] [--option play_through=true]
"""
import argparse
import collections
import random
import statistics

from fagin.engines.gangs_of_kyoto import engine as gk
from fagin.engines import new_game
from fagin.engines.gangs_of_kyoto.heuristic import GangsOfKyotoHeuristicBot


def play(players, seed, options):
    rng = random.Random(seed)
    bot = GangsOfKyotoHeuristicBot()
    st = new_game("gangs_of_kyoto", players, seed=seed, **options)
    turns = 0
    drawn = collections.Counter()
    refusals = 0
    while not st.is_terminal():
        if st.is_chance_node():
            a = st.sample_chance(rng.getrandbits(63))
            drawn[a - gk.ACTION_DRAW] += 1
            st.apply(a)
            continue
        d = st.describe()
        if d["phase"] == "give" and not d["received"]:
            turns += 1
        a = bot.choose(st, st.current_player(), rng.getrandbits(63))
        refusals += a == gk.ACTION_REFUSE
        st.apply(a)
    d = st.describe()
    return {"rounds": d["rounds"] + 1, "turns": turns, "drawn": drawn, "refusals": refusals,
            "winner_bells": d["seats"][d["winner"]]["bells"],
            "deck_ran_out": d["deck_ran_out"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    args = ap.parse_args()
    options = dict(o.split("=", 1) for o in args.option)
    print(f"{'players':>7}{'rounds/game':>13}{'turns/round':>13}{'turns/game':>12}{'winner bells':>14}"
          f"{'deck ran out':>14}{'refusals/game':>15}")
    total_drawn = collections.Counter()
    for players in (2, 3, 4, 5):
        games = [play(players, 1000 * players + g, options) for g in range(args.games)]
        rounds = statistics.mean(g["rounds"] for g in games)
        turns = statistics.mean(g["turns"] for g in games)
        print(f"{players:>7}{rounds:>13.1f}{turns / rounds:>13.2f}{turns:>12.1f}"
              f"{statistics.mean(g['winner_bells'] for g in games):>14.1f}"
              f"{sum(g['deck_ran_out'] for g in games) / len(games):>14.0%}"
              f"{statistics.mean(g['refusals'] for g in games):>15.2f}")
        for g in games:
            total_drawn.update(g["drawn"])
    n = sum(total_drawn.values())
    print("\nCards drawn from the deck, share of all draws (all player counts) vs share of the deck:")
    for k, card in enumerate(gk.CARDS):
        print(f"  {gk.card_name(k):>10}: {total_drawn[k] / n:6.1%}   deck {card['count'] / sum(c['count'] for c in gk.CARDS):6.1%}")


if __name__ == "__main__":
    main()
