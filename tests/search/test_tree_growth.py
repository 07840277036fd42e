"""A search answers by its deadline whatever the size of its tree.

The tree once grew by doubling its node and slot blocks and rebuilding its
hash table inside one iteration (0.2 s at 262k nodes, 1.7 s at 2M), while the
server stops a search only 50 ms before its deadline.  These tests grow a tree
past 330,000 nodes in short timed runs and measure each run's CPU time (the
thread's own, so that other processes on a busy machine do not count).

The tree is grown twice from fresh memory, with the same seed, so both grow
through the same sizes: a slow growth step is in the code and shows in both,
while a stall of the machine's own lands in one of them.  The test fails when
both growths have a run over the bound.

The bound is on the thread's user CPU, the code's own work.  Its system CPU is
the kernel's: on a host whose free memory is fragmented, the first touch of a
fresh huge-page chunk makes the kernel compact memory in the faulting thread
(measured here at up to 30-60 ms of system time in a 5 ms run, with user time
at most 8 ms), which says nothing about the search's growth steps; that is
bounded separately and loosely, so that a kernel stall is seen but only a
gross one fails.
Goofspiel grows fastest: about one node of 11 slots per iteration, 400,000
iterations a second; before the fix the doubling near 314,000 nodes took
0.3 s of CPU.
"""
import resource

import pytest

from fagin.engines import new_game
from fagin.search import ismcts
from fagin.search.ismcts import ISMCTS, SearchSettings
from fagin.search.root_parallel import RootParallelSearch

RUN_MS = 5
# User CPU a timed run may take past its budget: a few iterations and the clock's stride.
TOLERANCE_MS = 15
# User and system CPU together: the kernel's compaction of fragmented memory included.
KERNEL_TOLERANCE_MS = 150
NODES = 330_000


def _thread_cpu_ms():
    usage = resource.getrusage(resource.RUSAGE_THREAD)
    return usage.ru_utime * 1000, (usage.ru_utime + usage.ru_stime) * 1000


def grow():
    """A Goofspiel search grown past NODES in RUN_MS runs: (search, user CPU ms of each run,
    nodes after each, user and system CPU ms of each run)."""
    ismcts.release_tree_memory()          # kept memory would hide the cost of fresh memory
    st = new_game("goofspiel", 2, seed=1)
    s = ISMCTS(st, st.current_player(), SearchSettings(rollout="random"), 1)
    cpu, nodes, total = [], [], []
    while s.num_nodes < NODES:
        user, both = _thread_cpu_ms()
        s.run(time_ms=RUN_MS)
        user_after, both_after = _thread_cpu_ms()
        cpu.append(user_after - user)
        total.append(both_after - both)
        nodes.append(s.num_nodes)
    return s, cpu, nodes, total


@pytest.fixture(scope="module")
def grown():
    return grow()


def test_timed_runs_stop_on_time_while_the_tree_grows(grown):
    overruns = []
    for s, cpu, nodes, total in (grown, grow()):
        worst = max(range(len(cpu)), key=cpu.__getitem__)
        stalled = max(range(len(total)), key=total.__getitem__)
        if cpu[worst] <= RUN_MS + TOLERANCE_MS and total[stalled] <= RUN_MS + KERNEL_TOLERANCE_MS:
            return
        overruns.append(f"{cpu[worst]:.1f} ms of user CPU reaching {nodes[worst]:,} nodes, "
                        f"{total[stalled]:.1f} ms in all reaching {nodes[stalled]:,}")
    pytest.fail(f"in both growths a {RUN_MS} ms run took too much CPU: " + "; ".join(overruns))


def test_a_grown_tree_still_finds_its_first_nodes(grown):
    s, _, _, _ = grown
    st = new_game("goofspiel", 2, seed=1)
    assert s.node_actions(s.seat, s.root_key) == st.legal_actions(s.seat)
    assert s.result().stats[0].visits > 0


def test_tree_bytes_counts_the_tree_held(grown):
    s, _, _, _ = grown
    in_use = 24 * s.num_nodes + 40 * s.num_slots
    # Chunks' free ends and the hash table (at most 4 int32 buckets a node, two tables while one moves).
    assert in_use < s.tree_bytes < in_use + 2 * (2 << 20) + 6 * 4 * s.num_nodes + (4 << 20)


def test_the_node_cap_still_holds_across_chunks():
    st = new_game("kids_of_london", 4, seed=2)
    s = ISMCTS(st, st.current_player(), SearchSettings(rollout="random", max_nodes=70_000), 2)
    s.run(iterations=90_000)
    assert s.num_nodes == 70_000 and s.iterations == 90_000
    # A node added before the chunk and hash-table changes is still found with its slots.
    assert s.node_actions(s.seat, s.root_key) == st.legal_actions(s.seat)


def test_root_parallel_sums_tree_bytes():
    st = new_game("kids_of_london", 3, seed=1)
    search = RootParallelSearch(st, 0, threads=2, seed=1)
    search.run(iterations=2_000)
    assert search.tree_bytes == sum(p.tree_bytes for p in search.parts) > 0


def test_a_tree_cap_raised_step_by_step_grows_past_partial_chunks():
    # A server raises a search's node cap with its tree-memory reservation: a
    # chunk cut to an earlier cap must grow, not be followed by a chunk its nodes are not in
    # (before the fix, node i landed past the cut chunk's end: heap corruption).
    import random
    from fagin.engines import new_game
    from fagin.search.ismcts import ISMCTS
    search = ISMCTS(new_game("kids_of_london", 4, seed=1), 0, SearchSettings(max_nodes=1_000_000), 3)
    assert search.tree_bytes == 0                      # no tree before the first run
    rng, cap = random.Random(5), 1000
    while search.num_nodes < 200_000:
        cap += rng.randrange(1, 40_000)
        search.cap_nodes(cap)
        search.run(iterations=30_000)
        assert search.num_nodes <= search.max_nodes == cap
    search.cap_nodes(10)                               # never below what it holds
    assert search.max_nodes == search.num_nodes
    before = search.num_nodes
    search.run(iterations=5_000)
    assert search.num_nodes == before
    assert sum(s.visits for s in search.result().stats) == search.iterations
