"""Admission control: how many searches run, wait and hold tree memory at once.

Every search of the service passes through one :class:`Admission`:

- It *enters* (a :class:`Ticket`); if ``max_queued`` searches are already
  waiting to start, it is refused (:class:`Overloaded`: RESOURCE_EXHAUSTED
  with a retry hint), so waits stay bounded whatever the load.
- It runs in *time slices*: each slice takes one worker per search thread,
  and when workers free the next slice goes to the waiting search that has
  had the least worker time so far (least attained service), less a credit
  for its time in the server (``AGING``).  A new search has had none, so a
  small call is served within a slice or two even while long searches run,
  instead of after them; the credit keeps a long search from starving while
  new small ones keep arriving (a 10-minute soak at 200 clients without it:
  3 % of calls waited out their 30 s deadline while the median took 19 ms).
- With each slice it *reserves* tree memory from the server's budget for what
  its tree may be at the slice's end (what it holds now plus room for twice
  the iterations the slice is expected to run, up to its node cap, counted as
  the tree allocates: its first chunks, slot chunks twice the last, its hash
  tables (``ISMCTS.bytes_at``), at its game's slots per node; its trees are
  capped to the reservation) and keeps it until the call ends, so the trees
  held by all calls -- streams between reports included -- stay within
  ``max_tree_memory_mb``, and a reservation follows the tree's real size
  rather than the most it could ever reach.  (What a tree really holds is
  counted if it is more: a position that branches more than its game's
  measured figure.)
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
``reserved_bytes``, ``open_streams``, ``refused``) are the admission state for
monitoring.  Everything here runs on the server's event loop (no locks).
"""
from __future__ import annotations

import asyncio
import itertools
import math
import random
import threading
import time

from fagin.server.config import NODE_BYTES_FOR_DEFAULT

#: Bytes of a node and of its table entries (24-byte node, 4-byte hash slots at
#: most twice the node cap rounded up to a power of two).
NODE_FIXED_BYTES = 24 + 16
#: Bytes of one action slot, doubled: the slot block doubles when it grows.
SLOT_BYTES = 2 * 40


def slots_per_node(node_bytes) -> int:
    """The action slots a node is counted with, for a game's bytes per node (the inverse of
    ``measure_bytes_per_node``'s figure: its slots with their margin, a whole number)."""
    return max(1, math.ceil((node_bytes - NODE_FIXED_BYTES) / SLOT_BYTES))


#: Iterations of the search that measures a game's slots per node, and how many positions.
_PROBE_ITERATIONS = 1000
_PROBE_POSITIONS = 3
#: Margin over the measured slots per node (deeper positions branch differently).
_PROBE_MARGIN = 1.25

_bytes_per_node: dict = {}
_probe_lock = threading.Lock()


def measure_bytes_per_node(game, players=None, positions=_PROBE_POSITIONS, iterations=_PROBE_ITERATIONS):
    """A game's tree memory per node, measured: searches from a few positions
    (the opening and a few random plies on) and the most action slots per node
    they built, with a margin; a node costs NODE_FIXED_BYTES plus SLOT_BYTES
    per slot."""
    from fagin.search.ismcts import ISMCTS
    worst = 1.0
    for seed in range(positions):
        rng = random.Random(seed)
        state = game.new_initial_state(players or game.spec.max_players)
        state.resolve_chance(seed)
        for _ in range(rng.randrange(0, 12)):
            if state.is_terminal():
                break
            if state.is_chance_node():
                state.apply(state.sample_chance(rng.randrange(1 << 30)))
            else:
                state.apply(rng.choice(state.legal_actions()))
        while state.is_chance_node():
            state.apply(state.sample_chance(seed))
        if state.is_terminal():
            continue
        # Policy playouts: London's stop early, and the tree's shape is what is measured.
        search = ISMCTS(state, state.current_player(), seed=seed,
                        rollout="policy" if game.has_rollout_policy else "random")
        search.run(iterations=iterations)
        worst = max(worst, search.num_slots / max(1, search.num_nodes))
    return int(NODE_FIXED_BYTES + SLOT_BYTES * worst * _PROBE_MARGIN)


#: A game's figure until its measurement is done: above every game measured (~1.2 KB at most).
UNMEASURED_BYTES_PER_NODE = NODE_BYTES_FOR_DEFAULT


def bytes_per_node(game) -> int:
    """The game's tree bytes per node: measured (see ``measure_games``), or
    UNMEASURED_BYTES_PER_NODE until then -- never measured here, on the event loop."""
    return _bytes_per_node.get(game.id, UNMEASURED_BYTES_PER_NODE)


_probes_running = 0
_probes_done = threading.Condition()


def measure_games(games):
    """Measures the games' bytes per node in a background thread, once per process
    (a probe takes from a few ms to half a second; the server must not wait for it).
    A probe's tree (about half a MB, once per game and process) is outside the
    tree-memory budget: see ``wait_for_measurements``."""
    global _probes_running

    def run():
        global _probes_running
        try:
            with _probe_lock:
                for game in games:
                    if game.id not in _bytes_per_node:
                        figure = measure_bytes_per_node(game)
                        _bytes_per_node[game.id] = max(figure, _bytes_per_node.get(game.id, 0))
        finally:
            with _probes_done:
                _probes_running -= 1
                _probes_done.notify_all()
    with _probes_done:
        _probes_running += 1
    threading.Thread(target=run, name="fagin-node-bytes", daemon=True).start()


def wait_for_measurements(timeout=None) -> bool:
    """Waits until no probe of ``measure_games`` runs (True), or `timeout` seconds (False):
    for whoever counts the trees alive in the process, which the probes' trees are among."""
    with _probes_done:
        return _probes_done.wait_for(lambda: _probes_running == 0, timeout)


#: Trees smaller than this say too little about a game's branching to raise its figure.
OBSERVE_MIN_NODES = 1000


def observe_tree(game_id, nodes, slots):
    """Raises a game's figure to what a finished tree used, if it branched more than
    the probes did, so that later reservations cover such positions."""
    if nodes >= OBSERVE_MIN_NODES:
        observed = int(NODE_FIXED_BYTES + SLOT_BYTES * slots / nodes * _PROBE_MARGIN)
        if observed > _bytes_per_node.get(game_id, 0):
            _bytes_per_node[game_id] = observed


def available_memory_bytes():
    """Memory this process may still use: MemAvailable, or less under a cgroup
    (container) limit; None if neither can be read."""
    found = []
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    found.append(int(line.split()[1]) * 1024)
    except OSError:
        pass
    for limit_path, usage_path in (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
                                   ("/sys/fs/cgroup/memory/memory.limit_in_bytes",
                                    "/sys/fs/cgroup/memory/memory.usage_in_bytes")):
        try:
            with open(limit_path) as f:
                raw = f.read().strip()
            with open(usage_path) as f:
                used = int(f.read().strip())
        except (OSError, ValueError):
            continue
        if raw.isdigit() and int(raw) < 1 << 60:   # "max" or a huge number: no limit
            found.append(max(0, int(raw) - used))
        break
    return min(found) if found else None


#: Worker-seconds of credit per second a search has spent in the server: its priority is its
#: worker time so far less this credit, so a search that keeps waiting while newer ones are
#: served gains a tenth of a worker's time at least, whatever the load.
AGING = 0.1


#: A retry hint is lengthened by up to this fraction of itself, at random.
RETRY_JITTER = 0.25


def _jittered(ms):
    return max(1, int(math.ceil(ms * (1 + RETRY_JITTER * random.random()))))


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

    __slots__ = ("threads", "bytes", "want", "seq", "service", "reserved", "started", "entered",
                 "future", "done", "release_at", "stream")

    def __init__(self, threads, nbytes, seq, release_at=None, stream=False):
        self.threads = threads
        self.bytes = 0            # tree memory reserved now (counted in reserved_bytes)
        self.want = nbytes        # what its next slice asks for (``Admission.need``)
        self.seq = seq
        self.release_at = release_at   # time.monotonic() before which it will not end; None: any time
        self.stream = stream      # a StreamRecommend search (counted in queued_streams)
        self.service = 0.0        # worker-seconds run so far
        self.reserved = False     # its tree memory is counted in reserved_bytes
        self.started = False      # it has had a slice
        self.entered = time.monotonic()
        self.future = None        # set while it waits for a turn
        self.done = False


class Admission:
    def __init__(self, workers, max_queued, tree_budget_bytes, slice_ms):
        self.workers = workers
        self.max_queued = max_queued
        self.tree_budget_bytes = tree_budget_bytes
        self.slice_ms = slice_ms
        self.free = workers
        self.wait_list: list = []
        self._holders: set = set()     # the tickets holding a reservation
        self._seq = itertools.count()
        self._wait_ewma_ms = 0.0
        # Monitoring state (plain attributes; see the module docstring).
        self.queued = 0            # searches waiting to start (bounded by max_queued)
        self.queued_streams = 0    # StreamRecommend searches waiting to start (max_streams bounds them)
        self.running = 0           # searches running a slice now
        self.active = 0            # searches holding a tree reservation
        self.reserved_bytes = 0    # tree memory reserved by them
        self.open_streams = 0      # StreamRecommend and BatchRecommend calls open
        self.refused = 0           # calls refused RESOURCE_EXHAUSTED (queue, streams)

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

    def retry_ms(self):
        """A retry hint: how long searches have lately waited to start, at least one slice
        per worker round of the queue, plus up to RETRY_JITTER of it at random (gRPC's retry
        policy waits the hint exactly: clients refused together come back spread out)."""
        floor = self.slice_ms * max(1, self.queued) / self.workers
        return _jittered(max(self._wait_ewma_ms, floor))

    def enter(self, threads, nbytes, ends=None, stream=False, held=0, release_at=None) -> Ticket:
        """A ticket for a new search whose first slice needs `nbytes` of tree memory and
        whose call ends by the ``time.monotonic()`` instant `ends` (None: unknown); Overloaded
        if the queue is full (streams excepted: ``max_streams`` bounds them), or if that memory
        cannot be free before `ends`.  `held`: what its trees hold already, counted at once;
        `release_at`: the instant before which it will not end (a time-only budget's end;
        None: it may end any time, as one with an iteration budget)."""
        if not stream and self.queued >= self.max_queued:
            self.refused += 1
            raise Overloaded(f"server busy: {self.queued} searches are queued, the server's "
                             f"max_queued is {self.max_queued}; retry later", self.retry_ms())
        nbytes = min(nbytes, self.tree_budget_bytes)     # a tree's first chunks on a tiny budget
        if ends is not None:
            free_at = self.memory_free_at(nbytes)
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
        ticket = Ticket(threads, nbytes, next(self._seq), release_at, stream)
        self._hold(ticket, held)
        return ticket

    def _hold(self, ticket, held):
        """Counts what a ticket's trees really hold, if more than its reservation: memory
        already in use is counted whatever the budget says."""
        if held > ticket.bytes:
            self.reserved_bytes += held - ticket.bytes
            ticket.bytes = held
            self._holders.add(ticket)

    def memory_free_at(self, nbytes):
        """The earliest ``time.monotonic()`` instant at which `nbytes` of tree memory may be free:
        now if it is, or if searches that may end any time hold enough; else when enough of
        those that run to their time budgets will have ended."""
        now = time.monotonic()
        short = self.reserved_bytes + nbytes - self.tree_budget_bytes
        if short <= 0:
            return now
        holders = sorted(self._holders, key=lambda t: -math.inf if t.release_at is None else t.release_at)
        for t in holders:
            short -= t.bytes
            if short <= 0:
                return now if t.release_at is None else max(now, t.release_at)
        return math.inf

    def need(self, ticket, nbytes, held=0):
        """The tree memory the ticket's next slice needs (its tree as it may be at the slice's
        end), and what its trees hold now (counted at once if beyond its reservation)."""
        ticket.want = min(nbytes, self.tree_budget_bytes)
        self._hold(ticket, held)

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
        a new one, if its first slice's memory is free."""
        return ticket.started or self.reserved_bytes - ticket.bytes + ticket.want <= self.tree_budget_bytes

    def _grant(self, ticket):
        # The reservation grows to what the slice wants if the budget allows; if not (a
        # started search), the slice runs with the tree it has (all or nothing: a tree grows
        # in chunks, and a part of a slice's growth may not hold the chunk it allocates next).
        if ticket.want > ticket.bytes and \
                self.reserved_bytes - ticket.bytes + ticket.want <= self.tree_budget_bytes:
            self.reserved_bytes += ticket.want - ticket.bytes
            ticket.bytes = ticket.want
        self._holders.add(ticket)
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
        self._holders.discard(ticket)
        self.reserved_bytes -= ticket.bytes
        ticket.bytes = 0
        self._dispatch()

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
