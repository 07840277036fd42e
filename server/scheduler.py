"""The search scheduler: admission control, and the searches run in time slices.

:class:`Scheduler` runs every search of the service: it admits it (a :class:`Ticket` from
the :class:`Admission`), runs it in slices on the worker threads (or, a tiny one, inline
on the event loop), and builds its answer in the worker that ran its last slice.

Every search passes through one :class:`Admission`:

- It *enters* (a :class:`Ticket`); if ``max_queued`` searches are already
  waiting to start, it is refused (:class:`Overloaded`: RESOURCE_EXHAUSTED
  with a retry hint), so waits stay bounded whatever the load.
- It runs in *time slices*: each slice takes one worker per search thread,
  and when workers free the next slice goes to the waiting search that has
  had the least worker time so far (least attained service), less a credit
  for its time in the server (``AGING``).  A new search has had none, so a
  small call is served within a slice or two even while long searches run,
  instead of after them; the credit keeps a long search from starving while
  new small ones keep arriving (docs/architecture.md, "Admission and tree memory").
- With each slice it *reserves* tree memory for what its tree may be at the
  slice's end (what it holds now plus room for twice the iterations the slice
  is expected to run, up to its node cap), from the server's one owner of tree
  memory (``tree_memory.TreeMemory``), and keeps it until the call ends; its
  trees are capped to the reservation (``tree_memory.cap_trees``).  So the
  trees held by all calls -- streams between reports included, and the trees
  kept for sessions, the first memory given up -- stay within
  ``max_tree_memory_mb``, and a reservation follows the tree's real size
  rather than the most it could ever reach.
  Memory bounds what *starts*, never what already holds memory: a search that
  has started runs its slices whatever memory is left, its tree capped at
  what its reservation could grow to (``Ticket.bytes``).  A new search whose
  first slice does not fit waits (up to its deadline) for memory to be
  returned, without holding back the others; if the memory cannot be free
  before its deadline even at best (the searches holding it run to their time
  budgets), it is refused at once (:class:`Overloaded`, with the wait as its
  retry hint).
- StreamRecommend searches are bounded by ``max_streams``, so the ones that
  have not started yet do not count against ``max_queued`` (which bounds the
  unary calls' and batch items' waits): a client's unread streams cannot get
  other clients' calls refused.

The plain attributes (``queued``, ``queued_streams``, ``waiting``, ``running``, ``active``,
``open_streams``, ``refused``) and the tree memory's (``reserved_bytes``, ``kept_bytes``)
are the admission state for monitoring.  The admission runs on the server's event loop (no
locks); of the scheduler, only a search's last-slice callback runs in a worker thread, and
``cancel_searches`` may be called from any thread.
"""
from __future__ import annotations

import asyncio
import itertools
import logging
import math
import random
import time

from fagin.server import tree_memory
from fagin.server.tree_memory import TreeMemory

log = logging.getLogger("fagin.server")

# A search's slice is this many times slice_ms when no other search waits.
IDLE_SLICE_STRETCH = 4
# A slice reserves tree memory for this many times the iterations it is expected to run.
SLICE_GROWTH_HEADROOM = 2

#: Worker-seconds of credit per second a search has spent in the server: its priority is its
#: worker time so far less this credit, so a search that keeps waiting while newer ones are
#: served gains a tenth of a worker's time at least, whatever the load.
AGING = 0.1


#: A retry hint is lengthened by up to this fraction of itself, at random.
RETRY_JITTER = 0.25
#: The longest retry hint, its jitter included: a client told to wait longer had better try
#: another replica, and a load that clears sooner should not be waited out.
MOST_RETRY_MS = 30_000
#: The weight of the latest search in the mean worker time of a search (retry hints).
SEARCH_TIME_WEIGHT = 0.2


def _jittered(ms):
    """A retry hint of `ms`, lengthened by up to RETRY_JITTER of itself at random, at most
    MOST_RETRY_MS: a hint at the bound is drawn from below it, still spread out."""
    ms = min(ms, MOST_RETRY_MS / (1 + RETRY_JITTER))
    return max(1, min(MOST_RETRY_MS, int(math.ceil(ms * (1 + RETRY_JITTER * random.random())))))


def _mb(nbytes):
    return f"{nbytes / (1 << 20):.1f} MB"


class Overloaded(Exception):
    """A call refused by admission control (RESOURCE_EXHAUSTED), with a retry hint in ms."""

    def __init__(self, message, retry_ms):
        super().__init__(message)
        self.retry_ms = retry_ms


class Ticket:
    """One search's place in the admission: its threads, its tree reservation
    and the worker time it has had."""

    __slots__ = ("threads", "reservation", "want", "seq", "service", "reserved", "started", "entered",
                 "future", "done", "stream", "work")

    def __init__(self, threads, nbytes, seq, reservation, stream=False):
        self.threads = threads
        self.reservation = reservation   # its tree memory (the admission's TreeMemory's)
        self.want = nbytes        # what its next slice asks for (``Admission.need``)
        self.seq = seq
        self.stream = stream      # a StreamRecommend search (counted in queued_streams)
        self.service = 0.0        # worker-seconds run so far
        self.reserved = False     # its tree memory is counted in reserved_bytes
        self.started = False      # it has had a slice
        self.entered = time.monotonic()
        self.future = None        # set while it waits for a turn
        self.done = False
        self.work = None          # worker-seconds its budget will take, if known

    @property
    def bytes(self):
        """Tree memory reserved for it now."""
        return self.reservation.bytes


class Admission:
    def __init__(self, workers, max_queued, tree_budget_bytes, slice_ms):
        self.workers = workers
        self.max_queued = max_queued
        self.memory = TreeMemory(tree_budget_bytes)
        self.slice_ms = slice_ms
        self.free = workers
        self.wait_list: list = []
        self._seq = itertools.count()
        self._wait_ewma_ms = 0.0
        self._search_ewma_s = None     # worker-seconds of a finished search, a moving mean
        self._open: set = set()        # the tickets entered and not yet left
        # Monitoring state (plain attributes; see the module docstring).
        self.queued = 0            # searches waiting to start (bounded by max_queued)
        self.queued_streams = 0    # StreamRecommend searches waiting to start (max_streams bounds them)
        self.running = 0           # searches running a slice now
        self.active = 0            # searches holding a tree reservation
        self.open_streams = 0      # StreamRecommend and BatchRecommend calls open
        self.refused = 0           # calls refused RESOURCE_EXHAUSTED (queue, streams)
        # The server's pondering (pondering.py): told when a call's search is admitted, which
        # stops every pondering slice, and when a worker may have come free.
        self.on_call = _nothing
        self.on_free = _nothing

    # The tree memory as the monitoring reads it (the searches' reservations and the kept
    # trees; the kept trees' part); only ``memory``, its owner, changes it.
    tree_budget_bytes = property(lambda self: self.memory.budget_bytes)
    reserved_bytes = property(lambda self: self.memory.reserved_bytes)
    kept_bytes = property(lambda self: self.memory.kept_bytes)

    def open_stream(self, limit):
        """Counts a new StreamRecommend or BatchRecommend call, or Overloaded if `limit` are open."""
        if self.open_streams >= limit:
            self.refused += 1
            raise Overloaded(f"server busy: {self.open_streams} streams are open, the server's "
                             f"max_streams is {limit}; retry later", self.retry_ms())
        self.open_streams += 1

    def close_stream(self):
        self.open_streams -= 1

    @property
    def waiting(self):
        """Searches waiting for a worker: new ones and those between slices."""
        return len(self.wait_list)

    def expected_wait_ms(self):
        """How long a search entering now may expect to wait for the searches ahead of it: the
        worker time left of those queued and under way (each its budget's, ``Ticket.work``,
        or, unknown, the worker time searches have lately taken), shared by the workers."""
        usual = self._search_ewma_s or 0.0
        left = sum(max(0.0, (usual if t.work is None else t.work) - t.service) for t in self._open)
        return left * 1000 / self.workers

    def retry_ms(self):
        """A retry hint: the wait the searches ahead would give a new one (``expected_wait_ms``),
        or how long searches have lately waited to start if longer, at least one slice per
        worker round of the queue; plus up to RETRY_JITTER of it at random, at most
        MOST_RETRY_MS in all (gRPC's retry policy waits the hint exactly: clients refused together come back
        spread out).  A hint shorter than the wait only brings the client back to be refused
        again: a burst used up all of a client's attempts in under a second."""
        floor = self.slice_ms * max(1, self.queued) / self.workers
        return _jittered(max(self._wait_ewma_ms, floor, self.expected_wait_ms()))

    def enter(self, threads, nbytes, ends=None, stream=False, held=0, release_at=None, work=None) -> Ticket:
        """A ticket for a new search whose first slice needs `nbytes` of tree memory and
        whose call ends by the ``time.monotonic()`` instant `ends` (None: unknown); Overloaded
        if the queue is full (streams excepted: ``max_streams`` bounds them), or if that memory
        cannot be free before `ends`.  `held`: what its trees hold already, counted at once;
        `release_at`: the instant before which it will not end (a time-only budget's end;
        None: it may end any time, as one with an iteration budget); `work`: the worker-seconds
        its budget will take, if known (for retry hints)."""
        if not stream and self.queued >= self.max_queued:
            self.refused += 1
            raise Overloaded(f"server busy: {self.queued} searches are queued, the server's "
                             f"max_queued is {self.max_queued}; retry later", self.retry_ms())
        nbytes = min(nbytes, self.tree_budget_bytes)     # a tree's first chunks on a tiny budget
        # Memory free now is never a reason to refuse, even to a call whose time is up (its
        # search then stops at once and says so): before, a call whose time had run out in its
        # decoding was told the server's memory was held.
        if ends is not None and not self.memory.free_now(nbytes):
            free_at = self.memory.free_at(nbytes)
            if free_at > ends:
                self.refused += 1
                wait_ms = _jittered((free_at - time.monotonic()) * 1000)
                raise Overloaded(
                    f"server busy: the search's tree needs {_mb(nbytes)} of tree memory and the "
                    f"searches holding the server's {_mb(self.tree_budget_bytes)} will not have "
                    f"returned it before the call's deadline; retry later", wait_ms)
        if stream:
            self.queued_streams += 1
        else:
            self.queued += 1
        ticket = Ticket(threads, nbytes, next(self._seq), self.memory.for_search(release_at), stream)
        ticket.work = work
        self._open.add(ticket)
        self.memory.hold(ticket.reservation, held)
        self.on_call()
        return ticket

    def need(self, ticket, nbytes, held=0):
        """The tree memory the ticket's next slice needs (its tree as it may be at the slice's
        end), and what its trees hold now (counted at once if beyond its reservation)."""
        ticket.want = min(nbytes, self.tree_budget_bytes)
        self.memory.hold(ticket.reservation, held)

    def turn_now(self, ticket) -> bool:
        """The slice's workers at once if no search waits and they are free (see ``turn``);
        False otherwise, without waiting."""
        if not self.wait_list and self._fits(ticket):
            self._grant(ticket)
            return True
        return False

    async def turn(self, ticket, timeout_s) -> bool:
        """Waits for a slice's workers (and, before the first, the tree reservation);
        False if `timeout_s` passed first.  The caller runs the slice, then calls ``done_slice``."""
        if self.turn_now(ticket):
            return True
        if timeout_s <= 0:
            return False
        ticket.future = asyncio.get_running_loop().create_future()
        self.wait_list.append(ticket)
        # Workers may be free while others wait (for memory, say): they go out now, not only
        # when some slice or call ends (before, a search waiting for memory left free workers
        # idle while the searches holding the memory waited for a turn).
        self._dispatch()
        try:
            await asyncio.wait((ticket.future,), timeout=timeout_s)
        except asyncio.CancelledError:
            if not self._withdraw(ticket):
                self.done_slice(ticket, 0.0)
            raise
        return not self._withdraw(ticket)

    def _withdraw(self, ticket):
        """Takes a waiting ticket off the list; False if it had been granted meanwhile."""
        fut, ticket.future = ticket.future, None
        if fut is not None and fut.done():
            return False
        if fut is not None:
            fut.cancel()
        if ticket in self.wait_list:
            self.wait_list.remove(ticket)
        return True

    def _fits(self, ticket):
        return ticket.threads <= self.free and self._fits_memory(ticket)

    def _fits_memory(self, ticket):
        """A started search always may run (its tree capped at what its reservation allows);
        a new one, if its first slice's memory is free, or held by kept trees only (dropped
        when it is granted: not before, as a search passed over for want of workers would
        have dropped them for nothing)."""
        return ticket.started or self.memory.fits(ticket.reservation, ticket.want)

    def _grant(self, ticket):
        # The reservation grows to what the slice wants if the budget allows; if not (a
        # started search), the slice runs with the tree it has (all or nothing: a tree grows
        # in chunks, and a part of a slice's growth may not hold the chunk it allocates next).
        self.memory.grow(ticket.reservation, ticket.want)
        if not ticket.reserved:
            ticket.reserved = True
            self.active += 1
        if not ticket.started:
            ticket.started = True
            if ticket.stream:
                self.queued_streams -= 1
            else:
                self.queued -= 1
            waited_ms = (time.monotonic() - ticket.entered) * 1000
            self._wait_ewma_ms += 0.2 * (waited_ms - self._wait_ewma_ms)
        self.free -= ticket.threads
        self.running += 1

    def done_slice(self, ticket, seconds):
        """Gives back a slice's workers; `seconds` of wall time are added to the ticket's service."""
        ticket.service += seconds * ticket.threads
        self.free += ticket.threads
        self.running -= 1
        self._dispatch()
        self.on_free()

    def leave(self, ticket):
        """The search has ended: its reservation (and its queue place) are returned."""
        if ticket.done:
            return
        ticket.done = True
        if ticket.future is not None:
            self._withdraw(ticket)
        if not ticket.started:
            if ticket.stream:
                self.queued_streams -= 1
            else:
                self.queued -= 1
        if ticket.reserved:
            ticket.reserved = False
            self.active -= 1
        self._open.discard(ticket)
        if ticket.started:
            last = self._search_ewma_s
            self._search_ewma_s = ticket.service if last is None else \
                last + SEARCH_TIME_WEIGHT * (ticket.service - last)
        self.memory.release(ticket.reservation)
        self._dispatch()
        self.on_free()

    def _dispatch(self):
        """Hands free workers to waiting searches, least service (less the aging
        credit) first, then the oldest.  A search that needs more workers than are free holds the
        others back (so a many-threaded search is not starved); a new one whose
        first slice does not fit the memory left is passed over (it holds no one
        back) until memory is returned."""
        if not self.wait_list or self.free == 0:
            return
        now = time.monotonic()
        for ticket in sorted(self.wait_list, key=lambda t: (t.service - AGING * (now - t.entered), t.seq)):
            if not self._fits_memory(ticket):
                continue
            if ticket.threads > self.free:
                break
            self.wait_list.remove(ticket)
            self._grant(ticket)
            ticket.future.set_result(True)
            if self.free == 0:
                break


def _nothing():
    pass


class ShuttingDown(Exception):
    """A search stopped by the server's shutdown: its call is not answered (UNAVAILABLE,
    which clients retry on another replica)."""


def _speed_key(job):
    """What a search's speed is recorded under: its game, player count, algorithm, rollout and
    whether the tree asks the rollout policy at every node (a prior: GameSpec.budget_settings
    may switch it on at large budgets), each of which changes an iteration's cost."""
    part = job.searcher.parts[0]
    return (job.game.id, job.state.num_players, job.settings.algorithm, job.settings.rollout,
            part.prior > 0 or part.opponent_prior > 0 or part.widen > 0)


class Scheduler:
    """Admits the service's searches and runs them in time slices on the `executor`'s workers
    (or inline on the event loop), fairly between waiting calls.  Runs on the event loop."""

    def __init__(self, config, executor):
        self.config = config
        self.executor = executor
        self.admission = Admission(config.workers, config.queue_limit, config.tree_memory_bytes,
                                   config.slice_ms)
        # The owner of the tree memory: the admission reserves from it, the session store keeps from it.
        self.memory = self.admission.memory
        # Iterations of every search so far (a counter for the metrics, metrics.py).
        self.iterations_searched = 0
        # The searches running now, so that a server shutting down can stop them
        # (cancel_searches) rather than wait for their budgets.
        self.running = set()
        self.stopping = False      # cancel_searches was called: the server is shutting down
        # time.monotonic() at which the server's shutdown cancels the calls still running (its
        # grace period's end), once it has begun; None before.
        self.calls_cancelled_at = None
        # {(game id, players, algorithm, rollout): ms an iteration a thread}, from the
        # searches so far (_note_speed).
        self.iteration_ms = {}
        # The event loop's count of idle waits (loop.py), set by the server on its loop; None:
        # every search runs in the workers.  A search runs on the loop only if the loop has
        # idled since the last one did, so that calls arriving meanwhile go to the workers.
        self.idle_watch = None
        self._idle_waits_at_inline = -1
        self.searches_inline = 0           # searches (slices) run on the loop, for the metrics

    def shutdown_begins(self, grace_s):
        """The server has begun to shut down: the calls still running in `grace_s` seconds
        will be cancelled (and their clients told UNAVAILABLE)."""
        self.calls_cancelled_at = time.monotonic() + grace_s

    def cut_by_shutdown(self):
        """Whether a call cancelled now was cancelled by the server's shutdown (its grace
        period over), not by its client: its client sees UNAVAILABLE, not CANCELLED."""
        return self.stopping or (self.calls_cancelled_at is not None
                                 and time.monotonic() >= self.calls_cancelled_at)

    def cancel_searches(self):
        """Stops every running search; their calls end at once, UNAVAILABLE (safe from any thread)."""
        self.stopping = True
        for searcher in list(self.running):
            searcher.cancel()

    def admit(self, job, stream=False):
        """The job's admission ticket (Overloaded if the queue is full, or if its first slice's
        tree memory cannot be free before its deadline)."""
        return self.admission.enter(len(job.searcher.parts), self._slice_need(job), job.ends(), stream,
                                    job.searcher.tree_bytes,
                                    release_at=job.ends() if job.iterations is None else None,
                                    work=self._work_s(job))

    def _work_s(self, job):
        """The worker-seconds the job's budget will take, or None if unknown: its time limit on
        every thread, or its iterations at its game's recorded speed if less (unknown for
        iterations at a speed not recorded yet: its time limit is only a cap)."""
        its, ms = job.remaining()
        by_time = ms / 1000 * len(job.searcher.parts)
        if its is None:
            return by_time
        per_iteration = self.iteration_ms.get(_speed_key(job))
        return None if per_iteration is None else min(by_time, its * per_iteration / 1000)

    def _slice_need(self, job):
        """The tree memory the job's next slice reserves: its trees now, and room for
        SLICE_GROWTH_HEADROOM times the iterations a slice is expected to run (all threads;
        an iteration adds a node at most).  Its trees are capped to the reservation
        (``tree_memory.cap_trees``), so a slice that runs longer searches on without growing."""
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
        return tree_memory.needed_by(job, grow if its is None else min(its, grow))

    def leave(self, job, ticket):
        """The job's search has ended: its ticket is returned, its speed and tree recorded."""
        self.admission.leave(ticket)
        self._note_speed(job)
        tree_memory.observe(job)

    async def run_search(self, job, ticket, until=None, then=None):
        """Runs the job's search in time slices granted by the admission until
        its budget is spent; returns (the stop reason, or None at the
        ``time.monotonic()`` instant `until` (a stream's report is due); what
        ``then(stop reason)`` returned, or None).

        ``then`` builds the call's answer: when the slice that ends the search
        runs in one worker thread, it runs there too, right after the search,
        so that the answer is built before the loop hears of the slice (one
        trip through the loop a slice, none more to answer).  Otherwise (the
        search ran out of time waiting for its turn, or ran on several
        threads) it runs here.  A search the server's shutdown cut short raises
        ShuttingDown instead.

        A search with an iteration budget runs slices of a whole number of
        iterations per thread, so that its answer does not depend on how it
        was sliced; its slice length follows its measured speed."""
        # Registered while it may run, so that a server shutting down can stop it.
        self.running.add(job.searcher)
        try:
            reason, value = await self._slices(job, ticket, until, then)
        finally:
            self.running.discard(job.searcher)
        if reason is not None:
            self._check_not_stopped(reason)
            if then is not None and value is None:
                value = then(reason)
        return reason, value

    @staticmethod
    def _final(job, reason):
        """The stop reason if the job's search is over after a slice that stopped for `reason`, else None."""
        if reason in ("cancelled", "decided"):
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
        may_inline = True
        if then is None or until is not None:
            finish = None
        else:
            def finish(reason):
                """In the worker, after the slice: the answer, if the search is over."""
                final = self._final(job, reason)
                if final is None:
                    return None
                self._check_not_stopped(final)
                return final, then(final)
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
            room = tree_memory.cap_trees(job, ticket.bytes)     # iterations the trees have room for
            before = searcher.iterations
            if before == job.base_iterations and log.isEnabledFor(logging.DEBUG):
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
                        ms, self.config.inline_search_ms), decided_left=job.decided_left(its)), None
                    self._idle_waits_at_inline = self.idle_watch.idle_waits
                    self.searches_inline += 1
                elif its is None:
                    reason, done = await searcher.run_async_then(
                        self.executor, finish, None, min(ms, self.config.slice_ms * stretch))
                else:
                    # No more than its reservation has room for (the tree would meet its cap
                    # and the answer depend on the slicing), unless memory is short.
                    slice_its = min(its, job.slice_iterations * parts * stretch)
                    if room >= parts:
                        slice_its = min(slice_its, room)
                    # The decided stop weighs the lead against the whole budget left, so
                    # that where it stops does not depend on the slicing.
                    reason, done = await searcher.run_async_then(self.executor, finish, slice_its, ms,
                                                                 decided_left=job.decided_left(its))
            finally:
                elapsed = time.monotonic() - began
                self.admission.done_slice(ticket, elapsed)
                self.iterations_searched += searcher.iterations - before
            if done is not None:
                return done
            if reason in ("cancelled", "decided"):
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
