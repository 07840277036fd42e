"""Every game's end explained (GameSpec.final_scores, StateStatus.final_scores): random games of
every room played to the end give each seat a score whose parts add up to it (where the room says
they do), winners that are the returns' winners, and a sentence naming them; a room without a
``scores.py`` (the reference games) explains its end by its returns."""
import random

import pytest

from fagin.engines import GAMES, new_game
from fagin.engines.final_scores import generic_final_scores
from fagin.engines.game import random_moves
from fagin.server import codec


def finished(game_id, players, seed):
    st = new_game(game_id, players, seed=seed)
    for *_, after in random_moves(st, random.Random(seed)):
        st = after
    return st


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_game_explains_its_end(game_id):
    spec = GAMES[game_id]
    for players, seed in ((spec.min_players, 1), (spec.max_players, 2)):
        st = finished(game_id, players, seed)
        scores = spec.final_scores(st)
        returns = st.returns()
        assert [s.seat for s in scores.seats][:players] == list(range(players))
        if scores.parts_add_up:
            for s in scores.seats:
                if s.parts:
                    assert sum(p.points for p in s.parts) == pytest.approx(s.total), (game_id, s)
        if spec.reference is None:
            # The seed games' returns are 1 for each winner (KL-20, LN-81, GK-14, FG-24, OT-29).
            assert scores.winners == tuple(p for p, r in enumerate(returns) if r == 1)
            assert scores.explanation.split(" ")[0] in ("Seat", "Seats", "Nobody", "The")
        for w in scores.winners:
            assert f"{w}" in scores.explanation.split(" wins")[0].split(" share")[0]
        assert scores.explanation.endswith(".") and scores.explanation[0].isupper()


def test_a_room_without_scores_explains_by_its_returns():
    st = finished("kuhn_poker", 2, 2)
    scores = GAMES["kuhn_poker"].final_scores(st)
    assert scores == generic_final_scores(st)
    assert scores.unit == "return" and [s.total for s in scores.seats] == st.returns()
    winner = max(range(2), key=lambda p: st.returns()[p])
    assert scores.winners == (winner,)
    assert scores.explanation == f"Seat {winner} wins Kuhn poker with the highest return, {max(st.returns()):g}."


def test_final_scores_only_at_the_end():
    st = new_game("london", 2, seed=1)
    with pytest.raises(ValueError, match="finished game"):
        GAMES["london"].final_scores(st)
    assert not codec.status_of(st).HasField("final_scores")


def test_the_status_carries_them_at_the_end():
    st = finished("kids_of_london", 3, 4)
    status = codec.status_of(st)
    assert status.terminal and status.HasField("final_scores")
    scores = GAMES["kids_of_london"].final_scores(st)
    assert status.final_scores.explanation == scores.explanation
    assert list(status.final_scores.winners) == list(scores.winners)
    assert [(s.seat, s.name, s.total, s.note) for s in status.final_scores.seats] == [
        (s.seat, s.name, s.total, s.note) for s in scores.seats]
    assert [[(p.name, p.points, p.detail) for p in s.parts] for s in status.final_scores.seats] == [
        [(p.name, p.points, p.detail) for p in s.parts] for s in scores.seats]
