"""The server's tree memory: one owner for every byte counted against ``max_tree_memory_mb``.

Search trees are the server's memory; a bound on them has to count each tree once, from the
moment it may grow to the moment it is freed, whichever call, session or failure ends it.  So
one object, :class:`TreeMemory`, makes every :class:`Reservation` and alone changes what they
count; the admission (``scheduler.py``) and the session store (``sessions.py``) ask it:

- a search's reservation, made when its call is admitted (``for_search``), counts what its
  trees may be at the end of its next slice: grown before each slice (``grow``; kept trees
  are given up for it, ``reclaim``), never below what its trees really hold (``hold``), and
  returned whole when its call ends, whatever ended it (``release``);
- a kept session tree's (``keep``) counts what the tree holds (a pondering tree's grows from
  free memory alone, ``grow_from_free``, as it grows: ``pondering.py``), and is the first memory given
  up: a call that continues the tree takes it (``take``, no longer given up for others, still
  counted until the call's own reservation counts the tree), and eviction, expiry or a call
  that cannot continue the tree return it (``release``).

The functions at the end size the trees these reservations are for: what a search's trees
hold now, what they may hold after some iterations (``ISMCTS.bytes_at``, at its game's slots
per node from ``fagin.search.memory``), and the node caps that keep them within a reservation
or the budget.  The owner and the sizes run on the server's event loop, with no locks.
"""
from __future__ import annotations

import math
import time

from fagin.search import memory as node_memory

SEARCH = "search"
KEPT = "kept"
TAKEN = "taken"


class Reservation:
    """Tree memory counted for one holder: a search (``SEARCH``), a kept session tree
    (``KEPT``), or a kept tree a call has taken and not yet counted as its own (``TAKEN``).
    Only its :class:`TreeMemory` changes it."""

    __slots__ = ("bytes", "kind", "release_at")

    def __init__(self, kind, release_at=None):
        self.bytes = 0
        self.kind = kind
        # time.monotonic() before which a search will not end (a time-only budget's end); None:
        # it may end any time, as one with an iteration budget may.
        self.release_at = release_at

    def __repr__(self):
        return f"Reservation({self.kind}, {self.bytes} bytes)"


class TreeMemory:
    """The tree-memory budget and every reservation counted against it."""

    def __init__(self, budget_bytes):
        self.budget_bytes = budget_bytes
        self.reserved_bytes = 0       # every live reservation's bytes, the kept trees' included
        self.kept_bytes = 0           # the kept trees' part of it
        self.reservations: set = set()
        # The session store's callback that drops kept trees until `nbytes` are free of them
        # (``SessionStore.reclaim``); None: no trees are kept.
        self.reclaim = None

    # --- searches ------------------------------------------------------------------------------

    def for_search(self, release_at=None) -> Reservation:
        """A new search's reservation, empty until ``hold`` or ``grow``."""
        res = Reservation(SEARCH, release_at)
        self.reservations.add(res)
        return res

    def hold(self, res, nbytes):
        """Counts what a search's trees really hold, if more than its reservation: memory in use
        is counted whatever the budget says."""
        if nbytes > res.bytes:
            self._add(res, nbytes - res.bytes)

    def fits(self, res, want) -> bool:
        """Whether a search's reservation could be `want`, every kept tree given up for it."""
        return self.reserved_bytes - self.kept_bytes - res.bytes + want <= self.budget_bytes

    def grow(self, res, want) -> bool:
        """Grows a search's reservation to `want` if the budget allows, kept trees dropped for
        it where that is enough (and only then: a cache given up for nothing helps no one);
        False, the reservation as it was, if not."""
        extra = want - res.bytes
        if extra <= 0:
            return True
        short = self.reserved_bytes + extra - self.budget_bytes
        if short > 0:
            if self.reclaim is None or self.reserved_bytes - self.kept_bytes + extra > self.budget_bytes:
                return False
            self.reclaim(short)
            if self.reserved_bytes + extra > self.budget_bytes:
                return False
        self._add(res, extra)
        return True

    def free_at(self, nbytes):
        """The earliest ``time.monotonic()`` instant at which `nbytes` may be free for a search:
        now if they are, kept trees given up, or if searches that may end any time hold enough;
        else when enough of those that run to their time budgets will have ended."""
        now = time.monotonic()
        short = self.reserved_bytes - self.kept_bytes + nbytes - self.budget_bytes
        if short <= 0:
            return now
        searches = sorted((r for r in self.reservations if r.kind == SEARCH),
                          key=lambda r: -math.inf if r.release_at is None else r.release_at)
        for res in searches:
            short -= res.bytes
            if short <= 0:
                return now if res.release_at is None else max(now, res.release_at)
        return math.inf

    # --- kept trees ----------------------------------------------------------------------------

    def free_now(self, nbytes) -> bool:
        """Whether `nbytes` are free for a search or a kept tree now, beside the searches'
        reservations, every kept tree dropped for them if need be."""
        return self.reserved_bytes - self.kept_bytes + nbytes <= self.budget_bytes

    could_keep = free_now

    def keep(self, nbytes):
        """A kept tree's reservation of `nbytes`, older kept trees dropped for it if need be;
        None, nothing counted, if searches hold the memory."""
        res = Reservation(KEPT)
        self.reservations.add(res)
        if not self.grow(res, nbytes):
            self.reservations.discard(res)
            return None
        return res

    def grow_from_free(self, res, want):
        """Grows a kept tree's reservation toward `want` out of the memory no one holds, no
        kept tree dropped for it (a pondering tree's: pondering is a guest, never a cost)."""
        extra = min(want - res.bytes, self.budget_bytes - self.reserved_bytes)
        if extra > 0 and res in self.reservations:
            self._add(res, extra)

    def hold_kept(self, res, nbytes):
        """Counts what a kept tree really holds, if more than its reservation (a pondering tree
        capped to its reservation holds no more; its first chunks may)."""
        if nbytes > res.bytes and res in self.reservations:
            self._add(res, nbytes - res.bytes)

    def take(self, res):
        """A kept tree taken by a call: still counted, no longer given up for searches, until
        the call releases it (its own reservation then counts the tree)."""
        if res.kind == KEPT:
            self.kept_bytes -= res.bytes
            res.kind = TAKEN

    # --- every holder ----------------------------------------------------------------------------

    def release(self, res):
        """Returns a reservation whole: a search's call has ended, or a kept tree is dropped.
        Releasing twice is harmless."""
        if res not in self.reservations:
            return
        self.reservations.discard(res)
        self.reserved_bytes -= res.bytes
        if res.kind == KEPT:
            self.kept_bytes -= res.bytes
        res.bytes = 0

    def _add(self, res, nbytes):
        res.bytes += nbytes
        self.reserved_bytes += nbytes
        if res.kind == KEPT:
            self.kept_bytes += nbytes


# --- the trees' sizes ----------------------------------------------------------------------------

def bytes_per_node(game):
    """The tree memory a node of `game` is counted at: measured by probe searches, raised by
    the trees the server has seen (``fagin.search.memory``)."""
    return node_memory.bytes_per_node(game)


def held_by(job):
    """Tree memory a search holds now: its nodes at its game's bytes per node, or what its
    trees really hold if more (a small tree's first chunks)."""
    return max(job.searcher.num_nodes * job.node_bytes, job.searcher.tree_bytes)


def needed_by(job, iterations):
    """Tree memory a search needs after `iterations` more (a tree adds at most a node an
    iteration), up to its node cap: what it reserves for a slice of that many.  Counted as the
    trees allocate (first chunks, chunks twice the last, tables: ``ISMCTS.bytes_at``), so that
    a tree capped to its reservation (``cap_trees``) never holds more than it."""
    parts = job.searcher.parts
    extra = -(-iterations // len(parts)) + 1
    spn = node_memory.slots_per_node(job.node_bytes)
    at = sum(p.bytes_at(min(job.node_cap, p.num_nodes + extra), spn) for p in parts)
    return max(held_by(job), at)


def nodes_within(tree, nbytes, node_bytes, start, stop):
    """The most nodes from `start` to `stop` at which `tree` (an ISMCTS) holds at most `nbytes`,
    counted as it allocates at the slots per node of its game's `node_bytes`; ``start - 1`` if
    none does."""
    return node_memory.most_nodes_within(tree, nbytes, node_memory.slots_per_node(node_bytes), start, stop)


def cap_trees(job, reserved_bytes):
    """Caps each thread's tree at the nodes its share of `reserved_bytes` holds, beyond those it
    has (at most the search's node cap): a tree never outgrows its reservation.  Every tree gets
    the same room.  Returns the iterations (all threads, a whole number each) that room holds:
    a slice of no more never meets its tree's cap (with an iteration budget, a slice that met it
    would make the answer depend on the slicing)."""
    parts = job.searcher.parts
    share = reserved_bytes // len(parts)
    extra = min(nodes_within(p, share, job.node_bytes, p.num_nodes + 1, job.node_cap) - p.num_nodes
                for p in parts)
    for p in parts:
        p.cap_nodes(max(1, min(job.node_cap, p.num_nodes + extra)))
    # a tree's first iteration adds its root as well
    each = extra - any(p.num_nodes == 0 for p in parts)
    return max(0, each) * len(parts)


def observe(job):
    """Raises its game's bytes per node from a finished search's trees, if they branched more
    than the game's probes did; a small tree says too little to count."""
    nodes = job.searcher.num_nodes
    if nodes >= node_memory.OBSERVE_MIN_NODES:
        node_memory.observe_tree(job.game.id, nodes, sum(p.num_slots for p in job.searcher.parts))
