"""Fagin's Gang balance figures (seeds/fagins_gang.md, "Balance figures").

Heuristic self-play at each player count: rounds per game (mean, median,
90th percentile), the share of games ended by a third urchin home (FG-23)
rather than the round limit (FG-25), how often each action a-d is chosen, the
kinds of steps taken, and each seat's win share (seat 0 holds the start-player
coin in round 1, FG-19, FG-21) with a 95 % Wilson interval for seat 0.  Then
ISMCTS against the heuristic at 2 players (seats alternating): how often
ISMCTS chooses each action.

    .venv/bin/python bench/fagins_gang_balance.py [--games N] [--ismcts-games M] [--iterations I]
"""
import argparse
import collections
import math
import random

from fagin.engines import load_game
from fagin.engines.fagins_gang import engine as E
from fagin.engines.fagins_gang import actions as A
from fagin.engines.game import decisions
from fagin.search.bots import make_bot

ACTIONS = ("a move", "b steal", "c shillings", "d market")


def wilson(k, n, z=1.96):
    if n == 0:
        return 0.0, 1.0
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return c - h, c + h


def play(game, players, bots, seed, choices, steps):
    """One game; bots[seat] chooses for that seat (None: the heuristic). Counts the
    choices of action of the seats in `choices` (a dict seat -> Counter)."""
    rng = random.Random(seed)
    st = game.new_initial_state(players)
    for seat in decisions(st, rng):
        bot = bots[seat]
        a = (E.heuristic_action(st.to_bytes(), rng.getrandbits(63)) if bot is None
             else bot.choose(st, seat, rng.getrandbits(63)))
        if a < 4 and seat in choices:
            choices[seat][a] += 1
        elif steps is not None and 5 <= a < 347:
            steps[A.typed_action(a)["kind"]] += 1
        st.apply(a)
    return st.describe()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=400, help="heuristic self-play games per player count")
    ap.add_argument("--ismcts-games", type=int, default=20, help="ISMCTS vs heuristic games (2 players)")
    ap.add_argument("--iterations", type=int, default=300)
    args = ap.parse_args()
    game = load_game("fagins_gang")
    if args.games:
        self_play(game, args.games)
    if args.ismcts_games:
        against_ismcts(game, args.ismcts_games, args.iterations)


def self_play(game, games):
    print(f"heuristic self-play, {games} games per player count")
    print(f"{'players':>7}{'rounds mean':>12}{'median':>7}{'p90':>5}{'3 home':>8}  "
          + "".join(f"{a:>12}" for a in ACTIONS) + "   seat win shares (seat 0: 95% interval)")
    for players in range(2, 7):
        rounds, ended, wins = [], 0, collections.Counter()
        choices = {p: collections.Counter() for p in range(players)}
        steps = collections.Counter()
        for g in range(games):
            d = play(game, players, [None] * players, 1000 * players + g, choices, steps)
            rounds.append(d["round"])
            ended += max(s["home"] for s in d["seats"]) >= 3
            wins[d["winner"]] += 1
        total = collections.Counter()
        for c in choices.values():
            total.update(c)
        n = sum(total.values())
        rounds.sort()
        lo, hi = wilson(wins[0], games)
        print(f"{players:>7}{sum(rounds) / len(rounds):>12.1f}{rounds[len(rounds) // 2]:>7}"
              f"{rounds[int(len(rounds) * 0.9)]:>5}{ended / games:>8.0%}  "
              + "".join(f"{total[a] / n:>12.1%}" for a in range(4))
              + "   " + " ".join(f"{wins[p] / games:.0%}" for p in range(players))
              + f" ({lo:.0%}-{hi:.0%}; fair {1 / players:.0%})")
        k = sum(steps.values())
        print(f"{'':>7}steps: " + ", ".join(f"{kind} {v / k:.0%}" for kind, v in steps.most_common()))


def against_ismcts(game, games, iterations):
    bot = make_bot(f"ismcts:{iterations}")
    chosen = collections.Counter()
    heur = collections.Counter()
    won = 0
    for g in range(games):
        seat = g % 2
        bots = [None, None]
        bots[seat] = bot
        choices = {0: collections.Counter(), 1: collections.Counter()}
        d = play(game, 2, bots, 7000 + g, choices, None)
        chosen.update(choices[seat])
        heur.update(choices[1 - seat])
        won += d["winner"] == seat
    n, m = sum(chosen.values()), sum(heur.values())
    print(f"\nISMCTS ({iterations} iterations) vs heuristic, 2 players, {games} games "
          f"(ISMCTS won {won})")
    print("ISMCTS choices:    " + "".join(f"{a} {chosen[i] / n:.1%}   " for i, a in enumerate(ACTIONS)))
    print("heuristic choices: " + "".join(f"{a} {heur[i] / m:.1%}   " for i, a in enumerate(ACTIONS)))


if __name__ == "__main__":
    main()
