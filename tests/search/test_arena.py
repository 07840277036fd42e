"""Bots and the arena (seeded, so these results are exact, not statistical flukes)."""
import pytest

from fagin.engines import new_game
from fagin.search import arena
from fagin.engines.kids_of_london.heuristic import KidsOfLondonHeuristicBot
from fagin.search.bots import RandomBot, make_bot

from ..games.kids_of_london.helpers import play, position


def test_seat_rotation_and_shares():
    result = arena.match("kids_of_london", ["random", "random", "random"], games=30, seed=3)
    assert [e.games for e in result.entries] == [30, 30, 30]
    assert 0 <= result.fair_share <= 1
    assert sum(e.wins for e in result.entries) == pytest.approx(result.fair_share * 90)
    assert "fair share" in result.table()


def test_ismcts_beats_random_players():
    result = arena.match("kids_of_london", ["ismcts:300", "random", "random", "random"],
                         games=40, seed=7, workers=2)
    assert result.entries[0].share > result.fair_share + 0.1


def test_matches_are_reproducible():
    a = arena.match("kids_of_london", ["heuristic", "random"], games=6, seed=2)
    b = arena.match("kids_of_london", ["heuristic", "random"], games=6, seed=2)
    assert [e.wins for e in a.entries] == [e.wins for e in b.entries]


def test_heuristic_avoids_becoming_the_richest():
    # Seat 0 already leads by far: robbing the banker with the 8 would make it richer still.
    st = position(3, "banker", coins=[30, 10, 12])
    choice = KidsOfLondonHeuristicBot().choose(st, 0, seed=1)
    assert choice != 8


def test_bots_only_see_their_own_information():
    worlds = [play(position(3, "jeweller", coins=[4, 9, 2]), a) for a in (8, 0)]
    for bot in (RandomBot(), KidsOfLondonHeuristicBot(), make_bot("ismcts:200")):
        assert bot.choose(worlds[0], 1, seed=5) == bot.choose(worlds[1], 1, seed=5)


def test_bad_bot_specs():
    for spec in ("alphazero", "ismcts:lots", "ismcts:0", "random:3", "ismcts:100x0", "ismcts:100xtwo",
                 "ismcts@50", "ismcts@0ms", "ismcts@50ms:100", "ismcts:100:greedy", "ismcts:100:random:policy",
                 "ismcts@fastms", "mcts@50ms"):
        with pytest.raises(ValueError, match="bot spec|unknown"):
            make_bot(spec)


def test_threaded_ismcts_bot_spec():
    bot = make_bot("ismcts:3000x2")
    assert (bot.iterations, bot.threads, bot.name) == (3000, 2, "ismcts:3000x2")
    assert make_bot("ismcts:500").name == "ismcts:500" and make_bot("ismcts:500").threads == 1
    st = new_game("kids_of_london", 3, seed=4)
    assert bot.choose(st, 0, seed=1) in st.legal_actions()


def test_timed_and_rollout_bot_specs():
    timed = make_bot("ismcts@50ms")
    assert (timed.iterations, timed.time_ms, timed.threads, timed.rollout, timed.name) == \
        (None, 50, 1, None, "ismcts@50ms")
    bot = make_bot("ismcts:2000:random")
    assert (bot.iterations, bot.time_ms, bot.rollout, bot.name) == (2000, None, "random", "ismcts:2000:random")
    bot = make_bot("ismcts@20msx2:policy")
    assert (bot.time_ms, bot.threads, bot.rollout, bot.name) == (20, 2, "policy", "ismcts@20msx2:policy")
    assert make_bot("ismcts:random").iterations == 2000
    st = new_game("gangs_of_kyoto", 3, seed=4)
    seat = st.current_player()
    for spec in ("ismcts@5ms", "ismcts:200:random", "ismcts:200:policy"):
        assert make_bot(spec).choose(st, seat, seed=1) in st.legal_actions()
    # The rollout setting reaches the search: the two playouts give different answers' statistics.
    from fagin.search.root_parallel import root_parallel_search
    a, b = (root_parallel_search(st, seat, iterations=500, seed=1, threads=1, rollout=r) for r in ("policy", "random"))
    assert a.stats != b.stats


def test_play_game_returns_per_entry():
    r = arena.play_game("kids_of_london", ["random"] * 4, [1, 2, 3, 0], seed=1)
    assert len(r) == 4 and set(r) <= {0.0, 1.0}


def test_wilson_interval():
    lo, hi = arena.wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-3) and hi == pytest.approx(0.5962, abs=1e-3)
    assert arena.wilson(0, 0) == (0.0, 1.0)


def test_policy_bot_plays_the_rollout_policy():
    """``policy``: the game's rollout policy as a bot (a yardstick for what the search adds)."""
    bot = make_bot("policy")
    assert bot.name == "policy"
    result = arena.match("london", ["policy", "random"], games=2, seed=1)
    assert sum(e.wins for e in result.entries) == 2
    with pytest.raises(ValueError, match="no rollout policy"):
        arena.match("kuhn_poker", ["policy", "random"], games=1, seed=1)


def test_a_match_with_progress_prints_its_running_score_and_gives_the_same_result(capsys):
    # A long curve step killed part way must still have printed its figures so far; the
    # batches that this takes do not change which games are played.
    quiet = arena.match("kids_of_london", ["heuristic", "random"], games=20, seed=5, paired=True)
    loud = arena.match("kids_of_london", ["heuristic", "random"], games=20, seed=5, paired=True,
                       progress=True, check_every=4)
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if "entry 0 scores" in line]
    assert [line.split()[0] for line in lines] == ["8", "16", "20"]
    assert lines[-1].strip().startswith(f"20 games: entry 0 scores {loud.score[0]:.1%}")
    assert [e.wins for e in loud.entries] == [e.wins for e in quiet.entries]
    assert loud.score == quiet.score
