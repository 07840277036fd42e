"""``fagin loadtest``: a bounded load generator for a fagin server on this machine.

    fagin loadtest --spawn --duration 10 --concurrency 64
    fagin loadtest --server 127.0.0.1:50051 --server-pid 1234 --count 5000 --json

It first builds a pool of positions (NewGame, then a few random ApplyAction
steps, so that positions vary) for a weighted mix of games and player
counts, then runs ``--concurrency`` clients in one asyncio loop over
``grpc.aio`` (so that hundreds of clients cost the generator little CPU),
each making Recommend, StreamRecommend or BatchRecommend calls drawn by
weight, until ``--duration`` seconds or ``--count`` calls. The report gives
throughput, latency percentiles overall and per call kind, errors by status
code, answers below the requested budget (see :func:`below_budget`),
deadline lateness, the server's memory (RSS) before and after, and the
generator's own CPU use.

It refuses a server that is not on this machine unless ``--allow-remote`` is
given: pointed at a shared or production server it is a denial-of-service
tool, so aiming it elsewhere must be a deliberate act.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import resource
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field

import grpc

from fagin.clients.client import (RETRY_ATTEMPTS, backoff_s, is_loopback_target, pushback_ms,
                                  recommend_request, retry_options)
from fagin.v1 import fagin_pb2 as pb
from fagin.v1 import fagin_pb2_grpc

CALL_KINDS = ("unary", "stream", "batch")
MAX_CONCURRENCY = 4096
MAX_DURATION_S = 24 * 3600


class LoadTestError(Exception):
    """A usage or set-up error, printed without a traceback."""


# ----------------------------------------------------------- the server side

def read_rss(pid: int) -> int | None:
    """The process's resident memory in bytes (VmRSS), or None if it cannot be read."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def read_cpu_s(pid: int) -> float | None:
    """The process's CPU time (user + system) in seconds, or None if it cannot be read."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            text = f.read()
        # The command name (field 2) may hold spaces and parentheses: fields count from its end.
        rest = text[text.rindex(")") + 2:].split()
        return (int(rest[11]) + int(rest[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


class SpawnedServer:
    """``python -m fagin.server --host 127.0.0.1 --port 0 ARGS``, stopped with SIGTERM at the end."""

    def __init__(self, extra_args, start_timeout=60.0):
        self.log = tempfile.TemporaryFile(mode="w+", prefix="fagin-loadtest-server-")
        cmd = [sys.executable, "-m", "fagin.server", "--host", "127.0.0.1", "--port", "0", "--http-port", "0", *extra_args]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=self.log, text=True)
        self.pid = self.proc.pid
        self.exit_code = None
        self.stop_s = None
        line = self._first_line(start_timeout)
        if not line.startswith("fagin listening on "):
            self.proc.kill()
            self.proc.wait()
            raise LoadTestError(f"--spawn: the server did not start ({' '.join(cmd)}):\n{self.log_tail()}")
        self.target = line.split(" on ", 1)[1].strip()

    def _first_line(self, timeout):
        # The server prints its address on stdout once it listens; nothing else comes there.
        import selectors
        with selectors.DefaultSelector() as sel:
            sel.register(self.proc.stdout, selectors.EVENT_READ)
            if not sel.select(timeout):
                return ""
        return self.proc.stdout.readline()

    def log_tail(self, lines=20):
        self.log.seek(0)
        return "".join(self.log.readlines()[-lines:])

    def stop(self, timeout=60.0):
        """SIGTERM, then wait (up to `timeout` s, then kill); records the exit code and time."""
        if self.proc.poll() is None:
            start = time.monotonic()
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.stop_s = time.monotonic() - start
        self.exit_code = self.proc.returncode
        # A server that failed says why in its log, which goes with this object.
        self.failure_log = self.log_tail() if self.exit_code != 0 else ""
        self.proc.stdout.close()
        self.log.close()


# ---------------------------------------------------------------- settings

@dataclass(frozen=True)
class MixEntry:
    game: str
    players: int
    weight: float


def parse_weights(text: str, names, flag: str) -> dict:
    """``a=2,b=1`` (a bare name weighs 1) over the given names."""
    weights = {}
    for item in filter(None, (p.strip() for p in text.split(","))):
        name, sep, w = item.partition("=")
        name = name.strip()
        if name not in names:
            raise LoadTestError(f"{flag}: unknown {name!r}; expected one of {', '.join(names)}")
        try:
            weight = float(w) if sep else 1.0
        except ValueError:
            raise LoadTestError(f"{flag}: weight of {name} is not a number: {w!r}") from None
        if not (math.isfinite(weight) and weight >= 0):
            raise LoadTestError(f"{flag}: weight of {name} must be a number >= 0, got {w!r}")
        weights[name] = weight
    if not any(weights.values()):
        raise LoadTestError(f"{flag}: give at least one positive weight")
    return {k: v for k, v in weights.items() if v > 0}


def parse_mix(text: str | None, games: dict) -> list:
    """``GAME[:PLAYERS][=WEIGHT],...`` -> MixEntry list. PLAYERS is a count or a range ``2-4``;
    without it, every count the game takes. A game's weight is shared among its counts.
    Empty: every served game, weight 1."""
    if not text:
        text = ",".join(sorted(games))
    entries = []
    for item in filter(None, (p.strip() for p in text.split(","))):
        spec, sep, w = item.partition("=")
        name, _, players = spec.partition(":")
        name = name.strip()
        info = games.get(name)
        if info is None:
            raise LoadTestError(f"--games: {name!r} is not served; served: {', '.join(sorted(games))}")
        try:
            weight = float(w) if sep else 1.0
            if players.strip():
                lo, _, hi = players.partition("-")
                counts = list(range(int(lo), int(hi or lo) + 1))
            else:
                counts = list(range(info.min_players, info.max_players + 1))
        except ValueError:
            raise LoadTestError(f"--games: cannot read {item!r} (GAME[:PLAYERS][=WEIGHT], "
                                "PLAYERS a count or a range like 2-4)") from None
        if not (math.isfinite(weight) and weight > 0):
            raise LoadTestError(f"--games: weight of {name} must be a positive number, got {w!r}")
        bad = [n for n in counts if not info.min_players <= n <= info.max_players]
        if not counts or bad:
            raise LoadTestError(f"--games: {name} takes {info.min_players} to {info.max_players} players, "
                                f"not {players.strip()!r}")
        entries += [MixEntry(name, n, weight / len(counts)) for n in counts]
    return entries


def parse_budgets(text: str | None, flag: str) -> list:
    """``200`` or ``200,1000`` (each call draws one) -> list of positive ints; empty: []."""
    if not text:
        return []
    values = []
    for item in filter(None, (p.strip() for p in text.split(","))):
        try:
            v = int(item)
        except ValueError:
            raise LoadTestError(f"{flag}: expected whole numbers separated by commas, got {item!r}") from None
        if v <= 0:
            raise LoadTestError(f"{flag}: must be positive, got {v}")
        values.append(v)
    return values


# --------------------------------------------------------------- positions

@dataclass(frozen=True)
class Position:
    game: str
    players: int
    state: pb.GameState
    seat: int


async def _make_position(stub, entry, rng, max_steps, timeout):
    resp = await stub.NewGame(pb.NewGameRequest(game=entry.game, players=entry.players,
                                                seed=rng.getrandbits(63)), timeout=timeout)
    state, status = resp.state, resp.status
    for _ in range(rng.randint(0, max_steps)):
        legal = await stub.LegalActions(pb.LegalActionsRequest(state=state), timeout=timeout)
        if not legal.actions:
            break
        action = rng.choice(legal.actions).id
        nxt = await stub.ApplyAction(pb.ApplyActionRequest(state=state, action_id=action,
                                                           seed=rng.getrandbits(63)), timeout=timeout)
        if nxt.status.terminal:
            break       # keep the last position where someone still decides
        state, status = nxt.state, nxt.status
    seats = list(status.pending_seats) or [status.current_seat]
    return Position(entry.game, entry.players, state, rng.choice(seats))


async def build_positions(stub, entries, per_entry, max_steps, rng, timeout=60.0, parallel=16):
    """``per_entry`` positions for each mix entry: {entry: [Position]}."""
    slots = asyncio.Semaphore(parallel)
    # Each position draws from its own generator, so the pool does not depend on call order.
    jobs = [(e, random.Random(rng.getrandbits(63))) for e in entries for _ in range(per_entry)]

    async def one(entry, prng):
        async with slots:
            return await _make_position(stub, entry, prng, max_steps, timeout)

    made = await asyncio.gather(*(one(e, r) for e, r in jobs))
    pool = {e: [] for e in entries}
    for (entry, _), position in zip(jobs, made):
        pool[entry].append(position)
    return pool


# ------------------------------------------------------------------ budget

BELOW_REASONS = ("empty", "not_finished", "short_iterations", "time_lowered", "below_min_iterations")


def below_budget(rec, iterations: int | None, time_ms: int | None, min_iterations: int = 0):
    """Why an answer falls short of the budget the request asked for, or None if it does not.

    The first of these that holds, in this order:

    - ``empty``: 0 iterations (a uniform policy: no search at all);
    - ``not_finished``: the stop reason is neither ITERATIONS nor TIME (CANCELLED or
      unspecified; the load generator never cancels a call);
    - ``short_iterations``: no time budget was asked for, and the search did fewer
      iterations than asked (or than the server's default when none was asked), or stopped
      for TIME (so the call's deadline or the server's time maximum cut it);
    - ``time_lowered``: a time budget was asked for and the answer's settings show it
      lowered (to meet the call's deadline or to the server's maximum);
    - ``below_min_iterations``: fewer iterations than ``--min-iterations`` (when given).
    """
    if rec.iterations <= 0:
        return "empty"
    if rec.stop_reason not in (pb.STOP_REASON_ITERATIONS, pb.STOP_REASON_TIME):
        return "not_finished"
    if time_ms is None:
        wanted = iterations if iterations is not None else rec.settings.iterations
        if rec.iterations < wanted or rec.stop_reason == pb.STOP_REASON_TIME:
            return "short_iterations"
    elif rec.settings.time_ms < time_ms and not (rec.stop_reason == pb.STOP_REASON_ITERATIONS
                                                 and iterations is not None
                                                 and rec.iterations >= iterations):
        return "time_lowered"
    if rec.iterations < min_iterations:
        return "below_min_iterations"
    return None


# ------------------------------------------------------------------ record

def percentile(ordered: list, p: float):
    """The nearest-rank p-th percentile of an ascending list (None if empty)."""
    if not ordered:
        return None
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def latency_summary(values_ms: list) -> dict:
    ordered = sorted(values_ms)
    out = {"count": len(ordered)}
    for name, p in (("p50", 50), ("p90", 90), ("p99", 99)):
        out[name] = percentile(ordered, p)
    out["max"] = ordered[-1] if ordered else None
    out["mean"] = sum(ordered) / len(ordered) if ordered else None
    return out


@dataclass
class KindStats:
    calls: int = 0
    ok_calls: int = 0
    failed_calls: int = 0
    requests: int = 0
    answers: int = 0
    errors: int = 0
    progress_messages: int = 0
    latencies_ms: list = field(default_factory=list)


class Recorder:
    """What the clients saw. Only the event loop's thread touches it."""

    def __init__(self, min_iterations=0):
        self.kinds = {k: KindStats() for k in CALL_KINDS}
        self.errors = Counter()          # status name -> requests that ended with it
        self.error_examples = {}         # status name -> the first message seen with it
        self.ending = False              # set when the run cancels the calls still open
        self.below = Counter()           # below_budget reason -> answers
        self.by_game = Counter()         # game:players -> answers
        self.iterations = 0
        self.min_iterations = min_iterations
        self.deadline_calls = 0
        self.lateness_ms: list = []      # of the calls that ended after their deadline
        self.late_answers = 0            # of those, calls that ended OK
        self.all_latencies_ms: list = []  # of ok calls, in completion order
        self.backoffs = 0                # times a client waited out a refusal's hint

    @property
    def calls(self):
        return sum(k.calls for k in self.kinds.values())

    @property
    def total_errors(self):
        return sum(self.errors.values())

    @property
    def total_below(self):
        return sum(self.below.values())

    def answer(self, position, rec, iterations, time_ms):
        kind_reason = below_budget(rec, iterations, time_ms, self.min_iterations)
        if kind_reason is not None:
            self.below[kind_reason] += 1
        self.iterations += rec.iterations
        self.by_game[f"{position.game}:{position.players}"] += 1

    def call_ended(self, kind, start, end, deadline_s, requests, answers, failure=None):
        k = self.kinds[kind]
        k.calls += 1
        k.requests += requests
        k.answers += answers
        if failure is None:
            k.ok_calls += 1
            ms = (end - start) * 1000
            k.latencies_ms.append(ms)
            self.all_latencies_ms.append(ms)
        else:
            k.failed_calls += 1
        if deadline_s is not None:
            self.deadline_calls += 1
            late_ms = (end - start - deadline_s) * 1000
            if late_ms > 0:
                self.lateness_ms.append(late_ms)
                self.late_answers += failure is None

    def error(self, kind, name, n=1, details=""):
        if n <= 0:
            return
        self.kinds[kind].errors += n
        self.errors[name] += n
        self.error_examples.setdefault(name, details)


# -------------------------------------------------------------------- load

@dataclass
class Plan:
    pool: dict                  # MixEntry -> [Position]
    kinds: dict                 # call kind -> weight
    iterations: list
    time_ms: list
    deadline_s: float | None
    batch_size: int
    report_interval_ms: int
    concurrency: int
    duration_s: float | None
    count: int | None
    drain_s: float
    seed: int


def _request(plan, rng):
    entries = list(plan.pool)
    entry = rng.choices(entries, [e.weight for e in entries])[0]
    position = rng.choice(plan.pool[entry])
    iterations = rng.choice(plan.iterations) if plan.iterations else None
    time_ms = rng.choice(plan.time_ms) if plan.time_ms else None
    req = recommend_request(position.state, position.seat, iterations=iterations, time_ms=time_ms,
                            seed=rng.getrandbits(63))
    return position, req, iterations, time_ms


def _status_name(exc, rec):
    if isinstance(exc, grpc.aio.AioRpcError):
        return exc.code().name
    if isinstance(exc, _Protocol):
        return exc.name
    if isinstance(exc, asyncio.CancelledError):
        # grpc.aio also raises CancelledError for a call it cancelled itself (a request stream
        # that failed to close, e.g. at its deadline): only at the end is it the run's doing.
        return "UNFINISHED_AT_END" if rec.ending else "CANCELLED_BY_GRPC_CLIENT"
    return f"CLIENT_{type(exc).__name__}"


def _details(exc):
    return exc.details() if isinstance(exc, grpc.aio.AioRpcError) else str(exc)


def _reraise(exc, rec):
    return isinstance(exc, asyncio.CancelledError) and rec.ending


def _hint_ms(exc):
    """The retry hint (ms) of a call refused by load (RESOURCE_EXHAUSTED), or None."""
    if isinstance(exc, grpc.aio.AioRpcError) and exc.code() == grpc.StatusCode.RESOURCE_EXHAUSTED:
        return pushback_ms(exc.trailing_metadata())
    return None


class _Protocol(Exception):
    """The server broke a promise of the API (one final stream message; one answer per batch id)."""

    def __init__(self, name):
        super().__init__(name)
        self.name = name


# What ends a call as failed. CancelledError: the call was still open when the
# run's drain time ran out; it is recorded, then cancellation goes on.
FAILURES = (grpc.aio.AioRpcError, asyncio.TimeoutError, _Protocol, asyncio.CancelledError)


async def _unary(stub, plan, rec, rng):
    position, req, its, ms = _request(plan, rng)
    start = time.perf_counter()
    try:
        answer = await stub.Recommend(req, timeout=plan.deadline_s)
    except FAILURES as e:
        rec.call_ended("unary", start, time.perf_counter(), plan.deadline_s, 1, 0, e)
        rec.error("unary", _status_name(e, rec), details=_details(e))
        if _reraise(e, rec):
            raise
        return _hint_ms(e)
    rec.call_ended("unary", start, time.perf_counter(), plan.deadline_s, 1, 1)
    rec.answer(position, answer, its, ms)


async def _stream(stub, plan, rec, rng):
    position, req, its, ms = _request(plan, rng)
    final = None
    messages = 0
    start = time.perf_counter()
    try:
        call = stub.StreamRecommend(pb.StreamRecommendRequest(request=req,
                                                              report_interval_ms=plan.report_interval_ms),
                                    timeout=plan.deadline_s)
        async for progress in call:
            messages += 1
            if progress.final:
                if final is not None:
                    raise _Protocol("TWO_FINAL_MESSAGES")
                final = progress.recommendation
        if final is None:
            raise _Protocol("NO_FINAL_MESSAGE")
    except FAILURES as e:
        rec.call_ended("stream", start, time.perf_counter(), plan.deadline_s, 1, 0, e)
        rec.kinds["stream"].progress_messages += messages
        rec.error("stream", _status_name(e, rec), details=_details(e))
        if _reraise(e, rec):
            raise
        return _hint_ms(e)
    rec.call_ended("stream", start, time.perf_counter(), plan.deadline_s, 1, 1)
    rec.kinds["stream"].progress_messages += messages
    rec.answer(position, final, its, ms)


async def _batch(stub, plan, rec, rng):
    asked = {}        # request id -> (position, iterations, time_ms, RecommendRequest)
    for i in range(plan.batch_size):
        position, req, its, ms = _request(plan, rng)
        asked[str(i)] = (position, its, ms, req)
    answered = []
    item_errors = []
    hints = []        # retry hints of the call or its items refused by load (ms)
    failure = None
    start = time.perf_counter()
    try:
        call = stub.BatchRecommend((pb.BatchRecommendRequest(request_id=rid, request=v[3])
                                    for rid, v in asked.items()), timeout=plan.deadline_s)
        seen = set()
        async for resp in call:
            if resp.request_id not in asked or resp.request_id in seen:
                raise _Protocol("UNKNOWN_OR_REPEATED_REQUEST_ID")
            seen.add(resp.request_id)
            if resp.HasField("error"):
                item_errors.append((resp.error.code, resp.error.message))
                if resp.error.retry_pushback_ms > 0:
                    hints.append(resp.error.retry_pushback_ms)
            else:
                answered.append((resp.request_id, resp.recommendation))
        if len(seen) != len(asked):
            raise _Protocol("MISSING_ANSWER")
    except FAILURES as e:
        failure = e
    end = time.perf_counter()
    rec.call_ended("batch", start, end, plan.deadline_s, len(asked), len(answered), failure)
    for code, message in item_errors:
        rec.error("batch", _code_name(code), details=message)
    if failure is not None:
        # The requests that got neither an answer nor an error of their own.
        rec.error("batch", _status_name(failure, rec), len(asked) - len(answered) - len(item_errors),
                  details=_details(failure))
    for rid, answer in answered:
        position, its, ms, _ = asked[rid]
        rec.answer(position, answer, its, ms)
    if _reraise(failure, rec):
        raise failure
    if _hint_ms(failure) is not None:
        hints.append(_hint_ms(failure))
    return max(hints) if hints else None


def _code_name(code: int) -> str:
    for status in grpc.StatusCode:
        if status.value[0] == code:
            return status.name
    return f"CODE_{code}"


CALLS = {"unary": _unary, "stream": _stream, "batch": _batch}


class Sampler:
    """The server's RSS and CPU, sampled on each progress tick."""

    def __init__(self, pid):
        self.pid = pid
        self.rss_peak = None

    def rss(self):
        if self.pid is None:
            return None
        value = read_rss(self.pid)
        if value is not None:
            self.rss_peak = max(self.rss_peak or 0, value)
        return value


async def run_load(channels, plan, rec: Recorder, sampler: Sampler, progress: bool):
    """Runs the clients until the duration or count is reached; returns timing figures."""
    stubs = [fagin_pb2_grpc.FaginStub(ch) for ch in channels]
    kinds, weights = zip(*plan.kinds.items())
    issued = 0
    started = time.perf_counter()
    stop_at = None if plan.duration_s is None else started + plan.duration_s
    in_flight: list = []

    async def client(i):
        nonlocal issued
        rng = random.Random(plan.seed * 1_000_003 + i)
        stub = stubs[i % len(stubs)]
        while True:
            if plan.count is not None and issued >= plan.count:
                return
            if stop_at is not None and time.perf_counter() >= stop_at:
                return
            issued += 1
            kind = rng.choices(kinds, weights)[0]
            hint_ms = await CALLS[kind](stub, plan, rec, rng)
            if hint_ms is not None:
                # Refused by load even after gRPC's retries: this client backs off for the
                # server's hint, jittered, before its next call (one that came back at once
                # only added to the load: OK calls fell from 86/s at 8 clients to 48/s at 256).
                wait = backoff_s(hint_ms)
                if stop_at is not None:
                    wait = min(wait, max(0.0, stop_at - time.perf_counter()))
                rec.backoffs += 1
                await asyncio.sleep(wait)

    from tqdm import tqdm     # here: the other commands of the CLI do not pay for its import

    bar = tqdm(total=plan.count if plan.count is not None else math.ceil(plan.duration_s),
               unit=" calls" if plan.count is not None else " s", disable=not progress,
               file=sys.stderr, dynamic_ncols=True, leave=False,
               bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}] {postfix}")
    lag_max = 0.0
    tick = 0.5

    async def ticker():
        nonlocal lag_max
        recent = 0
        while True:
            before = time.perf_counter()
            await asyncio.sleep(tick)
            now = time.perf_counter()
            # How late the loop woke: a busy generator shows it here first.
            lag_max = max(lag_max, now - before - tick)
            sampler.rss()
            bar.n = rec.calls if plan.count is not None else min(int(now - started), bar.total)
            window = rec.all_latencies_ms[recent:]
            recent = len(rec.all_latencies_ms)
            p99 = percentile(sorted(window), 99)
            bar.set_postfix_str(f"{rec.calls / (now - started):.0f} calls/s, errors {rec.total_errors}, "
                                f"below budget {rec.total_below}"
                                + (f", p99 {p99:.0f} ms" if p99 is not None else ""), refresh=False)
            bar.refresh()

    tick_task = asyncio.create_task(ticker())
    for i in range(plan.concurrency):
        in_flight.append(asyncio.create_task(client(i)))
    cpu0 = resource.getrusage(resource.RUSAGE_SELF)
    try:
        # Clients stop starting calls at the duration; open calls get --drain-s more to end.
        limit = None if stop_at is None else plan.duration_s + plan.drain_s
        done, pending = await asyncio.wait(in_flight, timeout=limit)
        rec.ending = True
        for task in pending:
            task.cancel()       # recorded as UNFINISHED_AT_END by the call
        if pending:
            await asyncio.wait(pending)
        for task in done:
            task.result()        # a bug in the generator surfaces here, not silently
    finally:
        tick_task.cancel()
        bar.close()
    ended = time.perf_counter()
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    return {"wall_s": ended - started,
            "cpu_s": (cpu1.ru_utime + cpu1.ru_stime) - (cpu0.ru_utime + cpu0.ru_stime),
            "loop_lag_max_ms": lag_max * 1000}


# ------------------------------------------------------------------ report

def build_report(settings, timing, rec: Recorder, server: dict) -> dict:
    wall = timing["wall_s"]
    kinds = {}
    for name, k in rec.kinds.items():
        kinds[name] = {"calls": k.calls, "ok_calls": k.ok_calls, "failed_calls": k.failed_calls,
                       "requests": k.requests, "answers": k.answers, "errors": k.errors,
                       "latency_ms": latency_summary(k.latencies_ms)}
        if name == "stream":
            kinds[name]["progress_messages"] = k.progress_messages
    answers = sum(k.answers for k in rec.kinds.values())
    return {
        "settings": settings,
        "wall_s": wall,
        "calls": rec.calls,
        "ok_calls": sum(k.ok_calls for k in rec.kinds.values()),
        "failed_calls": sum(k.failed_calls for k in rec.kinds.values()),
        "requests": sum(k.requests for k in rec.kinds.values()),
        "answers": answers,
        "errors": rec.total_errors,
        "calls_per_s": rec.calls / wall if wall > 0 else None,
        "answers_per_s": answers / wall if wall > 0 else None,
        "iterations": rec.iterations,
        "latency_ms": latency_summary(rec.all_latencies_ms),
        "by_kind": kinds,
        "errors_by_code": dict(sorted(rec.errors.items())),
        "backoffs": rec.backoffs,
        "error_examples": dict(sorted(rec.error_examples.items())),
        "below_budget": {"total": rec.total_below,
                         "by_reason": {r: rec.below[r] for r in BELOW_REASONS if rec.below[r]}},
        "empty_answers": rec.below["empty"],
        "answers_by_game": dict(sorted(rec.by_game.items())),
        "deadline": {"calls_with_deadline": rec.deadline_calls, "late_calls": len(rec.lateness_ms),
                     "late_answers": rec.late_answers,
                     "lateness_ms": latency_summary(rec.lateness_ms)},
        "server": server,
        "generator": {"cpu_s": timing["cpu_s"],
                      "cpu_percent_of_one_core": 100 * timing["cpu_s"] / wall if wall > 0 else None,
                      "loop_lag_max_ms": timing["loop_lag_max_ms"]},
    }


def _ms(v):
    return "-" if v is None else f"{v:.1f}"


def _mb(v):
    return "-" if v is None else f"{v / 2**20:.1f} MB"


def format_report(r: dict) -> str:
    s = r["settings"]
    lines = [f"fagin loadtest: {s['target']}, concurrency {s['concurrency']}, "
             f"{r['wall_s']:.1f} s, seed {s['seed']}",
             f"calls {r['calls']} ({r['calls_per_s']:.1f}/s), answers {r['answers']} "
             f"({r['answers_per_s']:.1f}/s), errors {r['errors']}, "
             f"below budget {r['below_budget']['total']} (empty {r['empty_answers']})",
             "",
             f"{'kind':<8}{'calls':>8}{'failed':>8}{'answers':>9}{'errors':>8}"
             f"{'p50 ms':>9}{'p90 ms':>9}{'p99 ms':>9}{'max ms':>9}"]
    rows = [(name, k) for name, k in r["by_kind"].items() if k["calls"]]
    rows.append(("all", {"calls": r["calls"], "failed_calls": r["failed_calls"], "answers": r["answers"],
                         "errors": r["errors"], "latency_ms": r["latency_ms"]}))
    for name, k in rows:
        lat = k["latency_ms"]
        lines.append(f"{name:<8}{k['calls']:>8}{k['failed_calls']:>8}{k['answers']:>9}{k['errors']:>8}"
                     f"{_ms(lat['p50']):>9}{_ms(lat['p90']):>9}{_ms(lat['p99']):>9}{_ms(lat['max']):>9}")
    lines.append("")
    if r["errors_by_code"]:
        lines.append("errors by status: " + ", ".join(f"{k} {v}" for k, v in r["errors_by_code"].items()))
        lines += [f"  {k}: {v}" for k, v in r["error_examples"].items()]
    if r["below_budget"]["total"]:
        lines.append("below budget: " + ", ".join(f"{k} {v}" for k, v in r["below_budget"]["by_reason"].items()))
    d = r["deadline"]
    if d["calls_with_deadline"]:
        late = d["lateness_ms"]
        lines.append(f"deadline: {d['late_calls']} of {d['calls_with_deadline']} calls ended after it "
                     f"({d['late_answers']} of them answered)"
                     + (f", by p50 {late['p50']:.1f} / p99 {late['p99']:.1f} / max {late['max']:.1f} ms"
                        if late["count"] else ""))
    srv = r["server"]
    if srv.get("pid") is not None:
        lines.append(f"server pid {srv['pid']}: RSS {_mb(srv['rss_before'])} before, "
                     f"{_mb(srv['rss_after'])} after, peak sampled {_mb(srv['rss_peak'])}"
                     + (f"; CPU {srv['cpu_s']:.1f} s" if srv.get("cpu_s") is not None else ""))
    if srv.get("stop_s") is not None:
        lines.append(f"spawned server stopped by SIGTERM in {srv['stop_s']:.2f} s, exit code {srv['exit_code']}")
    g = r["generator"]
    lines.append(f"generator: CPU {g['cpu_s']:.1f} s ({g['cpu_percent_of_one_core']:.0f} % of one core), "
                 f"event loop late by at most {g['loop_lag_max_ms']:.0f} ms")
    return "\n".join(lines)


# --------------------------------------------------------------------- CLI

def _positive(kind, lo, hi, what):
    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if not (lo <= value <= hi):
            raise argparse.ArgumentTypeError(f"{what} from {lo} to {hi}, got {text}")
        return value
    return parse


def add_arguments(p: argparse.ArgumentParser):
    p.description = ("A bounded load generator for a fagin server on this machine: many clients in one "
                     "asyncio process, a weighted mix of games and call kinds, a report of throughput, "
                     "latency, errors, answers below budget and the server's memory.")
    where = p.add_argument_group("the server")
    where.add_argument("--spawn", action="store_true",
                       help="start `python -m fagin.server --host 127.0.0.1 --port 0` for the run and stop it "
                            "(SIGTERM) at the end; --server is then ignored")
    where.add_argument("--spawn-args", default="", metavar="'ARGS'",
                       help="extra flags for the spawned server, one shell-quoted string, e.g. "
                            "--spawn-args='--workers 2 --log-level WARNING'")
    where.add_argument("--server-pid", type=_positive(int, 1, 2**31, "a process id"),
                       help="the server's process id, to report its memory (RSS from /proc/PID/status) "
                            "and CPU; implied by --spawn")
    where.add_argument("--allow-remote", action="store_true",
                       help="allow a server that is not on this machine. Off by default because a load "
                            "generator aimed at a shared or production server is a denial-of-service "
                            "tool: aim it at a server you own, deliberately")
    how = p.add_argument_group("the load")
    how.add_argument("--concurrency", type=_positive(int, 1, MAX_CONCURRENCY, "clients"), default=8,
                     help="clients, each with one call open at a time (default 8)")
    how.add_argument("--duration", type=_positive(float, 0.1, MAX_DURATION_S, "seconds"),
                     help="seconds to start calls for (default 10 unless --count is given)")
    how.add_argument("--count", type=_positive(int, 1, 10**9, "calls"),
                     help="calls to make in all (with --duration: whichever ends first)")
    how.add_argument("--games", metavar="MIX",
                     help="GAME[:PLAYERS][=WEIGHT],... e.g. 'kids_of_london:4=2,liars_dice:2-3' "
                          "(PLAYERS a count or range; default: every count the game takes; "
                          "default mix: every served game, weight 1)")
    how.add_argument("--calls", metavar="MIX", default="unary=2,stream=1,batch=1",
                     help="call kinds by weight: unary (Recommend), stream (StreamRecommend), "
                          "batch (BatchRecommend); default unary=2,stream=1,batch=1")
    how.add_argument("--iterations", metavar="N[,N...]",
                     help="iteration budget of each search (a list: each call draws one); "
                          "default 200 when no --time-ms is given")
    how.add_argument("--time-ms", metavar="MS[,MS...]", help="time budget of each search (a list: drawn)")
    how.add_argument("--deadline-ms", type=_positive(int, 1, 86_400_000, "milliseconds"),
                     help="deadline of each call (default: the global --timeout, else none)")
    how.add_argument("--min-iterations", type=_positive(int, 0, 2**62, "iterations"), default=0,
                     help="also count answers with fewer iterations as below budget")
    how.add_argument("--batch-size", type=_positive(int, 1, 10_000, "requests"), default=4,
                     help="requests per BatchRecommend call (default 4)")
    how.add_argument("--report-interval-ms", type=_positive(int, 10, 60_000, "milliseconds"), default=50,
                     help="StreamRecommend's report interval (default 50)")
    how.add_argument("--positions", type=_positive(int, 1, 10_000, "positions"), default=8,
                     help="positions prepared per game and player count (default 8)")
    how.add_argument("--max-steps", type=_positive(int, 0, 10_000, "steps"), default=20,
                     help="each position is a new game after 0 to this many random actions (default 20)")
    how.add_argument("--connections", type=_positive(int, 1, MAX_CONCURRENCY, "connections"),
                     help="gRPC connections the clients share (default: one per 8 clients, at most 32)")
    how.add_argument("--drain-s", type=_positive(float, 0, 3600, "seconds"), default=60.0,
                     help="after --duration, seconds to wait for open calls before cancelling them "
                          "(counted as UNFINISHED_AT_END errors; default 60)")
    how.add_argument("--retries", type=_positive(int, 0, 4, "retries"), default=RETRY_ATTEMPTS - 1,
                     help="times gRPC's retry policy sends a call refused RESOURCE_EXHAUSTED again, after "
                          f"the server's grpc-retry-pushback-ms (default {RETRY_ATTEMPTS - 1}; 0: none); a "
                          "client refused all the same waits the hint, jittered, before its next call")
    how.add_argument("--seed", type=_positive(int, 0, 2**63 - 1, "a seed"), default=0,
                     help="seed of the positions, the choices of the clients and the searches")
    out = p.add_argument_group("the report")
    out.add_argument("--json", action="store_true", help="print the report as JSON on stdout")
    out.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                     help="the live progress line on stderr (default: when stderr is a terminal)")
    out.add_argument("--check", action="store_true",
                     help="exit with status 1 if any call failed or any answer was below budget")


def _settings(args, target, entries, kinds, iterations, time_ms, deadline_ms, connections):
    return {"target": target, "spawned": args.spawn, "concurrency": args.concurrency,
            "connections": connections, "duration_s": args.duration, "count": args.count,
            "games": [{"game": e.game, "players": e.players, "weight": round(e.weight, 6)} for e in entries],
            "calls": kinds, "iterations": iterations, "time_ms": time_ms, "deadline_ms": deadline_ms,
            "min_iterations": args.min_iterations, "batch_size": args.batch_size,
            "report_interval_ms": args.report_interval_ms, "positions_per_entry": args.positions,
            "max_steps": args.max_steps, "retries": args.retries, "seed": args.seed}


async def _run(args, target, server_pid):
    duration = args.duration if args.duration is not None or args.count is not None else 10.0
    kinds = parse_weights(args.calls, CALL_KINDS, "--calls")
    iterations = parse_budgets(args.iterations, "--iterations")
    time_ms = parse_budgets(args.time_ms, "--time-ms")
    if not iterations and not time_ms:
        iterations = [200]
    deadline_ms = args.deadline_ms
    if deadline_ms is None and getattr(args, "timeout", None):
        deadline_ms = int(args.timeout * 1000)
    connections = args.connections or min(32, max(1, math.ceil(args.concurrency / 8)))
    # Separate subchannel pools: otherwise grpc shares one connection among channels of equal settings.
    # gRPC's retry policy sends a call refused by load again after the server's hint,
    # --retries times at most (0: each refusal is an error at once).
    options = [("grpc.use_local_subchannel_pool", 1)] + retry_options(args.retries + 1)
    channels = [grpc.aio.insecure_channel(target, options=options) for _ in range(connections)]
    try:
        stub = fagin_pb2_grpc.FaginStub(channels[0])
        try:
            games = {g.id: g for g in (await stub.ListGames(pb.ListGamesRequest(), timeout=30)).games}
        except grpc.aio.AioRpcError as e:
            raise LoadTestError(f"cannot reach a server at {target}: {e.code().name}: {e.details()}") from None
        entries = parse_mix(args.games, games)
        rng = random.Random(args.seed)
        pool = await build_positions(stub, entries, args.positions, args.max_steps, rng)
        plan = Plan(pool, kinds, iterations, time_ms, None if deadline_ms is None else deadline_ms / 1000,
                    args.batch_size, args.report_interval_ms, args.concurrency, duration, args.count,
                    args.drain_s, args.seed)
        rec = Recorder(args.min_iterations)
        sampler = Sampler(server_pid)
        cpu_before = read_cpu_s(server_pid) if server_pid else None
        rss_before = sampler.rss()
        progress = sys.stderr.isatty() if args.progress is None else args.progress
        timing = await run_load(channels, plan, rec, sampler, progress)
        rss_after = sampler.rss()
        cpu_after = read_cpu_s(server_pid) if server_pid else None
    finally:
        for ch in channels:
            await ch.close()
    server = {"pid": server_pid, "rss_before": rss_before, "rss_after": rss_after,
              "rss_peak": sampler.rss_peak,
              "cpu_s": None if cpu_before is None or cpu_after is None else cpu_after - cpu_before}
    settings = _settings(args, target, entries, kinds, iterations, time_ms, deadline_ms, connections)
    return build_report(settings, timing, rec, server)


def run(args) -> int:
    """Runs ``fagin loadtest`` from parsed arguments; returns the exit status."""
    try:
        extra = shlex.split(args.spawn_args)
    except ValueError as e:
        print(f"fagin loadtest: --spawn-args: {e}", file=sys.stderr)
        return 2
    if extra and not args.spawn:
        print("fagin loadtest: --spawn-args needs --spawn", file=sys.stderr)
        return 2
    target = args.server
    if not args.spawn and not args.allow_remote and not is_loopback_target(target):
        print(f"fagin loadtest: {target} is not on this machine; load tests are for servers you run "
              "here (give --allow-remote to aim at a server you own elsewhere)", file=sys.stderr)
        return 2
    spawned = None
    try:
        if args.spawn:
            spawned = SpawnedServer(extra)
            target = spawned.target
        pid = spawned.pid if spawned else args.server_pid
        report = asyncio.run(_run(args, target, pid))
    except LoadTestError as e:
        print(f"fagin loadtest: {e}", file=sys.stderr)
        return 2
    finally:
        if spawned is not None:
            spawned.stop()
    if spawned is not None:
        report["server"].update(stop_s=spawned.stop_s, exit_code=spawned.exit_code)
        if spawned.failure_log:
            print(f"fagin loadtest: the spawned server exited with {spawned.exit_code}; its log ends:\n"
                  + spawned.failure_log, file=sys.stderr)
    print(json.dumps(report, indent=2) if args.json else format_report(report))
    if args.check and (report["errors"] or report["below_budget"]["total"]):
        return 1
    return 0
