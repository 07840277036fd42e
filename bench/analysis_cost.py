"""What an analysis search costs: ISMCTS iterations per second of the same
search plain, with ``analysis=True`` (root sums: every seat's return and margin, the
policy's picks) and with ``analysis=True, beliefs=True`` (each determinization's hidden
counts tallied), at a mid-game position of each seed game (2 players, reached by
uniformly random play), rounds alternating the three, one core; then the time
``fagin.search.analysis.analyse`` takes to turn the sums into an answer (5 candidates,
their principal variations, the beliefs).

    .venv/bin/python bench/analysis_cost.py [--iterations N] [--repeat R] [--moves M]
"""
import argparse
import random
import statistics
import time

from fagin.engines import new_game
from fagin.search import analysis
from fagin.search.ismcts import ISMCTS, SearchSettings

GAMES = ("kids_of_london", "gangs_of_kyoto", "london", "oliver_twist", "fagins_gang")
MODES = (("plain", {}), ("analysis", {"analysis": True}), ("+beliefs", {"analysis": True, "beliefs": True}))


def position(game_id, moves, seed=1):
    """A 2-player position of `game_id` after `moves` uniformly random decisions."""
    rng = random.Random(seed)
    state = new_game(game_id, players=2, seed=seed)
    done = 0
    while not state.is_terminal() and (done < moves or state.is_chance_node()):
        if state.is_chance_node():
            state.resolve_chance(rng.getrandbits(32))
        else:
            state.apply(rng.choice(state.legal_actions()))
            done += 1
    return state


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=20_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--moves", type=int, default=12, help="random decisions from the opening (default 12)")
    args = ap.parse_args()
    print(f"{args.iterations:,} iterations a search, {args.repeat} rounds, modes alternating, one core")
    print(f"{'game':<16}" + "".join(f"{m + ' iter/s':>20}" for m, _ in MODES)
          + f"{'analysis/plain':>16}{'+beliefs/plain':>16}{'analyse() ms':>14}")
    for game_id in GAMES:
        state = position(game_id, args.moves)
        seat = state.current_player()
        rates = {m: [] for m, _ in MODES}
        answer_ms = []
        for r in range(args.repeat):
            for name, flags in (MODES if r % 2 == 0 else MODES[::-1]):
                s = ISMCTS(state, seat, SearchSettings(**flags), r)
                s.run(iterations=args.iterations)
                rates[name].append(s.iterations / (s.elapsed_ms / 1000))
                if name == "+beliefs":
                    start = time.perf_counter()
                    analysis.analyse([s], state, seat, beliefs=True, seed=r)
                    answer_ms.append((time.perf_counter() - start) * 1000)
        med = {m: statistics.median(v) for m, v in rates.items()}
        print(f"{game_id:<16}" + "".join(f"{med[m]:>20,.0f}" for m, _ in MODES)
              + f"{med['analysis'] / med['plain']:>15.3f}x{med['+beliefs'] / med['plain']:>15.3f}x"
              + f"{statistics.median(answer_ms):>14.1f}")


if __name__ == "__main__":
    main()
