"""ApplyAction's answers for its `observer`: `view`, the observer's view of the new state, and
`legal_actions`, its moves there when it has a decision pending, the very answers of a
ViewState and a LegalActions call on that state, so that a frontend shows each move without
those calls."""
import random

import pytest

from fagin.engines import GAMES

from .helpers import kol_dict, kol_state

#: The seed games and two reference games, with enough moves of each to reach its hidden
#: parts (a hand, a face-down choice, a deck) and its simultaneous phases (Kids of London,
#: Goofspiel).
GAMES_AND_MOVES = [("kids_of_london", 60), ("london", 120), ("oliver_twist", 80), ("fagins_gang", 80),
                   ("gangs_of_kyoto", 80), ("leduc_poker", 30), ("goofspiel", 30)]
#: Fagin's Gang hides nothing from a seat (FG-30): its views are the full state.
HIDES_NOTHING = {"fagins_gang"}


def _play_watched(client, game_id, moves, seed):
    """Plays `moves` random moves of `game_id` (or to its end) through ApplyAction, each by a
    pending seat drawn at random and watched by a seat drawn at random (often another), and
    checks every answer's view and legal actions against ViewState and LegalActions calls.
    Returns the answers, each with its acting seat and observer."""
    rng = random.Random(seed)
    players = min(3, GAMES[game_id].max_players)
    answer = client.new_game(game_id, players, seed=seed)
    state, status, played = answer.state, answer.status, []
    for _ in range(moves):
        if status.terminal:
            break
        seat = rng.choice(list(status.pending_seats) or [status.current_seat])
        observer = rng.randrange(players)
        action = rng.choice(client.legal_actions(state, seat).actions).id
        answer = client.apply(state, action, seat=seat, seed=rng.getrandbits(32), observer=observer)
        where = (game_id, len(played), seat, observer)
        assert answer.HasField("view")
        assert answer.view == client.view(answer.state, observer), where
        if observer in answer.status.pending_seats:
            assert answer.legal_actions == client.legal_actions(answer.state, observer), where
            # The moves offered tell the observer nothing its view does not: the same on it.
            assert answer.legal_actions.actions == client.legal_actions(answer.view.state, observer).actions, where
        else:
            assert not answer.HasField("legal_actions"), where
        state, status = answer.state, answer.status
        played.append((seat, observer, answer))
    return played


@pytest.mark.parametrize("game_id, moves", GAMES_AND_MOVES)
def test_the_view_and_moves_are_what_view_state_and_legal_actions_answer(client, game_id, moves):
    played = _play_watched(client, game_id, moves, seed=len(game_id))
    # Watched by the acting seat and by another; with moves to offer the observer and without.
    assert {seat == observer for seat, observer, _ in played} == {True, False}, game_id
    assert {answer.HasField("legal_actions") for _, _, answer in played} == {True, False}, game_id
    # The view hides something from its observer somewhere in these games (else the
    # comparison above would hold of the full state too).
    hid = any(answer.view.state != answer.state for _, _, answer in played)
    assert hid == (game_id not in HIDES_NOTHING), game_id


def test_short_games_are_played_to_the_end_with_the_real_result_in_the_view(client):
    for game_id in ("kids_of_london", "leduc_poker", "goofspiel"):
        _, _, last = _play_watched(client, game_id, 200, seed=3)[-1]
        assert last.status.terminal and last.view.status.terminal, game_id
        assert not last.HasField("legal_actions"), game_id
        assert list(last.view.status.returns) == list(last.status.returns), game_id


def test_the_view_holds_nothing_the_observer_cannot_see(client):
    # Kids of London, the secret choice (KL-23): seat 0 puts its 5 down; seat 1 sees that it
    # has chosen, not what, and that it is no longer to choose.
    answer = client.apply(kol_state(kol_dict(players=3)), 5, seat=0, observer=1)
    chooser = answer.view.state.kids_of_london.seats[0]
    assert answer.state.kids_of_london.seats[0].card == 5
    assert not chooser.HasField("card") and chooser.chosen and 5 in chooser.hand
    assert list(answer.view.status.pending_seats) == [1, 2]
    assert "seat 0:   0 coins, hand 0 1 2 3 4 5 6 7 8, has chosen" in answer.view.text
    assert "card 5 down" not in answer.view.text
    # Its own moves, every card of its hand: what it may play does not tell it seat 0's card.
    assert [a.id for a in answer.legal_actions.actions] == list(range(9))


def test_no_observer_no_view_and_no_moves(client):
    answer = client.apply(kol_state(kol_dict(players=3)), 5)
    assert not answer.HasField("view") and not answer.HasField("legal_actions")
    assert [s.seat for s in answer.events] == [0, 1, 2]
