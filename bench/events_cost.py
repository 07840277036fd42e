"""What ApplyAction's events cost, in process, per game: the thread CPU of telling one
transition to every seat (``State.events`` for each), and to one seat (a request that
names its ``observer``), over the transitions of seeded random games, the same every run.

    .venv/bin/python bench/events_cost.py --games 2
"""
import argparse
import random
import statistics
import time

from fagin.engines import GAMES, load_game
from fagin.engines.game import random_moves


def transitions(game_id, players, games, seed):
    rng = random.Random(f"{seed}/{game_id}")
    game = load_game(game_id)
    out = []
    for _ in range(games):
        out += [(mover, a, after) for _, mover, a, after in random_moves(game.new_initial_state(players), rng)]
    return out


def cost(path, seats):
    """Median and mean thread-CPU microseconds per transition, told to ``seats``."""
    times = []
    for before, action, after in path:
        t0 = time.thread_time()
        for s in seats(before):
            before.events(action, after, s)
        times.append((time.thread_time() - t0) * 1e6)
    return statistics.median(times), statistics.fmean(times)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=3, help="random games per game id (default 3)")
    p.add_argument("--players", type=int, default=3, help="seats, clipped to each game's range (default 3)")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    print(f"{'game':<16}{'players':>8}{'transitions':>13}{'every seat, median/mean us':>30}"
          f"{'one seat, median/mean us':>28}")
    for game_id, spec in GAMES.items():
        players = min(max(args.players, spec.min_players), spec.max_players)
        path = transitions(game_id, players, args.games, args.seed)
        every = cost(path, lambda st: range(st.num_players))
        one = cost(path, lambda st: (0,))
        print(f"{game_id:<16}{players:>8}{len(path):>13}{every[0]:>17.0f} / {every[1]:<10.0f}"
              f"{one[0]:>15.0f} / {one[1]:<10.0f}")


if __name__ == "__main__":
    main()
