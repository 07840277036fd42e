"""Root parallelism: parts split the budget, run at once, and merge at the root."""
import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from fagin.engines import new_game
from fagin.search import ismcts
from fagin.search.root_parallel import (RootParallelSearch, combine_stop_reasons, part_seed, root_parallel_search,
                                        split_iterations)

from ..games.kids_of_london.helpers import play, position


def _answer(result):
    """A result without its timing."""
    return result.action, result.stats, result.iterations, result.nodes, result.stop_reason


def test_one_thread_is_exactly_a_plain_search():
    st = new_game("kids_of_london", 4, seed=3)
    one = root_parallel_search(st, 0, iterations=3000, seed=11, threads=1)
    assert _answer(one) == _answer(ismcts.run_search(st, 0, iterations=3000, seed=11))


@pytest.mark.parametrize("selection", ["ucb", "rm", "os"])
def test_parts_split_the_budget_and_merge_at_the_root(selection):
    st = new_game("kids_of_london", 4, seed=3)
    merged = root_parallel_search(st, 1, iterations=3001, seed=5, threads=3, selection=selection)
    parts = [ismcts.run_search(st, 1, iterations=n, seed=part_seed(5, i), selection=selection)
             for i, n in enumerate([1001, 1000, 1000])]
    assert merged.iterations == 3001 and merged.nodes == sum(p.nodes for p in parts)
    for i, s in enumerate(merged.stats):
        visits = sum(p.stats[i].visits for p in parts)
        assert s.visits == visits
        assert s.mean_value == pytest.approx(sum(p.stats[i].visits * p.stats[i].mean_value
                                                 for p in parts) / visits)
        if selection == "ucb":
            assert s.policy == pytest.approx(visits / 3001)
        else:
            assert s.policy == pytest.approx(sum(p.iterations * p.stats[i].policy for p in parts) / 3001)
    assert sum(s.policy for s in merged.stats) == pytest.approx(1.0)
    assert merged.action == ismcts.best_action(merged.stats, selection).action


def test_reproducible_for_a_seed_and_thread_count():
    st = new_game("gangs_of_kyoto", 3, seed=2)
    a = root_parallel_search(st, 0, iterations=4000, seed=9, threads=2)
    b = root_parallel_search(st, 0, iterations=4000, seed=9, threads=2)
    c = root_parallel_search(st, 0, iterations=4000, seed=10, threads=2)
    assert _answer(a) == _answer(b) and a.stats != c.stats


def test_hidden_information_does_not_change_the_answer():
    """KL-18 with two threads: seat 2's answer ignores the cards seats 0 and 1 have chosen."""
    worlds = [play(position(4, "banker", coins=[3, 1, 4, 1]), a, b) for a, b in [(8, 0), (2, 7), (5, 5)]]
    answers = [root_parallel_search(w, 2, iterations=3000, seed=4, threads=2).stats for w in worlds]
    assert answers[0] == answers[1] == answers[2]


def _until_searching(parts, timeout=3.0):
    """Waits (up to `timeout` s) until every part has begun: its tree has a node (a part's
    iterations are counted when its run returns; its tree grows as it goes)."""
    end = time.monotonic() + timeout
    while not all(p.num_nodes > 0 for p in parts) and time.monotonic() < end:
        time.sleep(0.005)


def test_parts_run_at_once_and_cancel_together():
    st = new_game("kids_of_london", 4, seed=3)
    s = RootParallelSearch(st, 0, threads=2, seed=1)

    def watch():
        # Cancelled once both parts have begun, not after a fixed 50 ms, which could come before
        # a loaded machine had started the second; run one after the other, the second does
        # not begin within the 3 s waited (the first runs 5 s).
        _until_searching(s.parts)
        s.cancel()

    t = threading.Thread(target=watch)
    t.start()
    reason = s.run(time_ms=5000)
    t.join()
    assert reason == "cancelled"
    # Run one after the other, the second part would have started already cancelled.
    assert all(p.iterations > 0 for p in s.parts)
    assert s.result(reason).stop_reason == "cancelled"


def test_budget_helpers_and_bad_thread_counts():
    assert split_iterations(10, 3) == [4, 3, 3] and split_iterations(None, 2) == [None, None]
    assert split_iterations(1, 3) == [1, 0, 0]
    assert combine_stop_reasons(["iterations", "time"]) == "time"
    assert combine_stop_reasons(["time", "cancelled"]) == "cancelled"
    assert combine_stop_reasons(["iterations"] * 2) == "iterations"
    assert part_seed(7, 0) == 7 and part_seed(7, 1) != 7
    st = new_game("kids_of_london", 3, seed=1)
    for bad in (0, -1, 10_000, 1.5):
        with pytest.raises(ValueError, match="threads"):
            RootParallelSearch(st, 0, threads=bad)
    with pytest.raises(ValueError, match="budget"):
        RootParallelSearch(st, 0).run()


def test_more_threads_than_iterations():
    st = new_game("kids_of_london", 3, seed=1)
    r = root_parallel_search(st, 0, iterations=2, seed=1, threads=4)
    assert r.iterations == 2 and sum(s.visits for s in r.stats) == 2


class _FailingPart:
    """A search part that works for `ok_runs` runs, then raises (a stand-in for an engine bug)."""

    def __init__(self, part, ok_runs=0, after=()):
        self.part, self.ok_runs, self.after = part, ok_runs, after

    def run(self, iterations=None, time_ms=None):
        if self.ok_runs == 0:
            _until_searching(self.after)       # fails once these parts are under way
            raise RuntimeError("injected failure")
        self.ok_runs -= 1
        return self.part.run(iterations=iterations, time_ms=time_ms)

    def __getattr__(self, name):
        return getattr(self.part, name)


def _run_async(s, workers, **budget):
    with ThreadPoolExecutor(workers) as ex:
        return asyncio.run(s.run_async(ex, **budget))


@pytest.mark.parametrize("path", ["threads", "executor"])
def test_a_failing_part_cancels_the_others_and_its_error_surfaces(path):
    st = new_game("kids_of_london", 4, seed=3)
    s = RootParallelSearch(st, 0, threads=2, seed=1)
    s.parts[1] = _FailingPart(s.parts[1], after=[s.parts[0]])
    start = time.perf_counter()
    with pytest.raises(RuntimeError, match="injected failure"):
        if path == "threads":
            s.run(time_ms=5000)
        else:
            _run_async(s, 2, time_ms=5000)
    # Part 0 was running when part 1 failed: cancelled, not left to its 5 s.
    assert time.perf_counter() - start < 2.5
    assert s.parts[0].iterations > 0


def test_after_a_failure_parts_still_waiting_for_a_worker_never_search():
    st = new_game("kids_of_london", 4, seed=3)
    s = RootParallelSearch(st, 0, threads=3, seed=1)
    s.parts[0] = _FailingPart(s.parts[0])
    with pytest.raises(RuntimeError, match="injected failure"):
        _run_async(s, 1, iterations=3000)
    assert s.iterations == 0


def test_cancelling_the_awaiting_task_stops_every_part_promptly():
    st = new_game("kids_of_london", 4, seed=3)
    s = RootParallelSearch(st, 0, threads=3, seed=1)
    start = time.perf_counter()
    with ThreadPoolExecutor(2) as ex:
        async def go():
            task = asyncio.create_task(s.run_async(ex, time_ms=5000))
            # Cancelled once the two parts with a worker have begun (a fixed 50 ms could come
            # before a loaded machine had started them).
            end = time.monotonic() + 3
            while not (s.parts[0].num_nodes and s.parts[1].num_nodes) and time.monotonic() < end:
                await asyncio.sleep(0.005)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
        asyncio.run(go())
    # Leaving the with block waited for the workers: the running parts had stopped,
    # and the part still queued never ran.
    assert time.perf_counter() - start < 2.5
    assert s.parts[0].iterations > 0 and s.parts[1].iterations > 0 and s.parts[2].iterations == 0


def test_the_executor_run_gives_the_threaded_answer():
    st = new_game("kids_of_london", 4, seed=3)
    a = RootParallelSearch(st, 1, threads=3, seed=5)
    b = RootParallelSearch(st, 1, threads=3, seed=5)
    reason_a = a.run(iterations=3001)
    reason_b = _run_async(b, 2, iterations=3001)
    assert _answer(a.result(reason_a)) == _answer(b.result(reason_b))


def test_parts_share_one_deadline():
    st = new_game("kids_of_london", 4, seed=3)
    s = RootParallelSearch(st, 0, threads=2, seed=1)
    start = time.perf_counter()
    # One worker: part 1 waits for part 0 and then gets only what is left of the 1,000 ms (its
    # own budget would end the run after 2 s; 0.8 s of slack for a loaded machine's stalls).
    assert _run_async(s, 1, time_ms=1000) == "time"
    assert time.perf_counter() - start < 1.8
    assert s.run(stop_at=time.monotonic() + 0.05, time_ms=5000) == "time"
    with pytest.raises(ValueError, match="iterations"):
        s.run(iterations=-1)


def test_one_part_and_its_follow_up_run_in_one_work_item():
    """run_async_then with one part: the search and `then` in the same worker thread, the
    loop woken once (a server builds its answer there, without a second trip)."""
    st = new_game("kids_of_london", 4, seed=3)
    s = RootParallelSearch(st, 0, threads=1, seed=1)
    seen = []

    def then(reason):
        seen.append((threading.current_thread().name, s.iterations, reason))
        return "answer"

    async def go():
        loop = asyncio.get_running_loop()
        wakes = []
        real = loop.call_soon_threadsafe
        loop.call_soon_threadsafe = lambda *a, **k: (wakes.append(a), real(*a, **k))[1]
        with ThreadPoolExecutor(1, thread_name_prefix="part") as ex:
            outcome = await s.run_async_then(ex, then, iterations=300)
        return outcome, len(wakes)

    outcome, wakes = asyncio.run(go())
    assert outcome == ("iterations", "answer") and wakes == 1
    assert len(seen) == 1 and seen[0][0].startswith("part") and seen[0][1:] == (300, "iterations")


def test_one_part_failures_surface_in_the_awaiting_task():
    st = new_game("kids_of_london", 4, seed=3)
    s = RootParallelSearch(st, 0, threads=1, seed=1)

    def then(reason):
        raise ValueError("from then")

    with ThreadPoolExecutor(1) as ex:
        with pytest.raises(ValueError, match="from then"):
            asyncio.run(s.run_async_then(ex, then, iterations=50))
    s.parts[0] = _FailingPart(s.parts[0])
    with pytest.raises(RuntimeError, match="injected failure"):
        _run_async(s, 1, iterations=50)


@pytest.mark.parametrize("threads", [1, 2])
def test_a_run_dropped_by_an_executor_shutdown_is_cancelled_not_answered(threads):
    """Not left waiting (one part), nor answered as if its budget were spent (several)."""
    st = new_game("kids_of_london", 4, seed=3)
    s = RootParallelSearch(st, 0, threads=threads, seed=1)
    ex = ThreadPoolExecutor(1)
    release = threading.Event()
    ex.submit(release.wait, 10)                 # the only worker is busy: the part is queued

    async def go():
        task = asyncio.create_task(s.run_async(ex, iterations=50))
        await asyncio.sleep(0)                  # the part is handed to the executor
        ex.shutdown(wait=False, cancel_futures=True)
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 5)     # a TimeoutError here: it was left waiting

    try:
        asyncio.run(go())
    finally:
        release.set()
    assert s.iterations == 0
