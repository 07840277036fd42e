"""The server under faults an operator meets: many open streams nobody reads, a batch nobody
reads, kept session trees, and SIGTERM during a long search.  Prints what the issue's closing
note asks for.

1. Open streams: ``--streams`` StreamRecommend calls (Kids of London, 4 players, a 30 s search,
   10 ms reports) that the client never reads, against a server started with ``--server-args``;
   the server's resident memory sampled every ``--sample-s`` seconds for ``--seconds``, and
   how the calls ended (open, refused RESOURCE_EXHAUSTED by ``max_streams``, ...).
2. An unread batch: one BatchRecommend call (Kids of London, 4 players, ``--batch-iterations``
   a request) whose client writes requests for ``--seconds`` (tagged with ``--id-bytes``-long
   request_ids) and reads no answer meanwhile; the server's resident memory sampled every
   ``--sample-s`` seconds; then the call is cancelled.  (tests/server/test_batch_stream.py
   checks that a batch read late still answers every request exactly once.)
3. Kept trees, in this process: ``--kept-trees`` session trees of ``--kept-iterations`` each
   (``--kept-game``), kept as the server keeps them; this process's RSS growth against what
   the server counts for them in its tree-memory budget.
4. SIGTERM: a server with ``--grace-seconds``, one search of ``--long-ms`` ms on 2 threads;
   SIGTERM as soon as the search runs; when the client got its status and when the process
   exited (it must stop the search at the end of the grace period, not run it out).

    python bench/server_faults.py                                   # default limits
    python bench/server_faults.py --server-args="--max-streams 1000 --max-queued 1000 --max-tree-memory-mb 256"
"""
from __future__ import annotations

import argparse
import re
import shlex
import signal
import subprocess
import sys
import time

import grpc

from fagin.engines import new_game
from fagin.server.codec import encode_state
from fagin.v1 import fagin_pb2 as pb
from fagin.v1 import fagin_pb2_grpc


def start_server(args):
    proc = subprocess.Popen([sys.executable, "-m", "fagin.server", "--port", "0", "--http-port", "0", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline().strip()
    match = re.search(r":(\d+)$", line)
    if not match:
        proc.kill()
        raise SystemExit(f"the server did not start: {line!r} {proc.stderr.read()[-2000:]}")
    return proc, int(match.group(1))


def rss_mb(pid):
    """The resident memory of process `pid` ("self": this one), in MB."""
    with open(f"/proc/{pid}/status") as f:
        return int(f.read().split("VmRSS:")[1].split()[0]) / 1024


def open_streams(streams, seconds, sample_s, server_args):
    proc, port = start_server(["--log-level", "WARNING", *server_args])
    try:
        state = encode_state(new_game("kids_of_london", players=4, seed=3))
        request = pb.StreamRecommendRequest(
            request=pb.RecommendRequest(state=state, seat=0, search=pb.SearchSettings(time_ms=30_000)),
            report_interval_ms=10)
        before = rss_mb(proc.pid)
        channels = [grpc.insecure_channel(f"127.0.0.1:{port}") for _ in range(10)]
        calls = [fagin_pb2_grpc.FaginStub(channels[i % 10]).StreamRecommend(request, timeout=seconds + 30)
                 for i in range(streams)]
        samples, peak = sample_rss(proc.pid, seconds, sample_s, before)
        ended = {}
        for call in calls:
            key = call.code().name if call.done() else "OPEN"
            ended[key] = ended.get(key, 0) + 1
        print(f"open unread streams: {streams} for {seconds:.0f} s, server args {server_args or '(defaults)'}")
        print(f"  RSS MB: before {before:.0f}, samples {', '.join(samples)}; peak {peak:.0f}")
        print(f"  calls: {', '.join(f'{k} {v}' for k, v in sorted(ended.items()))}")
        for call in calls:
            call.cancel()
        for channel in channels:
            channel.close()
    finally:
        proc.terminate()
        proc.wait(30)


def sample_rss(pid, seconds, sample_s, before):
    """The server's RSS every ``sample_s`` for ``seconds``: the samples as text, and the peak."""
    start, peak, samples = time.monotonic(), before, []
    while time.monotonic() - start < seconds:
        time.sleep(sample_s)
        now = rss_mb(pid)
        peak = max(peak, now)
        samples.append(f"{time.monotonic() - start:.0f}s {now:.0f}")
    return samples, peak


def unread_batch(seconds, sample_s, id_bytes, iterations, server_args):
    proc, port = start_server(["--log-level", "WARNING", *server_args])
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    try:
        state = encode_state(new_game("kids_of_london", players=4, seed=3))
        end = time.monotonic() + seconds
        written = []

        def requests():
            while time.monotonic() < end:
                written.append(1)
                tag = str(len(written)).rjust(id_bytes, "0") if id_bytes else str(len(written))
                yield pb.BatchRecommendRequest(request_id=tag, request=pb.RecommendRequest(
                    state=state, seat=0, search=pb.SearchSettings(iterations=iterations, seed=len(written))))
        before = rss_mb(proc.pid)
        answers = fagin_pb2_grpc.FaginStub(channel).BatchRecommend(requests(), timeout=seconds + 120)
        samples, peak = sample_rss(proc.pid, seconds, sample_s, before)
        answers.cancel()
        print(f"unread batch: {seconds:.0f} s of requests of {iterations} iterations, request_id {id_bytes or 'short'} bytes, "
              f"server args {server_args or '(defaults)'}")
        print(f"  RSS MB: before {before:.0f}, samples {', '.join(samples)}; peak {peak:.0f}")
        print(f"  requests the client took from its generator: {len(written)}")
    finally:
        channel.close()
        proc.terminate()
        proc.wait(30)


def kept_trees(game_id, trees, iterations):
    """In this process: `trees` session trees of `iterations` kept as the server keeps them;
    this process's RSS growth against what the session store counts for them."""
    import asyncio
    import gc
    import random

    from fagin.engines.registry import load_game
    from fagin.search.memory import bytes_per_node, measure_games, wait_for_measurements
    from fagin.server import request as request_mod
    from fagin.server.config import ServerConfig
    from fagin.server.security import ANONYMOUS
    from fagin.server.sessions import SessionStore
    from fagin.server.tree_memory import TreeMemory

    game = load_game(game_id)
    measure_games([game])
    wait_for_measurements()
    config = ServerConfig(max_tree_memory_mb=16_000, max_iterations=10**8, max_sessions=trees)
    store = SessionStore(config, TreeMemory(config.tree_memory_bytes))

    def own_rss():
        return rss_mb("self")
    gc.collect()
    before = own_rss()
    for k in range(trees):
        state = new_game(game_id, players=game.spec.min_players, seed=k)
        rng = random.Random(k)
        while state.is_chance_node():
            state.apply(state.sample_chance(rng.getrandbits(63)))
        job = request_mod.prepare(pb.RecommendRequest(
            state=encode_state(state), seat=state.current_player(), session=f"s{k}",
            search=pb.SearchSettings(iterations=iterations)), config)
        asyncio.run(store.attach(job, f"s{k}", ANONYMOUS))
        job.searcher.run(iterations=iterations)
        store.keep(job)
        del job
    gc.collect()
    grown = own_rss() - before
    kept = list(store.kept.values())
    counted = sum(e.bytes for e in kept) / (1 << 20)
    per_node = sum(e.search.num_nodes for e in kept) * bytes_per_node(game) / (1 << 20)
    print(f"kept trees: {len(kept)} {game_id} trees of {iterations} iterations: RSS grew {grown:.0f} MB; "
          f"counted {counted:.0f} MB (their nodes at the game's bytes a node: {per_node:.0f} MB)")


def sigterm(grace_s, long_ms):
    proc, port = start_server(["--grace-seconds", str(grace_s), "--workers", "2", "--log-level", "DEBUG"])
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    state = encode_state(new_game("kids_of_london", players=4, seed=1))
    request = pb.RecommendRequest(state=state, seat=0, search=pb.SearchSettings(time_ms=long_ms, threads=2))
    call = fagin_pb2_grpc.FaginStub(channel).Recommend.future(request, timeout=long_ms / 1000 + 30)
    for line in proc.stderr:             # the server logs this line (DEBUG) when the search starts
        if "search started" in line:
            break
    start = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    try:
        call.result()
        status = "OK"
    except grpc.RpcError as e:
        status = e.code().name
    answered = time.monotonic() - start
    proc.wait(long_ms / 1000 + 30)
    exited = time.monotonic() - start
    channel.close()
    print(f"SIGTERM with a {long_ms} ms search running, grace {grace_s:g} s: client {status} after "
          f"{answered:.2f} s, process exited ({proc.returncode}) after {exited:.2f} s")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--streams", type=int, default=500)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--sample-s", type=float, default=5.0)
    parser.add_argument("--server-args", default="", help="extra flags for the servers of both probes")
    parser.add_argument("--id-bytes", type=int, default=0, help="the unread batch's request_id length")
    parser.add_argument("--batch-iterations", type=int, default=10, help="each unread batch request's budget")
    parser.add_argument("--kept-game", default="london")
    parser.add_argument("--kept-trees", type=int, default=10)
    parser.add_argument("--kept-iterations", type=int, default=50_000)
    parser.add_argument("--grace-seconds", type=float, default=2.0)
    parser.add_argument("--long-ms", type=int, default=30_000)
    args = parser.parse_args(argv)
    open_streams(args.streams, args.seconds, args.sample_s, shlex.split(args.server_args))
    unread_batch(args.seconds, args.sample_s, args.id_bytes, args.batch_iterations, shlex.split(args.server_args))
    kept_trees(args.kept_game, args.kept_trees, args.kept_iterations)
    sigterm(args.grace_seconds, args.long_ms)


if __name__ == "__main__":
    main()
