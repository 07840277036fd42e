"""The ``fagin.v1.Fagin`` service on ``grpc.aio``.

A recommendation is a pipeline (``_recommend``): decode and prepare the request into a
search job (``request.prepare``; on the loop, or for a large state in the decoding
threads), give it its session's kept tree if it names a session and may continue it
(``sessions.py``), admit its search and run it in slices (``scheduler.py``), answer
(``answer.py``) in the worker that ran its last slice, and keep its tree for the
session's next call.  The stateless calls are in
``game_calls.py``, the RPC plumbing (call log, statuses, registration) in ``rpc.py``.
"""
from __future__ import annotations

import asyncio
import collections
import functools
import secrets
import time
from concurrent.futures import ThreadPoolExecutor

from fagin.engines.registry import GAMES, load_game
from fagin.search.memory import measure_games
from fagin.server import answer, codec, request
from fagin.server.pondering import Pondering
from fagin.server.sessions import SessionStore, check_routed_session
from fagin.server.codec import BadRequest
from fagin.server.game_calls import GameCalls
from fagin.server.logs import quoted
from fagin.server.rpc import CALL_ENDINGS, DECODE_THREADS, CallLog, drain_requests, end_call, error_of, parse, unary_call
from fagin.server.scheduler import Overloaded, Scheduler
from fagin.server.security import caller_identity
from fagin.v1 import fagin_pb2, fagin_pb2_grpc

MIN_REPORT_INTERVAL_MS = 10
DEFAULT_REPORT_INTERVAL_MS = 100

#: A BatchRecommend call queues at most this many answers per search it runs at once
#: (``--batch-concurrency``) for the client to read; beyond, it reads no more requests.
BATCH_ANSWERS_AHEAD = 2

#: Random bytes of a session name the server makes (RecommendRequest.new_session): 128 bits,
#: beyond guessing.
NEW_SESSION_BYTES = 16

#: The longest BatchRecommendRequest.request_id accepted: it is echoed in the answer.
MAX_REQUEST_ID_CHARS = 128


def check_request_id(request_id):
    """Refuses a request_id too long to echo (BadRequest naming the field)."""
    if len(request_id) > MAX_REQUEST_ID_CHARS:
        raise BadRequest(f"request_id: at most {MAX_REQUEST_ID_CHARS} characters, got {len(request_id)} "
                         f"(starting {quoted(request_id)})")


# States up to this size are decoded and checked on the event loop: one takes less than the
# GIL's switch interval, so a decoding thread, which holds the GIL as it works, would not let
# the loop run meanwhile -- it would only add a trip to the thread and back (the figures:
# docs/architecture.md, "A Recommend call").  Larger states go to the decoding threads.
INLINE_PREPARE_BYTES = 4096


class FaginService(GameCalls, fagin_pb2_grpc.FaginServicer):
    def __init__(self, config, executor, decoder=None):
        self.config = config
        self.scheduler = Scheduler(config, executor)
        self.pondering = Pondering(config, self.scheduler.admission)
        self.sessions = SessionStore(config, self.scheduler.memory, pondering=self.pondering)
        measure_games([load_game(game_id) for game_id in GAMES])
        # BatchRecommend requests answered with an error, by status code name (the
        # call itself is OK): for the metrics.
        self.batch_errors = collections.Counter()
        # BatchRecommend answers made and queued, not yet taken by gRPC to send: bounded by
        # flow control (BATCH_ANSWERS_AHEAD).
        self.batch_answers_waiting = 0
        self.decoder = decoder or ThreadPoolExecutor(DECODE_THREADS, thread_name_prefix="fagin-decode")

    async def _prepare(self, message, context, path="", routed=True):
        """Decode and prepare: the RecommendRequest's SearchJob, decoded and checked here for
        a small state, in the decoding threads for a larger one; then, here on the loop, its
        session's kept tree if it may continue it.  ``routed``: the call's ``fagin-session``
        metadata is this request's (not in a batch, whose requests name many sessions)."""
        if routed:
            check_routed_session(message.session, context.invocation_metadata(), path)
        data = codec.state_bytes(message.state)      # serialized once: sized here, read by the decoder
        # A record is replayed move by move: in the decoding threads, as a large state is decoded.
        if len(data) <= INLINE_PREPARE_BYTES and not message.HasField("record"):
            job = request.prepare(message, self.config, context.time_remaining(), path, data)
        else:
            job = await asyncio.get_running_loop().run_in_executor(
                self.decoder, request.prepare, message, self.config, context.time_remaining(), path)
        if message.session or message.new_session:
            session = message.session or secrets.token_hex(NEW_SESSION_BYTES)
            await self.sessions.attach(job, session, caller_identity(context), self.decoder)
        return job

    async def _recommend(self, message, context, write, *args, path="", info=None, routed=True):
        """One recommendation, step by step: decode and prepare, admit, search, answer with
        ``write(job, *args, stop reason)`` (in the worker that ran the last slice)."""
        job = await self._prepare(message, context, path, routed)
        if info is not None:
            info["game"] = job.game.id
        ticket = self._admit(job)
        kept = True
        try:
            _, reply = await self.scheduler.run_search(job, ticket, then=functools.partial(write, job, *args))
            return reply
        except asyncio.CancelledError:
            # Its search may still be stopping in a worker: not a tree to keep.
            kept = False
            raise
        finally:
            if info is not None:
                info["iterations"] = job.iterations_done      # also when too few for an answer
            self.scheduler.leave(job, ticket)
            # Also a tree short of min_iterations: whole, and its session's.
            if kept:
                self.sessions.keep(job)

    def _admit(self, job, stream=False):
        """The job's admission ticket.  A call refused searched nothing: its tree (a session's
        kept tree it was to continue) is whole, and kept for the session's next call."""
        try:
            return self.scheduler.admit(job, stream)
        except Overloaded:
            self.sessions.keep(job)
            raise

    @unary_call
    async def Recommend(self, message, context, info):
        return await self._recommend(message, context, answer.recommendation, info=info)

    async def StreamRecommend(self, message, context):
        call = CallLog("StreamRecommend", context)
        info = call.info
        opened = False
        try:
            message = await parse(message, self.decoder)
            interval = message.report_interval_ms or DEFAULT_REPORT_INTERVAL_MS
            if interval < MIN_REPORT_INTERVAL_MS:
                raise BadRequest(f"report_interval_ms: must be at least {MIN_REPORT_INTERVAL_MS}, "
                                 f"got {message.report_interval_ms}")
            self.scheduler.admission.open_stream(self.config.stream_limit)
            opened = True
            job = await self._prepare(message.request, context, "request")
            info["game"] = job.game.id
            ticket = self._admit(job, stream=True)
            ended = False
            try:
                while True:
                    # The generator waits at each yield until grpc has taken the
                    # report (flow control), and asks for no slice meanwhile.
                    reason, _ = await self.scheduler.run_search(job, ticket, time.monotonic() + interval / 1000)
                    if reason is not None:
                        ended = True          # the search has stopped: its tree may be kept
                        answer.check_min_iterations(job, reason)
                        yield answer.progress(job, reason, final=True)
                        return
                    yield answer.progress(job, "time")
            finally:
                info["iterations"] = job.iterations_done
                self.scheduler.leave(job, ticket)
                if ended:
                    self.sessions.keep(job)
        except CALL_ENDINGS as e:
            await end_call(call, context, e, self.scheduler.cut_by_shutdown())
        finally:
            if opened:
                self.scheduler.admission.close_stream()

    async def BatchRecommend(self, request_iterator, context):
        call = CallLog("BatchRecommend", context)
        info = call.info
        info.update(requests=0, errors=0)
        try:
            self.scheduler.admission.open_stream(self.config.stream_limit)
        except Overloaded as e:
            await drain_requests(request_iterator)
            await end_call(call, context, e)
        # Flow control end to end: an answer keeps its request's slot until it is queued, the
        # queue holds few answers, and the next request is read only once a slot is free.  A
        # client that does not read its answers therefore stops the server reading its
        # requests (its writes then block), instead of growing a queue without bound.
        concurrency = self.config.batch_slots
        queue: asyncio.Queue = asyncio.Queue(maxsize=concurrency * BATCH_ANSWERS_AHEAD)
        slots = asyncio.Semaphore(concurrency)
        tasks: set = set()
        DONE = object()

        async def one(item):
            try:
                request_id = ""
                try:
                    if isinstance(item, (codec.Undecodable, codec.Pending)):
                        item = await parse(item, self.decoder)
                    check_request_id(item.request_id)
                    request_id = item.request_id
                    resp = await self._recommend(item.request, context, answer.batch_result, request_id,
                                                 path="request", routed=False)
                except Exception as e:        # this request's answer is an error; the batch goes on
                    info["errors"] += 1
                    code, message = error_of(e, f"BatchRecommend request {quoted(request_id)}")
                    self.batch_errors[code.name] += 1
                    resp = answer.batch_error(request_id, code, message,
                                              e.retry_ms if isinstance(e, Overloaded) else 0)
                await queue.put(resp)
                self.batch_answers_waiting += 1
            finally:
                slots.release()

        async def reader():
            try:
                requests = request_iterator.__aiter__()
                while True:
                    await slots.acquire()
                    try:
                        item = await requests.__anext__()
                    except StopAsyncIteration:
                        slots.release()
                        break
                    info["requests"] += 1
                    task = asyncio.create_task(one(item))
                    tasks.add(task)
                    task.add_done_callback(tasks.discard)
                if tasks:
                    await asyncio.gather(*list(tasks))
                await queue.put(DONE)
            except Exception as e:        # a broken request stream ends the call
                await queue.put(e)

        reader_task = asyncio.create_task(reader())
        try:
            while True:
                item = await queue.get()
                if item is DONE:
                    break
                if isinstance(item, Exception):
                    raise item
                self.batch_answers_waiting -= 1
                yield item
        except CALL_ENDINGS as e:
            await end_call(call, context, e, self.scheduler.cut_by_shutdown())
        finally:
            self.scheduler.admission.close_stream()
            reader_task.cancel()
            for task in list(tasks):
                task.cancel()
            # Answers never taken (the call ended early) are no longer waiting.
            while not queue.empty():
                left = queue.get_nowait()
                if left is not DONE and not isinstance(left, Exception):
                    self.batch_answers_waiting -= 1
