"""Every room that ships a learned evaluation (``data/learned.json``, fitted by ``python -m
fagin.train``) keeps the same contract, checked here once for all of them (rooms discovered
by their ``FEATURE_NAMES``): finite, named features with a progress feature from 0 to 1, a
seat outside the game refused, a shipped model fitted on exactly these features for every
player count, the C evaluation (without the GIL) equal to the trainer's Python logistic, the
returns at the end, and the hand-written evaluation for a player count the model lacks.
What is particular to a room (which features read hidden things, its progress at known
points) stays in the room's own tests."""
import json
import math

import pytest

from fagin.engines import load_game, new_game
from fagin.engines.registry import GAMES
from fagin.search.settings import SearchSettings
from fagin.search.train import predict_with

from ..positions import played_positions

ROOMS = sorted(g for g in GAMES if hasattr(load_game(g).engine, "FEATURE_NAMES"))


def _engine(game_id):
    return load_game(game_id).engine


def _positions(game_id, players, seed, count):
    return played_positions(game_id, players, seed, count)


def test_the_rooms_with_a_learned_evaluation_are_found():
    assert {"london", "fagins_gang", "oliver_twist", "gangs_of_kyoto", "kids_of_london"} <= set(ROOMS)


@pytest.mark.parametrize("game_id", ROOMS)
@pytest.mark.parametrize("players", [2, 3])
def test_features_are_finite_named_and_progress_runs_from_one_to_zero(game_id, players):
    E = _engine(game_id)
    progress = E.FEATURE_NAMES.index(E.PROGRESS_FEATURE)
    positions, _ = _positions(game_id, players, players, 12)
    assert positions
    for st in positions:
        for seat in range(players):
            f = E.features(st.to_bytes(), seat)
            assert len(f) == len(E.FEATURE_NAMES)
            assert all(math.isfinite(x) for x in f)
            assert 0.0 <= f[progress] <= 1.0


@pytest.mark.parametrize("game_id", ROOMS)
def test_features_refuse_a_seat_outside_the_game(game_id):
    E = _engine(game_id)
    st = new_game(game_id, 2, seed=1)
    for seat in (2, -1):
        with pytest.raises(ValueError, match=r"^seat: "):
            E.features(st.to_bytes(), seat)


@pytest.mark.parametrize("game_id", ROOMS)
def test_the_shipped_model_is_fitted_on_the_rooms_features_for_every_player_count(game_id):
    E = _engine(game_id)
    spec = GAMES[game_id]
    doc = E.LEARNED
    assert doc is not None and doc["game"] == game_id and doc["features"] == list(E.FEATURE_NAMES)
    assert doc["command"].startswith(f"python -m fagin.train --game {game_id} ")
    assert set(doc["models"]) <= {str(n) for n in range(spec.min_players, spec.max_players + 1)}
    for n, m in doc["models"].items():
        assert len(m["weights"]) == len(E.FEATURE_NAMES)
        # Shipped only where it predicts better than the hand-written evaluation (the trainer's
        # held-out figures, recorded beside the model).
        held = doc["held_out"][n]["mid_game"]
        assert held["learned"]["log_loss"] < held["hand_written"]["log_loss"]


@pytest.mark.parametrize("game_id", ROOMS)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_learned_evaluation_in_c_agrees_with_the_model(game_id, players):
    E = _engine(game_id)
    m = E.LEARNED["models"][str(players)]
    predict = predict_with(m["weights"], m["bias"])
    positions, final = _positions(game_id, players, 30 + players, 12)
    for st in positions:
        data = st.to_bytes()
        want = predict([E.features(data, p) for p in range(players)], None)
        got = E.learned_evaluation(data)
        assert got == pytest.approx(want, rel=1e-9, abs=1e-12)
        assert all(0.0 < x < 1.0 for x in got)
    if final.is_terminal():
        assert E.learned_evaluation(final.to_bytes()) == list(final.returns())


@pytest.mark.parametrize("game_id", ROOMS)
def test_a_player_count_the_model_lacks_takes_the_hand_written_evaluation(game_id, tmp_path):
    E = _engine(game_id)
    doc = E.LEARNED
    only_two = tmp_path / "learned.json"
    try:
        only_two.write_text(json.dumps(dict(doc, models={"2": doc["models"]["2"]})))
        assert E._load_learned(only_two)
        positions, _ = _positions(game_id, 3, 4, 3)
        for st in positions:
            assert E.learned_evaluation(st.to_bytes()) == E.evaluation(st.to_bytes())
    finally:
        assert E._load_learned()
    assert E.LEARNED == doc


@pytest.mark.parametrize("game_id", ROOMS)
def test_a_bad_model_file_is_refused_naming_the_field(game_id, tmp_path):
    """The shared loader (engines/learned.pxd, engines/learned_model.py) refuses a model file
    that does not fit the room, naming the field, and leaves the room with no model until a
    good file is loaded again."""
    E = _engine(game_id)
    spec = load_game(game_id).spec
    doc = json.loads(json.dumps(E.LEARNED))
    n = len(E.FEATURE_NAMES)
    bad = tmp_path / "learned.json"
    cases = [
        (dict(doc, features=list(E.FEATURE_NAMES)[::-1]), r"^learned.json: features"),
        (dict(doc, features=list(E.FEATURE_NAMES)[:-1]), r"^learned.json: features"),
        (dict(doc, models={"2": {"bias": 0.0, "weights": [0.0] * 3}}),
         rf"^learned.json: models.2.weights: 3 values, {n} features"),
        (dict(doc, models={str(spec.max_players + 1): {"bias": 0.0, "weights": [0.0] * n}}),
         rf"^learned.json: models.{spec.max_players + 1}: not a player count of {spec.name}"),
        (dict(doc, models={"2": {"weights": [0.0] * n}}), r"^learned.json: models.2.bias: missing"),
        (dict(doc, models={"2": {"bias": float("nan"), "weights": [0.0] * n}}), r"^learned.json: models.2.bias"),
        ("{not json", r"^learned.json: not a model file"),
    ]
    try:
        for content, message in cases:
            bad.write_text(content if isinstance(content, str) else json.dumps(content))
            with pytest.raises(ValueError, match=message):
                E._load_learned(bad)
            assert E.LEARNED is None
    finally:
        assert E._load_learned()
    assert E.LEARNED == doc


@pytest.mark.parametrize("game_id", ROOMS)
def test_a_model_of_zero_weights_gives_each_seat_the_logistic_of_its_bias(game_id, tmp_path):
    """A room's learned value is a per-seat logistic of its features: with every weight 0,
    every seat of every position gets the logistic of the bias."""
    E = _engine(game_id)
    doc = json.loads(json.dumps(E.LEARNED))
    zero = tmp_path / "learned.json"
    try:
        zero.write_text(json.dumps(dict(doc, models={"2": {"bias": 1.0, "weights": [0.0] * len(E.FEATURE_NAMES)}})))
        assert E._load_learned(zero)
        positions, _ = played_positions(game_id, 2, 4, 3, every=1.0)
        assert positions
        for st in positions:
            assert E.learned_evaluation(st.to_bytes()) == pytest.approx([1 / (1 + math.exp(-1.0))] * 2)
    finally:
        assert E._load_learned()
    assert E.LEARNED == doc


@pytest.mark.parametrize("game_id", ROOMS)
def test_the_evaluations_refuse_bytes_that_are_not_a_state_of_the_game(game_id):
    E = _engine(game_id)
    for evaluate in (E.evaluation, E.learned_evaluation, lambda data: E.features(data, 0), E.heuristic_action):
        with pytest.raises(ValueError, match=rf"^data: 3 bytes, not a {game_id} state"):
            evaluate(b"abc")


def test_a_game_without_an_evaluation_has_none():
    from fagin.engines.core import evaluate_state
    st = new_game("kuhn_poker", 2)
    assert evaluate_state(load_game("kuhn_poker").engine.GAME_DEF, st.to_bytes()) is None
    with pytest.raises(TypeError, match="capsule"):
        evaluate_state(object(), st.to_bytes())


def test_features_and_the_nogil_heuristic_are_read_through_the_game_def():
    # Written once in core for every room (GameDef.features and .heuristic_action): a room
    # without them has no features and no nogil heuristic; one with them answers as its engine.
    from fagin.engines.core import features_of_state, heuristic_action_of_state
    kuhn = load_game("kuhn_poker").engine.GAME_DEF
    st = new_game("kuhn_poker", 2)
    assert features_of_state(kuhn, st.to_bytes(), 0) is None
    with pytest.raises(TypeError, match="kuhn_poker: the engine has no nogil heuristic"):
        heuristic_action_of_state(kuhn, st.to_bytes())
    for game_id in ROOMS:
        E = _engine(game_id)
        st = new_game(game_id, 2, seed=3)
        while st.is_chance_node():
            st.apply(st.sample_chance(1))
        data = st.to_bytes()
        assert features_of_state(E.GAME_DEF, data, 1) == E.features(data, 1)
        assert len(E.features(data, 0)) == len(E.FEATURE_NAMES)
        assert heuristic_action_of_state(E.GAME_DEF, data, 7) == E.heuristic_action(data, 7)
        assert E.heuristic_action(data, 7) in st.legal_actions()


@pytest.mark.parametrize("game_id, games, sample", [("gangs_of_kyoto", 40, 0.1), ("kids_of_london", 60, 0.2)])
def test_the_trainer_takes_the_rooms_features_and_progress(monkeypatch, game_id, games, sample):
    """python -m fagin.train reads the room's features and its hand-written evaluation; its
    mid-game figures are those positions whose progress feature lies from a third to two
    thirds; the same seed gives the same rows."""
    from fagin.search import train
    names = load_game(game_id).engine.FEATURE_NAMES
    seen = []

    def fit(rows, seed):
        seen.append(rows)
        return [0.0] * len(names), 0.0

    monkeypatch.setattr(train, "fit", fit)
    runs = [train.train(game_id, seed=3, games=games, players=(3,), sample=sample, progress=False)
            for _ in range(2)]
    assert runs[0] == runs[1] and seen[0] == seen[1]
    held = runs[0]["held_out"]["3"]
    assert held["all"]["learned"]["log_loss"] == pytest.approx(math.log(2))
    assert 0 < held["mid_game"]["learned"]["positions"] < held["all"]["learned"]["positions"]
    assert held["all"]["hand_written"]["log_loss"] < math.log(2)
    _, feats, hand, _, final, now = seen[0][0]
    assert len(feats) == 3 and len(feats[0]) == len(names) and len(hand) == 3
    # A row's final margins are its game's (the same for every position of the game), and
    # a position's margins as they stand are read at the position: they move through a game
    # and differ from the final ones.
    finals = {}
    for g, _, _, _, final, now in seen[0]:
        assert finals.setdefault(g, final) == final and len(final) == len(now) == 3
    assert len(finals) > 1 and len({tuple(f) for f in finals.values()}) > 1
    assert any(now != final for _, _, _, _, final, now in seen[0])
    assert len({tuple(now) for *_, now in seen[0]}) > len(finals)


def test_the_margins_are_each_seat_less_the_best_other():
    from fagin.search.train import margins
    assert margins([10, 4, 7]) == [3, -6, -3]
    assert margins([5, 5, 1]) == [0, 0, -4]
    assert margins([3]) == [3]
    assert margins(None) is None


@pytest.mark.parametrize("game_id", ROOMS)
def test_the_shipped_margin_models_predict_better_than_the_margin_as_it_stands(game_id):
    """The expected score margin: every player count of the shipped model holds a
    margin model exactly where its held-out error beat the margin as it stands (the trainer's
    figures, recorded beside it), and the big seed games ship one for every player count."""
    E = _engine(game_id)
    for n, m in E.LEARNED["models"].items():
        held = E.LEARNED["held_out"][n]["margin"]
        better = held["all"]["learned"]["rmse"] < held["all"]["as_it_stands"]["rmse"]
        assert held["shipped"] == better == ("margin" in m)
        if "margin" in m:
            assert len(m["margin"]["weights"]) == len(E.FEATURE_NAMES)
    if game_id in ("london", "oliver_twist", "fagins_gang"):
        assert all("margin" in m for m in E.LEARNED["models"].values())


@pytest.mark.parametrize("game_id", ROOMS)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_learned_margins_in_c_agree_with_the_model(game_id, players):
    from fagin.engines.core import learned_margins_of_state
    from fagin.search.train import margin_with
    E = _engine(game_id)
    m = E.LEARNED["models"][str(players)].get("margin")
    positions, _ = _positions(game_id, players, 50 + players, 12)
    assert positions
    for st in positions:
        data = st.to_bytes()
        got = learned_margins_of_state(E.GAME_DEF, data)
        if m is None:
            assert got is None
            continue
        want = margin_with(m["weights"], m["bias"])([E.features(data, p) for p in range(players)], None)
        assert got == pytest.approx(want, rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("game_id", ROOMS)
def test_an_analysis_reports_the_learned_margin_where_a_playout_is_cut_off(game_id, tmp_path):
    """Where a playout stops early, an analysis reports the room's learned expected final margin
    (``GameDef.margins_learned``), not the margin as it stands: with a margin model of zero
    weights and a bias of 7.25, every cut-off playout's margin is 7.25 for every seat, so every
    action's margin and the root's are exactly that; playouts that run to the end keep their
    final margins, and so does a finished game; a model without margins (or none for this
    player count) reports the margin as it stands again."""
    from fagin.engines.core import learned_margins_of_state
    from fagin.search import analysis
    from fagin.search.ismcts import ISMCTS
    E = _engine(game_id)
    doc = json.loads(json.dumps(E.LEARNED))
    st = new_game(game_id, 2, seed=6)
    while st.is_chance_node():
        st.apply(st.sample_chance(1))
    seat = st.current_player()
    flat = tmp_path / "learned.json"

    def report(cutoff=2):
        s = ISMCTS(st, seat, SearchSettings(rollout="policy", cutoff=cutoff, analysis=True,
                                            evaluation="handwritten"), 2)
        s.run(iterations=150 if cutoff else 20)
        assert s.evaluated == (150 if cutoff else 0)        # every playout cut off, or none
        return analysis.analyse([s], st, seat, candidates=100, pv_depth=0)

    _, end = played_positions(game_id, 2, 6, 10**9, every=0.0)
    assert end.is_terminal()
    to_the_end = report(cutoff=0)
    try:
        entry = dict(doc["models"]["2"], margin={"bias": 7.25, "weights": [0.0] * len(E.FEATURE_NAMES)})
        flat.write_text(json.dumps(dict(doc, models={"2": entry})))
        assert E._load_learned(flat)
        assert learned_margins_of_state(E.GAME_DEF, st.to_bytes()) == [7.25, 7.25]
        got = report()
        assert got.margins == pytest.approx([7.25, 7.25])
        assert all(a.margin == pytest.approx(7.25) and a.margin_error == pytest.approx(0, abs=1e-9)
                   for a in got.actions if a.visits)
        assert report(cutoff=0) == to_the_end
        assert learned_margins_of_state(E.GAME_DEF, end.to_bytes()) is None
        without = {"2": {k: v for k, v in doc["models"]["2"].items() if k != "margin"}}
        flat.write_text(json.dumps(dict(doc, models=without)))
        assert E._load_learned(flat)
        assert learned_margins_of_state(E.GAME_DEF, st.to_bytes()) is None
        assert report().margins != pytest.approx([7.25, 7.25])
    finally:
        assert E._load_learned()
    assert E.LEARNED == doc


@pytest.mark.parametrize("game_id", ROOMS)
def test_a_search_scores_cut_off_playouts_by_the_evaluation_it_is_asked_for(game_id):
    """``evaluation="learned"`` scores cut-off playouts by the room's model: the same seeded
    search then reaches other values than with the hand-written evaluation, and a bot spec
    sets it (``eval=learned``); an unknown evaluation is refused, and a search that names none
    takes the room's tuned one (``GameSpec.tuned_settings``), else the hand-written one."""
    from fagin.search import ismcts, limits
    from fagin.search.bots import make_bot
    st = new_game(game_id, 3, seed=3)
    seat = st.current_player()
    tuned = limits.tuned(GAMES[game_id], 3).evaluation or "handwritten"
    assert ismcts.ISMCTS(st, seat, SearchSettings(rollout="policy")).evaluation == tuned
    values = {}
    for evaluation in ("handwritten", "learned"):
        s = ismcts.ISMCTS(st, seat, SearchSettings(rollout="policy", evaluation=evaluation, cutoff=6), 1)
        s.run(iterations=200)
        assert s.evaluation == evaluation and s.evaluated > 0
        values[evaluation] = sorted((a.action, round(a.mean_value, 9)) for a in s.result().stats)
    assert values["handwritten"] != values["learned"]
    with pytest.raises(ValueError, match=r"^evaluation: "):
        ismcts.ISMCTS(st, seat, SearchSettings(rollout="policy", evaluation="neural"))
    bot = make_bot("ismcts:20:policy:eval=learned:cut=6")
    assert bot.tuning == {"evaluation": "learned", "cutoff": 6}
    assert bot.choose(st, seat, 1) in st.legal_actions(seat)


def test_the_trainer_can_learn_from_a_search_bots_games(monkeypatch):
    """``--bot SPEC`` plays the self-play games with that bot at every seat instead of the
    rollout policy: the rows differ from the policy's, the same seed gives the same rows and
    model, the document names the bot, and a spec the arena does not know is refused naming
    ``--bot``."""
    from fagin.search import train
    seen = []
    real_fit = train.fit

    def fit(rows, seed):
        seen.append(rows)
        return real_fit(rows, seed)

    monkeypatch.setattr(train, "fit", fit)
    runs = [train.train("oliver_twist", seed=5, games=10, players=(2,), sample=0.2, progress=False,
                        bot="ismcts:4") for _ in range(2)]
    assert runs[0] == runs[1] and seen[0] == seen[1]
    assert runs[0]["bot"] == "ismcts:4"
    policy = train.train("oliver_twist", seed=5, games=10, players=(2,), sample=0.2, progress=False)
    assert "bot" not in policy and seen[2] != seen[0]
    assert {w for _, _, _, won, *_ in seen[0] for w in won} == {0, 1}
    # The bot's games carry their final margins too: every game has a seat ahead or level.
    assert all(final is not None and max(final) >= 0 for *_, final, _ in seen[0])
    with pytest.raises(ValueError, match=r"^--bot: unknown bot spec 'nonsense'"):
        train.train("oliver_twist", games=10, players=(2,), progress=False, bot="nonsense")
    assert train.main(["--game", "oliver_twist", "--games", "10", "--players", "2", "--bot", "nonsense"]) == 2
