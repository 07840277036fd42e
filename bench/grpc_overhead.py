"""gRPC overhead and batch throughput, measured side by side in one run.

1. The same ISMCTS search (state, seat, seed) in process and through
   ``Recommend`` on a local server, for N = 100, 1,000, 10,000 iterations,
   in interleaved pairs (the order alternating, so that drift in the
   machine's speed falls on both sides).  Columns:

   - ``in-process`` and ``Recommend``: median wall times;
   - ``overhead``: Recommend / in-process - 1.  Two processes never run the
     same search at quite the same speed (where their pages land in the
     caches differs), so on a noisy machine this ratio wanders by a few
     per cent either way;
   - ``outside search``: Recommend's wall time minus the search time the
     server reports (``elapsed_ms``), i.e. what the call costs beyond the
     search itself, and that as a share of the in-process search;
   - ``bare floor``: the same measure for a bare grpc.aio server (no fagin
     code) whose handler busy-waits, without the GIL, in a worker thread for
     the in-process search's time: the share that is gRPC's own.

   On a virtual machine the cores do not run at the same speed (a core that
   shares its physical core with another guest can be a third slower, and
   which one is slow changes from minute to minute), so unless ``--no-pin``
   is given, the thread running the in-process search and the server's
   search thread are pinned to the same core; every other thread (gRPC's,
   the server's event loop) may run anywhere.
2. ``BatchRecommend`` over many positions against a server with 1 worker and
   one with 2 workers.

    .venv/bin/python bench/grpc_overhead.py [--positions 1000] [--batch-iterations 1000]
"""
import argparse
import asyncio
import hashlib
import multiprocessing
import os
import struct
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


def _task_cpu_ticks(pid):
    """{thread id: CPU ticks used} for every thread of process `pid`."""
    ticks = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue         # the thread ended
        ticks[int(tid)] = int(fields[11]) + int(fields[12])
    return ticks


def pin_search_to_one_core(client, server_pid, msg):
    """Pins this thread and the server's search thread to one core; returns the core.

    The search thread is the one that uses the CPU during a 300 ms search.
    """
    before = _task_cpu_ticks(server_pid)
    client.recommend(msg, 0, time_ms=300)
    after = _task_cpu_ticks(server_pid)
    worker = max(after, key=lambda tid: after[tid] - before.get(tid, 0))
    core = min(os.sched_getaffinity(0))
    os.sched_setaffinity(worker, {core})
    os.sched_setaffinity(0, {core})        # 0: the calling thread only
    return core


def _spin(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


_BLOCK = bytes(16384)


def _spin_without_gil(seconds):
    """Busy for `seconds`, mostly without the GIL (hashlib releases it on large inputs), like a search."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        hashlib.sha256(_BLOCK).digest()


def _bare_server(queue, core):
    """A grpc.aio server with one method: busy-wait the requested seconds in a worker thread."""
    os.sched_setaffinity(0, range(os.cpu_count()))      # not the pin of the thread that forked it
    import grpc
    from concurrent.futures import ThreadPoolExecutor

    async def main():
        pool = ThreadPoolExecutor(1)

        def busy(seconds):
            if core is not None:
                os.sched_setaffinity(0, {core})     # the busy thread only, like the fagin search
            _spin_without_gil(seconds)

        async def handler(request, context):
            (seconds,) = struct.unpack("d", request)
            start = time.perf_counter()
            await asyncio.get_running_loop().run_in_executor(pool, busy, seconds)
            return struct.pack("d", time.perf_counter() - start)

        server = grpc.aio.server()
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(
            "bare", {"spin": grpc.unary_unary_rpc_method_handler(handler)}),))
        queue.put(server.add_insecure_port("127.0.0.1:0"))
        await server.start()
        await server.wait_for_termination()

    asyncio.run(main())


def bare_floor(durations, repeat, core):
    """Median ms of a call beyond the handler's busy time, per duration, for the bare server."""
    import grpc
    queue = multiprocessing.Queue()
    proc = multiprocessing.Process(target=_bare_server, args=(queue, core), daemon=True)
    proc.start()
    port = queue.get(timeout=30)
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    call = channel.unary_unary("/bare/spin")
    floors = []
    for seconds in durations:
        outside = []
        for _ in range(repeat):
            _spin(seconds)              # the client is as busy as in the in-process run
            t = time.perf_counter()
            (busy,) = struct.unpack("d", call(struct.pack("d", seconds), timeout=60))
            outside.append(time.perf_counter() - t - busy)
        floors.append(statistics.median(outside) * 1000)
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


def overhead(client, repeat, core, game="kids_of_london", players=4):
    """Prints one row per N; returns {N: (wall overhead, outside-search share, floor share)}."""
    st = new_game(game, players, seed=3)
    msg = codec.encode_state(st)
    rows = []
    for n in (100, 1_000, 10_000):
        local, remote, outside = [], [], []
        for r in range(repeat):
            for side in ((0, 1) if r % 2 == 0 else (1, 0)):
                t = time.perf_counter()
                if side == 0:
                    ismcts.search(st, 0, iterations=n, seed=r)
                    local.append(time.perf_counter() - t)
                else:
                    rec = client.recommend(msg, 0, iterations=n, seed=r)
                    remote.append(time.perf_counter() - t)
                    outside.append(remote[-1] - rec.elapsed_ms / 1000)
        rows.append((n, *(statistics.median(x) * 1000 for x in (local, remote, outside))))
    floors = bare_floor([lo / 1000 for _, lo, _, _ in rows], repeat, core)
    print(f"{'iterations':>10}{'in-process':>12}{'Recommend':>12}{'overhead':>10}"
          f"{'outside search':>20}{'bare floor':>18}")
    out = {}
    for (n, lo, re, outside), floor in zip(rows, floors):
        print(f"{n:>10,}{lo:>9.2f} ms{re:>9.2f} ms{(re - lo) / lo:>10.1%}"
              f"{outside:>10.2f} ms{outside / lo:>7.1%}{floor:>8.2f} ms{floor / lo:>7.1%}")
        out[n] = ((re - lo) / lo, outside / lo, floor / lo)
    return out


def overhead_section(repeat, pin, results):
    """Section 1 (run in a child process); puts (Kids of London rows, Gangs of Kyoto rows) on `results`."""
    proc, target = start_server(1)
    try:
        with FaginClient(target, timeout=600) as client:
            warm_up = codec.encode_state(new_game("kids_of_london", 4, seed=3))
            client.recommend(warm_up, 0, iterations=100)     # connects; starts the search thread
            core = None
            if pin:
                core = pin_search_to_one_core(client, proc.pid, warm_up)
                print(f"(both searches pinned to core {core}; --no-pin to let them run anywhere)")
            print("== in-process search vs Recommend (server with 1 worker), Kids of London 4-player opening")
            kol = overhead(client, repeat, core)
            print("== the same, Gangs of Kyoto 5-player opening (a slower search, the same fixed cost)")
            kyoto = overhead(client, repeat, core, "gangs_of_kyoto", 5)
            sys.stdout.flush()
    finally:
        proc.terminate()
        proc.wait()
    results.put((kol, kyoto))


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
    ap.add_argument("--repeat", type=int, default=15, help="pairs per row (default 15)")
    ap.add_argument("--rounds", type=int, default=2,
                    help="BatchRecommend rounds; each runs 1 and 2 workers, the order alternating")
    ap.add_argument("--positions", type=int, default=1000)
    ap.add_argument("--batch-iterations", default="2000,10000",
                    help="iterations per position, comma-separated (default: 2000, the server's "
                         "default budget, and 10000)")
    ap.add_argument("--no-pin", action="store_true",
                    help="do not pin the two searches (in process, in the server) to one core")
    args = ap.parse_args()

    # In a process of its own, so that pinning its thread leaves the batch runs alone.
    results = multiprocessing.get_context("spawn").Queue()
    section = multiprocessing.get_context("spawn").Process(
        target=overhead_section, args=(args.repeat, not args.no_pin, results))
    section.start()
    kol, kyoto = results.get()
    section.join()

    states = positions(args.positions, seed=1)
    speedups = {}
    for iterations in [int(x) for x in args.batch_iterations.split(",")]:
        print(f"\n== BatchRecommend: {len(states)} positions x {iterations} iterations")
        times = {1: [], 2: []}
        for r in range(args.rounds):
            for workers in ((1, 2) if r % 2 == 0 else (2, 1)):
                proc, target = start_server(workers)
                try:
                    times[workers].append(batch(target, states, iterations))
                finally:
                    proc.terminate()
                    proc.wait()
                print(f"{workers} worker{'s' if workers > 1 else ' '}: {times[workers][-1]:7.2f} s  "
                      f"{len(states) / times[workers][-1]:8.1f} positions/s")
        speedups[iterations] = sum(times[1]) / sum(times[2])
        print(f"speed-up 2 workers / 1 worker: {speedups[iterations]:.2f}x")

    print("\n== targets")
    for name, rows in (("Kids of London", kol), ("Gangs of Kyoto", kyoto)):
        wall, outside, floor = rows[10_000]
        print(f"gRPC overhead < 5 % at 10,000 iterations, {name}: wall {wall:.1%}, outside the search "
              f"{outside:.1%} (bare grpc.aio floor {floor:.1%}) -> {'met' if max(wall, outside) < 0.05 else 'NOT met'}")
    for iterations, speedup in speedups.items():
        print(f"BatchRecommend at {iterations} iterations, 2 workers >= 1.7 x 1 worker: {speedup:.2f}x "
              f"-> {'met' if speedup >= 1.7 else 'NOT met'}")


if __name__ == "__main__":
    main()
