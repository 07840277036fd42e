"""Analysis searches: each action's win probability, score margin, errors and
bounds, prior and principal variation, the root's value and the beliefs about what the
asking seat cannot see (fagin.search.analysis over ISMCTS(analysis=True, beliefs=True))."""
import pytest

from fagin.engines import new_game
from fagin.engines.registry import load_game
from fagin.search import analysis
from fagin.search.ismcts import ISMCTS, SearchSettings
from fagin.search.root_parallel import RootParallelSearch

SEED_GAMES = ("kids_of_london", "gangs_of_kyoto", "london", "oliver_twist", "fagins_gang")
HIDING = ("gangs_of_kyoto", "london", "oliver_twist")     # the games whose determinizations deal cards


def advance(state, moves, seed=1):
    """`state` after `moves` decisions by the heuristic bot (chance drawn from `seed`)."""
    bot = state.game.spec.make_heuristic()
    for i in range(moves):
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply(state.sample_chance(seed + i))
            continue
        p = state.current_player()
        state.apply(bot.choose(state, p, seed + i))
    while state.is_chance_node():
        state.apply(state.sample_chance(seed))
    return state


def searched(state, seat, iterations=300, seed=5, beliefs=True, **kw):
    s = ISMCTS(state, seat, SearchSettings(analysis=True, beliefs=beliefs, **kw), seed)
    s.run(iterations=iterations)
    return s


def finished(game_id, players=2, seed=1):
    state = new_game(game_id, players=players, seed=seed)
    return advance(state, 100_000, seed)


@pytest.mark.parametrize("game_id", SEED_GAMES)
def test_seed_games_score_each_seat_at_the_end(game_id):
    # KL-24, FG-29, GK-21, OT-39, LN-98: every seed game reports a score per seat, and at
    # the end of the game a winner holds the best score where the score decides the game.
    state = finished(game_id)
    assert state.is_terminal()
    scores, returns = state.scores(), state.returns()
    assert len(scores) == len(returns) == state.num_players
    assert set(returns) <= {0.0, 1.0}          # returns are wins: win probability = mean return
    if game_id in ("london", "oliver_twist", "fagins_gang"):
        assert all(scores[p] == max(scores) for p in range(len(scores)) if returns[p] == 1.0)


@pytest.mark.parametrize("game_id", SEED_GAMES)
def test_analysis_does_not_change_the_search(game_id):
    state = advance(new_game(game_id, players=3, seed=2), 6)
    seat = state.current_player()
    plain = ISMCTS(state, seat, None, 9)
    plain.run(iterations=200)
    assert plain.analysis_sums() is None
    analysed = searched(state, seat, iterations=200, seed=9)
    a, b = analysed.result(), plain.result()
    assert (a.action, a.stats, a.iterations, a.nodes) == (b.action, b.stats, b.iterations, b.nodes)


@pytest.mark.parametrize("game_id", SEED_GAMES)
def test_win_probabilities_and_margins_come_from_the_root_iterations(game_id):
    state = advance(new_game(game_id, players=3, seed=4), 5)
    seat = state.current_player()
    s = searched(state, seat, iterations=400)
    report = analysis.analyse([s], state, seat, candidates=100, pv_depth=0)
    stats = s.result().by_action()
    assert report.visits == sum(st.visits for st in stats.values())
    for a in report.actions:
        assert a.visits == stats[a.action].visits
        assert a.value == pytest.approx(stats[a.action].mean_value)
        assert a.win_probability == pytest.approx(a.value)
        assert len(a.win_probabilities) == 3
        if a.visits:
            assert a.win_probabilities[seat] == pytest.approx(a.value)
            assert a.margin is not None and a.margin_error >= 0
            assert a.win_lcb == pytest.approx(a.win_probability - analysis.Z * a.win_error)
            assert a.margin_lcb == pytest.approx(a.margin - analysis.Z * a.margin_error)
    assert sum(report.values) == pytest.approx(sum(sum(a.win_probabilities) * a.visits for a in report.actions)
                                               / report.visits)
    ranks = sorted(a.rank for a in report.actions)
    assert ranks == list(range(1, len(ranks) + 1))
    assert report.best == report.candidates()[0].action == s.result().action


def test_the_prior_is_the_rollout_policys_picks_where_the_search_uses_it():
    # London searches with the policy's progressive bias: the prior is where it points.
    state = advance(new_game("london", players=2, seed=5), 3)
    seat = state.current_player()
    s = searched(state, seat, iterations=200, rollout="policy")
    assert s.prior > 0
    report = analysis.analyse([s], state, seat, candidates=100, pv_depth=0)
    priors = [a.prior for a in report.actions]
    assert sum(priors) == pytest.approx(1.0)
    assert len(set(priors)) > 1
    # Without the bias the search gives no prior: uniform.
    kl = advance(new_game("kids_of_london", players=3, seed=5), 0)
    s = searched(kl, 0, iterations=100)
    report = analysis.analyse([s], kl, 0, candidates=100, pv_depth=0)
    assert {round(a.prior, 9) for a in report.actions} == {round(1 / len(report.actions), 9)}


def _play_cards_position(seed):
    state = new_game("london", players=2, seed=seed)
    for _ in range(200):
        if state.is_chance_node():
            state.apply(state.sample_chance(seed))
            continue
        labels = {state.action_label(a): a for a in state.legal_actions()}
        if "Play Cards" in labels:
            return state, labels["Play Cards"]
        state = advance(state, 1, seed)
    raise AssertionError("no Play Cards decision")


@pytest.mark.parametrize("seed", [1, 2])
def test_a_london_play_cards_plan_is_a_legal_sequence_ending_the_turn(seed):
    # LN-100: the principal variation of a Play Cards answer covers the whole turn.
    state, play = _play_cards_position(seed)
    seat = state.current_player()
    s = searched(state, seat, iterations=300, rollout="policy")
    report = analysis.analyse([s], state, seat, candidates=100, pv_depth=2, seed=3)
    plan = report.by_action()[play]
    assert plan.pv[0].action == play and plan.pv[0].visits > 0
    own = []
    for move in plan.pv:
        if move.seat != seat:
            break
        own.append(move)
    assert own[-1].label == "done", [m.label for m in own]
    real = state.clone()
    for move in own:
        assert move.action in real.legal_actions(), (move.label, [m.label for m in own])
        real.apply(move.action)
    assert real.is_chance_node() or real.is_terminal() or real.current_player() != seat
    # The moves the tree knows come first; past it the rollout policy finishes the turn.
    known = [m.visits > 0 for m in own]
    assert known == sorted(known, reverse=True)


@pytest.mark.parametrize("game_id", HIDING)
def test_beliefs_put_a_card_the_seat_holds_nowhere_else(game_id):
    # LN-99, GK-22, OT-40: only the places the seat cannot see into, never its own.
    state = advance(new_game(game_id, players=3, seed=6), 12)
    seat = state.current_player()
    s = searched(state, seat, iterations=200)
    sums = s.analysis_sums()
    assert sums["determinizations"] == 200
    places, items = state.game.engine.belief_layout(state.to_bytes(), seat)
    width = len(items)
    own = [i for i, (_, owner) in enumerate(places) if owner == seat]
    assert own
    for i in own:
        assert not any(sums["copies"][i * width:(i + 1) * width])
    report = analysis.analyse([s], state, seat, beliefs=True, pv_depth=0)
    assert report.beliefs and all(place.seat != seat for place in report.beliefs)
    assert all(0 < b.share <= 1 and b.copies >= b.share for place in report.beliefs for b in place.items)


def test_london_beliefs_never_place_a_held_card_elsewhere():
    # LN-99: every copy of a card is somewhere; those in the seat's hand are in no other place.
    from fagin.engines.london import engine as E
    state = advance(new_game("london", players=3, seed=7), 20)
    seat = state.current_player()
    s = searched(state, seat, iterations=200)
    sums = s.analysis_sums()
    names = state.game.engine.belief_layout(state.to_bytes(), seat)[1]
    width = len(names)
    mine = {}
    for card in _hand_versions(state, seat):
        mine[card] = mine.get(card, 0) + 1
    assert mine
    draws = sums["determinizations"]
    for v, n in mine.items():
        elsewhere = sum(sums["copies"][p * width + v] for p in range(len(sums["copies"]) // width)) / draws
        assert elsewhere <= E.CARDS[v].count - n + 1e-9, (names[v], elsewhere)


def _hand_versions(state, seat):
    from fagin.engines.london import engine as E
    d = state.describe()
    cards = d["seats"][seat]["hand"]
    index = {vid: i for i, vid in enumerate(E.VERSIONS)}
    return [index[c] if isinstance(c, str) else index[c["card"]] for c in cards]


def _twin_analyses(game_id, beliefs=True, **settings):
    """The analyses of a 3-player position and of a twin differing only in what the seat to act
    cannot see (one of its determinizations), searched with the same seed and ``settings``."""
    state = advance(new_game(game_id, players=3, seed=8), 9)
    seat = state.current_player()
    twin = state.determinize(seat, 12345)
    reports = []
    for position in (state, twin):
        s = RootParallelSearch(position, seat, threads=2, seed=4, analysis=True, beliefs=beliefs, **settings)
        s.run(iterations=300)
        reports.append(analysis.analyse(s.parts, position, seat, candidates=3, pv_depth=3, beliefs=beliefs, seed=4))
    return reports, s


@pytest.mark.parametrize("game_id", SEED_GAMES)
def test_twin_positions_give_equal_analyses(game_id):
    # Hidden information is sacred: a twin differing only in what the seat cannot see (one
    # of its determinizations) gets the same statistics, plans and beliefs for the same seed.
    reports, _ = _twin_analyses(game_id)
    assert reports[0] == reports[1]
    if game_id in HIDING:
        assert reports[0].beliefs
    else:
        assert reports[0].beliefs == []          # KL-25, FG-30: nothing a determinization fixes


@pytest.mark.parametrize("game_id", ["gangs_of_kyoto", "kids_of_london"])
def test_twin_positions_give_equal_analyses_with_cut_off_playouts(game_id):
    # The games whose playouts run to the end by default, asked to cut them off: the cut-off's
    # learned values and margins (GameDef.margins_learned) read nothing the seat cannot know.
    reports, search = _twin_analyses(game_id, beliefs=False, rollout="policy", cutoff=2, evaluation="learned")
    assert all(part.evaluated > 0 for part in search.parts)
    assert reports[0] == reports[1]


def test_a_principal_variation_goes_on_through_modelled_opponents():
    # Oliver Twist at 3 players models the other seats as the rollout policy (opponents
    # "policy"): they have no nodes, so past the asking seat's turn the variation takes the
    # policy's picks for them (no visits) and goes on to the seat's next decision in the tree.
    state = advance(new_game("oliver_twist", players=3, seed=8), 9)
    seat = state.current_player()
    s = searched(state, seat, iterations=2000, rollout="policy")
    assert s.opponents == "policy"
    report = analysis.analyse([s], state, seat, candidates=1, pv_depth=6, seed=3)
    pv = report.candidates()[0].pv
    others = [m for m in pv if m.seat not in (seat, -1)]
    assert others and all(m.visits == 0 for m in others)
    first_other = pv.index(others[0])
    assert any(m.seat == seat and m.visits > 0 for m in pv[first_other:])


def test_final_move_rules():
    state = advance(new_game("gangs_of_kyoto", players=2, seed=9), 4)
    seat = state.current_player()
    s = searched(state, seat, iterations=400)
    by_visits = analysis.analyse([s], state, seat, final_move="visits", pv_depth=0)
    by_value = analysis.analyse([s], state, seat, final_move="value", pv_depth=0)
    by_lcb = analysis.analyse([s], state, seat, final_move="lcb", pv_depth=0)
    acts = by_value.by_action()
    assert by_visits.best == s.result().action
    assert acts[by_value.best].win_probability == max(a.win_probability for a in acts.values() if a.visits)
    most = max(a.visits for a in acts.values())
    allowed = [a for a in acts.values() if a.visits >= analysis.LCB_MIN_SHARE * most]
    assert acts[by_lcb.best].win_lcb == max(a.win_lcb for a in allowed)
    with pytest.raises(ValueError, match="final_move"):
        analysis.analyse([s], state, seat, final_move="temperature")


def test_a_reference_game_reports_values_not_win_probabilities():
    state = load_game("kuhn_poker").new_initial_state(2)
    while state.is_chance_node():
        state.apply(state.sample_chance(1))
    s = searched(state, 0, iterations=200)
    report = analysis.analyse([s], state, 0)
    assert report.win_probabilities == [] and report.margins == [] and report.beliefs == []
    assert all(a.win_probability is None and a.margin is None for a in report.actions)
    assert len(report.values) == 2


def _candidate(action, estimate, error, visits=1000, wins=True):
    return analysis.ActionAnalysis(action, f"play {action}", visits, estimate, estimate if wins else None,
                                   [], error, estimate - analysis.Z * error, None, 0.0, 0.0, 0.25)


def test_close_calls_are_within_the_combined_error_of_the_best():
    # The case of the report: three candidates at 27.8 / 27.7 / 27.6 %, errors of about 1 %:
    # another seed may rank any of them first, and the analysis says so.
    close = [_candidate(7, 0.278, 0.010), _candidate(8, 0.277, 0.010), _candidate(3, 0.276, 0.012)]
    assert analysis.close_calls(close)
    assert [x.close_to_best for x in close] == [False, True, True]
    # A clear best: 10 points ahead, errors of 1 %; the third is 2.5 points behind the second
    # (close to it, but not to the best).
    clear = [_candidate(1, 0.40, 0.010), _candidate(2, 0.30, 0.010), _candidate(0, 0.275, 0.010)]
    assert not analysis.close_calls(clear)
    assert [x.close_to_best for x in clear] == [False, False, False]
    # The boundary: a difference of exactly 1.96 combined errors is still close, a bit more is not.
    edge = 1.96 * (0.01 ** 2 + 0.02 ** 2) ** 0.5
    assert analysis.close_calls([_candidate(1, 0.5, 0.01), _candidate(2, 0.5 - edge + 1e-12, 0.02)])
    assert not analysis.close_calls([_candidate(1, 0.5, 0.01), _candidate(2, 0.5 - edge - 1e-6, 0.02)])
    # A reference game compares mean values; a candidate without visits is never close; one
    # candidate alone is no close call.
    assert analysis.close_calls([_candidate(0, 0.1, 0.05, wins=False), _candidate(1, 0.05, 0.05, wins=False)])
    assert not analysis.close_calls([_candidate(0, 0.3, 0.1), _candidate(1, 0.3, 0.1, visits=0)])
    assert not analysis.close_calls([_candidate(0, 0.3, 0.1)])


@pytest.mark.parametrize("iterations", [60, 3000])
def test_an_analysis_marks_its_close_calls_by_the_definition(iterations):
    state = advance(new_game("kids_of_london", players=4, seed=1), 0)
    report = analysis.analyse([searched(state, 0, iterations=iterations)], state, 0, candidates=5, pv_depth=0)
    best, *rest = report.candidates()
    assert not best.close_to_best
    for x in rest:
        within = abs(best.win_probability - x.win_probability) <= analysis.Z * (best.win_error ** 2 + x.win_error ** 2) ** 0.5
        assert x.close_to_best == (within and x.visits > 0), x
    assert report.too_close_to_call == rest[0].close_to_best
