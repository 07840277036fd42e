"""The ``fagin.v1.Fagin`` service on ``grpc.aio``.

Searches run in a thread pool; the search loop releases the GIL, so
concurrent calls use every worker.  Admission control (``admission.py``)
bounds the searches waiting, the open streams and the tree memory, and hands
the workers out in time slices.  Each call logs one line when it ends.
"""
from __future__ import annotations

import asyncio
import collections
import functools
import inspect
import logging
import time
from concurrent.futures import ThreadPoolExecutor

import grpc

from fagin.engines import IllegalActionError
from fagin.engines.registry import GAMES, load_game
from fagin.server import codec, searching, wire
from fagin.server.admission import OBSERVE_MIN_NODES, Admission, Overloaded, measure_games, observe_tree
from fagin.server.codec import BadRequest
from fagin.server.logs import CALL_FIELDS
from fagin.v1 import fagin_pb2, fagin_pb2_grpc

log = logging.getLogger("fagin.server")

MIN_REPORT_INTERVAL_MS = 10
# A search's slice is this many times slice_ms when no other search waits.
IDLE_SLICE_STRETCH = 4
DEFAULT_REPORT_INTERVAL_MS = 100
# A slice reserves tree memory for this many times the iterations it is expected to run.
SLICE_GROWTH_HEADROOM = 2


def _peer(context):
    try:
        return context.peer()
    except Exception:      # the peer is only for the log line
        return "?"


#: Metadata by which the HTTP port (gateway.py) names its client, for the call's log line.
HTTP_PEER_METADATA = "x-fagin-http-peer"


class CallLog:
    """The one log line of a call, written once the call has ended.

    Written from the call's done-callback, after the answer has gone out, so
    that formatting and writing the line never delay the answer.  Handlers
    set ``code`` and add ``info`` items (``game=...``, ``iterations=...``).

    The peer is read when the call starts: by the time the done-callback
    runs, grpc.aio may have released the call, and ``context.peer()`` then
    reads freed memory (it crashed the process, rarely, under test load).
    """

    __slots__ = ("method", "peer", "start", "code", "info")

    def __init__(self, method, context):
        self.method = method
        self.start = time.perf_counter()
        self.code = grpc.StatusCode.OK
        self.info = {}
        self.peer = None
        if log.isEnabledFor(logging.INFO):
            self.peer = _peer(context)
            if self.peer.startswith("unix:"):
                # From the HTTP port (gateway.py), the only client of the server's Unix
                # socket: the HTTP client's address is the peer worth logging.
                via = dict(context.invocation_metadata() or ()).get(HTTP_PEER_METADATA)
                if via:
                    self.peer = f"http:{via}"
            context.add_done_callback(self._write)

    def _write(self, _context):
        ms = (time.perf_counter() - self.start) * 1000
        extra = " ".join(f"{k}={v}" for k, v in self.info.items())
        # The same facts as fields, for the JSON log format (logs.py).
        fields = {"method": self.method, "peer": self.peer, "code": self.code.name, "ms": round(ms, 1),
                  **self.info}
        log.info("%s %s %s %.1fms %s", self.method, self.peer, self.code.name, ms, extra,
                 extra={CALL_FIELDS: fields})


INTERNAL_MESSAGE = "internal error (logged on the server)"


def _status_of(exc):
    """The status code for an exception a handler lets through, or None if unexpected."""
    if isinstance(exc, BadRequest):
        return grpc.StatusCode.INVALID_ARGUMENT
    if isinstance(exc, searching.DeadlineTooShort):
        return grpc.StatusCode.DEADLINE_EXCEEDED
    if isinstance(exc, Overloaded):
        return grpc.StatusCode.RESOURCE_EXHAUSTED
    if isinstance(exc, ShuttingDown):
        return grpc.StatusCode.UNAVAILABLE
    return None


class ShuttingDown(Exception):
    """A search stopped by the server's shutdown: its call is not answered (UNAVAILABLE,
    which clients retry on another replica)."""

RETRY_PUSHBACK_KEY = "grpc-retry-pushback-ms"


def _error_of(exc, method):
    """(status code, message) telling a client of `exc`; an unexpected one is logged here."""
    code = _status_of(exc)
    if code is not None:
        return code, str(exc)
    log.error("%s failed", method, exc_info=exc)
    return grpc.StatusCode.INTERNAL, INTERNAL_MESSAGE


async def _end_call(call, context, exc):
    """Ends a call whose handler raised `exc` with the status that maps to it, recorded
    for the call's log line: BadRequest is INVALID_ARGUMENT, DeadlineTooShort
    DEADLINE_EXCEEDED, anything unexpected INTERNAL.  Always raises."""
    if isinstance(exc, asyncio.CancelledError):
        call.code = grpc.StatusCode.CANCELLED
        raise exc
    if _status_of(exc) is None and context.code() not in (None, grpc.StatusCode.OK):
        call.code = context.code()        # an abort already under way
        raise exc
    call.code, message = _error_of(exc, call.method)
    if isinstance(exc, Overloaded):
        # gRPC's retry policy honours this hint (and clients may read it).
        await context.abort(call.code, message, trailing_metadata=((RETRY_PUSHBACK_KEY, str(exc.retry_ms)),))
    await context.abort(call.code, message)


#: A refused BatchRecommend reads (and drops) what the client sends for this long at most
#: before it ends the call.
REFUSED_DRAIN_S = 5.0


async def _drain_requests(request_iterator, limit_s=REFUSED_DRAIN_S):
    """Reads and drops a refused stream's requests until the client half-closes, for
    `limit_s` at most.  Ended while the client still writes, the call reached grpc.aio
    clients as INTERNAL ("Internal error from Core": their failed write won the race with
    the status) rather than as the refusal, and without its retry hint."""
    async def read_all():
        async for _ in request_iterator:
            pass
    try:
        await asyncio.wait_for(read_all(), limit_s)
    except (asyncio.TimeoutError, Exception):      # the status goes out whatever the stream did
        pass


# Threads that parse and decode requests, off the event loop.  The work holds
# the GIL, so a few threads are enough: they only keep one large request from
# queueing the small ones behind it.
DECODE_THREADS = 2


def _parsed(request):
    """The request message (a large one's bytes parsed now); raises BadRequest if undecodable."""
    if isinstance(request, codec.Pending):
        request = request.parse()
    if isinstance(request, codec.Undecodable):
        raise request.bad_request()
    return request


def unary_call(method):
    """Maps the handler's exceptions to statuses (see ``_end_call``) and logs the call.

    A plain (not async) handler decodes and checks what a client sent: it runs
    in the decoding threads, so that a large or costly state never stalls the
    event loop and the other calls on it.
    """
    sync = not inspect.iscoroutinefunction(method)

    def run(self, request, context, info):
        return method(self, _parsed(request), context, info)

    @functools.wraps(method)
    async def wrapper(self, request, context):
        call = CallLog(method.__name__, context)
        try:
            if sync:
                return await asyncio.get_running_loop().run_in_executor(
                    self.decoder, run, self, request, context, call.info)
            return await method(self, await self._parse(request), context, call.info)
        except (Exception, asyncio.CancelledError) as e:
            await _end_call(call, context, e)
    return wrapper


def _progress_bytes(job, reason, final=False):
    """A serialized RecommendProgress: the recommendation so far (field 1), and ``final`` (2)."""
    report = wire.length_delimited(1, searching.recommendation_bytes(job, reason))
    return report + b"\x10\x01" if final else report


def _speed_key(job):
    """What a search's speed is recorded under: its game, player count, algorithm and rollout."""
    return job.game.id, job.state.num_players, job.settings.algorithm, job.settings.rollout


def _make_seat_current(state, request, path="seat"):
    """Makes request.seat, if given, the seat to act in `state` (it must have a decision
    pending: in a simultaneous move that seat's choice is the one the state then asks
    for), and returns it; else the current seat.  BadRequest names the field."""
    if request.HasField("seat"):
        seat = request.seat
        if not 0 <= seat < state.num_players:
            raise BadRequest(f"{path}: {seat} is not a seat of this {state.num_players}-player game")
        if state.is_terminal() or state.is_chance_node() or not state.make_current(seat):
            raise BadRequest(f"{path}: seat {seat} has no decision pending")
        return seat
    return state.current_player()


SERVICE = fagin_pb2.DESCRIPTOR.services_by_name["Fagin"]


def _serializer(response_class):
    """The response serializer: answers written straight to bytes (``searching.
    recommendation_bytes``) go out as they are, messages are serialized."""
    serialize = response_class.SerializeToString

    def serializer(response):
        return response if type(response) is bytes else serialize(response)
    return serializer


def add_to_server(servicer, server):
    """Registers the service with lenient request decoding (see ``codec.lenient``)."""
    handlers = {}
    for method in SERVICE.methods:
        request_class = getattr(fagin_pb2, method.input_type.name)
        response_class = getattr(fagin_pb2, method.output_type.name)
        if method.client_streaming and method.server_streaming:
            make = grpc.stream_stream_rpc_method_handler
        elif method.server_streaming:
            make = grpc.unary_stream_rpc_method_handler
        elif method.client_streaming:
            make = grpc.stream_unary_rpc_method_handler
        else:
            make = grpc.unary_unary_rpc_method_handler
        handlers[method.name] = make(getattr(servicer, method.name),
                                     request_deserializer=codec.lenient(request_class),
                                     response_serializer=_serializer(response_class))
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE.full_name, handlers),))


# States up to this size are decoded and checked on the event loop.  States met
# in play take under a millisecond (the slowest, Gangs of Kyoto's ~750-byte
# ones, 0.3-0.6 ms; about 0.4 us a byte), so a 4 KB one takes under 2 ms: less
# than the GIL's switch interval (5 ms), so a decoding thread, which holds the
# GIL as it works, would not let the loop run meanwhile -- it would only add a
# trip to the thread and back.  Larger states go to the decoding threads.
INLINE_PREPARE_BYTES = 4096




class FaginService(fagin_pb2_grpc.FaginServicer):
    def __init__(self, config, executor, decoder=None):
        self.config = config
        self.executor = executor
        self.admission = Admission(config.workers, config.queue_limit, config.tree_memory_bytes,
                                   config.slice_ms)
        measure_games([load_game(game_id) for game_id in GAMES])
        # Iterations of every search so far (a counter for the metrics, metrics.py).
        self.iterations_searched = 0
        # BatchRecommend requests answered with an error, by status code name (the
        # call itself is OK): for the metrics.
        self.batch_errors = collections.Counter()
        self.decoder = decoder or ThreadPoolExecutor(DECODE_THREADS, thread_name_prefix="fagin-decode")
        # The searches running now, so that a server shutting down can stop them
        # (cancel_searches) rather than wait for their budgets.
        self.running = set()
        self.stopping = False      # cancel_searches was called: the server is shutting down
        # {(game id, players, algorithm, rollout): ms an iteration a thread}, from the
        # searches so far (_note_speed).
        self.iteration_ms = {}
        # The event loop's count of idle waits (loop.py), set by the server on its loop; None:
        # every search runs in the workers.  A search runs on the loop only if the loop has
        # idled since the last one did, so that calls arriving meanwhile go to the workers.
        self.idle_watch = None
        self._idle_waits_at_inline = -1
        self.searches_inline = 0           # searches (slices) run on the loop, for the metrics

    def cancel_searches(self):
        """Stops every running search; their calls end at once, UNAVAILABLE (safe from any thread)."""
        self.stopping = True
        for searcher in list(self.running):
            searcher.cancel()

    async def _parse(self, request):
        """The request message: a large one is parsed in the decoding threads."""
        if isinstance(request, codec.Pending):
            request = await asyncio.get_running_loop().run_in_executor(self.decoder, request.parse)
        return _parsed(request)

    # ------------------------------------------------------------ game calls

    @unary_call
    async def ListGames(self, request, context, info):
        resp = fagin_pb2.ListGamesResponse()
        for game_id, gi in GAMES.items():
            resp.games.add(id=game_id, name=gi.name, min_players=gi.min_players,
                           max_players=gi.max_players, algorithms=searching.ALGORITHMS, spec=gi.spec,
                           options=[fagin_pb2.GameOption(name=o.name, default_value=str(o.default).lower()
                                                         if isinstance(o.default, bool) else str(o.default),
                                                         description=o.description)
                                    for o in gi.options])
        return resp

    @unary_call
    def NewGame(self, request, context, info):
        info["game"] = request.game
        gi = GAMES.get(request.game)
        if gi is None:
            raise BadRequest(f"game: unknown game {request.game!r}; served: {', '.join(sorted(GAMES))}")
        try:
            state = load_game(gi.id).new_initial_state(request.players, **dict(request.options))
        except ValueError as e:         # the message names the field: players or options.<name>
            raise BadRequest(str(e)) from None
        told = state.resolve_chance_with_events(request.seed)
        return fagin_pb2.NewGameResponse(state=codec.encode_state(state), status=codec.status_of(state),
                                         events=codec.encode_seat_events(load_game(gi.id), told))

    @unary_call
    def LegalActions(self, request, context, info):
        game, state = codec.decode_state(request.state)
        info["game"] = game.id
        resp = fagin_pb2.LegalActionsResponse(status=codec.status_of(state))
        if state.is_terminal():
            if request.HasField("seat"):
                raise BadRequest("seat: the game is over; no seat has a decision pending")
            return resp
        if state.is_chance_node():
            if request.HasField("seat"):
                raise BadRequest("seat: a chance event is next; no seat has a decision pending")
            options = state.options()
            for action, p in state.chance_outcomes():
                resp.actions.append(codec.encode_action(game, action, True, options))
                resp.probabilities.append(p)
            return resp
        _make_seat_current(state, request)
        options = state.options()
        for action in state.legal_actions():
            resp.actions.append(codec.encode_action(game, action, False, options, state=state))
        return resp

    @unary_call
    def ApplyAction(self, request, context, info):
        game, state = codec.decode_state(request.state)
        info["game"] = game.id
        if state.is_terminal():
            raise BadRequest("state: the game is over; no action can be applied")
        if request.HasField("observer") and not 0 <= request.observer < state.num_players:
            raise BadRequest(f"observer: {request.observer} is not a seat of this "
                             f"{state.num_players}-player game")
        observers = [request.observer] if request.HasField("observer") else range(state.num_players)
        events = {s: [] for s in observers}

        def record(before, action):
            # What each observer saw of this step (the room's events, engines/<game>/events.py).
            for s in observers:
                events[s].extend(before.events(action, state, s))

        applied = []
        options = state.options()          # the game's options: they fix what an id means
        which = request.WhichOneof("choice")
        if which is None and not state.is_chance_node():
            raise BadRequest("action_id: give the action (action_id or action)")
        if state.is_chance_node() and request.HasField("seat"):
            raise BadRequest("seat: a chance event is next; no seat has a decision pending")
        if not state.is_chance_node():
            _make_seat_current(state, request)
        if which is not None:
            at_chance = state.is_chance_node()
            before = state.clone()          # the applied action is reported as taken there
            typed = None
            try:
                if which == "action_id":
                    action = request.action_id
                    state.apply(action)
                else:
                    # A typed form may name the very card among identical ones (LN-93).
                    typed = codec.decode_typed(game, request.action, "action")
                    try:
                        action = state.apply_typed(typed)
                    except IllegalActionError:
                        raise
                    except ValueError as e:
                        raise BadRequest(f"action.{game.id}.{e}") from None
            except IllegalActionError as e:
                raise BadRequest(f"{which}: {e}") from None
            applied.append(codec.encode_action(game, action, at_chance, options, state=before, typed=typed))
            record(before, action)
        if not request.stop_at_chance:
            # Chance events are drawn one by one so that each can be reported.
            seed = request.seed
            while state.is_chance_node():
                outcome = state.sample_chance(seed)
                before = state.clone()
                state.apply(outcome)
                applied.append(codec.encode_action(game, outcome, True, options))
                record(before, outcome)
                seed = (seed * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        return fagin_pb2.ApplyActionResponse(
            state=codec.encode_state(state), status=codec.status_of(state), applied=applied,
            events=codec.encode_seat_events(game, events))

    @unary_call
    def ViewState(self, request, context, info):
        game, state = codec.decode_state(request.state)
        info["game"] = game.id
        if not 0 <= request.seat < state.num_players:
            raise BadRequest(f"seat: {request.seat} is not a seat of this {state.num_players}-player game")
        view = state.view(request.seat)
        # Who may decide is read from the view (a seat does not see others'
        # secret pending choices); the result of a finished game is public and
        # comes from the real state, not from the stand-ins for hidden cards.
        seen = state if state.is_terminal() else game.from_description(view)
        return fagin_pb2.ViewStateResponse(state=codec.encode_description(game, view),
                                           status=codec.status_of(seen),
                                           text=state.render(request.seat))

    # -------------------------------------------------------------- searching

    def _enter(self, job, stream=False):
        """The job's admission ticket (Overloaded if the queue is full, or if its first slice's
        tree memory cannot be free before its deadline)."""
        return self.admission.enter(len(job.searcher.parts), self._slice_need(job), job.ends(), stream,
                                    job.searcher.tree_bytes,
                                    release_at=job.ends() if job.iterations is None else None)

    def _slice_need(self, job):
        """The tree memory the job's next slice reserves: its trees now, and room for
        SLICE_GROWTH_HEADROOM times the iterations a slice is expected to run (all threads;
        an iteration adds a node at most).  Its trees are capped to the reservation
        (``SearchJob.cap_trees``), so a slice that runs longer searches on without growing."""
        its, ms = job.remaining()
        parts = len(job.searcher.parts)
        stretch = 1 if self.admission.wait_list else IDLE_SLICE_STRETCH
        per_iteration = self.iteration_ms.get(_speed_key(job))
        if its is None and per_iteration:
            # A time slice: as many iterations as its game's searches run in that time.
            expected = min(ms, self.config.slice_ms * stretch) / per_iteration * parts
        else:
            expected = job.slice_iterations * parts * stretch
        grow = int(SLICE_GROWTH_HEADROOM * expected) + parts
        return job.tree_need(grow if its is None else min(its, grow))

    def _leave(self, job, ticket):
        self.admission.leave(ticket)
        self._note_speed(job)
        nodes = job.searcher.num_nodes
        if nodes >= OBSERVE_MIN_NODES:          # the slots are counted only where they are used
            observe_tree(job.game.id, nodes, sum(p.num_slots for p in job.searcher.parts))

    async def _search(self, job, ticket, until=None, then=None):
        """Runs the job's search in time slices granted by the admission until
        its budget is spent; returns (the stop reason, or None at the
        ``time.monotonic()`` instant `until` (a stream's report is due); what
        ``then(stop reason)`` returned, or None).

        ``then`` builds the call's answer: when the slice that ends the search
        runs in one worker thread, it runs there too, right after the search,
        so that the answer is built before the loop hears of the slice (one
        trip through the loop a slice, none more to answer).  Otherwise (the
        search ran out of time waiting for its turn, or ran on several
        threads) it runs here.

        A search with an iteration budget runs slices of a whole number of
        iterations per thread, so that its answer does not depend on how it
        was sliced; its slice length follows its measured speed."""
        # Registered while it may run, so that a server shutting down can stop it.
        self.running.add(job.searcher)
        try:
            reason, value = await self._slices(job, ticket, until, then)
        finally:
            self.running.discard(job.searcher)
        if then is not None and value is None and reason is not None:
            value = then(reason)
        return reason, value

    @staticmethod
    def _final(job, reason):
        """The stop reason if the job's search is over after a slice that stopped for `reason`, else None."""
        if reason == "cancelled":
            return reason
        its, ms = job.remaining()
        if its == 0:
            return "iterations"
        if ms <= 0:
            return "time"
        return None

    async def _slices(self, job, ticket, until, then):
        searcher = job.searcher
        parts = len(searcher.parts)
        finish = None
        may_inline = True
        if then is not None and until is None:
            def finish(reason):
                """In the worker, after the slice: the answer, if the search is over."""
                final = self._final(job, reason)
                return None if final is None else (final, then(final))
        while True:
            its, ms = job.remaining()
            if its == 0:
                return "iterations", None
            if ms <= 0:
                return "time", None
            now = time.monotonic()
            if until is not None and now >= until:
                return None, None
            # Checked before the turn is taken: the loop runs the search only if no other runs.
            # At most one slice of a search runs there: one stopped at the cap goes on in a worker.
            inline = may_inline and until is None and self._runs_inline(job, its, ms)
            # The tree memory its slice may need; once granted, its trees are capped to it.
            self.admission.need(ticket, self._slice_need(job), job.searcher.tree_bytes)
            if self.admission.turn_now(ticket):
                began = now              # no wait: the budget read above still holds
            else:
                wait_s = ms / 1000 if until is None else min(ms / 1000, until - now)
                if not await self.admission.turn(ticket, wait_s):
                    continue             # out of time, or a report is due
                began = time.monotonic()
                its, ms = job.remaining()
                inline = False
            job.cap_trees(ticket.bytes)
            before = searcher.iterations
            if before == 0 and log.isEnabledFor(logging.DEBUG):
                log.debug("search started: %s", job.game.id)    # tests wait for this line
            try:
                if until is not None:
                    ms = min(ms, (until - began) * 1000)
                ms = max(0.0, ms)                # the turn may come just after the instant
                # With no search waiting the slice is longer: fewer hops between
                # the loop and the workers, and an arrival still waits little.
                stretch = 1 if self.admission.wait_list else IDLE_SLICE_STRETCH
                if inline:
                    # Run here, on the loop's thread; capped, so that a search slower than
                    # its game's record holds up the loop no longer than inline_search_ms.
                    reason, done = searcher.run(iterations=its, time_ms=min(
                        ms, self.config.inline_search_ms)), None
                    self._idle_waits_at_inline = self.idle_watch.idle_waits
                    self.searches_inline += 1
                elif its is None:
                    reason, done = await searcher.run_async_then(
                        self.executor, finish, None, min(ms, self.config.slice_ms * stretch))
                else:
                    # No more than its reservation has room for (the tree would meet its cap
                    # and the answer depend on the slicing), unless memory is short.
                    slice_its = min(its, job.slice_iterations * parts * stretch)
                    room = job.room_iterations(ticket.bytes)
                    if room >= parts:
                        slice_its = min(slice_its, room)
                    reason, done = await searcher.run_async_then(self.executor, finish, slice_its, ms)
            finally:
                elapsed = time.monotonic() - began
                self.admission.done_slice(ticket, elapsed)
                self.iterations_searched += searcher.iterations - before
            if done is not None:
                return done
            if reason == "cancelled":
                return reason, None
            if inline:
                final = self._final(job, reason)
                if final is not None:
                    return final, None
                # Stopped at the cap: slower than its game's record, which is corrected now,
                # and the rest runs in the workers.
                may_inline = False
                self._note_speed(job, replace=True)
                continue
            if elapsed > 0:
                per_ms = (searcher.iterations - before) / parts / (elapsed * 1000)
                job.slice_iterations = int(max(16, min(4 * job.slice_iterations,
                                                       per_ms * self.config.slice_ms)))

    def _runs_inline(self, job, its, ms):
        """Whether the job's next slice runs on the loop's thread: a one-thread search,
        no other search running or waiting, and the budget left expected to take at most
        ``inline_search_ms`` at the speed its game's searches have shown."""
        limit = self.config.inline_search_ms
        watch = self.idle_watch
        if (limit <= 0 or watch is None or watch.idle_waits == self._idle_waits_at_inline
                or len(job.searcher.parts) > 1 or self.admission.running or self.admission.wait_list):
            return False
        if ms is not None and ms <= limit:
            return True
        per_iteration = self.iteration_ms.get(_speed_key(job))
        return its is not None and per_iteration is not None and its * per_iteration <= limit

    def _note_speed(self, job, replace=False):
        """Records the job's search speed (ms an iteration a thread), which decides
        whether later searches of its game and player count run inline; ``replace``: the
        record proved too fast (a search ran past the inline cap) and is replaced."""
        searcher = job.searcher
        done = searcher.iterations / len(searcher.parts)
        if done > 0:
            key = _speed_key(job)
            ms = searcher.elapsed_ms / done
            old = self.iteration_ms.get(key)
            # A moving average (a game's positions differ in cost; the inline cap covers the
            # error) that one slow search, stalled by another process, raises by a quarter
            # at most: the record is of the game's speed, not the machine's worst moment.
            self.iteration_ms[key] = ms if old is None or replace else old + 0.25 * (min(ms, 2 * old) - old)

    def _check_not_stopped(self, reason):
        """Raises ShuttingDown for a search the server's shutdown cut short: whether grpc's
        stop or the answer reaches the client first must not decide if it looks like one."""
        if reason == "cancelled" and self.stopping:
            raise ShuttingDown("the server is shutting down; the search was stopped before its "
                               "budget was spent: retry on another replica")

    def _answer(self, job, reason):
        """A finished search's Recommendation, serialized; TooFewIterations, or ShuttingDown
        (runs in a search thread, or on the loop after an inline search)."""
        self._check_not_stopped(reason)
        searching.check_min_iterations(job, reason)
        return searching.recommendation_bytes(job, reason)

    def _batch_answer(self, job, request_id, reason):
        """A finished search's BatchRecommendResponse, serialized (see ``_answer``)."""
        rec = self._answer(job, reason)
        head = wire.length_delimited(1, request_id.encode("utf-8")) if request_id else b""
        return head + wire.length_delimited(2, rec)

    async def _prepare(self, request, context, path=""):
        """The request's SearchJob, decoded and checked here for a small state, in the
        decoding threads for a larger one."""
        data = codec.state_bytes(request.state)      # serialized once: sized here, read by the decoder
        if len(data) <= INLINE_PREPARE_BYTES:
            return searching.prepare(request, self.config, context.time_remaining(), path, data)
        return await asyncio.get_running_loop().run_in_executor(
            self.decoder, searching.prepare, request, self.config, context.time_remaining(), path)

    @unary_call
    async def Recommend(self, request, context, info):
        job = await self._prepare(request, context)
        info["game"] = job.game.id
        ticket = self._enter(job)
        try:
            _, answer = await self._search(job, ticket, then=functools.partial(self._answer, job))
            return answer
        finally:
            info["iterations"] = job.searcher.iterations      # also when too few for an answer
            self._leave(job, ticket)

    async def StreamRecommend(self, request, context):
        call = CallLog("StreamRecommend", context)
        info = call.info
        opened = False
        try:
            request = await self._parse(request)
            interval = request.report_interval_ms or DEFAULT_REPORT_INTERVAL_MS
            if interval < MIN_REPORT_INTERVAL_MS:
                raise BadRequest(f"report_interval_ms: must be at least {MIN_REPORT_INTERVAL_MS}, "
                                 f"got {request.report_interval_ms}")
            self.admission.open_stream(self.config.stream_limit)
            opened = True
            job = await self._prepare(request.request, context, "request")
            info["game"] = job.game.id
            ticket = self._enter(job, stream=True)
            try:
                while True:
                    # The generator waits at each yield until grpc has taken the
                    # report (flow control), and asks for no slice meanwhile.
                    reason, _ = await self._search(job, ticket, time.monotonic() + interval / 1000)
                    if reason is not None:
                        info["iterations"] = job.searcher.iterations
                        self._check_not_stopped(reason)
                        searching.check_min_iterations(job, reason)
                        yield _progress_bytes(job, reason, final=True)
                        return
                    yield _progress_bytes(job, "time")
            finally:
                self._leave(job, ticket)
        except (Exception, asyncio.CancelledError) as e:
            await _end_call(call, context, e)
        finally:
            if opened:
                self.admission.close_stream()

    async def BatchRecommend(self, request_iterator, context):
        call = CallLog("BatchRecommend", context)
        info = call.info
        info.update(requests=0, errors=0)
        try:
            self.admission.open_stream(self.config.stream_limit)
        except Overloaded as e:
            await _drain_requests(request_iterator)
            await _end_call(call, context, e)
        queue: asyncio.Queue = asyncio.Queue()
        slots = asyncio.Semaphore(self.config.batch_slots)
        tasks: set = set()
        DONE = object()

        async def one(item):
            try:
                if isinstance(item, (codec.Undecodable, codec.Pending)):
                    item, raw = fagin_pb2.BatchRecommendRequest(), item
                    item = await self._parse(raw)
                job = await self._prepare(item.request, context, "request")
                ticket = self._enter(job)
                try:
                    _, resp = await self._search(job, ticket, then=functools.partial(
                        self._batch_answer, job, item.request_id))
                finally:
                    self._leave(job, ticket)
            except Exception as e:        # this request's answer is an error; the batch goes on
                info["errors"] += 1
                code, message = _error_of(e, f"BatchRecommend request {item.request_id!r}")
                self.batch_errors[code.name] += 1
                resp = fagin_pb2.BatchRecommendResponse(
                    request_id=item.request_id, error=fagin_pb2.Error(
                        code=code.value[0], message=message,
                        retry_pushback_ms=e.retry_ms if isinstance(e, Overloaded) else 0))
            finally:
                slots.release()
            await queue.put(resp)

        async def reader():
            try:
                async for item in request_iterator:
                    info["requests"] += 1
                    await slots.acquire()
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
                yield item
        except (Exception, asyncio.CancelledError) as e:
            await _end_call(call, context, e)
        finally:
            self.admission.close_stream()
            reader_task.cancel()
            for task in list(tasks):
                task.cancel()
