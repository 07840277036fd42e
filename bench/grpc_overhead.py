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
     the in-process search's time: the share that is gRPC's own;
   - ``CPU outside``: the server process's CPU time per call (every thread,
     from ``/proc/PID/task/*/schedstat``) minus the search's own CPU time
     (the in-process search's ``time.thread_time``), beside the same for the
     bare server (its CPU per call minus the busy-wait's).  A noisy figure
     on a shared machine: each row's is a difference of totals over its
     rounds (10 times --repeat at 100 iterations);
   - ``CPU vs own``: the same, with the server's own timing of its search
     (``elapsed_ms``) taken out instead of the in-process search's CPU.  The
     two differ when a search runs slower in the server than in this
     process's tight loop (after decoding a request its caches are colder:
     a 100-iteration Gangs of Kyoto search takes about a tenth longer
     there), which the first counts as outside the search.

   The in-process search, a ``Recommend`` and a bare call run in turn in
   each round (the order rotating), so that the three sides see the same
   machine.  The ``call cost`` lines compare fagin with the bare floor at
   100 iterations against the targets: a call's wall time outside the
   search within 0.5 ms of the bare floor's, the server's CPU outside the
   search within 0.15 ms of the bare server's.

   On a virtual machine the cores do not run at the same speed (a core that
   shares its physical core with another guest can be a third slower, and
   which one is slow changes from minute to minute), so unless ``--no-pin``
   is given, the thread running the in-process search and the threads
   that run the server's searches are pinned to the same core: its search
   thread, and its event loop's thread, which runs the small searches
   (``--inline-search-ms``; a 100-iteration search here).  The bare
   server's busy-wait thread and loop thread are pinned there too, so that
   both servers' handlers run on the same core; every other thread (gRPC's)
   may run anywhere.  (Before the loop threads were pinned, the small
   searches ran on whichever core the loop was on while the in-process
   search they are compared with ran on the pinned one: Gangs of Kyoto's
   1 ms search on the slower core counted up to 0.3 ms as "outside the
   search".)
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


def start_server(workers, extra_args=()):
    env = {**os.environ, "FAGIN_WORKERS": str(workers), "FAGIN_LOG_LEVEL": "WARNING"}
    proc = subprocess.Popen([sys.executable, "-m", "fagin.server", "--port", "0", "--http-port", "0", *extra_args], env=env,
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
    """Pins this thread, the server's search thread and its event loop's thread (which
    runs the small searches) to one core; returns the core.

    The search thread is the one that uses the CPU during a 300 ms search (too long
    to run on the loop); the loop's thread is the process's main thread.
    """
    before = _task_cpu_ticks(server_pid)
    client.recommend(msg, 0, time_ms=300)
    after = _task_cpu_ticks(server_pid)
    worker = max(after, key=lambda tid: after[tid] - before.get(tid, 0))
    core = min(os.sched_getaffinity(0))
    os.sched_setaffinity(worker, {core})
    os.sched_setaffinity(server_pid, {core})
    os.sched_setaffinity(0, {core})        # 0: the calling thread only
    return core


_BLOCK = bytes(16384)


def _spin_without_gil(seconds):
    """Busy for `seconds`, mostly without the GIL (hashlib releases it on large inputs), like a search."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        hashlib.sha256(_BLOCK).digest()


def _bare_server(queue, core):
    """A grpc.aio server with one method: busy-wait the requested seconds in a worker
    thread; answers the busy wall and CPU seconds (the search's ``elapsed_ms``)."""
    os.sched_setaffinity(0, range(os.cpu_count()))      # not the pin of the thread that forked it
    import grpc
    from concurrent.futures import ThreadPoolExecutor

    async def main():
        pool = ThreadPoolExecutor(1)

        def busy(seconds):
            if core is not None:
                os.sched_setaffinity(0, {core})     # the busy thread only, like the fagin search
            cpu = time.thread_time()
            start = time.perf_counter()
            _spin_without_gil(seconds)
            return time.perf_counter() - start, time.thread_time() - cpu

        async def handler(request, context):
            (seconds,) = struct.unpack("d", request)
            return struct.pack("dd", *await asyncio.get_running_loop().run_in_executor(pool, busy, seconds))

        server = grpc.aio.server()
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(
            "bare", {"spin": grpc.unary_unary_rpc_method_handler(handler)}),))
        queue.put(server.add_insecure_port("127.0.0.1:0"))
        await server.start()
        if core is not None:
            # The loop's thread, like fagin's (after start: gRPC's own threads are not pinned).
            os.sched_setaffinity(0, {core})
        await server.wait_for_termination()

    asyncio.run(main())


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


class BareServer:
    """The bare grpc.aio server (``_bare_server``) in a process of its own, and a channel to it."""

    def __init__(self, core):
        import grpc
        queue = multiprocessing.get_context("fork").Queue()
        self.proc = multiprocessing.get_context("fork").Process(target=_bare_server, args=(queue, core),
                                                                daemon=True)
        self.proc.start()
        port = queue.get(timeout=30)
        self.channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        self._spin = self.channel.unary_unary("/bare/spin")

    def spin(self, seconds):
        """(busy wall seconds, busy CPU seconds) of one call."""
        return struct.unpack("dd", self._spin(struct.pack("d", seconds), timeout=60))

    def close(self):
        self.channel.close()
        self.proc.terminate()
        self.proc.join()


def thread_cpu(pid):
    """{thread id: CPU ns used so far} for every thread of process `pid` (ns precision)."""
    ticks = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                ticks[tid] = int(f.read().split()[0])
        except OSError:
            continue         # the thread ended
    return ticks


def wait_idle(pid, timeout=60):
    """Waits until process `pid` is idle (under 2 % of a core over 250 ms): a new
    server measures its games' tree sizes in a thread for a few seconds, which
    would count as the first calls' CPU."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        before = thread_cpu(pid)
        time.sleep(0.25)
        if cpu_since(pid, before) < 0.005:
            return
    print(f"(process {pid} still busy after {timeout} s; its CPU figures include that)")


def cpu_since(pid, before):
    """CPU seconds the threads of `pid` used since `before` (a ``thread_cpu``).

    Thread by thread: a thread that ended meanwhile (the server's one-off
    probe thread) must not take its whole past CPU time out of the sum."""
    return sum(ns - before.get(tid, 0) for tid, ns in thread_cpu(pid).items()) / 1e9


#: The 100-iteration rows run this many times --repeat rounds (a round takes ~2-4 ms there).
SHORT_ROW_ROUNDS = 10


def overhead(client, server_pid, bare, repeat, game="kids_of_london", players=4):
    """Prints one row per N; returns {N: figures} (see the module docstring).

    Each round runs the in-process search, a Recommend and a bare call of
    the in-process search's time, in an order that rotates round by round.
    """
    st = new_game(game, players, seed=3)
    msg = codec.encode_state(st)
    out = {}
    print(f"{'iterations':>10}{'in-process':>12}{'Recommend':>12}{'overhead':>10}"
          f"{'outside search':>20}{'bare floor':>18}{'CPU outside':>14}{'bare CPU':>11}{'CPU vs own':>12}")
    for n in (100, 1_000, 10_000):
        # The bare call busy-waits as long as the search takes in process (measured first).
        spin = statistics.median(_timed_search(st, n, r)[0] for r in range(3))
        local, local_cpu, remote, outside, floor, bare_cpu = [], [], [], [], [], []
        fagin_cpu = bare_server_cpu = fagin_search_s = 0.0
        # More rounds where they are short: the CPU figures are small differences of totals.
        rounds = repeat * (SHORT_ROW_ROUNDS if n == 100 else 1)
        for r in range(rounds):
            for side in (0, 1, 2)[r % 3:] + (0, 1, 2)[:r % 3]:
                if side == 0:
                    wall, cpu = _timed_search(st, n, r)
                    local.append(wall)
                    local_cpu.append(cpu)
                elif side == 1:
                    before = thread_cpu(server_pid)
                    t = time.perf_counter()
                    rec = client.recommend(msg, 0, iterations=n, seed=r)
                    remote.append(time.perf_counter() - t)
                    outside.append(remote[-1] - rec.elapsed_ms / 1000)
                    fagin_cpu += cpu_since(server_pid, before)
                    fagin_search_s += rec.elapsed_ms / 1000
                else:
                    before = thread_cpu(bare.proc.pid)
                    t = time.perf_counter()
                    busy, cpu = bare.spin(spin)
                    floor.append(time.perf_counter() - t - busy)
                    bare_server_cpu += cpu_since(bare.proc.pid, before)
                    bare_cpu.append(cpu)
        lo, re, outside, floor = (statistics.median(x) * 1000 for x in (local, remote, outside, floor))
        # CPU: totals over the rounds (a call's work after its answer lands in the next reading
        # of its server).
        cpu_outside = (fagin_cpu - sum(local_cpu)) / rounds * 1000
        bare_outside = (bare_server_cpu - sum(bare_cpu)) / rounds * 1000
        cpu_vs_own = (fagin_cpu - fagin_search_s) / rounds * 1000
        print(f"{n:>10,}{lo:>9.2f} ms{re:>9.2f} ms{(re - lo) / lo:>10.1%}"
              f"{outside:>10.2f} ms{outside / lo:>7.1%}{floor:>8.2f} ms{floor / lo:>7.1%}"
              f"{cpu_outside:>11.2f} ms{bare_outside:>8.2f} ms{cpu_vs_own:>9.2f} ms")
        out[n] = dict(wall=(re - lo) / lo, outside=outside / lo, floor=floor / lo, outside_ms=outside,
                      floor_ms=floor, cpu_ms=cpu_outside, bare_cpu_ms=bare_outside, cpu_vs_own_ms=cpu_vs_own)
    return out


def _timed_search(st, n, seed):
    """(wall, CPU) seconds of the in-process search."""
    cpu = time.thread_time()
    t = time.perf_counter()
    ismcts.run_search(st, 0, iterations=n, seed=seed)
    return time.perf_counter() - t, time.thread_time() - cpu


def overhead_section(repeat, pin, results, server_args=()):
    """Section 1 (run in a child process); puts (Kids of London rows, Gangs of Kyoto rows) on `results`."""
    proc, target = start_server(1, server_args)
    try:
        with FaginClient(target, timeout=600) as client:
            warm_up = codec.encode_state(new_game("kids_of_london", 4, seed=3))
            client.recommend(warm_up, 0, iterations=100)     # connects; starts the search thread
            core = None
            if pin:
                core = pin_search_to_one_core(client, proc.pid, warm_up)
                print(f"(the searches, the bare busy-wait and both servers' loops pinned to core {core}; "
                      f"--no-pin to let them run anywhere)")
            bare = BareServer(core)
            try:
                bare.spin(0.001)                # connects; starts its worker thread
                wait_idle(proc.pid)
                print("== in-process search vs Recommend (server with 1 worker) vs a bare grpc.aio call, "
                      "Kids of London 4-player opening")
                kol = overhead(client, proc.pid, bare, repeat)
                print("== the same, Gangs of Kyoto 5-player opening (a slower search, the same fixed cost)")
                kyoto = overhead(client, proc.pid, bare, repeat, "gangs_of_kyoto", 5)
            finally:
                bare.close()
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
    ap.add_argument("--repeat", type=int, default=30,
                    help="rounds per row, each an in-process search, a Recommend and a bare call (default 30)")
    ap.add_argument("--rounds", type=int, default=2,
                    help="BatchRecommend rounds; each runs 1 and 2 workers, the order alternating")
    ap.add_argument("--positions", type=int, default=1000)
    ap.add_argument("--batch-iterations", default="2000,10000",
                    help="iterations per position, comma-separated (default: 2000, the server's "
                         "default budget, and 10000)")
    ap.add_argument("--server-args", default="",
                    help="more flags for the fagin server of section 1, e.g. '--inline-search-ms 0' to "
                         "send every search to a worker thread (by default a search of at most 2 ms, "
                         "all those of the 100-iteration rows, runs on the event loop)")
    ap.add_argument("--no-pin", action="store_true",
                    help="do not pin the searches (in process, in the server), the bare busy-wait and the "
                         "servers' loop threads to one core")
    args = ap.parse_args()

    # In a process of its own, so that pinning its thread leaves the batch runs alone.
    results = multiprocessing.get_context("spawn").Queue()
    section = multiprocessing.get_context("spawn").Process(
        target=overhead_section, args=(args.repeat, not args.no_pin, results, args.server_args.split()))
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
        row = rows[10_000]
        wall, outside = row["wall"], row["outside"]
        print(f"gRPC overhead < 5 % at 10,000 iterations, {name}: wall {wall:.1%}, outside the search "
              f"{outside:.1%} (bare grpc.aio floor {row['floor']:.1%}) -> "
              f"{'met' if max(wall, outside) < 0.05 else 'NOT met'}")
    for name, rows in (("Kids of London", kol), ("Gangs of Kyoto", kyoto)):
        row = rows[100]
        gap = row["outside_ms"] - row["floor_ms"]
        print(f"call cost at 100 iterations, {name}: wall outside the search {row['outside_ms']:.2f} ms, "
              f"bare floor {row['floor_ms']:.2f} ms, gap {gap:+.2f} ms (target <= 0.5) -> "
              f"{'met' if gap <= 0.5 else 'NOT met'}")
        gap = row["cpu_ms"] - row["bare_cpu_ms"]
        print(f"server CPU per call outside the search at 100 iterations, {name}: {row['cpu_ms']:.2f} ms, "
              f"bare {row['bare_cpu_ms']:.2f} ms, gap {gap:+.2f} ms (target <= 0.15) -> "
              f"{'met' if gap <= 0.15 else 'NOT met'}")
        own = row["cpu_vs_own_ms"] - row["bare_cpu_ms"]
        print(f"  (the server's own search time taken out instead of the in-process search's: "
              f"{row['cpu_vs_own_ms']:.2f} ms, gap {own:+.2f} ms)")
    for iterations, speedup in speedups.items():
        print(f"BatchRecommend at {iterations} iterations, 2 workers >= 1.7 x 1 worker: {speedup:.2f}x "
              f"-> {'met' if speedup >= 1.7 else 'NOT met'}")


if __name__ == "__main__":
    main()
