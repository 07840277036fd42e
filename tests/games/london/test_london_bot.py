"""London's heuristic bot and rollout policy: legal, informed only by what a seat knows
(LN-83 to LN-86), and quicker to finish a game than uniform play (LN-74)."""
import itertools
import random

import pytest

from fagin.engines.game import decisions
from fagin.engines.london import engine as E
from fagin.engines.london.heuristic import LondonHeuristicBot
from fagin.search.playouts import random_playouts, rollout_policy_violations

from .helpers import GAME, position


def _play(players, seed, bots):
    st = GAME.new_initial_state(players)
    rng = random.Random(seed)
    for seat in decisions(st, rng):
        a = bots[seat].choose(st, seat, rng.getrandbits(63))
        assert a in st.legal_actions(seat)
        st.apply(a)
    return st


@pytest.mark.parametrize("players", [2, 3, 4])
def test_rollout_policy_answers_are_legal(players):
    checked, illegal = rollout_policy_violations(GAME.new_initial_state(players), 20, seed=players)
    assert checked > 1000 and illegal == 0


@pytest.mark.parametrize("players, share", [(2, 0.9), (3, 0.75), (4, 0.7)])
def test_rollout_policy_ends_the_game_sooner_than_uniform_play_LN_74(players, share):
    """Uniform play keeps cycling cards through the Card Display; the policy draws from the deck,
    whose last card ends the game (LN-74)."""
    st = GAME.new_initial_state(players)
    _, uniform, _ = random_playouts(st, 100, seed=1)
    _, policy, _ = random_playouts(st, 100, seed=1, policy=True)
    assert policy < share * uniform


@pytest.mark.parametrize("players", [2, 4])
def test_heuristic_plays_whole_games_legally(players):
    bot = LondonHeuristicBot()
    st = _play(players, players, [bot] * players)
    assert st.is_terminal()


def test_rollout_policy_is_the_heuristic_with_a_uniform_share():
    """The search's playouts play as the heuristic bot does (one player, written once in
    rollout.pxi), except one decision in twenty, which is uniform."""
    from fagin.search.playouts import rollout_policy_answers
    st = GAME.new_initial_state(3)
    rng = random.Random(4)
    checked = 0
    for seat in decisions(st, rng):
        if checked == 40:
            break
        legal = st.legal_actions()
        if len(legal) > 2:
            answers = rollout_policy_answers(st, 400, seed=checked)
            picks = {LondonHeuristicBot().choose(st, seat, seed) for seed in range(12)}
            assert sum(answers.get(a, 0) for a in picks) >= 0.85 * 400     # ties: any of the bot's picks
            checked += 1
        st.apply(rng.choice(legal))
    assert checked == 40


def test_heuristic_beats_random_play():
    from fagin.search.bots import RandomBot
    wins = 0
    for g in range(6):
        bots = [LondonHeuristicBot(), RandomBot()] if g % 2 == 0 else [RandomBot(), LondonHeuristicBot()]
        wins += _play(2, g, bots).returns()[g % 2]
    assert wins >= 5


def test_heuristic_ignores_what_its_seat_cannot_see_LN_84_LN_85():
    """Re-dealing the others' hidden cards and the deck (a determinization for the bot's
    seat) never changes its choice."""
    bot = LondonHeuristicBot()
    st = GAME.new_initial_state(3)
    rng = random.Random(7)
    checked = 0
    for seat in itertools.islice(decisions(st, rng), 60):
        seed = rng.getrandbits(63)
        a = bot.choose(st, seat, seed)
        for d in range(3):
            assert bot.choose(st.determinize(seat, d), seat, seed) == a
        checked += 1
        st.apply(a)
    assert checked == 60


def test_the_search_evaluation_is_a_return_estimate_that_favours_the_leader():
    """GameDef.evaluate (the search's estimate, not a rule): each seat's value lies in (0, 1), the
    seat ahead on the position's would-be final score (LN-75 to LN-80) gets more than 1/2, and
    a lasting money card counts for the Run Cities to come."""
    even = position(players=2)
    a, b = E.evaluation(even.to_bytes())
    assert 0 < a < 1 and abs(a - b) < 1e-9
    ahead = position(players=2, vp={0: 12})
    a, b = E.evaluation(ahead.to_bytes())
    assert a > 0.5 > b
    engine = position(players=2, stacks={0: [["grand_hotel"]], 1: [["billingsgate_market"]]})
    a, b = E.evaluation(engine.to_bytes())
    assert a > b, "Grand Hotel (+£4, stays) promises more than Billingsgate (+£8 once, not yet used)"


def test_policy_searches_stop_their_playouts_and_evaluate():
    """With the policy rollout, London's playouts stop after GameDef.rollout_depth actions and
    take the evaluation: an iteration costs a fraction of a full playout."""
    import time
    from fagin.search import ismcts
    st = GAME.new_initial_state(2)
    st.resolve_chance(3)
    timings = {}
    for rollout in ("random", "policy"):
        search = ismcts.ISMCTS(st, st.current_player(), ismcts.SearchSettings(rollout=rollout), 1)
        # This thread's CPU (the search runs in it): a loaded machine's preemptions are not its cost.
        t = time.thread_time()
        search.run(iterations=300)
        timings[rollout] = time.thread_time() - t
        assert search.result().iterations == 300
    assert timings["policy"] < timings["random"]
