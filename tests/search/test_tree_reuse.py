"""Tree reuse between decisions (``ISMCTS.reroot``) and the early stop of a decided search
(``ISMCTS.run(decided=True)``), and the bot settings built on them (``:reuse=1``,
``:decided=1``)."""
import random

import pytest

from fagin.engines import new_game
from fagin.search.bots import ISMCTSBot, make_bot
from fagin.search.ismcts import ISMCTS, SearchSettings


def settle(state, rng):
    """Resolves pending chance events."""
    while state.is_chance_node() and not state.is_terminal():
        state.apply(state.sample_chance(rng.getrandbits(63)))
    return state


def turn_in_progress(seed=1):
    """A London 2-player position whose seat, after its recommended move, decides again with
    nothing drawn in between: (position, seat, search of 400 iterations, the move)."""
    rng = random.Random(seed)
    state = settle(new_game("london", 2, seed=seed), rng)
    for _ in range(200):
        seat = state.current_player()
        search = ISMCTS(state, seat, SearchSettings(rollout="policy"), 7)
        search.run(iterations=400)
        action = search.result().action
        after = state.clone()
        after.apply(action)
        if not after.is_chance_node() and not after.is_terminal() and after.current_player() == seat:
            return state, seat, search, action
        state = settle(after, rng)
    raise AssertionError("no turn of two decisions found")


def root_visits(search):
    return sum(s.visits for s in search.result().stats)


def test_reroot_keeps_what_the_tree_knows_of_the_next_decision():
    state, seat, search, action = turn_in_progress()
    after = state.clone()
    after.apply(action)
    key = ISMCTS(after, seat).root_key
    known = search.node_visits(seat, key)
    assert known and sum(known.values()) > 0
    assert search.reroot(after, seed=3) == sum(known.values())
    assert search.root_key == key
    search.run(iterations=100)
    result = search.result()
    assert [s.action for s in result.stats] == after.legal_actions(seat)
    assert sum(s.visits for s in result.stats) == sum(known.values()) + 100
    assert result.label == after.action_label(result.action)


def test_reroot_to_a_position_the_tree_never_reached_changes_nothing():
    state, seat, search, _ = turn_in_progress()
    before = search.result()
    elsewhere = settle(new_game("london", 2, seed=99), random.Random(99))
    assert search.reroot(elsewhere, seed=3) == -1
    assert search.result().stats == before.stats
    fresh = ISMCTS(state, seat, SearchSettings(rollout="policy"), 7)
    assert fresh.reroot(state, seed=1) == -1            # no tree yet: nothing to keep


def test_reroot_is_reproducible_and_blind_to_what_the_seat_cannot_see():
    """Hidden information: two worlds that differ only in what the seat cannot see (the other
    hand, the deck's order) give the same tree, and so the same rerooted answer."""
    state, seat, _, action = turn_in_progress()
    twin = state.determinize(seat, 12345)
    assert twin.describe() != state.describe() and twin.view(seat) == state.view(seat)
    answers = []
    for world in (state, twin):
        search = ISMCTS(world, seat, SearchSettings(rollout="policy"), 7)
        search.run(iterations=400)
        after = world.clone()
        after.apply(action)
        head = search.reroot(after, seed=3)
        search.run(iterations=150)
        answers.append((head, search.result().stats))
    assert answers[0] == answers[1]
    assert answers[0][0] > 0


@pytest.mark.parametrize("settings, match", [
    ({"selection": "rm"}, "UCB"),
    ({"selection": "os"}, "UCB"),
    ({"final": "lcb"}, "final"),
    ({"analysis": True}, "analysis"),
])
def test_reroot_refuses_searches_whose_root_statistics_would_be_wrong(settings, match):
    state = settle(new_game("london", 2, seed=1), random.Random(1))
    search = ISMCTS(state, state.current_player(), SearchSettings(rollout="policy", **settings), 1)
    search.run(iterations=20)
    with pytest.raises(ValueError, match=match):
        search.reroot(state, seed=1)


def test_reroot_refuses_another_game_or_player_count():
    state = settle(new_game("london", 2, seed=1), random.Random(1))
    search = ISMCTS(state, state.current_player(), SearchSettings(rollout="policy"), 1)
    search.run(iterations=20)
    other = settle(new_game("fagins_gang", 2, seed=1), random.Random(1))
    with pytest.raises(ValueError, match="another game"):
        search.reroot(other, seed=1)
    three = settle(new_game("london", 3, seed=1), random.Random(1))
    with pytest.raises(ValueError, match="players"):
        search.reroot(three, seed=1)


@pytest.mark.parametrize("seed", range(6))
def test_a_decided_stop_recommends_what_the_whole_budget_would(seed):
    rng = random.Random(seed)
    state = settle(new_game("london", 2, seed=seed), rng)
    for _ in range(3 * seed):        # a few positions into the game
        state.apply(random.Random(seed).choice(state.legal_actions()))
        settle(state, rng)
    seat = state.current_player()
    whole = ISMCTS(state, seat, SearchSettings(rollout="policy"), seed)
    assert whole.run(iterations=300) == "iterations"
    early = ISMCTS(state, seat, SearchSettings(rollout="policy"), seed)
    reason = early.run(iterations=300, decided=True)
    if reason == "decided":
        assert early.iterations < 300
    else:
        assert reason == "iterations" and early.iterations == 300
    assert early.result().action == whole.result().action


def test_decided_stops_early_once_no_other_move_can_catch_up():
    """With one legal choice that dominates, the lead grows past the budget left well before
    the end; a time budget (no iterations left to count) never stops as decided."""
    stops = []
    for seed in range(8):
        rng = random.Random(seed)
        state = settle(new_game("london", 2, seed=seed), rng)
        seat = state.current_player()
        search = ISMCTS(state, seat, SearchSettings(rollout="policy"), seed)
        stops.append((search.run(iterations=400, decided=True), search.iterations))
        timed = ISMCTS(state, seat, SearchSettings(rollout="policy"), seed)
        assert timed.run(time_ms=5, decided=True) == "time"
    decided = [n for reason, n in stops if reason == "decided"]
    assert decided and all(n < 400 for n in decided)


def test_a_reusing_bot_plays_a_whole_game_legally_and_carries_its_trees():
    bot = make_bot("ismcts:60:reuse=1:decided=1")
    assert bot.reuse and bot.decided and bot.name == "ismcts:60:reuse=1:decided=1"
    rng = random.Random(4)
    state = settle(new_game("london", 2, seed=4), rng)
    heads = []
    for _ in range(120):
        if state.is_terminal():
            break
        seat = state.current_player()
        action = bot.choose(state, seat, rng.getrandbits(63))
        assert action in state.legal_actions(seat)
        heads.append(bot.head_start)
        state.apply(action)
        settle(state, rng)
    assert sum(h > 0 for h in heads) > len(heads) // 2      # most decisions start with a head start
    assert set(k[2] for k in bot._kept) == {0, 1}          # one tree per seat


def test_a_reusing_bot_drops_its_trees_for_another_game():
    bot = make_bot("ismcts:30:reuse=1")
    for game in ("london", "fagins_gang"):
        state = settle(new_game(game, 2, seed=1), random.Random(1))
        bot.choose(state, state.current_player(), 1)
        assert [k[0] for k in bot._kept] == [game]


@pytest.mark.parametrize("spec, match", [
    ("ismcts:100x2:reuse=1", "one thread"),
    ("ismcts_rm:100:reuse=1", "UCB"),
    ("oos:100:decided=1", "UCB"),
])
def test_bot_specs_that_cannot_reuse_are_refused(spec, match):
    with pytest.raises(ValueError, match=match) as info:
        make_bot(spec)
    assert spec in str(info.value)


def test_a_bot_without_reuse_answers_as_before():
    state = settle(new_game("london", 2, seed=2), random.Random(2))
    seat = state.current_player()
    plain = ISMCTSBot(iterations=80).choose(state, seat, 5)
    from fagin.search import ismcts
    assert plain == ismcts.run_search(state, seat, iterations=80, seed=5, rollout="policy").action
