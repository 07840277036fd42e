"""gRPC overhead and batch throughput, measured side by side in one run.

1. The same ISMCTS search (state, seat, seed) in process and through
   ``Recommend`` on a local server, for N = 100, 1,000, 10,000 iterations.
   Beside it, the floor: a bare grpc.aio server whose handler only busy-waits
   in a worker thread for the in-process search's time (no fagin code), so
   the share of the overhead that is gRPC's own is visible.
2. ``BatchRecommend`` over many positions against a server with 1 worker and
   one with 2 workers.

    .venv/bin/python bench/grpc_overhead.py [--positions 1000] [--batch-iterations 1000]
"""
import argparse
import asyncio
import multiprocessing
import os
import struct
import threading
import random
import statistics
import subprocess
import sys
import time

from fagin.clients import FaginClient, recommend_request
from fagin.engines import new_game
from fagin.search import ismcts
from fagin.server import codec


def start_server(workers):
    env = {**os.environ, "FAGIN_WORKERS": str(workers), "FAGIN_LOG_LEVEL": "WARNING"}
    proc = subprocess.Popen([sys.executable, "-m", "fagin.server", "--port", "0"], env=env,
                            stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    if not line.startswith("fagin listening on"):
        proc.kill()
        raise RuntimeError(f"server did not start: {line!r}")
    return proc, line.split(" on ")[1].strip()


def _spin(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def _bare_server(queue):
    """A grpc.aio server with one method: busy-wait the requested seconds in a worker thread."""
    import grpc
    from concurrent.futures import ThreadPoolExecutor

    async def main():
        pool = ThreadPoolExecutor(1)

        async def handler(request, context):
            (seconds,) = struct.unpack("d", request)
            await asyncio.get_running_loop().run_in_executor(pool, _spin, seconds)
            return request

        server = grpc.aio.server()
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(
            "bare", {"spin": grpc.unary_unary_rpc_method_handler(handler)}),))
        queue.put(server.add_insecure_port("127.0.0.1:0"))
        await server.start()
        await server.wait_for_termination()

    asyncio.run(main())


def bare_floor(durations, repeat):
    """Median wall time minus the handler's busy time, per duration, for the bare server."""
    import grpc
    queue = multiprocessing.Queue()
    proc = multiprocessing.Process(target=_bare_server, args=(queue,), daemon=True)
    proc.start()
    port = queue.get(timeout=30)
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    call = channel.unary_unary("/bare/spin")
    floors = []
    for seconds in durations:
        walls = []
        for _ in range(repeat):
            _spin(seconds)              # the client is as busy as in the in-process run
            t = time.perf_counter()
            call(struct.pack("d", seconds), timeout=60)
            walls.append(time.perf_counter() - t)
        floors.append((statistics.median(walls) - seconds) * 1000)
    channel.close()
    proc.terminate()
    return floors


def positions(n, seed):
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        st = new_game("kids_of_london", rng.choice([3, 4, 5]), seed=rng.getrandbits(32))
        for _ in range(rng.randrange(0, 30)):
            if st.is_terminal():
                break
            if st.is_chance_node():
                st.resolve_chance(rng.getrandbits(32))
            else:
                st.apply(rng.choice(st.legal_actions()))
        if not st.is_terminal() and not st.is_chance_node():
            out.append(st)
    return out


def overhead(client, repeat, game="kids_of_london", players=4):
    st = new_game(game, players, seed=3)
    msg = codec.encode_state(st)
    rows = []
    for n in (100, 1_000, 10_000):
        local, remote = [], []
        for r in range(repeat):
            t = time.perf_counter()
            ismcts.search(st, 0, iterations=n, seed=r)
            local.append(time.perf_counter() - t)
            t = time.perf_counter()
            client.recommend(msg, 0, iterations=n, seed=r)
            remote.append(time.perf_counter() - t)
        rows.append((n, statistics.median(local) * 1000, statistics.median(remote) * 1000))
    floors = bare_floor([lo / 1000 for _, lo, _ in rows], repeat)
    print(f"{'iterations':>10}{'in-process ms':>15}{'Recommend ms':>14}{'overhead':>10}"
          f"{'bare grpc.aio floor':>21}")
    for (n, lo, re), floor in zip(rows, floors):
        print(f"{n:>10,}{lo:>15.2f}{re:>14.2f}{(re - lo) / lo:>10.1%}"
              f"{floor:>12.2f} ms{floor / lo:>7.1%}")


def batch(target, states, iterations):
    msgs = [codec.encode_state(s) for s in states]
    reqs = [(str(i), recommend_request(m, s.current_player(), iterations=iterations, seed=i))
            for i, (m, s) in enumerate(zip(msgs, states))]
    with FaginClient(target, timeout=3600) as client:
        t = time.perf_counter()
        results = list(client.batch_recommend(reqs))
        elapsed = time.perf_counter() - t
    errors = [r for r in results if r.HasField("error")]
    assert len(results) == len(reqs) and not errors, errors[:1]
    return elapsed


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--positions", type=int, default=1000)
    ap.add_argument("--batch-iterations", type=int, default=2000,
                    help="iterations per position (default: the server's default budget)")
    args = ap.parse_args()

    proc, target = start_server(1)
    try:
        with FaginClient(target, timeout=600) as client:
            print("== in-process search vs Recommend (server with 1 worker), Kids of London 4-player opening")
            overhead(client, args.repeat)
            print("== the same, Gangs of Kyoto 5-player opening (a slower search, the same fixed cost)")
            overhead(client, args.repeat, "gangs_of_kyoto", 5)
    finally:
        proc.terminate()
        proc.wait()

    states = positions(args.positions, seed=1)
    print(f"\n== BatchRecommend: {len(states)} positions x {args.batch_iterations} iterations")
    times = {}
    for workers in (1, 2):
        proc, target = start_server(workers)
        try:
            times[workers] = batch(target, states, args.batch_iterations)
        finally:
            proc.terminate()
            proc.wait()
        print(f"{workers} worker{'s' if workers > 1 else ' '}: {times[workers]:7.2f} s  "
              f"{len(states) / times[workers]:8.1f} positions/s")
    print(f"speed-up 2 workers / 1 worker: {times[1] / times[2]:.2f}x")


if __name__ == "__main__":
    main()
