"""Search trees kept between calls: RecommendRequest.session.

A frontend asks for its bot's move once per decision; a search that starts from scratch
each time throws away what the last one learnt of the positions that followed it.  A
request naming a session has its tree kept under (caller, session, seat) after the call
(the caller: ``security.caller_identity``), and the seat's next request continues it where the tree already reached the new position's
information set (``ISMCTS.reroot``): its budget runs on top of that head start, which
plays stronger at equal CPU time (docs/architecture.md, "The server"; search/bots.py,
``reuse``).

Kept trees are a cache, never a promise: they hold tree memory after their call has
ended, so each is counted by the server's tree memory (``tree_memory.TreeMemory.keep``) and
is the first memory given up: a search that needs memory drops trees of the caller whose
trees hold the most memory, its least recently used first (``SessionStore.reclaim``); beyond
``max_sessions`` a tree of the caller keeping the most trees is dropped, its least recently
used (a caller at that most itself drops its own first); one idle for
``session_idle_seconds`` is dropped.  So a caller keeping few trees keeps them however many
calls others make: another caller can make room only out of its own trees, or out of those of
callers who keep as many as it or more.  A dropped tree only means the
next call searches afresh.  Everything here runs on the server's event loop.
"""
from __future__ import annotations

import asyncio
import collections
import time

from fagin.search.root_parallel import RootParallelSearch
from fagin.server import tree_memory
from fagin.server.codec import BadRequest
from fagin.server.logs import quoted
from fagin.v1 import fagin_pb2

#: A kept tree that has run this many iterations in all is not continued: its visit counts
#: are 32-bit, and a call may add up to limits.MAX_ITERATIONS (10^9) more.
MOST_KEPT_ITERATIONS = 1 << 31


#: The request metadata (an HTTP header on the HTTP port) naming the call's session, for a
#: load balancer to route by: a balancer cannot read the request's body, so a session's
#: calls reach the replica holding its tree only if they carry their session where the
#: balancer can hash on it (docs/operating.md, "Sessions behind several replicas").
SESSION_METADATA = "fagin-session"


def check_routed_session(session, metadata, path=""):
    """Refuses a call whose ``fagin-session`` metadata names another session than the request's
    ``session`` (BadRequest naming the field): the balancer routed it by the one and the tree
    would be kept under the other, so the session's next call could reach another replica's
    fresh tree every time without a word.  Metadata without a session in the request, or a
    request without the metadata, is not checked (the metadata is for routing only)."""
    values = [value for key, value in (metadata or ()) if key == SESSION_METADATA]
    if not session or not values:
        return
    p = (path + ".") if path else ""
    if len(values) > 1:
        raise BadRequest(f"{p}session: the call carries {len(values)} {SESSION_METADATA} metadata entries; "
                         f"give one, naming the request's session")
    if values[0] != session:
        raise BadRequest(f"{p}session: {quoted(session)}, but the call's {SESSION_METADATA} metadata names "
                         f"{quoted(values[0])}: a load balancer routes the call by the metadata, so it must "
                         f"name the request's session (or be left out)")


#: The fresh reason of a session and seat with no tree kept for this caller: the same whether
#: the session was never named, its tree was dropped, or another caller holds it.
NO_TREE = "no tree kept for this session and seat"


class _Kept:
    __slots__ = ("search", "state", "settings", "reservation", "used", "node_bytes", "ponder", "pondered")

    def __init__(self, search, state, settings, reservation, used, node_bytes):
        self.search = search          # the ISMCTS, not running (but while it ponders)
        self.state = state            # the position at its root
        self.settings = settings      # request.tree_settings of the search that grew it
        self.reservation = reservation   # its tree memory (a kept tree's, of the TreeMemory)
        self.used = used              # time.monotonic() of its last call's end
        self.node_bytes = node_bytes  # its game's bytes per node (tree_memory.bytes_per_node)
        self.ponder = None            # its pondering (pondering._Ponder) while under way
        self.pondered = 0             # iterations pondered since its call

    @property
    def bytes(self):
        return self.reservation.bytes


class SessionStore:
    """The kept trees, least recently used first, their memory counted by `memory` (the
    server's ``tree_memory.TreeMemory``)."""

    def __init__(self, config, memory, clock=time.monotonic, pondering=None):
        self.config = config
        # The server's pondering (pondering.Pondering), or None: kept trees are never pondered.
        self.pondering = pondering
        self.limit = config.max_sessions
        self.idle_s = config.session_idle_seconds
        self.memory = memory
        self.clock = clock
        self.kept: collections.OrderedDict = collections.OrderedDict()
        # Each caller's keys in self.kept, in the same order (least recently used first).
        self.by_caller: dict = {}
        # Trees dropped, by why (for the metrics): "limit", "idle", "memory", "not continued".
        self.dropped = collections.Counter()
        self.continued = 0            # calls that continued a kept tree
        self._timer = None
        memory.reclaim = self.reclaim

    def __len__(self):
        return len(self.kept)

    # --- a call's way through: attach before its admission, keep after its end --------------

    async def attach(self, job, session, caller, executor=None):
        """Gives the job the session's kept tree for its seat where it may continue it, else
        leaves its fresh search; says which in ``job.session_report`` (and ``notes``).
        ``executor``: where the kept root is played forward (``_by_own_move``, London's views
        in Python, too slow for the event loop); None: here.  The job's admission
        must follow with no wait in between: a continued tree's memory is counted as taken
        until this returns, and by the job's ticket from then on."""
        self.expire()
        report = job.session_report = fagin_pb2.SessionReport(session=session)
        if job.tree_settings is None:
            report.fresh_reason = f"this search cannot be kept: {job.unkept}"
            job.notes.append(f"session: this search cannot be kept ({job.unkept}); it ran as without "
                             f"a session, and the session's kept tree was left as it was")
            return
        if self.limit == 0:
            report.fresh_reason = "this server keeps no trees (--max-sessions 0)"
            job.notes.append("session: this server keeps no trees (--max-sessions 0); the search ran "
                             "as without a session")
            return
        # The caller is part of the key: a session another caller holds is, to this one, a
        # session never seen -- never continued, never replaced, nothing said of it (whether
        # its tree reached a position would tell what its seat has seen).
        job.session_key = key = (caller, session, job.seat)
        entry = self._take(key)
        if entry is None:
            report.fresh_reason = NO_TREE
            return
        # Taken out whatever follows: continued, it is the job's; not, it is dropped, and the
        # fresh search is kept in its place.  Its memory stays reserved meanwhile (waits
        # included), but no longer as a kept tree a search could have dropped.
        self.memory.take(entry.reservation)
        try:
            if self.pondering is not None:
                await self.pondering.stop(entry, "next call")
            head, root = await self._reroot(entry, job, executor)
        finally:
            self.memory.release(entry.reservation)
        if head is None:
            self.dropped["not continued"] += 1
            return
        if head < 0:
            report.fresh_reason = "the kept tree never reached this position"
            self.dropped["not continued"] += 1
            return
        report.continued = True
        report.head_start = head
        report.pondered = entry.pondered
        self.continued += 1
        _continue(job, entry.search, root, self.config)

    async def _reroot(self, entry, job, executor):
        """(the kept tree's visits at the job's position or -1, the root it was moved to),
        or (None, None) with the fresh reason reported."""
        report = job.session_report
        report.fresh_reason = self._why_not(entry, job)
        if report.fresh_reason:
            return None, None
        root = job.state
        head = entry.search.reroot(root, job.settings.seed)
        if head < 0:
            if executor is None:
                root = _by_own_move(entry.state, job.seat, job.state)
            else:
                root = await asyncio.get_running_loop().run_in_executor(
                    executor, _by_own_move, entry.state, job.seat, job.state)
            if root is not None:
                head = entry.search.reroot(root, job.settings.seed)
        return head, root

    def _why_not(self, entry, job):
        mine, theirs = job.tree_settings, entry.settings
        if (mine["game"], mine["players"]) != (theirs["game"], theirs["players"]):
            return "the kept tree is of another game or player count"
        differ = [name for name in mine if mine[name] != theirs[name]]
        if differ:
            return f"the search settings differ from the kept tree's: {', '.join(differ)}"
        if entry.search.iterations >= MOST_KEPT_ITERATIONS:
            return f"the kept tree has run its most iterations ({MOST_KEPT_ITERATIONS:,})"
        # A tree keeps the nodes of every position it passed; one that could not add a node an
        # iteration of this budget would run it frozen, worse than a fresh tree.
        # (A search on time alone may grow by any amount: it wants half the cap free.)
        cap = self.config.node_cap
        room = cap // 2 if job.iterations is None else job.iterations + 1
        if entry.search.num_nodes + room > cap:
            return (f"the kept tree ({entry.search.num_nodes:,} nodes) has no room to grow by this budget "
                    f"within the server's node cap ({cap:,})")
        return ""

    def keep(self, job):
        """Keeps the job's tree for its session and seat, its call over (its search stopped,
        its ticket returned): the least recently used kept trees dropped for it if the
        session limit or the memory budget needs, or not kept if the memory is held by
        searches."""
        if job.session_key is None or self.limit == 0:
            return
        old = self._take(job.session_key)
        if old is not None:           # two calls at once: the one ending last is kept
            self._abandon(old, "dropped")
            self.memory.release(old.reservation)
        search = job.searcher.parts[0]
        if search.num_nodes == 0:
            return
        # What the tree really holds (its chunks and tables), not its nodes at its game's bytes
        # a node: that bounds the room a growing tree may take, and overstates what a made tree
        # holds several times over (the cache would be given up for memory that is free).
        nbytes = search.tree_bytes
        if not self.memory.could_keep(nbytes):
            return                    # searches hold the memory: drop no other tree for nothing
        caller = job.session_key[0]
        while len(self.kept) >= self.limit:
            self._drop_oldest("limit", self._most_trees(caller))
        reservation = self.memory.keep(nbytes)
        if reservation is None:
            return
        entry = _Kept(search, job.tree_root or job.state, job.tree_settings, reservation, self.clock(),
                      job.node_bytes)
        self.kept[job.session_key] = entry
        self.by_caller.setdefault(caller, collections.OrderedDict())[job.session_key] = None
        self._schedule()
        if job.ponder_ms and self.pondering is not None:
            self.pondering.start(entry, job.ponder_ms)

    # --- dropping ------------------------------------------------------------------------------

    def _take(self, key):
        """The kept tree of `key`, taken out of the store (None: none kept)."""
        entry = self.kept.pop(key, None)
        if entry is not None:
            mine = self.by_caller[key[0]]
            del mine[key]
            if not mine:
                del self.by_caller[key[0]]
        return entry

    def _most_trees(self, caller):
        """The caller whose tree makes room for one of `caller`'s: `caller` itself if no
        other keeps more trees, else the one keeping the most."""
        most = max(self.by_caller, key=lambda c: len(self.by_caller[c]))
        mine = len(self.by_caller.get(caller, ()))
        return caller if mine and mine >= len(self.by_caller[most]) else most

    def _drop_oldest(self, why, caller=None):
        """Drops the least recently used tree (of `caller`, if given)."""
        key = next(iter(self.kept if caller is None else self.by_caller[caller]))
        entry = self._take(key)
        self._abandon(entry, "dropped")
        self.memory.release(entry.reservation)
        self.dropped[why] += 1

    def _abandon(self, entry, why):
        if self.pondering is not None:
            self.pondering.abandon(entry, why)

    def reclaim(self, nbytes):
        """Drops kept trees until `nbytes` are free of them or none is left (the tree memory's
        call, for a search that needs the memory): those of the caller whose trees hold the
        most memory first, its least recently used first."""
        freed = 0
        while self.kept and freed < nbytes:
            held = collections.Counter()
            for key, entry in self.kept.items():
                held[key[0]] += entry.bytes
            caller = held.most_common(1)[0][0]
            freed += self.kept[next(iter(self.by_caller[caller]))].bytes
            self._drop_oldest("memory", caller)

    def expire(self):
        """Drops the trees idle for session_idle_seconds (the least recently used are first)."""
        stale = self.clock() - self.idle_s
        while self.kept and next(iter(self.kept.values())).used <= stale:
            self._drop_oldest("idle")

    def _schedule(self):
        """Expires the oldest tree when its idle time is up, calls or none."""
        if self._timer is not None or not self.kept:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:          # no loop (a library caller): expired at the next call
            return
        delay = max(0.0, next(iter(self.kept.values())).used + self.idle_s - self.clock())
        self._timer = loop.call_later(delay + 0.01, self._on_timer)

    def _on_timer(self):
        self._timer = None
        self.expire()
        self._schedule()


#: The most legal moves tried from a kept root for the seat's next decision (_by_own_move):
#: a bound on the work done on the event loop.
MOST_MOVES_TRIED = 256


def _by_own_move(kept, seat, target):
    """The kept root's position after one move of `seat` that leaves it to decide again
    and that it cannot tell from `target`, or None.

    Why: a position a client sends is decoded from what it shows, and some games (London,
    Gangs of Kyoto) key an information set by the history that led to it (a running hash
    of what the seat saw), which a decoded position cannot know: its key is a hash of the
    position instead.  The kept tree's nodes below its root carry running keys, so the
    client's next position is not found by its own key even where the tree reached it.
    The seat's next decision in the same turn, after a move of its own, is found this
    way: the kept root played forward as the tree played it.  The kept root is first
    rebuilt from the seat's view of it, as a client's view is decoded: a move may depend
    on what the seat cannot see (in London a seat may take the deck's top card, which
    University's owner alone has seen), and the state a client sent may hold hidden cards
    of its own; the rebuilt one holds only what the seat knows, and its keys are the kept
    root's (a decoded position's keys are made from what the seat sees).  Only the seat's
    view is compared, so what it cannot see never decides which node continues."""
    if kept is None or kept.is_terminal() or kept.is_chance_node() or kept.current_player() != seat:
        return None
    # Rebuilt, a simultaneous phase's position has its first pending seat to act again: the
    # seat is put back to act, as the kept root had it (Goofspiel's bids).
    kept = kept.game.from_description(kept.view(seat))
    try:
        kept = kept.with_seat_to_act(seat)
    except ValueError:
        return None
    want = target.view(seat)
    actions = kept.legal_actions(seat)
    if len(actions) > MOST_MOVES_TRIED:
        return None
    for action in actions:
        after = kept.clone()
        after.apply(action)
        if after.is_terminal() or after.is_chance_node() or after.current_player() != seat:
            continue
        if after.view(seat) == want:
            return after
    return None


def _continue(job, search, root, config):
    """The job now runs on `search` (a kept tree rerooted at `root`, its position): its budget
    counts from what the tree had run, and the tree's cap is raised so that it may grow by
    a node an iteration of the budget, within the node cap and the tree-memory budget (the
    scheduler raises it slice by slice as its reservation grows)."""
    job.searcher = RootParallelSearch.of_parts([search])
    job.tree_root = root
    job.base_iterations = search.iterations
    job.base_elapsed_ms = search.elapsed_ms
    held = search.num_nodes
    cap = config.node_cap if job.iterations is None else min(config.node_cap, held + job.iterations + 1)
    fit = tree_memory.nodes_within(search, config.tree_memory_bytes, job.node_bytes, held + 1, max(cap, held + 1))
    # The fresh tree's cap, and any note of it, were for a tree of none of these nodes.
    job.notes[:] = [n for n in job.notes if not n.startswith("search tree capped")]
    if fit < cap:
        job.notes.append(f"search tree capped at {max(fit, held)} nodes to fit the server's tree-memory "
                         f"budget of {config.tree_memory_bytes >> 20} MB")
    job.node_cap = max(held, min(cap, fit), 1)
    search.cap_nodes(max(1, held))    # raised slice by slice with the reservation (tree_memory.cap_trees)
