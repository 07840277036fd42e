"""``ISMCTS.run(decided=True, decided_left=...)``: a budget run in slices (a server's time
slices) stops as decided exactly where the whole budget in one run would."""
import random

import pytest

from fagin.engines import new_game
from fagin.search.ismcts import ISMCTS, SearchSettings
from fagin.search.root_parallel import RootParallelSearch


def opening(seed):
    rng = random.Random(seed)
    state = new_game("london", 2, seed=seed)
    while state.is_chance_node():
        state.apply(state.sample_chance(rng.getrandbits(63)))
    return state


def sliced(state, seat, seed, budget, size):
    """The budget run in slices of `size`, each told what is left of the whole."""
    search = ISMCTS(state, seat, SearchSettings(rollout="policy"), seed)
    left, reason = budget, "iterations"
    while left:
        reason = search.run(iterations=min(size, left), decided=True, decided_left=left)
        left = budget - search.iterations
        if reason == "decided":
            break
    return search, reason


@pytest.mark.parametrize("seed", range(4))
def test_slices_told_the_whole_budget_stop_where_one_run_does(seed):
    state = opening(seed)
    seat = state.current_player()
    whole = ISMCTS(state, seat, SearchSettings(rollout="policy"), seed)
    reason = whole.run(iterations=400, decided=True)
    search, sliced_reason = sliced(state, seat, seed, 400, 37)
    assert (sliced_reason, search.iterations) == (reason, whole.iterations)
    assert search.result().stats == whole.result().stats


def test_without_decided_left_a_slice_weighs_only_its_own_iterations():
    """The reason for the argument: a slice of 20 of a 400 budget stops as soon as the lead
    passes 20, long before the budget could no longer change the move."""
    for seed in range(8):
        state = opening(seed)
        seat = state.current_player()
        search = ISMCTS(state, seat, SearchSettings(rollout="policy"), seed)
        search.run(iterations=100)
        told = ISMCTS(state, seat, SearchSettings(rollout="policy"), seed)
        told.run(iterations=100)
        if search.run(iterations=20, decided=True) == "decided":
            assert told.run(iterations=20, decided=True, decided_left=300) == "iterations"
            return
    pytest.fail("no slice decided on its own iterations")


def test_decided_left_below_the_runs_iterations_is_refused():
    state = opening(1)
    search = ISMCTS(state, state.current_player(), None, 1)
    with pytest.raises(ValueError, match="decided_left"):
        search.run(iterations=50, decided=True, decided_left=10)
    with pytest.raises(ValueError, match="decided_left"):
        search.run(time_ms=5, decided=True, decided_left=10)
    assert search.iterations == 0


def test_a_root_parallel_search_of_one_part_passes_it_on():
    state = opening(2)
    seat = state.current_player()
    one = RootParallelSearch(state, seat, threads=1, seed=2, rollout="policy")
    plain = ISMCTS(state, seat, SearchSettings(rollout="policy"), 2)
    assert one.run(iterations=400, decided_left=400) == plain.run(iterations=400, decided=True)
    assert one.iterations == plain.iterations
    two = RootParallelSearch(state, seat, threads=2, seed=2, rollout="policy")
    with pytest.raises(ValueError, match="one part"):
        two.run(iterations=400, decided_left=400)
