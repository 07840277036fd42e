"""The server's own CPU per Recommend outside the search, in process, per game.

``bench/grpc_overhead.py`` measures a call's whole cost against a bare
grpc.aio server, through sockets and two processes: on a busy machine its CPU
figures wander by tenths of a millisecond.  This script measures only fagin's
own work for a request, in one thread with ``time.thread_time`` (other
processes do not count): parsing the request, decoding and checking the
state and building the search (``request.prepare``), then after a 100-
iteration search writing the answer (``answer.recommendation_bytes``).  Positions come from seeded random play, the same for every
run, so that two checkouts can be compared side by side:

    for d in /path/to/old /path/to/new; do (cd $d && .venv/bin/python bench/request_cost.py); done
"""
import argparse
import random
import statistics
import time

from fagin.clients import recommend_request
from fagin.engines import new_game
from fagin.engines.registry import GAMES
from fagin.server import codec
from fagin.server.answer import recommendation_bytes
from fagin.server.request import prepare as prepare_job
from fagin.server.config import ServerConfig
from fagin.v1 import fagin_pb2

SEED_GAMES = {"kids_of_london": 4, "gangs_of_kyoto": 5, "london": 3}


def requests(game_id, players, count, seed):
    """Serialized RecommendRequests for positions met in random play (decisions only)."""
    rng = random.Random(f"{seed}/{game_id}")
    out = []
    while len(out) < count:
        st = new_game(game_id, players, seed=rng.getrandbits(32))
        for _ in range(rng.randrange(0, 60)):
            if st.is_terminal():
                break
            st.apply(st.sample_chance(rng.getrandbits(63)) if st.is_chance_node()
                     else rng.choice(st.legal_actions()))
        while st.is_chance_node():
            st.apply(st.sample_chance(rng.getrandbits(63)))
        if not st.is_terminal():
            out.append(recommend_request(codec.encode_state(st), seat=st.current_player(), iterations=100,
                                         seed=1).SerializeToString())
    return out


def measure(data, config, rounds):
    """Median thread-CPU microseconds of (prepare, answer) over ``rounds`` calls."""
    prepare, answer = [], []
    for _ in range(rounds):
        t0 = time.thread_time()
        job = prepare_job(fagin_pb2.RecommendRequest.FromString(data), config, 60.0)
        t1 = time.thread_time()
        job.searcher.run(iterations=100)
        t2 = time.thread_time()
        recommendation_bytes(job, "iterations")
        t3 = time.thread_time()
        prepare.append(t1 - t0)
        answer.append(t3 - t2)
    return statistics.median(prepare) * 1e6, statistics.median(answer) * 1e6


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=8, help="positions per game")
    parser.add_argument("--rounds", type=int, default=200, help="calls per position")
    parser.add_argument("--games", default=",".join(g for g in SEED_GAMES if g in GAMES),
                        help="comma-separated game ids (player counts: the seed games' usual ones, "
                             "else the game's most)")
    args = parser.parse_args(argv)
    config = ServerConfig()
    print(f"{'game':<16}{'prepare':>10}{'answer':>10}{'outside search':>16}   "
          f"(median thread CPU per call, us; {args.positions} positions x {args.rounds} calls)")
    for game_id in args.games.split(","):
        players = SEED_GAMES.get(game_id, GAMES[game_id].max_players)
        per_position = [measure(d, config, args.rounds) for d in requests(game_id, players, args.positions, 1)]
        prep = statistics.mean(p for p, _ in per_position)
        ans = statistics.mean(a for _, a in per_position)
        print(f"{game_id:<16}{prep:>10.1f}{ans:>10.1f}{prep + ans:>16.1f}")


if __name__ == "__main__":
    main()
