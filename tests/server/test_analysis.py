"""Analysis requests through a real server: RecommendRequest.analysis, the
answer's analysis fields, StreamRecommend's progress reports, bad settings refused with
the field named, and the hidden information kept."""
import json

import grpc
import pytest

from fagin.clients import recommend_request
from fagin.engines import new_game
from fagin.server import codec
from fagin.v1 import fagin_pb2 as pb
from google.protobuf import json_format

from ..search.test_analysis import advance


def _message(state):
    return codec.encode_state(state)


def _position(game_id="london", players=3, moves=12, seed=3):
    state = advance(new_game(game_id, players=players, seed=seed), moves)
    return state, state.current_player()


def test_an_analysis_answer_reports_candidates_root_and_beliefs(client):
    state, seat = _position()
    rec = client.recommend(_message(state), seat, iterations=400, seed=2,
                           analysis=dict(candidates=3, pv_depth=2, beliefs=True))
    ranked = sorted((s for s in rec.actions if s.HasField("analysis")), key=lambda s: s.analysis.rank)
    assert len(rec.actions) >= 2
    assert [s.analysis.rank for s in ranked] == list(range(1, min(3, len(rec.actions)) + 1))
    assert rec.action.id == ranked[0].action.id
    for s in ranked:
        x = s.analysis
        assert x.HasField("win_probability") and 0 <= x.win_probability <= 1
        assert x.win_probability == pytest.approx(s.mean_value)
        assert len(x.seat_win_probabilities) == 3
        assert x.HasField("score_margin") and x.score_margin_error >= 0
        assert x.win_probability_lcb <= x.win_probability
        assert 0 <= x.prior <= 1
        assert x.pv[0].action.id == s.action.id and x.pv[0].seat == seat
    assert rec.analysis == pb.AnalysisSettings(candidates=3, pv_depth=2, beliefs=True, final_move="visits")
    assert len(rec.root.win_probabilities) == 3 and len(rec.root.score_margins) == 3
    assert rec.root.visits == sum(s.visits for s in rec.actions)
    assert rec.beliefs.places and rec.beliefs.determinizations == 400
    assert all(place.seat != seat for place in rec.beliefs.places)
    assert not rec.settings.sample_action and not rec.settings.HasField("temperature")


def test_a_plain_request_carries_no_analysis(client):
    state, seat = _position()
    rec = client.recommend(_message(state), seat, iterations=100)
    assert not rec.HasField("analysis") and not rec.HasField("root") and not rec.HasField("beliefs")
    assert not any(s.HasField("analysis") for s in rec.actions)


def test_stream_progress_reports_carry_the_analysis(client):
    state, seat = _position("gangs_of_kyoto", moves=8)
    reports = list(client.stream_recommend(_message(state), seat, report_interval_ms=10, iterations=3000,
                                           analysis=dict(beliefs=True)))
    assert reports[-1].final
    for progress in reports:
        rec = progress.recommendation
        assert rec.HasField("analysis") and rec.HasField("root")
        assert any(s.analysis.rank == 1 and s.analysis.pv for s in rec.actions)


def test_twin_positions_get_the_same_analysis(client):
    # Hidden information: a twin differing only in what the seat cannot see.
    state, seat = _position("oliver_twist", moves=20)
    twin = state.determinize(seat, 777)
    recs = [client.recommend(_message(s), seat, iterations=300, seed=6,
                             analysis=dict(candidates=4, beliefs=True)) for s in (state, twin)]
    for r in recs:
        r.ClearField("elapsed_ms")
    assert recs[0] == recs[1]


@pytest.mark.parametrize("analysis, field", [
    (dict(candidates=0), "analysis.candidates"),
    (dict(candidates=257), "analysis.candidates"),
    (dict(pv_depth=-1), "analysis.pv_depth"),
    (dict(pv_depth=65), "analysis.pv_depth"),
    (dict(final_move="temperature"), "analysis.final_move"),
])
def test_bad_analysis_settings_are_refused_naming_the_field(client, analysis, field):
    state, seat = _position("kids_of_london", moves=0)
    with pytest.raises(grpc.RpcError) as e:
        client.recommend(_message(state), seat, iterations=10, analysis=analysis)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert e.value.details().startswith(field), e.value.details()


def test_an_analysis_never_draws_its_move(client):
    state, seat = _position("kids_of_london", moves=0)
    for settings, field in ((dict(temperature=1.0), "search.temperature"), (dict(sample_action=True),
                                                                             "search.sample_action")):
        with pytest.raises(grpc.RpcError) as e:
            client.recommend(_message(state), seat, iterations=10, analysis={}, **settings)
        assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert e.value.details().startswith(field)
    # A level's temperature is dropped, and the answer says so.
    rec = client.recommend(_message(state), seat, level=2, analysis={})      # level 2: temperature 1
    assert any("not drawn" in n for n in rec.notes), list(rec.notes)
    assert not rec.settings.HasField("temperature")


def test_batch_answers_carry_the_analysis(client):
    state, seat = _position("fagins_gang", moves=4)
    req = recommend_request(_message(state), seat, iterations=200, analysis=dict(beliefs=True))
    [resp] = list(client.batch_recommend([("a", req)]))
    rec = resp.recommendation
    # FG-30: nothing hidden, so the beliefs asked for are there, with no place.
    assert rec.HasField("root") and rec.HasField("beliefs") and not rec.beliefs.places


def test_fagin_analyse_prints_the_plays_and_the_beliefs(server, tmp_path, capsys):
    from .test_cli import run
    state, seat = _position("london", players=2, moves=10)
    game = tmp_path / "london.json"
    game.write_text(json_format.MessageToJson(_message(state)))
    code, out, err = run(server, "analyse", "--state", str(game), "--seat", str(seat), "--iterations", "300",
                         "--candidates", "2", capsys=capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith(f"analysis for seat {seat}: ")
    assert "position: win seat 0" in out and "margin seat 0" in out
    header = next(i for i, line in enumerate(lines) if line.lstrip().startswith("#"))
    assert lines[header + 1].lstrip().startswith("1 ") and lines[header + 2].lstrip().startswith("2 ")
    assert "%" in lines[header + 1] and "±" in lines[header + 1]
    assert "beliefs (300 determinizations):" in out and f"seat {1 - seat}'s hand:" in out
    code, out, _ = run(server, "analyse", "--state", str(game), "--seat", str(seat), "--iterations", "100",
                       "--no-beliefs", "--json", capsys=capsys)
    rec = json.loads(out)
    assert "beliefs" not in rec and not rec["analysis"].get("beliefs") and rec["analysis"]["candidates"] == 5


@pytest.mark.parametrize("algorithm", ["ismcts", "ismcts_rm", "oos"])
def test_the_default_final_move_is_the_searchs_own(client, algorithm):
    # "visits" (the default) keeps the search's own rule: the most visited for ismcts, the
    # highest policy for the regret-matching searches; an analysis only adds to the answer.
    # (In this position ismcts_rm's highest-policy action is not its most visited.)
    state, seat = _position("london", moves=10)
    plain = client.recommend(_message(state), seat, iterations=300, seed=3, algorithm=algorithm, temperature=0,
                             rollout="random")
    analysed = client.recommend(_message(state), seat, iterations=300, seed=3, algorithm=algorithm,
                                rollout="random", analysis={})
    assert analysed.action.id == plain.action.id
    assert [(s.action.id, s.visits, s.mean_value, s.policy) for s in analysed.actions] == \
        [(s.action.id, s.visits, s.mean_value, s.policy) for s in plain.actions]
    best = next(s for s in analysed.actions if s.HasField("analysis") and s.analysis.rank == 1)
    assert best.action.id == plain.action.id
    if algorithm == "ismcts_rm":
        assert best.visits < max(s.visits for s in analysed.actions)


@pytest.mark.parametrize("game_id", ["london", "oliver_twist"])
def test_a_two_player_answer_reports_calibrated_win_probabilities(client, game_id):
    # The served win probabilities are the room's calibration map of the
    # search's raw means (fagin.search.calibration); mean_value stays raw.
    from fagin.search.calibration import calibration_map
    fmap = calibration_map(game_id, 2)
    state, seat = _position(game_id, players=2, moves=10)
    rec = client.recommend(_message(state), seat, iterations=300, seed=2, analysis=dict(candidates=2, pv_depth=0))
    analysed = [s for s in rec.actions if s.HasField("analysis") and s.visits]
    assert analysed
    for s in analysed:
        x = s.analysis
        assert x.win_probability == pytest.approx(fmap(s.mean_value))
        assert x.win_probability_lcb == pytest.approx(x.win_probability - 1.96 * x.win_probability_error)
    raw_root = sum(s.visits * s.mean_value for s in rec.actions) / rec.root.visits
    assert rec.root.win_probabilities[seat] == pytest.approx(fmap(raw_root))


def test_an_analysis_answer_says_when_its_choice_is_too_close_to_call(client):
    # A short search of an opening: its candidates cannot be told apart.
    state, seat = _position("kids_of_london", players=4, moves=0, seed=1)
    rec = client.recommend(_message(state), seat, iterations=60, seed=1, analysis=dict(candidates=5))
    ranked = sorted((s for s in rec.actions if s.HasField("analysis")), key=lambda s: s.analysis.rank)
    best = ranked[0].analysis
    assert not best.close_to_best
    for s in ranked[1:]:
        x = s.analysis
        assert x.close_to_best == (abs(best.win_probability - x.win_probability)
                                   <= 1.96 * (best.win_probability_error ** 2 + x.win_probability_error ** 2) ** 0.5)
    assert rec.too_close_to_call and rec.too_close_to_call == ranked[1].analysis.close_to_best
    answer = json_format.MessageToDict(rec)
    assert answer["tooCloseToCall"] is True and "closeToBest" in answer["actions"][ranked[1].action.id]["analysis"]
    # A plain request has no errors to compare: never a close call.
    assert not client.recommend(_message(state), seat, iterations=60, seed=1).too_close_to_call


def _analysed(ranked, too_close):
    """An analysis answer for seat 0 whose candidates are (label, win, error, close_to_best)."""
    rec = pb.Recommendation(seat=0, iterations=2000, too_close_to_call=too_close,
                            analysis=pb.AnalysisSettings(final_move="visits"))
    rec.action.CopyFrom(pb.Action(id=0, label=ranked[0][0]))
    for rank, (label, win, error, close) in enumerate(ranked, 1):
        rec.actions.add(action=pb.Action(id=rank - 1, label=label), visits=1000 - rank, mean_value=win,
                        analysis=pb.ActionAnalysis(rank=rank, win_probability=win, win_probability_error=error,
                                                   win_probability_lcb=win - 1.96 * error, close_to_best=close))
    return rec


def test_fagin_analyse_says_too_close_to_call_and_names_the_close_plays():
    from fagin.clients.cli import analysis_table
    close = analysis_table(_analysed([("play 7", 0.278, 0.01, False), ("play 8", 0.277, 0.01, True),
                                      ("play 3", 0.276, 0.01, True), ("play 0", 0.20, 0.01, False)], True))
    assert ("too close to call: play 7 is no surer a pick than play 8 or play 3 (≈: the difference is within "
            "the search's error); another seed may recommend any of them, more iterations tell them apart") in close
    rows = [line for line in close.splitlines() if "play " in line and "%" in line]
    assert [row.startswith("≈") for row in rows] == [False, True, True, False]
    clear = analysis_table(_analysed([("play 1", 0.40, 0.01, False), ("play 2", 0.30, 0.01, False)], False))
    assert "too close" not in clear and "≈" not in clear
    # The second clear of the best but a later one close to it: said, without "too close to call".
    third = analysis_table(_analysed([("play 1", 0.40, 0.01, False), ("play 2", 0.35, 0.01, False),
                                      ("play 5", 0.39, 0.10, True)], False))
    assert "too close" not in third and "≈ within the search's error of play 1: play 5" in third
