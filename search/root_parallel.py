"""One search on several threads: root parallelism over ISMCTS.

``threads`` independent searches of the same position, each with its own
tree and its own seed, run at once (each releases the GIL for its whole loop)
and their root statistics are merged: visits and value sums add up, and the
regret-matching policies ("rm", "os") average, weighted by iterations.  No
tree is shared, so there are no locks in the loop; the price is that each
tree sees only its share of the iterations (Chaslot, Winands & van den Herik
2008 found root parallelism the strongest simple scheme for MCTS).

Part 0 uses the search's own seed, so one thread gives exactly the answer of
a plain :class:`~fagin.search.ismcts.ISMCTS`; with an iteration budget the
answer is reproducible for a given seed and number of threads.

    from fagin.search.root_parallel import root_parallel_search
    result = root_parallel_search(state, seat=0, iterations=20_000, threads=2, seed=7)
"""
from __future__ import annotations

import asyncio
import math
import threading
import time

from fagin.search.ismcts import ISMCTS, SearchResult, best_action
from fagin.search.limits import MAX_ITERATIONS, MAX_THREADS, MAX_TIME_MS, per_tree
from fagin.search.settings import search_settings


_GOLDEN = 0x9E3779B97F4A7C15


def part_seed(seed: int, part: int) -> int:
    """The seed of part `part` of a search seeded `seed` (part 0 keeps it)."""
    return (seed + part * _GOLDEN) & 0xFFFFFFFFFFFFFFFF


def split_iterations(iterations: int | None, parts: int) -> list:
    """Each part's share of an iteration budget (None: no iteration limit); shares differ by at most 1."""
    if iterations is None:
        return [None] * parts
    share, extra = divmod(iterations, parts)
    return [share + (1 if i < extra else 0) for i in range(parts)]


def combine_stop_reasons(reasons) -> str:
    """One stop reason for parts that stopped for `reasons`: a cancel or time-out of any part wins."""
    for reason in ("cancelled", "time", "decided"):
        if reason in reasons:
            return reason
    return "iterations"


def merge_results(results, selection: str, stop_reason: str, final: str = "visits") -> SearchResult:
    """The SearchResult of a search whose parts gave `results` (same position and seat)."""
    first = results[0]
    if len(results) == 1:
        return first
    total_iterations = sum(r.iterations for r in results)
    merged = []
    for i, s in enumerate(first.stats):
        parts = [r.stats[i] for r in results]
        visits = sum(p.visits for p in parts)
        mean = sum(p.visits * p.mean_value for p in parts) / visits if visits else 0.0
        if selection in ("rm", "os"):
            weights = [r.iterations for r in results]
            policy = (sum(w * p.policy for w, p in zip(weights, parts)) / total_iterations
                      if total_iterations else parts[0].policy)
        else:
            policy = None          # visit shares, below
        merged.append([s, visits, mean, policy])
    if selection not in ("rm", "os"):
        total_visits = sum(m[1] for m in merged)
        for m in merged:
            m[3] = m[1] / total_visits if total_visits else 1.0 / len(merged)
    stats = [s.with_counts(visits, mean, policy) for s, visits, mean, policy in merged]
    spreads = _merged_spreads(results, stats)
    picks = None
    if all(r.picks is not None for r in results):
        picks = {}
        for r in results:
            for a, n in r.picks.items():
                picks[a] = picks.get(a, 0.0) + n
    best = best_action(stats, selection, final, spreads, picks)
    return SearchResult(best.action, best.label, stats, total_iterations, sum(r.nodes for r in results),
                        max(r.elapsed_ms for r in results), stop_reason, spreads, picks)


def _merged_spreads(results, merged_stats):
    """The standard error of each action's pooled mean over the parts (from each part's
    visits, mean and standard error); None when a part has none."""
    if any(r.spreads is None for r in results):
        return None
    spreads = {}
    for i, m in enumerate(merged_stats):
        parts = [(r.stats[i], r.spreads.get(m.action)) for r in results]
        n = sum(p.visits for p, _ in parts)
        if n < 2:
            continue
        # Pooled sum of squared deviations: each part's own, plus its mean's distance from the pooled mean.
        ss = 0.0
        for p, se in parts:
            if p.visits == 0:
                continue
            within = (se * se * p.visits * (p.visits - 1)) if se is not None and p.visits > 1 else 0.0
            ss += within + p.visits * (p.mean_value - m.mean_value) ** 2
        spreads[m.action] = math.sqrt(ss / (n - 1) / n)
    return spreads


def _settle(future, result, error):
    """Completes `future` (on its loop) unless its awaiter was cancelled meanwhile."""
    if not future.done():
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)


def _call_soon(loop, callback):
    try:
        loop.call_soon_threadsafe(callback)
    except RuntimeError:          # the loop has closed
        pass


class _Run:
    """One run of a :class:`RootParallelSearch`: the budget of each part, and
    the failure and cancel handling shared by the threaded and async runs."""

    def __init__(self, search, iterations, time_ms, stop_at, decided_left=None):
        if iterations is None and time_ms is None and stop_at is None:
            raise ValueError("iterations/time_ms: give at least one budget")
        if decided_left is not None and len(search.parts) != 1:
            # Each part's lead says nothing of the merged one.
            raise ValueError("decided_left: a search of one part only")
        if iterations is not None and not 0 <= iterations <= MAX_ITERATIONS:
            raise ValueError(f"iterations: must be in 0..{MAX_ITERATIONS}, got {iterations}")
        if time_ms is not None and not 0 <= time_ms <= MAX_TIME_MS:
            raise ValueError(f"time_ms: must be in 0..{MAX_TIME_MS}, got {time_ms}")
        if time_ms is not None:
            deadline = time.monotonic() + time_ms / 1000
            stop_at = deadline if stop_at is None else min(stop_at, deadline)
        self.search = search
        self.stop_at = stop_at
        self.decided_left = decided_left
        self.shares = split_iterations(iterations, len(search.parts))
        self.reasons = [None] * len(search.parts)
        self.errors = []
        self.queued = []          # the parts' futures in an executor (async run only)

    def part(self, i):
        """Runs part ``i`` (in a worker thread); a failure stops the whole run."""
        try:
            ms = None
            if self.stop_at is not None:
                # The deadline is shared: a part started late gets what is left, capped
                # at the longest budget a part accepts (stop_at may be far off).
                ms = min(MAX_TIME_MS, max(0.0, (self.stop_at - time.monotonic()) * 1000))
            if self.decided_left is None:
                self.reasons[i] = self.search.parts[i].run(iterations=self.shares[i], time_ms=ms)
            else:
                self.reasons[i] = self.search.parts[i].run(iterations=self.shares[i], time_ms=ms, decided=True,
                                                           decided_left=self.decided_left)
        except BaseException as e:        # re-raised by outcome(), in the caller
            self.errors.append(e)
            self.stop()

    def stop(self):
        """Cancels every part, running or still waiting for a worker (safe from any thread)."""
        for f in self.queued:
            f.cancel()                    # only succeeds for a part not yet started
        self.search.cancel()

    def outcome(self) -> str:
        """The run's stop reason, or its first failure raised."""
        if self.errors:
            raise self.errors[0]
        return combine_stop_reasons([r for r in self.reasons if r is not None])


class RootParallelSearch:
    """A resumable search of ``state`` for ``seat`` on ``threads`` threads.

    ``settings``: a :class:`~fagin.search.settings.SearchSettings` for every part
    (``max_nodes`` per part), with ``fields`` of it changed.
    """

    def __init__(self, state, seat: int, threads: int = 2, seed: int = 0, settings=None, **fields):
        if not isinstance(threads, int) or not 1 <= threads <= MAX_THREADS:
            raise ValueError(f"threads: must be a whole number from 1 to {MAX_THREADS}, got {threads!r}")
        settings = search_settings(settings, **fields)
        # ``budget``: the whole search's iterations; each tree is told its share.
        if settings.budget is not None:
            settings = settings.replace(budget=per_tree(settings.budget, threads))
        self.parts = [ISMCTS(state, seat, settings, part_seed(seed, i)) for i in range(threads)]
        self.selection = self.parts[0].selection
        self.seat = seat

    @classmethod
    def of_parts(cls, parts):
        """A search of existing ``ISMCTS`` parts of one position and seat (a server's kept
        tree, continued: ``ISMCTS.reroot``)."""
        self = cls.__new__(cls)
        self.parts = list(parts)
        self.selection = self.parts[0].selection
        self.seat = self.parts[0].seat
        return self

    def _over_parts(self, name, combine):
        # One part is the common case (a server call is read many times): read it directly.
        parts = self.parts
        return getattr(parts[0], name) if len(parts) == 1 else combine(getattr(p, name) for p in parts)

    @property
    def iterations(self) -> int:
        return self._over_parts("iterations", sum)

    @property
    def elapsed_ms(self) -> float:
        return self._over_parts("elapsed_ms", max)

    @property
    def num_nodes(self) -> int:
        return self._over_parts("num_nodes", sum)

    @property
    def tree_bytes(self) -> int:
        """Bytes the parts' trees hold (see ``ISMCTS.tree_bytes``); safe to read while they run."""
        return sum(p.tree_bytes for p in self.parts)

    def run(self, iterations=None, time_ms=None, stop_at=None, decided_left=None) -> str:
        """Runs every part at once, each on its own thread (the calling thread
        runs part 0), for its share of ``iterations`` and until ``time_ms``
        from now or the ``time.monotonic()`` instant ``stop_at``, whichever
        comes first; returns the stop reason.

        ``decided_left`` (one part only): the iterations left of the whole budget this run
        is a slice of; the part stops as ``"decided"`` once they could not change its most
        visited move (``ISMCTS.run(decided=True, decided_left=...)``).

        If a part fails, every part is cancelled and the first failure is
        raised once all have stopped.
        """
        if len(self.parts) == 1 and stop_at is None:
            # The part itself checks the budgets as _Run would, and runs on this thread.
            if iterations is None and time_ms is None:
                raise ValueError("iterations/time_ms: give at least one budget")
            if decided_left is None:
                return self.parts[0].run(iterations=iterations, time_ms=time_ms)
            return self.parts[0].run(iterations=iterations, time_ms=time_ms, decided=True,
                                     decided_left=decided_left)
        run = _Run(self, iterations, time_ms, stop_at, decided_left)
        threads = [threading.Thread(target=run.part, args=(i,), daemon=True)
                   for i in range(1, len(self.parts))]
        for t in threads:
            t.start()
        run.part(0)
        for t in threads:
            t.join()
        return run.outcome()

    async def run_async(self, executor, iterations=None, time_ms=None, stop_at=None) -> str:
        """:meth:`run`, with each part run in ``executor`` (a thread pool) and awaited.

        The deadline is fixed when this is called, so a part that waits for
        a free worker gets only the time left.  If a part fails, every part
        is cancelled (those still waiting for a worker never start) and the
        first failure is raised; cancelling the awaiting task cancels every
        part and raises at once (running parts stop at their next iteration).
        """
        return (await self.run_async_then(executor, None, iterations, time_ms, stop_at))[0]

    async def run_async_then(self, executor, then, iterations=None, time_ms=None, stop_at=None,
                             decided_left=None):
        """:meth:`run_async`, then ``then(stop reason)`` once every part has
        stopped; returns (the stop reason, what ``then`` returned, or None
        without ``then``).  An exception of ``then`` is raised here.

        With one part, the part and ``then`` run in one work item of the
        executor and the loop is woken once, when both are done: a server
        builds its answer there, without a second trip through the loop.
        With several, ``then`` runs in the caller once the parts are done.
        ``decided_left``: as for :meth:`run`.
        """
        run = _Run(self, iterations, time_ms, stop_at, decided_left)
        loop = asyncio.get_running_loop()
        if len(self.parts) == 1:
            return await self._run_one(run, loop, executor, then)
        try:
            for i in range(len(self.parts)):
                run.queued.append(executor.submit(run.part, i))
        except BaseException:             # e.g. an executor shut down: stop the parts already handed over
            run.stop()
            raise
        if run.errors:                    # a part failed before the rest were queued
            run.stop()
        try:
            # Parts never raise (run.part keeps their failures for outcome()).
            await asyncio.wait([asyncio.wrap_future(f, loop=loop) for f in run.queued])
        except asyncio.CancelledError:
            run.stop()
            raise
        if not run.errors and any(f.cancelled() for f in run.queued):
            # An executor shut down with cancel_futures dropped a part that never ran.
            run.stop()
            raise asyncio.CancelledError("a part was dropped by its executor")
        reason = run.outcome()
        return reason, (None if then is None else then(reason))

    @staticmethod
    async def _run_one(run, loop, executor, then):
        """The one part of `run`, and `then`, in one work item; the loop is told once.

        Leaner than ``run_in_executor`` (no chained futures, no ``asyncio.wait``):
        the worker settles the awaited future itself, through one
        ``call_soon_threadsafe``."""
        done = loop.create_future()

        def work():
            run.part(0)
            try:
                reason = run.outcome()
                outcome = (reason, None if then is None else then(reason)), None
            except BaseException as e:    # raised in the awaiting task
                outcome = None, e
            try:
                loop.call_soon_threadsafe(_settle, done, *outcome)
            except RuntimeError:          # the loop has closed: no one awaits the answer
                pass

        try:
            queued = executor.submit(work)
        except BaseException:
            run.stop()
            raise
        run.queued.append(queued)
        # A work item cancelled before it ran (an executor shut down with
        # cancel_futures) never settles `done`: its awaiter is cancelled instead.
        queued.add_done_callback(lambda f: f.cancelled() and _call_soon(loop, done.cancel))
        try:
            return await done
        except asyncio.CancelledError:
            run.stop()                    # a part not yet started never starts
            raise

    def cancel(self):
        """Stops every part (safe from any thread)."""
        for p in self.parts:
            p.cancel()

    def result(self, stop_reason: str = "iterations") -> SearchResult:
        """The merged recommendation so far."""
        return merge_results([p.result(stop_reason) for p in self.parts], self.selection, stop_reason,
                             self.parts[0].final)


def root_parallel_search(state, seat: int, iterations=None, time_ms=None, seed=0, threads=2, **settings) -> SearchResult:
    """Runs one root-parallel search and returns its merged :class:`SearchResult`.

    With neither budget given, 1,000 iterations are run.
    """
    if iterations is None and time_ms is None:
        iterations = 1000
    settings.setdefault("budget", iterations)
    s = RootParallelSearch(state, seat, threads=threads, seed=seed, **settings)
    return s.result(s.run(iterations=iterations, time_ms=time_ms))
