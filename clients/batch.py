"""``fagin batch INPUT.jsonl OUTPUT.jsonl``: recommendations for a file of positions.

Each INPUT line is a JSON object: an ``id`` (a string or a whole number,
unique in the file) and the fields of a ``fagin.v1.RecommendRequest`` in
proto3 JSON (``state``, ``seat``, ``search``; ``search`` may be left out for
the server's default budget)::

    {"id": "p1", "state": {"liars_dice": {...}}, "seat": 0, "search": {"iterations": 5000}}

Each OUTPUT line is the ``id`` with either the ``recommendation`` (a
``fagin.v1.Recommendation`` in proto3 JSON, field names in lowerCamelCase as the
HTTP API answers, ``meanValue``; ``--snake-case`` for the .proto's names) or an ``error`` (``code``, the
gRPC status name, and ``message``): a bad position is answered with its error
and the batch goes on.  Lines are written in the order answers arrive, one
write and flush each, so a killed batch loses at most the lines in flight;
run it again with the same OUTPUT and the ids already there are skipped.

Where the searches run:

* ``--server HOST:PORT`` (repeatable) or a ``dns:///NAME:PORT`` target: unary
  ``Recommend`` calls, ``--concurrency`` at a time, spread over every address
  by gRPC's client-side ``round_robin`` policy.  A call that meets an
  UNAVAILABLE replica (killed, restarting, draining) is retried by gRPC's retry
  policy on another one, and then by the batch itself (``--retries``).
* ``--ray ADDRESS`` (``local`` for a Ray started here): each position is a Ray
  task that validates the request as the server does
  (``fagin.server.request.prepare``) and runs the Cython search in the Ray
  worker; no gRPC.  The cluster's workers need fagin installed (the same
  image as the server, see deploy/).
"""
from __future__ import annotations

import argparse
import asyncio
import dataclasses
import ipaddress
import json
import os
import socket
import sys
import time
from dataclasses import dataclass, field
from typing import Callable, Iterator

import grpc
from google.protobuf import json_format
from tqdm import tqdm

from fagin.clients.client import DEFAULT_TARGET, backoff_s, message_to_dict, pushback_ms, session_metadata
from fagin.v1 import fagin_pb2 as pb
from fagin.v1 import fagin_pb2_grpc

SERVICE = pb.DESCRIPTOR.services_by_name["Fagin"].full_name

# gRPC's own retry: a call that fails UNAVAILABLE before the server answered
# (its replica died or is draining) is sent again, and round_robin picks a
# READY replica for it.  The batch retries on top of this (``--retries``), with
# longer waits, for when every replica is briefly down.
SERVICE_CONFIG = {
    "loadBalancingConfig": [{"round_robin": {}}],
    "methodConfig": [{
        "name": [{"service": SERVICE}],
        "retryPolicy": {
            "maxAttempts": 5,
            "initialBackoff": "0.1s",
            "maxBackoff": "1s",
            "backoffMultiplier": 2,
            "retryableStatusCodes": ["UNAVAILABLE"],
        },
    }],
}

# RESOURCE_EXHAUSTED is not in that policy: gRPC would retry a refusal without a hint too,
# which the batch writes as the position's answer; one with a hint (admission control) is
# asked again below, after the hint, jittered (``backoff_s``), at most --retries times.

# Statuses after which a position is tried again rather than answered with
# the error: the replica went away (UNAVAILABLE) or was stopped under the call
# (CANCELLED: the batch never cancels its own calls).
RETRYABLE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED)
PUSHBACK_KEY = "grpc-retry-pushback-ms"
MAX_BACKOFF_S = 5.0


class BatchError(Exception):
    """A problem with the files or the flags: reported, nothing is searched."""


# ---------------------------------------------------------------- the files

def _check_id(value, where):
    # bool is an int in Python but not an id anyone means.
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise BatchError(f"{where}: \"id\" must be a string or a whole number, got {json.dumps(value)}")
    return value


def _id_key(value) -> str:
    # JSON text of the id: "7" and 7 are different ids, as they are in the files.
    return json.dumps(value)


def read_done(output: str) -> set:
    """The ids already answered in ``output`` (missing: none).

    A last line without its newline is what a kill in the middle of a write
    leaves: it is cut off here, and its position is searched again.
    """
    try:
        with open(output, "rb+") as f:
            data = f.read()
            end = data.rfind(b"\n") + 1
            if end < len(data):
                f.truncate(end)
    except FileNotFoundError:
        return set()
    except OSError as e:
        raise BatchError(f"{output}: cannot read: {e.strerror}") from None
    done = set()
    for number, line in enumerate(data[:end].splitlines(), 1):
        if not line.strip():
            continue
        try:
            answer = json.loads(line)
            done.add(_id_key(_check_id(answer["id"], f"{output} line {number}")))
        except (ValueError, TypeError, KeyError):
            raise BatchError(f"{output} line {number}: not an answer of fagin batch (a JSON object "
                             f"with an \"id\"); give another OUTPUT file") from None
    return done


@dataclass
class Position:
    id: object
    line: int
    request: pb.RecommendRequest | None = None
    error: str | None = None          # why the line is not a RecommendRequest


def _parse_line(text, number, input_path):
    try:
        obj = json.loads(text)
    except ValueError as e:
        raise BatchError(f"{input_path} line {number}: not JSON: {e}") from None
    if not isinstance(obj, dict) or "id" not in obj:
        raise BatchError(f"{input_path} line {number}: expected a JSON object with an \"id\" and a "
                         f"RecommendRequest's fields (state, seat, search)")
    return obj, _check_id(obj.pop("id"), f"{input_path} line {number}")


def scan_input(input_path: str) -> list:
    """Every id of the input in order, checked: each line is an object with an id, no id twice.

    The requests are parsed later, one at a time, as they are sent.
    """
    ids, first_line = [], {}
    try:
        with open(input_path, encoding="utf-8") as f:
            for number, text in enumerate(f, 1):
                if not text.strip():
                    continue
                _, pid = _parse_line(text, number, input_path)
                key = _id_key(pid)
                if key in first_line:
                    raise BatchError(f"{input_path} line {number}: id {key} is also on line "
                                     f"{first_line[key]}; ids must be unique")
                first_line[key] = number
                ids.append(pid)
    except OSError as e:
        raise BatchError(f"{input_path}: cannot read: {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise BatchError(f"{input_path}: not UTF-8 text: {e}") from None
    return ids


def positions(input_path: str, skip: set, defaults: pb.SearchSettings | None = None) -> Iterator[Position]:
    """The positions to search, in file order, leaving out the ids in ``skip``.

    ``defaults``: the budget (iterations, time_ms) for lines whose ``search``
    gives neither; without them the searcher's default applies.
    """
    with open(input_path, encoding="utf-8") as f:
        for number, text in enumerate(f, 1):
            if not text.strip():
                continue
            obj, pid = _parse_line(text, number, input_path)
            if _id_key(pid) in skip:
                continue
            request = pb.RecommendRequest()
            try:
                json_format.ParseDict(obj, request)
            except json_format.ParseError as e:
                yield Position(pid, number, error=f"line {number}: not a fagin.v1.RecommendRequest: {e}")
                continue
            if defaults is not None and not (request.search.HasField("iterations")
                                             or request.search.HasField("time_ms")):
                for name in ("iterations", "time_ms"):
                    if defaults.HasField(name):
                        setattr(request.search, name, getattr(defaults, name))
            yield Position(pid, number, request)


def answer_line(pid, recommendation=None, code: str | None = None, message: str = "",
                snake_case: bool = False) -> str:
    if recommendation is not None:
        answer = {"id": pid, "recommendation": message_to_dict(recommendation, snake_case)}
    else:
        answer = {"id": pid, "error": {"code": code, "message": message}}
    return json.dumps(answer, separators=(",", ":")) + "\n"


@dataclass
class Summary:
    total: int = 0              # positions in INPUT
    skipped: int = 0            # already in OUTPUT
    answered: int = 0           # lines written by this run
    errors: int = 0             # of which errors
    retries: int = 0            # positions sent again after UNAVAILABLE or CANCELLED
    unanswered: list = field(default_factory=list)   # ids given up on (servers unreachable)
    seconds: float = 0.0        # answering, start-up left out
    startup_seconds: float = 0.0    # starting or joining Ray

    @property
    def rate(self):
        return self.answered / self.seconds if self.seconds > 0 else 0.0


class Writer:
    """Appends answers to OUTPUT, one write and flush per line, and counts them."""

    def __init__(self, output, summary, bar, on_answer=None, snake_case=False):
        self.file = open(output, "a", encoding="utf-8")
        self.snake_case = snake_case      # the recommendations' field names (answer_line)
        self.summary = summary
        self.bar = bar
        self.on_answer = on_answer

    def write(self, line: str, error: bool, pid):
        self.file.write(line)
        self.file.flush()
        self.summary.answered += 1
        self.summary.errors += error
        self.bar.update(1)
        if error:
            self.bar.set_postfix(errors=self.summary.errors, refresh=False)
        if self.on_answer is not None:
            self.on_answer(pid, self.summary)

    def close(self):
        self.file.close()


# ----------------------------------------------------- through gRPC servers

def channel_target(servers: list) -> str:
    """One gRPC target naming every server.

    A single target passes as it is (``dns:///name:port`` resolves to all the
    addresses behind a name, e.g. a Kubernetes headless service).  Several
    become a static ``ipv4:`` / ``ipv6:`` address list, host names resolved
    here once: gRPC's built-in resolvers take a list of addresses only.
    """
    if len(servers) == 1:
        return servers[0]
    v4, v6 = [], []
    for server in servers:
        if "://" in server or server.startswith(("ipv4:", "ipv6:", "unix:")):
            raise BatchError(f"--server {server}: with several --server give each as HOST:PORT "
                             f"(a target with a scheme stands alone)")
        host, sep, port = server.rpartition(":")
        if not sep or not port.isdigit():
            raise BatchError(f"--server {server}: expected HOST:PORT")
        host = host.strip("[]")
        try:
            addresses = [ipaddress.ip_address(host)]
        except ValueError:
            try:
                infos = socket.getaddrinfo(host, int(port), type=socket.SOCK_STREAM)
            except socket.gaierror as e:
                raise BatchError(f"--server {server}: cannot resolve {host}: {e.strerror}") from None
            addresses = sorted({ipaddress.ip_address(info[4][0]) for info in infos}, key=str)
        for a in addresses:
            (v4 if a.version == 4 else v6).append(f"{a}:{port}" if a.version == 4 else f"[{a}]:{port}")
    if v4 and v6:
        raise BatchError("--server: give all IPv4 or all IPv6 addresses (gRPC's static address "
                         "lists take one family)")
    return ("ipv4:" + ",".join(v4)) if v4 else ("ipv6:" + ",".join(v6))


def channel_options(max_message_bytes=64 * 1024 * 1024):
    return [("grpc.service_config", json.dumps(SERVICE_CONFIG)),
            ("grpc.enable_retries", 1),
            ("grpc.max_receive_message_length", max_message_bytes),
            ("grpc.max_send_message_length", max_message_bytes)]


def _pushback_ms(error):
    """The server's retry hint (admission control) in ms, or None: none given, or a
    negative or unreadable one, which means "do not retry" (gRFC A6)."""
    return pushback_ms(error.trailing_metadata())


async def _via_servers(target, todo, writer, summary, concurrency, timeout, retries):
    async with grpc.aio.insecure_channel(target, options=channel_options()) as channel:
        stub = fagin_pb2_grpc.FaginStub(channel)

        async def one(position):
            if position.error is not None:
                writer.write(answer_line(position.id, code="INVALID_ARGUMENT", message=position.error),
                             True, position.id)
                return
            attempt = 0
            while True:
                try:
                    rec = await stub.Recommend(position.request, timeout=timeout,
                                               metadata=session_metadata(position.request.session))
                    if rec.stop_reason != pb.STOP_REASON_CANCELLED:
                        writer.write(answer_line(position.id, rec, snake_case=writer.snake_case), False, position.id)
                        return
                    # The replica was stopped under the search: not an answer to keep.
                    wait = None
                except grpc.aio.AioRpcError as e:
                    pushback = _pushback_ms(e) if e.code() == grpc.StatusCode.RESOURCE_EXHAUSTED else None
                    if e.code() not in RETRYABLE and pushback is None:
                        writer.write(answer_line(position.id, code=e.code().name, message=e.details() or ""),
                                     True, position.id)
                        return
                    # The hint, jittered (positions refused together come back spread out).
                    wait = None if pushback is None else backoff_s(pushback)
                if attempt >= retries:
                    summary.unanswered.append(position.id)
                    return
                attempt += 1
                summary.retries += 1
                await asyncio.sleep(wait if wait is not None else min(MAX_BACKOFF_S, 0.25 * 2 ** attempt))

        async def worker():
            # Workers share one iterator: next() never awaits, so no two take the same position.
            for position in todo:
                await one(position)

        await asyncio.gather(*(worker() for _ in range(concurrency)))


# -------------------------------------------------------------------- Ray

# Settings a Ray task takes from the driver's environment: the searcher's
# limits (FAGIN_MAX_NODES, FAGIN_MAX_ITERATIONS, ...), as a server reads them.
def _fagin_environment():
    return {k: v for k, v in os.environ.items() if k.startswith("FAGIN_")}


def search_position(request_bytes: bytes, config):
    """One position, validated and searched as a server would.

    Returns ``("ok", Recommendation bytes)`` or ``("error", code name, message)``.
    """
    from fagin.server import answer, request
    from fagin.server.codec import BadRequest

    message = pb.RecommendRequest.FromString(request_bytes)
    try:
        job = request.prepare(message, config)
    except BadRequest as e:
        return ("error", "INVALID_ARGUMENT", str(e))
    if message.session:
        job.notes.append("session: a batch worker keeps no trees; the search ran as without a session")
    job.started = time.monotonic()
    its, ms = job.remaining()
    reason = job.searcher.run(its, ms, decided_left=job.decided_left(its))
    return ("ok", answer.recommendation_bytes(job, reason))


def search_chunk(requests: list, environ: dict) -> list:
    """A Ray task: each position of ``requests`` (RecommendRequest bytes) searched in turn.

    The limits are a server's, read from the driver's ``FAGIN_*`` settings;
    one search thread, as the task holds one CPU.
    """
    from fagin.server import config as config_mod

    try:
        config = dataclasses.replace(config_mod.from_namespace(None, environ), workers=1)
    except ValueError as e:
        return [("error", "FAILED_PRECONDITION", f"the driver's FAGIN_* settings: {e}")] * len(requests)
    outcomes = []
    for request in requests:
        try:
            outcomes.append(search_position(request, config))
        except Exception as e:     # this position's answer; the chunk's others go on
            outcomes.append(("error", "INTERNAL", f"{type(e).__name__}: {e}"))
    return outcomes


def _via_ray(address, todo, writer, summary, concurrency, chunk):
    try:
        import ray
        from ray import exceptions as ray_errors
    except ImportError:
        raise BatchError("--ray needs Ray: pip install 'fagin[ray]'") from None
    started_here = not ray.is_initialized()
    if started_here:
        begin = time.perf_counter()
        # "local" starts a Ray here even if one already runs on this machine.
        ray.init(address=address, include_dashboard=False)
        summary.startup_seconds = time.perf_counter() - begin
    try:
        if concurrency is None:
            # Enough tasks queued that every CPU of the cluster stays busy.
            concurrency = max(1, 2 * int(ray.cluster_resources().get("CPU", 1)))
        # max_retries: a task whose worker or node died is run again elsewhere.
        task = ray.remote(num_cpus=1, max_retries=3)(search_chunk)
        environ = ray.put(_fagin_environment())
        pending = {}
        exhausted = False
        while True:
            while not exhausted and len(pending) < concurrency:
                group = []
                while len(group) < chunk:
                    position = next(todo, None)
                    if position is None:
                        exhausted = True
                        break
                    if position.error is not None:
                        writer.write(answer_line(position.id, code="INVALID_ARGUMENT",
                                                 message=position.error), True, position.id)
                    else:
                        group.append(position)
                if group:
                    pending[task.remote([p.request.SerializeToString() for p in group], environ)] = group
            if not pending:
                return
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                group = pending.pop(ref)
                try:
                    outcomes = ray.get(ref)
                except ray_errors.OutOfMemoryError as e:
                    outcomes = [("error", "RESOURCE_EXHAUSTED",
                                 f"the Ray worker ran out of memory (with {len(group)} positions in its "
                                 f"task): {e}")] * len(group)
                except ray_errors.RayTaskError as e:
                    outcomes = [("error", "INTERNAL", str(e.cause or e))] * len(group)
                except ray_errors.RayError:
                    # Workers or nodes lost beyond the task's retries: left for a rerun.
                    summary.unanswered.extend(p.id for p in group)
                    continue
                for position, outcome in zip(group, outcomes):
                    if outcome[0] == "ok":
                        writer.write(answer_line(position.id, pb.Recommendation.FromString(outcome[1]),
                                                 snake_case=writer.snake_case),
                                     False, position.id)
                    else:
                        writer.write(answer_line(position.id, code=outcome[1], message=outcome[2]),
                                     True, position.id)
    finally:
        if started_here:
            ray.shutdown()


# ------------------------------------------------------------------ running

def run(input_path: str, output_path: str, *, servers=None, ray_address=None, concurrency=None,
        timeout=None, retries=5, iterations=None, time_ms=None, ray_chunk=4, progress=True,
        on_answer: Callable | None = None, snake_case=False) -> Summary:
    """Runs a batch (see the module's doc); returns what it did.

    The recommendations are written in proto3 JSON with lowerCamelCase names, as the HTTP API
    answers (``meanValue``); ``snake_case`` writes the .proto's names instead (``mean_value``).

    ``on_answer(id, summary)`` is called after each line is written.
    """
    if servers and ray_address:
        raise BatchError("give --server or --ray, not both")
    if concurrency is not None and concurrency < 1:
        raise BatchError(f"--concurrency: must be at least 1, got {concurrency}")
    if retries < 0:
        raise BatchError(f"--retries: must be at least 0, got {retries}")
    if ray_chunk < 1:
        raise BatchError(f"--ray-chunk: must be at least 1, got {ray_chunk}")
    defaults = None
    if iterations is not None or time_ms is not None:
        defaults = pb.SearchSettings()
        if iterations is not None:
            defaults.iterations = iterations
        if time_ms is not None:
            defaults.time_ms = time_ms
    ids = scan_input(input_path)
    done = read_done(output_path)
    summary = Summary(total=len(ids), skipped=sum(_id_key(i) in done for i in ids))
    target = None if ray_address else channel_target(servers or [DEFAULT_TARGET])
    todo = positions(input_path, done, defaults)
    bar = tqdm(total=summary.total, initial=summary.skipped, unit="pos", desc="fagin batch",
               disable=not progress, file=sys.stderr, dynamic_ncols=True)
    writer = Writer(output_path, summary, bar, on_answer, snake_case)
    start = time.perf_counter()
    try:
        if ray_address:
            _via_ray(ray_address, todo, writer, summary, concurrency, ray_chunk)
        else:
            asyncio.run(_via_servers(target, todo, writer, summary, concurrency or 8, timeout, retries))
    finally:
        summary.seconds = time.perf_counter() - start - summary.startup_seconds
        writer.close()
        bar.close()
    return summary


def build_parser():
    p = argparse.ArgumentParser(
        prog="fagin batch", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Recommendations for every position of a JSON-lines file, through fagin servers "
                    "or on a Ray cluster; resumable.",
        epilog="INPUT line:  {\"id\": \"p1\", \"state\": {...GameState...}, \"seat\": 0, "
               "\"search\": {\"iterations\": 5000}}\n"
               "OUTPUT line: {\"id\": \"p1\", \"recommendation\": {...}} or "
               "{\"id\": \"p1\", \"error\": {\"code\": \"INVALID_ARGUMENT\", \"message\": \"...\"}}\n"
               "Exit status: 0 every position answered (errors included), 2 bad files or flags, "
               "3 some positions left unanswered (no server reachable): run again to finish.")
    p.add_argument("input", metavar="INPUT.jsonl", help="positions, one JSON object a line")
    p.add_argument("output", metavar="OUTPUT.jsonl",
                   help="answers, appended; ids already there are skipped")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--server", action="append", metavar="HOST:PORT",
                       help=f"a server (repeat for several: round-robin, and retry on another one "
                            f"when one fails), or one gRPC target such as dns:///fagin:50051; "
                            f"default {DEFAULT_TARGET}")
    where.add_argument("--ray", metavar="ADDRESS",
                       help="search in the workers of the Ray cluster at ADDRESS (as ray.init takes "
                            "it: auto, HOST:PORT, ray://HOST:10001), or 'local' for a Ray started here")
    p.add_argument("--concurrency", type=int, default=None,
                   help="calls (servers) or Ray tasks in flight at once (default: 8 with servers, "
                        "twice the cluster's CPUs with Ray)")
    p.add_argument("--ray-chunk", type=int, default=4, metavar="N",
                   help="positions per Ray task (default 4): more spreads Ray's cost per task over "
                        "more searches, fewer balances the load better for long searches")
    p.add_argument("--timeout", type=float, default=None, help="deadline of each call, seconds (servers)")
    p.add_argument("--retries", type=int, default=5,
                   help="times a position is sent again after every replica answered UNAVAILABLE "
                        "(after gRPC's own retries; default 5)")
    p.add_argument("--iterations", type=int, default=None,
                   help="iteration budget for lines whose search gives no budget")
    p.add_argument("--time-ms", type=int, default=None,
                   help="time budget (ms) for lines whose search gives no budget")
    p.add_argument("--snake-case", action="store_true",
                   help="write the recommendations' field names as in the .proto (mean_value) "
                        "instead of proto3 JSON's lowerCamelCase (meanValue), the HTTP API's spelling")
    p.add_argument("--quiet", action="store_true", help="no progress bar and no summary")
    return p


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        summary = run(args.input, args.output, servers=args.server, ray_address=args.ray,
                      concurrency=args.concurrency, timeout=args.timeout, retries=args.retries,
                      iterations=args.iterations, time_ms=args.time_ms, ray_chunk=args.ray_chunk,
                      progress=not args.quiet, snake_case=args.snake_case)
    except BatchError as e:
        print(f"fagin batch: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    if not args.quiet:
        print(f"fagin batch: {summary.answered} answered ({summary.errors} errors) in "
              f"{summary.seconds:.1f} s, {summary.rate:.1f} positions/s; {summary.skipped} already in "
              f"{args.output}" + (f"; Ray started in {summary.startup_seconds:.1f} s"
                                    if summary.startup_seconds else ""), file=sys.stderr)
    if summary.unanswered:
        print(f"fagin batch: {len(summary.unanswered)} positions left unanswered (no server could take "
              f"them); run the same command again to finish", file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
