"""Tuned search settings: bot-spec settings, the final-move rule, the
playout cut-off, each game's GameSpec.tuned_settings, and the Optuna tuner."""
import dataclasses
import time

import pytest

from fagin.engines import new_game
from fagin.engines.game import BudgetSettings, TunedSettings
from fagin.engines.registry import GAMES
from fagin.search import arena, ismcts, limits, tune
from fagin.search.bots import make_bot
from fagin.search.ismcts import ActionStats, ISMCTS, best_action, SearchSettings


def _london(players=2, seed=1):
    import random
    st = new_game("london", players)
    rng = random.Random(seed)
    while st.is_chance_node():
        st.apply(st.sample_chance(rng.getrandbits(63)))
    return st


def test_bot_specs_set_search_settings():
    bot = make_bot("ismcts:256:c=0.2:prior=3:cut=12:final=lcb")
    assert bot.iterations == 256 and bot.exploration == 0.2
    assert bot.tuning == {"prior": 3.0, "cutoff": 12, "final": "lcb"}
    assert bot.name == "ismcts:256:c=0.2:prior=3:cut=12:final=lcb"
    assert make_bot("ismcts@50ms:policy:c=0.5").exploration == 0.5
    with pytest.raises(ValueError, match="unknown setting 'depth'"):
        make_bot("ismcts:256:depth=3")
    with pytest.raises(ValueError, match="cut='x' is not a valid value"):
        make_bot("ismcts:256:cut=x")


def test_settings_reach_the_search_and_bad_ones_are_refused():
    st = _london()
    s = ISMCTS(st, st.current_player(),
               SearchSettings(rollout="policy", cutoff=5, final="lcb", exploration=0.3, prior=2.0))
    assert (s.final, s.exploration, s.prior) == ("lcb", 0.3, 2.0)
    with pytest.raises(ValueError, match="final: one of visits, lcb"):
        ISMCTS(st, st.current_player(), SearchSettings(final="mean"))
    with pytest.raises(ValueError, match="cutoff: must be from 0"):
        ISMCTS(st, st.current_player(), SearchSettings(rollout="policy", cutoff=-1))


def test_the_cutoff_changes_how_far_playouts_go():
    # Cut after 1 rollout action, playouts are far cheaper than played to the end (cut 0).
    st = _london()
    short = ISMCTS(st, st.current_player(), SearchSettings(rollout="policy", cutoff=1), 3)
    full = ISMCTS(st, st.current_player(), SearchSettings(rollout="policy", cutoff=0), 3)
    # Timed in this thread's CPU (the search runs in it), not the wall clock: the short run takes
    # ~0.1 ms, and one preemption of a few ms on a loaded machine made it look as long as the other.
    began = time.thread_time()
    short.run(iterations=40)
    between = time.thread_time()
    full.run(iterations=40)
    assert (between - began) * 3 < time.thread_time() - between


def _stats(*rows):
    return [ActionStats(a, str(a), v, m, 0.0) for a, v, m in rows]


def test_the_lower_confidence_bound_prefers_a_sure_move_to_a_lucky_one():
    stats = _stats((1, 100, 0.60), (2, 30, 0.70), (3, 5, 0.99))
    spread = {1: 0.01, 2: 0.08, 3: 0.01}
    assert best_action(stats, "ucb").action == 1                      # most visits
    # 2's bound 0.70 - 1.645 * 0.08 = 0.57 < 1's 0.58; 3 has under a tenth of the most visits.
    assert best_action(stats, "ucb", "lcb", spread).action == 1
    spread[2] = 0.02
    assert best_action(stats, "ucb", "lcb", spread).action == 2
    # Without spreads (root-parallel parts merged, say) the rule falls back to the visits.
    assert best_action(stats, "ucb", "lcb", {}).action == 1


def test_the_prior_rule_holds_to_the_policys_pick_until_another_move_is_clearly_better():
    stats = _stats((1, 100, 0.50), (2, 300, 0.53), (3, 50, 0.50))
    picks = {1: 90.0, 2: 10.0}
    spreads = {1: 0.03, 2: 0.02, 3: 0.05}
    # 2 leads by 0.03, under 1.645 * hypot(0.02, 0.03) = 0.059: the pick stands.
    assert best_action(stats, "ucb", "prior", spreads, picks).action == 1
    spreads = {1: 0.01, 2: 0.01, 3: 0.05}       # now 0.03 > 1.645 * 0.014
    assert best_action(stats, "ucb", "prior", spreads, picks).action == 2
    assert best_action(stats, "ucb", "prior", spreads, None).action == 2      # no prior: most visits


def test_root_parallel_parts_merge_their_spreads_and_picks():
    from fagin.search.root_parallel import root_parallel_search
    st = _london()
    one = root_parallel_search(st, st.current_player(), iterations=120, seed=4, threads=2, rollout="policy",
                               final="prior")
    assert one.picks and sum(one.picks.values()) == 120
    assert one.spreads and all(v >= 0 for v in one.spreads.values())


def test_a_search_with_the_lcb_rule_recommends_a_move_it_visited():
    st = _london()
    r = ISMCTS(st, st.current_player(), SearchSettings(rollout="policy", final="lcb"), 2)
    r.run(iterations=200)
    res = r.result()
    chosen = res.by_action()[res.action]
    assert chosen.visits >= 0.1 * max(s.visits for s in res.stats)


def test_game_spec_tuned_settings_are_the_defaults_by_player_count(monkeypatch):
    spec = GAMES["kids_of_london"]
    tuned = dataclasses.replace(spec, tuned_settings=(TunedSettings(None, {"exploration": 0.4}),
                                                      TunedSettings(3, {"exploration": 0.25, "final": "lcb"})))
    assert limits.tuned(tuned, 2).given() == {"exploration": 0.4}
    assert limits.tuned(tuned, 3).given() == {"exploration": 0.25, "final": "lcb"}
    assert limits.tuned(dataclasses.replace(spec, tuned_settings=()), 2).given() == {}
    bad = dataclasses.replace(spec, tuned_settings=(TunedSettings(None, {"depth": 3}),))
    with pytest.raises(ValueError, match="GameSpec.tuned_settings tunes"):
        limits.tuned(bad, 2)


def test_the_search_takes_its_games_tuned_settings_unless_told_otherwise(monkeypatch):
    st = _london()
    asked = []

    def fake(spec, players, iterations=None, selection="ucb"):
        asked.append((spec.id, players, iterations))
        return SearchSettings(exploration=0.123, final="lcb", cutoff=7)

    monkeypatch.setattr(ismcts, "tuned", fake)
    s = ISMCTS(st, st.current_player(), SearchSettings(rollout="policy"))
    assert (s.exploration, s.final) == (0.123, "lcb") and asked == [("london", 2, None)]
    ISMCTS(st, st.current_player(), SearchSettings(rollout="policy", budget=5000))
    assert asked[-1] == ("london", 2, 5000)
    for bad in (-1, 2.5, "4096", True):
        with pytest.raises(ValueError, match=r"^budget: "):
            ISMCTS(st, st.current_player(), SearchSettings(budget=bad))
    s = ISMCTS(st, st.current_player(), SearchSettings(exploration=0.9, final="visits"))
    assert (s.exploration, s.final) == (0.9, "visits")


def test_every_rooms_tuned_settings_are_valid():
    for spec in GAMES.values():
        budgets = [None] + [entry.least_iterations for entry in spec.budget_settings]
        for players in range(spec.min_players, spec.max_players + 1):
            st = new_game(spec.id, players)
            while st.is_chance_node():
                st.apply(st.sample_chance(1))
            if st.is_terminal():
                continue
            for budget in budgets:
                settings = limits.tuned(spec, players, budget).given()
                rollout = settings.pop("rollout", spec.rollout)
                assert rollout == limits.default_rollout(spec, players, budget) and rollout in ismcts.ROLLOUTS
                ISMCTS(st, st.current_player(), SearchSettings(rollout=rollout, budget=budget, **settings))


def test_settings_for_large_budgets_apply_from_their_threshold():
    """GameSpec.budget_settings: entries for a player count (or every count) that a search's
    iteration budget reaches are laid over GameSpec.tuned_settings, smallest threshold first; a
    search on time alone (no iterations known) keeps GameSpec.tuned_settings."""
    spec = dataclasses.replace(GAMES["kids_of_london"], tuned_settings=(TunedSettings(None, {"exploration": 0.5}),),
                               budget_settings=(BudgetSettings(5000, None, {"prior": 8.0}),
                                                BudgetSettings(1000, 2, {"rollout": "policy", "prior": 4.0})))
    assert spec.rollout == "random"
    assert limits.tuned(spec, 2).given() == limits.tuned(spec, 2, 999).given() == {"exploration": 0.5}
    assert limits.tuned(spec, 2, 1000).given() == {"exploration": 0.5, "rollout": "policy", "prior": 4.0}
    assert limits.tuned(spec, 2, 5000).given() == {"exploration": 0.5, "rollout": "policy", "prior": 8.0}
    assert limits.tuned(spec, 3, 1000).given() == {"exploration": 0.5}
    assert limits.tuned(spec, 3, 5000).given() == {"exploration": 0.5, "prior": 8.0}
    assert [limits.default_rollout(spec, 2, n) for n in (None, 999, 1000)] == ["random", "random", "policy"]
    bad = dataclasses.replace(spec, budget_settings=(BudgetSettings(10, None, {"depth": 3}),))
    assert limits.tuned(bad, 2, 9).given() == {"exploration": 0.5}
    with pytest.raises(ValueError, match="GameSpec.tuned_settings tunes"):
        limits.tuned(bad, 2, 10)


def test_the_tuning_space_follows_what_the_game_has():
    # London and Oliver Twist ship a learned evaluation, so the tuner also tries it; Oliver
    # Twist's hand-written evaluation plays no part unless a search cuts its playouts (its
    # rollout_depth is 0), and the tuner may cut them.
    # Both keep a score, so a cut-off may also be scored by the margin, at a drawn scale.
    for game_id in ("london", "oliver_twist"):
        assert set(tune.space(game_id, 2)) == {"c", "prior", "oprior", "widen", "cut", "turns", "eval", "mscale",
                                               "opp", "final"}
        assert tune.space(game_id, 2)["eval"] == ("choice", ("handwritten", "learned", "margin"))
    # Gangs of Kyoto has evaluations (hand-written and learned) too, but its searches play
    # uniform playouts (GameSpec.rollout), which are never cut, so the tuner draws neither.
    assert set(tune.space("gangs_of_kyoto", 2)) == {"c", "opp", "final"}
    # From 4,096 iterations at 2 players its search plays the rollout policy with a prior
    # (GameSpec.budget_settings): the tuner then varies the policy's settings too.
    assert {"prior", "oprior", "widen"} <= set(tune.space("gangs_of_kyoto", 2, 4096))
    assert set(tune.space("gangs_of_kyoto", 2, 1024)) == {"c", "opp", "final"}
    assert set(tune.space("kuhn_poker", 2)) == {"c", "opp", "final"}
    assert tune.bot_spec(64, {"c": 0.123456, "final": "lcb"}) == "ismcts:64:c=0.1235:final=lcb"
    make_bot(tune.bot_spec(64, {"c": 0.1, "prior": 3.0, "cut": 12, "final": "lcb"}))


def test_a_small_study_runs_and_reports(capsys):
    pytest.importorskip("optuna")
    tune.main(["--game", "kuhn_poker", "--iterations", "16", "--trials", "3", "--games", "8", "--seed", "2"])
    out = capsys.readouterr().out
    assert out.count("trial ") >= 3 and "best: ismcts:16:c=" in out


def test_a_match_on_a_local_ray_cluster_plays_the_same_games():
    """``--ray local`` plays the very games of a local match. Run as the command, in a process
    of its own: a local Ray started inside a test worker that has hosted gRPC servers failed to
    bring up its raylet on CI (its own gRPC beside the worker's)."""
    pytest.importorskip("ray")
    import subprocess
    import sys
    command = [sys.executable, "-m", "fagin.search.arena", "--game", "kuhn_poker", "--lineup", "ismcts:8",
               "random", "--games", "8", "--paired", "--seed", "5"]
    here = subprocess.run(command + ["--workers", "1"], capture_output=True, text=True, timeout=120)
    there = subprocess.run(command + ["--ray", "local"], capture_output=True, text=True, timeout=300)
    assert here.returncode == 0 and there.returncode == 0, there.stderr[-2000:]
    assert "4 paired deals (8 games)" in there.stdout and there.stdout == here.stdout


def _kuhn_root():
    st = new_game("kuhn_poker", 2)
    while st.is_chance_node():
        st.apply(st.sample_chance(3))
    return st


def test_observer_keys_share_the_other_seats_nodes_across_determinizations():
    # Kuhn poker: seat 1's own information set holds its card, so under "own" keys each
    # of the two cards seat 0 does not hold makes its own node after each of seat 0's
    # actions; keyed by seat 0's view (and the options) the two are one node.
    st = _kuhn_root()
    own = ISMCTS(st, 0, SearchSettings(opponents="own"), 1)
    observer = ISMCTS(st, 0, SearchSettings(opponents="observer"), 1)
    own.run(iterations=2000)
    observer.run(iterations=2000)
    assert own.opponents == "own" and observer.opponents == "observer"
    assert own.tree_census()[1][0] == 4             # 2 histories x 2 cards
    assert observer.tree_census()[1][0] == 2        # 2 histories
    assert observer.tree_census()[0][0] == own.tree_census()[0][0] == 2   # the root, pass-bet
    with pytest.raises(ValueError, match="opponents: one of own, observer"):
        ISMCTS(st, 0, SearchSettings(opponents="mine"))


def test_observer_keys_never_show_a_seat_what_it_cannot_know():
    # The position and its view for the searching seat (every hidden card forgotten) give
    # the same answer for the same seed: "observer" keys read only the searcher's view.
    for st in (_kuhn_root(), _london()):
        seat = st.current_player()
        twin = st.game.from_description(st.view(seat))
        answers = []
        for position in (st, twin):
            s = ISMCTS(position, seat, SearchSettings(opponents="observer", rollout="policy", turns=1), 4)
            s.run(iterations=300)
            answers.append((s.result().stats, s.tree_census()))
        assert answers[0] == answers[1]


def test_policy_opponents_leave_the_tree_to_the_searching_seat():
    # "policy" opponents (an opponent model): the other seats play the game's rollout policy in
    # the tree as in the playouts, so the tree holds the searching seat's nodes only, where "own"
    # keys grow the others' too; the position and the searching seat's view of it give the
    # same answer for the same seed.  A game without a rollout policy is refused, naming it.
    st = new_game("oliver_twist", 3, seed=3)
    while st.is_chance_node():
        st.apply(st.sample_chance(1))
    seat = st.current_player()
    census = {}
    for opponents in ("own", "policy"):
        s = ISMCTS(st, seat, SearchSettings(rollout="policy", opponents=opponents), 2)
        s.run(iterations=600)
        assert s.opponents == opponents
        census[opponents] = s.tree_census()
    assert set(census["policy"]) == {seat} and set(census["own"]) > {seat}
    twin = st.game.from_description(st.view(seat))
    answers = []
    for position in (st, twin):
        s = ISMCTS(position, seat, SearchSettings(rollout="policy", opponents="policy"), 4)
        s.run(iterations=300)
        answers.append((s.result().stats, s.tree_census()))
    assert answers[0] == answers[1]
    assert make_bot("ismcts:64:opp=policy").tuning == {"opponents": "policy"}
    with pytest.raises(ValueError, match=r"^opponents: 'policy' needs the game's rollout policy"):
        ISMCTS(_kuhn_root(), 0, SearchSettings(opponents="policy"))
    with pytest.raises(ValueError, match=r"^opponents: 'policy' needs the game's rollout policy"):
        ISMCTS(st, seat, SearchSettings(rollout="random", opponents="policy"))


def test_turn_cutoffs_stop_playouts_where_a_turn_ends():
    # London 2 players: a playout cut where the first turn out of the tree ends is shorter
    # than one cut at the end of the third, and both are scored by the evaluation.
    st = _london()
    seat = st.current_player()
    lengths = {}
    for turns in (1, 3):
        s = ISMCTS(st, seat, SearchSettings(rollout="policy", cutoff=100_000, turns=turns), 5)
        s.run(iterations=100)
        assert s.turns == turns and s.evaluated == 100
        lengths[turns] = s.rollout_actions / 100
    assert 0 < lengths[1] < lengths[3]
    plain = ISMCTS(st, seat, SearchSettings(rollout="policy", cutoff=12), 5)
    plain.run(iterations=100)
    assert plain.turns == 0 and plain.rollout_actions <= 12 * 100
    assert make_bot("ismcts:64:turns=2:opp=observer").tuning == {"turns": 2, "opponents": "observer"}
    with pytest.raises(ValueError, match="turns: must be from 0"):
        ISMCTS(st, seat, SearchSettings(rollout="policy", turns=-1))


def test_a_margin_evaluation_scores_cut_off_playouts_by_score_margins():
    # London 2 players, playouts cut after 2 actions (no playout reaches the end): with a
    # scale far wider than any margin every cut-off scores about 0.5, so every root move's
    # mean does; with a scale far narrower a cut-off scores about 0, 0.5 or 1 (behind, level,
    # ahead), so the means spread.
    st = _london()
    seat = st.current_player()
    wide = ISMCTS(st, seat, SearchSettings(rollout="policy", cutoff=2, evaluation="margin", margin_scale=1e6), 4)
    wide.run(iterations=200)
    assert wide.evaluation == "margin" and wide.margin_scale == 1e6 and wide.evaluated == 200
    assert all(abs(s.mean_value - 0.5) < 1e-4 for s in wide.result().stats if s.visits)
    narrow = ISMCTS(st, seat, SearchSettings(rollout="policy", cutoff=2, evaluation="margin", margin_scale=0.01), 4)
    narrow.run(iterations=200)
    means = [s.mean_value for s in narrow.result().stats if s.visits]
    assert max(means) - min(means) > 0.05
    # The bot spec and the game's tuned settings reach it.
    bot = make_bot("ismcts:64:eval=margin:mscale=2.5")
    assert bot.tuning == {"evaluation": "margin", "margin_scale": 2.5} and bot.name.endswith("mscale=2.5")
    assert "margin_scale" in limits.TUNED_SETTINGS


def test_a_margin_evaluation_is_refused_where_it_cannot_work():
    st = _london()
    seat = st.current_player()
    for bad in (0, -1.0, float("nan"), 1e9, "4"):
        with pytest.raises(ValueError, match="margin_scale: must be a number above 0"):
            ISMCTS(st, seat, SearchSettings(rollout="policy", evaluation="margin", margin_scale=bad))
    kuhn = new_game("kuhn_poker", 2)
    kuhn.apply(kuhn.legal_actions()[0])
    kuhn.apply(kuhn.legal_actions()[0])
    with pytest.raises(ValueError, match="evaluation: kuhn_poker keeps no score"):
        ISMCTS(kuhn, kuhn.current_player(), SearchSettings(evaluation="margin"))
    with pytest.raises(ValueError, match="evaluation: one of handwritten, learned, margin"):
        ISMCTS(st, seat, SearchSettings(evaluation="score"))


def test_progressive_widening_keeps_a_wide_node_to_the_policys_favourites():
    # A London decision of a played game offering at least 10 actions.  Widened at 0.5, a node that has given its
    # actions n visits considers only ceil(0.5 * sqrt(n + 1)) of them, so 64 iterations visit at
    # most ceil(0.5 * sqrt(64)) = 4 root actions (the last admitted at n = 63), the rollout
    # policy's most frequent pick first; unwidened, every action is tried once.
    import math
    from ..positions import played_positions
    st = next(p for p in played_positions("london", 2, 3, 40, every=0.3)[0] if len(p.legal_actions()) >= 10)
    seat = st.current_player()
    n_legal = len(st.legal_actions())
    plain = ISMCTS(st, seat, SearchSettings(rollout="policy"), 5)
    plain.run(iterations=64)
    assert plain.widen == 0 and sum(1 for s in plain.result().stats if s.visits) == min(n_legal, 64)
    wide = ISMCTS(st, seat, SearchSettings(rollout="policy", widen=0.5), 5)
    wide.run(iterations=64)
    visited = [s for s in wide.result().stats if s.visits]
    assert wide.widen == 0.5 and 1 <= len(visited) <= math.ceil(0.5 * math.sqrt(64))
    assert sum(s.visits for s in visited) == 64
    # Widening needs the policy's picks: with uniform playouts it is off, as the prior is.
    assert ISMCTS(st, seat, SearchSettings(rollout="random", widen=2.0)).widen == 0
    # A large factor admits every action from the start: the search is the plain one.
    full = ISMCTS(st, seat, SearchSettings(rollout="policy", widen=1000.0), 5)
    full.run(iterations=64)
    assert sum(1 for s in full.result().stats if s.visits) == min(n_legal, 64)
    bot = make_bot("ismcts:64:widen=1.5")
    assert bot.tuning == {"widen": 1.5} and "widen" in limits.TUNED_SETTINGS
    for bad in (-0.5, float("nan"), 1e9, "1", True):
        with pytest.raises(ValueError, match="widen: must be a number from 0 to 1000"):
            ISMCTS(st, seat, SearchSettings(rollout="policy", widen=bad))


def test_the_opponents_prior_weighs_only_the_other_seats_nodes():
    # Oliver Twist at 2 players from its opening decision: the tuned search (prior 3) explores
    # the other seat's replies with the same bias unless told otherwise.
    from ..positions import played_positions
    st = next(p for p in played_positions("oliver_twist", 2, 3, 40, every=0.3)[0] if len(p.legal_actions()) >= 3)
    seat = st.current_player()

    def visits(**kw):
        search = ISMCTS(st, seat, SearchSettings(rollout="policy", **kw), 7)
        search.run(iterations=300)
        return search, [(s.action, s.visits) for s in search.result().stats]

    same, base = visits(prior=3.0)
    assert same.opponent_prior == same.prior == 3.0
    assert visits(prior=3.0, opponent_prior=3.0)[1] == base
    # A heavy weight on the opponent's nodes changes what the root learns of its moves.
    heavy, moved = visits(prior=3.0, opponent_prior=100.0)
    assert heavy.opponent_prior == 100.0 and heavy.prior == 3.0 and moved != base
    # With no prior of its own, the root's first visits are not steered to the policy's pick:
    # the root spreads its first len(legal) visits over every action, as a prior-free search does.
    n_legal = len(st.legal_actions())
    none = ISMCTS(st, seat, SearchSettings(rollout="policy", prior=0.0, opponent_prior=30.0), 7)
    none.run(iterations=n_legal)
    assert sorted(s.visits for s in none.result().stats) == [1] * n_legal
    # Uniform playouts have no policy to ask: both weights are off.
    assert ISMCTS(st, seat, SearchSettings(rollout="random", opponent_prior=30.0)).opponent_prior == 0
    bot = make_bot("ismcts:64:oprior=30")
    assert bot.tuning == {"opponent_prior": 30.0} and "opponent_prior" in limits.TUNED_SETTINGS
    for bad in (-1.0, float("nan"), 101.0, "1", True):
        with pytest.raises(ValueError, match="opponent_prior: must be a number from 0 to 100"):
            ISMCTS(st, seat, SearchSettings(rollout="policy", opponent_prior=bad))


def test_a_local_ray_start_that_times_out_is_tried_once_more(monkeypatch):
    """Ray waits a fixed 30 s for a starting raylet; on a loaded machine a local start can miss
    that. init_ray shuts such a start down and tries once more; any other failure, or a second
    timeout, is raised as Ray raised it."""
    import sys
    import types
    from fagin.search.arena import init_ray
    calls = []

    def fake(outcomes):
        ray = types.ModuleType("ray")

        def init(**kwargs):
            calls.append(("init", kwargs["address"]))
            outcome = outcomes.pop(0)
            if outcome:
                raise Exception(outcome)
        ray.init = init
        ray.shutdown = lambda: calls.append(("shutdown",))
        monkeypatch.setitem(sys.modules, "ray", ray)

    timeout = "The current node timed out during startup. This could happen because ..."
    fake([timeout, None])
    init_ray("local")
    assert calls == [("init", "local"), ("shutdown",), ("init", "local")]
    calls.clear()
    fake([timeout, timeout])
    with pytest.raises(Exception, match="timed out during startup"):
        init_ray(None)
    assert calls == [("init", None), ("shutdown",), ("init", None)]
    calls.clear()
    fake(["connection refused", None])
    with pytest.raises(Exception, match="connection refused"):
        init_ray("10.0.0.1:6379")
    assert calls == [("init", "10.0.0.1:6379")]
