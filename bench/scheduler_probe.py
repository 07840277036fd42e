"""The scheduler under memory pressure, long deadlines, draining and refused batches, in
figures, against servers this script starts on 127.0.0.1.

1. pair: iterations of one ``--pair-ms`` search alone, then of two at once (Kids of London,
   4 players), with each server setting in ``--settings`` (";"-separated server flag sets).
2. lateness: ``--tries`` Recommend calls at each deadline of ``--deadlines`` (s), asking for
   60 s of search (so the deadline cuts it): how far after its deadline each ended (worst).
3. drain: a server with ``--drain-seconds``/``--grace-seconds``; ``--clients`` clients call
   in a loop (each call on a fresh connection) while one polls health; SIGTERM; calls failed
   after SIGTERM (during the drain and after it), when health said NOT_SERVING, time to exit.
4. refused-batch: ``--batches`` grpc.aio BatchRecommend calls of ``--items`` items against a
   server whose only stream slot is taken: the statuses as the client saw them, with hints.
5. burst: ``--burst`` Recommend calls at once, each of ``--burst-ms`` ms of search, against a
   server with the default queue: the retry hints of the refused calls.

    python bench/scheduler_probe.py                          # every part, default sizes
    python bench/scheduler_probe.py --parts pair --pair-ms 5000
"""
from __future__ import annotations

import argparse
import asyncio
import collections
import re
import signal
import subprocess
import sys
import threading
import time

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from fagin.engines import new_game
from fagin.server.codec import encode_state
from fagin.v1 import fagin_pb2 as pb
from fagin.v1 import fagin_pb2_grpc

STATE = encode_state(new_game("kids_of_london", players=4, seed=3))
PUSHBACK_KEY = "grpc-retry-pushback-ms"


def request(**search):
    return pb.RecommendRequest(state=STATE, seat=0, search=pb.SearchSettings(**search))


def start_server(args):
    proc = subprocess.Popen([sys.executable, "-m", "fagin.server", "--host", "127.0.0.1", "--port", "0", "--http-port", "0",
                             "--log-level", "WARNING", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline().strip()
    match = re.search(r":(\d+)$", line)
    if not match:
        proc.kill()
        raise SystemExit(f"the server did not start: {line!r}")
    return proc, f"127.0.0.1:{match.group(1)}"


def stop(proc, timeout=60):
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _outcome(future):
    try:
        return str(future.result().iterations)
    except grpc.RpcError as e:
        return e.code().name


def pair(ms, settings):
    for flags in settings:
        proc, target = start_server(["--max-time-ms", "60000", *flags.split()])
        try:
            with grpc.insecure_channel(target) as channel:
                stub = fagin_pb2_grpc.FaginStub(channel)
                stub.Recommend(request(iterations=2000), timeout=30)       # warm up, probes done
                time.sleep(1.0)
                alone = stub.Recommend(request(time_ms=ms, seed=1), timeout=ms / 1000 + 10).iterations
                calls = [stub.Recommend.future(request(time_ms=ms, seed=2 + i), timeout=ms / 1000 + 10)
                         for i in range(2)]
                both = [_outcome(c) for c in calls]
            print(f"pair [{flags or 'default settings'}]: one {ms} ms search alone {alone:,} iterations; "
                  f"two at once: {', '.join(both)}")
        finally:
            stop(proc)


def lateness(deadlines, tries):
    proc, target = start_server(["--max-time-ms", "60000"])
    try:
        with grpc.insecure_channel(target) as channel:
            stub = fagin_pb2_grpc.FaginStub(channel)
            results = collections.defaultdict(list)

            def one(deadline_s, seed):
                began = time.monotonic()
                try:
                    stub.Recommend(request(time_ms=60_000, seed=seed), timeout=deadline_s)
                    code = "OK"
                except grpc.RpcError as e:
                    code = e.code().name
                results[deadline_s].append(((time.monotonic() - began - deadline_s) * 1000, code))
            # One deadline at a time, its tries at once (two workers, time-sliced).
            for d in deadlines:
                threads = [threading.Thread(target=one, args=(d, k)) for k in range(tries)]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
                late = [ms for ms, _ in results[d]]
                codes = collections.Counter(code for _, code in results[d])
                print(f"lateness at a {d:g} s deadline ({tries} calls at once, time_ms 60000): worst "
                      f"{max(late):+.1f} ms, best {min(late):+.1f} ms (negative = before the deadline); "
                      f"{dict(codes)}")
    finally:
        stop(proc)


def drain(drain_s, grace_s, clients):
    proc, target = start_server(["--drain-seconds", str(drain_s), "--grace-seconds", str(grace_s),
                                 "--workers", "2"])
    calls = []                       # (seconds after SIGTERM or None before, ok)
    health_log = []
    sent = [None]
    done = threading.Event()

    def since():
        return None if sent[0] is None else time.monotonic() - sent[0]

    def caller(k):
        while not done.is_set():
            with grpc.insecure_channel(target) as channel:
                try:
                    fagin_pb2_grpc.FaginStub(channel).Recommend(request(iterations=200, seed=k), timeout=5)
                    calls.append((since(), True))
                except grpc.RpcError:
                    calls.append((since(), False))
            time.sleep(0.01)

    def poller():
        with grpc.insecure_channel(target) as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            while not done.is_set():
                try:
                    status = stub.Check(health_pb2.HealthCheckRequest(service="fagin.v1.Fagin"), timeout=1).status
                    health_log.append((since(), health_pb2.HealthCheckResponse.ServingStatus.Name(status)))
                except grpc.RpcError as e:
                    health_log.append((since(), e.code().name))
                time.sleep(0.05)

    threads = [threading.Thread(target=caller, args=(k,)) for k in range(clients)]
    threads.append(threading.Thread(target=poller))
    for t in threads:
        t.start()
    time.sleep(2.0)
    sent[0] = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    code = proc.wait(drain_s + grace_s + 30)
    exit_s = time.monotonic() - sent[0]
    done.set()
    for t in threads:
        t.join()
    after = [(at, ok) for at, ok in calls if at is not None]
    in_drain = [ok for at, ok in after if at < drain_s]
    later = [ok for at, ok in after if at >= drain_s]
    not_serving = next((at for at, s in health_log if at is not None and s == "NOT_SERVING"), None)
    print(f"drain ({clients} clients calling in a loop, health polled every 50 ms; --drain-seconds "
          f"{drain_s:g} --grace-seconds {grace_s:g}): before SIGTERM {sum(ok for at, ok in calls if at is None)} "
          f"calls OK; after it, during the drain {in_drain.count(False)} of {len(in_drain)} failed, after "
          f"the drain {later.count(False)} of {len(later)} failed; health NOT_SERVING "
          f"{'never seen' if not_serving is None else f'at {not_serving * 1000:.0f} ms'}; exit code {code} "
          f"{exit_s:.2f} s after SIGTERM")


def refused_batch(batches, items):
    proc, target = start_server(["--max-streams", "1", "--workers", "1"])
    try:
        with grpc.insecure_channel(target) as channel:
            hold = fagin_pb2_grpc.FaginStub(channel).StreamRecommend(
                pb.StreamRecommendRequest(request=request(time_ms=30_000), report_interval_ms=100), timeout=60)
            next(hold)

            async def main():
                async with grpc.aio.insecure_channel(target) as aio_channel:
                    stub = fagin_pb2_grpc.FaginStub(aio_channel)

                    async def one():
                        reqs = [pb.BatchRecommendRequest(request_id=str(k), request=request(iterations=50))
                                for k in range(items)]
                        try:
                            async for _ in stub.BatchRecommend(iter(reqs), timeout=30):
                                pass
                            return "OK", False
                        except grpc.aio.AioRpcError as e:
                            return e.code().name, PUSHBACK_KEY in dict(e.trailing_metadata() or ())
                    return await asyncio.gather(*[one() for _ in range(batches)])
            results = asyncio.run(main())
            hold.cancel()
        codes = collections.Counter(code for code, _ in results)
        hinted = sum(h for _, h in results)
        print(f"refused batch ({batches} grpc.aio BatchRecommend calls of {items} items, the server's one "
              f"stream slot taken): {dict(codes)}; {hinted} with {PUSHBACK_KEY}")
    finally:
        stop(proc)


def burst(calls, search_ms):
    """`calls` Recommend calls at once, each asking for `search_ms` of search, on a server with
    the default queue: the retry hints of the refused ones, against the search's time."""
    proc, target = start_server([])
    try:
        with grpc.insecure_channel(target) as channel:
            stub = fagin_pb2_grpc.FaginStub(channel)
            # A few searches first: the hint reads the recent searches' time.
            for seed in range(3):
                stub.Recommend(request(time_ms=search_ms, seed=seed), timeout=60)
            futures = [stub.Recommend.future(request(time_ms=search_ms, seed=k), timeout=120)
                       for k in range(calls)]
            hints, codes = [], collections.Counter()
            for f in futures:
                try:
                    f.result()
                    codes["OK"] += 1
                except grpc.RpcError as e:
                    codes[e.code().name] += 1
                    hint = dict(e.trailing_metadata() or ()).get(PUSHBACK_KEY)
                    if hint is not None:
                        hints.append(int(hint))
        hints.sort()
        shown = (f"min {hints[0]} ms, median {hints[len(hints) // 2]} ms, max {hints[-1]} ms"
                 if hints else "none")
        print(f"burst ({calls} Recommend calls of {search_ms} ms at once, default queue): {dict(codes)}; "
              f"retry hints {shown}")
    finally:
        stop(proc)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--parts", default="pair,lateness,drain,refused-batch,burst")
    p.add_argument("--pair-ms", type=int, default=5000)
    p.add_argument("--settings", default=";--max-tree-memory-mb 700 --max-nodes 1000000",
                   help="server flag sets for pair, ';'-separated (empty: the defaults)")
    p.add_argument("--deadlines", default="1,10,45")
    p.add_argument("--tries", type=int, default=4)
    p.add_argument("--drain-seconds", type=float, default=5.0)
    p.add_argument("--grace-seconds", type=float, default=5.0)
    p.add_argument("--clients", type=int, default=16)
    p.add_argument("--batches", type=int, default=200)
    p.add_argument("--items", type=int, default=20)
    p.add_argument("--burst", type=int, default=200, help="calls at once in the burst")
    p.add_argument("--burst-ms", type=int, default=200, help="each burst call's search, in ms")
    a = p.parse_args(argv)
    parts = a.parts.split(",")
    if "pair" in parts:
        pair(a.pair_ms, a.settings.split(";"))
    if "lateness" in parts:
        lateness([float(d) for d in a.deadlines.split(",")], a.tries)
    if "drain" in parts:
        drain(a.drain_seconds, a.grace_seconds, a.clients)
    if "refused-batch" in parts:
        refused_batch(a.batches, a.items)
    if "burst" in parts:
        burst(a.burst, a.burst_ms)


if __name__ == "__main__":
    main()
