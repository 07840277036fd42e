"""ViewState's status: a finished game's result is the real one, not the view's stand-ins."""
from fagin.engines import load_game
from fagin.server import codec


def test_a_finished_game_reports_the_real_returns_in_every_view(client):
    # Kuhn poker: seat 0 holds the Queen, seat 1 the King; pass, bet, call: seat 1 wins 2.
    state = load_game("kuhn_poker").from_description({"cards": [1, 2], "actions": [0, 1, 1]})
    assert state.returns() == [-2.0, 2.0]
    for seat in (0, 1):
        status = client.view(codec.encode_state(state), seat).status
        assert status.terminal and list(status.returns) == [-2.0, 2.0]


def test_a_finished_liars_dice_game_in_a_view(client):
    state = load_game("liars_dice").from_description({"dice0": [2], "dice1": [6], "actions": [7, 12]})
    assert state.returns() == [1.0, -1.0]
    status = client.view(codec.encode_state(state), 0).status
    assert list(status.returns) == [1.0, -1.0]
