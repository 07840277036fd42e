"""Pondering: a session's kept tree searched on after its call has answered
(RecommendRequest.ponder_ms), while the other seats think.

A bot that waits for the others' moves has a search it could be running: the tree it will
continue at its next decision (``sessions.py``).  Pondering runs that tree on, at the root
it answered from, so that the seat's next call starts with a larger head start: the time the
others spend thinking becomes the seat's thinking too.  It is a guest of the server, never a
cost to a call:

- it runs only on workers no call is using (the admission's free workers, each pondering
  slice taking one), in its own threads, so that a call's slice never waits for a worker
  behind it;
- any call arriving (a search admitted, ``Admission.enter``) stops every pondering slice
  within an iteration (``ISMCTS.cancel``), and pondering resumes when a worker is idle again;
- its tree grows only within the tree memory no one holds and the server's node cap: its
  kept tree's reservation grows from free memory alone, never by dropping another kept tree,
  and pondering ends when no node more fits;
- it ends at its time limit (``ponder_ms`` after the answer), when the session's next call
  for the seat takes the tree (which waits for the slice under way to stop), or when the
  tree is dropped (limit, idle, memory wanted by a search, the server shutting down).

Everything here runs on the server's event loop but the slices, which run in the pondering
threads.  The counts are the metrics' (``metrics.py``).
"""
from __future__ import annotations

import asyncio
import collections
import functools
import time
from concurrent.futures import ThreadPoolExecutor

from fagin.search import memory as node_memory
from fagin.server import tree_memory

#: How long a waiting pondering tree sleeps at most before looking for an idle worker again
#: (it is woken at once when a call's slice or call ends; this covers what no event tells).
IDLE_POLL_S = 0.05

#: A pondering slice lasts the server's slice_ms times this: no call waits on it (a call
#: stops it), so only the loop's trips between slices count, and longer slices make fewer.
PONDER_SLICE_STRETCH = 4

#: Why pondering ended, for the metrics: its time limit, the session's next call took the
#: tree, the tree was dropped, no node more fits the tree memory or node cap, the server
#: shut down.
END_REASONS = ("time", "next call", "dropped", "memory", "shutdown")


class _Ponder:
    __slots__ = ("entry", "deadline", "task", "stopped", "why")

    def __init__(self, entry, deadline):
        self.entry = entry            # the sessions._Kept whose search it runs
        self.deadline = deadline      # time.monotonic() at which it ends
        self.task = None
        self.stopped = False
        self.why = None               # END_REASONS, once it ends


class Pondering:
    """The pondering trees of a server: started by the session store when it keeps a tree whose
    call asked for it, stopped by it when the tree is taken or dropped."""

    def __init__(self, config, admission):
        self.config = config
        self.admission = admission
        self.memory = admission.memory
        self._executor = None         # made at the first slice: most servers never ponder
        self.active: set = set()      # the _Ponder not yet ended
        self._slicing: set = set()    # those with a slice under way
        self._freed = None            # asyncio.Event: a worker may have come free
        # Counts for the metrics.
        self.started = 0
        self.iterations = 0
        self.worker_seconds = 0.0
        self.yields = 0               # slices stopped for a call
        self.ended = collections.Counter()
        admission.on_call = self.yield_to_call
        admission.on_free = self._wake

    def __len__(self):
        return len(self.active)

    # --- the session store's calls ------------------------------------------------------------

    def start(self, entry, ponder_ms):
        """Ponders `entry` (a kept tree, just kept) for up to `ponder_ms` from now."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:          # no loop (a library caller): nothing runs after the answer
            return
        ponder = _Ponder(entry, time.monotonic() + ponder_ms / 1000)
        entry.ponder = ponder
        self.active.add(ponder)
        self.started += 1
        ponder.task = loop.create_task(self._run(ponder))

    async def stop(self, entry, why):
        """Ends `entry`'s pondering and waits until its slice, if one is under way, has stopped:
        the tree is then the caller's alone."""
        ponder = entry.ponder
        if ponder is None:
            return
        self._end(ponder, why)
        await asyncio.shield(ponder.task)

    def abandon(self, entry, why):
        """Ends `entry`'s pondering without waiting (its tree is dropped: the slice under way,
        if any, stops within an iteration and nothing more is done with the tree)."""
        if entry.ponder is not None:
            self._end(entry.ponder, why)

    def close(self):
        """The server is shutting down: every pondering tree stops."""
        for ponder in list(self.active):
            self._end(ponder, "shutdown")
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)

    # --- the admission's calls ----------------------------------------------------------------

    def yield_to_call(self):
        """A call's search was admitted: every pondering slice stops within an iteration (each
        resumes once a worker is idle again)."""
        for ponder in self._slicing:
            ponder.entry.search.cancel()

    def _wake(self):
        if self._freed is not None:
            self._freed.set()

    # --- a pondering tree's course --------------------------------------------------------------

    def _end(self, ponder, why):
        if ponder.stopped:
            return
        ponder.stopped = True
        ponder.why = why
        if ponder in self._slicing:
            ponder.entry.search.cancel()

    def _idle_worker(self):
        """Whether a worker is free of calls and of other pondering slices, with no call waiting."""
        adm = self.admission
        return adm.free - len(self._slicing) >= 1 and not adm.wait_list and adm.queued == 0

    async def _wait_for_idle(self, seconds):
        if self._freed is None:
            self._freed = asyncio.Event()
        self._freed.clear()
        try:
            await asyncio.wait_for(self._freed.wait(), max(0.0, min(seconds, IDLE_POLL_S)))
        except asyncio.TimeoutError:
            pass

    async def _run(self, ponder):
        entry = ponder.entry
        search = entry.search
        try:
            while not ponder.stopped:
                left_ms = (ponder.deadline - time.monotonic()) * 1000
                if left_ms <= 0:
                    self._end(ponder, "time")
                    break
                if not self._idle_worker():
                    await self._wait_for_idle(left_ms / 1000)
                    continue
                room = self._room(entry)
                if room <= 0:
                    self._end(ponder, "memory")
                    break
                await self._slice(ponder, room, min(left_ms, self.config.slice_ms * PONDER_SLICE_STRETCH))
        finally:
            self.active.discard(ponder)
            self.ended[ponder.why or "time"] += 1
            entry.ponder = None

    async def _slice(self, ponder, room, ms):
        entry, search = ponder.entry, ponder.entry.search
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max(1, self.config.workers), thread_name_prefix="fagin-ponder")
        self._slicing.add(ponder)
        before, began = search.iterations, time.monotonic()
        try:
            reason = await asyncio.get_running_loop().run_in_executor(
                self._executor, functools.partial(search.run, iterations=room, time_ms=ms))
        finally:
            self._slicing.discard(ponder)
        # Stopped by a call, by the end of pondering, or neither: the search runs again either
        # way (pondering's next slice, or the session's next call).
        search.clear_cancel()
        if reason == "cancelled" and not ponder.stopped:
            self.yields += 1
        done = search.iterations - before
        entry.pondered += done
        self.iterations += done
        self.worker_seconds += time.monotonic() - began
        # What the tree holds now is counted, whatever its reservation was.
        if entry.reservation.bytes:
            self.memory.hold_kept(entry.reservation, search.tree_bytes)

    def _room(self, entry):
        """Iterations the kept tree may run before its next node would not fit: within the
        server's node cap and the tree memory no one holds (its reservation grown from free
        memory only); the tree is capped there."""
        search = entry.search
        cap = self.config.node_cap
        held = search.num_nodes
        if held >= cap or not entry.reservation.bytes:
            return 0
        # A slice at the speed the tree has shown, twice over: the reservation asked for.
        per_ms = search.iterations / max(search.elapsed_ms, 1e-3)
        expect = int(2 * per_ms * self.config.slice_ms * PONDER_SLICE_STRETCH) + 1
        spn = node_memory.slots_per_node(entry.node_bytes)
        want = search.bytes_at(min(cap, held + expect), spn)
        self.memory.grow_from_free(entry.reservation, want)
        fit = tree_memory.nodes_within(search, entry.reservation.bytes, entry.node_bytes, held + 1, cap)
        if fit <= held:
            return 0
        search.cap_nodes(fit)
        return fit - held
