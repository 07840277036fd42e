"""ApplyAction's `view`: the observer's view of the state it answers, the very answer of a
ViewState call on that state, so that a frontend draws each move without that second call."""
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


def _play_with_views(client, game_id, moves, seed):
    """Plays `moves` random moves of `game_id` (or to its end) through ApplyAction, each by a
    pending seat drawn at random and watched by another seat, and checks every answer's
    view against a ViewState call.  Returns the answers, each with its acting seat."""
    rng = random.Random(seed)
    players = min(3, GAMES[game_id].max_players)
    answer = client.new_game(game_id, players, seed=seed)
    state, status, played = answer.state, answer.status, []
    for _ in range(moves):
        if status.terminal:
            break
        seat = rng.choice(list(status.pending_seats) or [status.current_seat])
        observer = rng.choice([s for s in range(players) if s != seat])
        action = rng.choice(client.legal_actions(state, seat).actions).id
        answer = client.apply(state, action, seat=seat, seed=rng.getrandbits(32), observer=observer)
        assert answer.HasField("view")
        assert answer.view == client.view(answer.state, observer), (game_id, seat, observer)
        state, status = answer.state, answer.status
        played.append((seat, observer, answer))
    return played


@pytest.mark.parametrize("game_id, moves", GAMES_AND_MOVES)
def test_the_view_is_what_view_state_answers_for_the_observer(client, game_id, moves):
    played = _play_with_views(client, game_id, moves, seed=len(game_id))
    assert played
    # The view hides something from its observer somewhere in these games (else the
    # comparison above would hold of the full state too).
    hid = any(answer.view.state != answer.state for _, _, answer in played)
    assert hid == (game_id not in HIDES_NOTHING), game_id


def test_short_games_are_played_to_the_end_with_the_real_result_in_the_view(client):
    for game_id in ("kids_of_london", "leduc_poker", "goofspiel"):
        _, _, last = _play_with_views(client, game_id, 200, seed=3)[-1]
        assert last.status.terminal and last.view.status.terminal, game_id
        assert list(last.view.status.returns) == list(last.status.returns), game_id


def test_the_view_holds_nothing_the_observer_cannot_see(client):
    # Kids of London, the secret choice (KL-23): seat 0 puts its 5 down; seat 1 sees that it
    # has chosen, not what, and that it is no longer to choose.
    answer = client.apply(kol_state(kol_dict(players=3)), 5, seat=0, observer=1)
    chooser = answer.view.state.kids_of_london.seats[0]
    assert answer.state.kids_of_london.seats[0].card == 5
    assert not chooser.HasField("card") and chooser.chosen and 5 in chooser.hand
    assert list(answer.view.status.pending_seats) == [1, 2]
    assert "seat 0:   0 coins, hand [0, 1, 2, 3, 4, 5, 6, 7, 8], has chosen" in answer.view.text
    assert "card 5 down" not in answer.view.text


def test_no_observer_no_view(client):
    answer = client.apply(kol_state(kol_dict(players=3)), 5)
    assert not answer.HasField("view")
    assert [s.seat for s in answer.events] == [0, 1, 2]
