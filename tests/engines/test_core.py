"""The Python wrapper over every engine: untrusted bytes, seat counts, seats to act."""
import pytest

from fagin.engines import GAMES, load_game, new_game


def test_no_public_path_turns_raw_bytes_into_a_state():
    """Raw state bytes feed the nogil rules unchecked: states come only from the
    engines themselves or from validated descriptions."""
    game = load_game("gangs_of_kyoto")
    assert not [name for name in dir(game) if "bytes" in name and not name.startswith("_")]


@pytest.mark.parametrize("game_id", list(GAMES))
def test_a_state_is_stored_and_read_back_through_its_description(game_id):
    state = new_game(game_id, GAMES[game_id].max_players, seed=5)
    again = state.game.from_description(state.describe())
    assert again.describe() == state.describe()
    assert again.legal_actions() == state.legal_actions()


@pytest.mark.parametrize("game_id", list(GAMES))
def test_player_counts_outside_the_range_are_refused(game_id):
    spec = GAMES[game_id]
    for players in (0, spec.min_players - 1, spec.max_players + 1, 99, -3, True):
        with pytest.raises(ValueError, match="^players"):
            load_game(game_id).new_initial_state(players)


def test_with_seat_to_act_and_legal_actions_of_a_seat():
    state = new_game("kids_of_london", 3, seed=1)
    assert state.pending_seats() == [0, 1, 2]           # a simultaneous choice
    for seat in state.pending_seats():
        assert state.with_seat_to_act(seat).current_player() == seat
        assert state.legal_actions(seat) == state.with_seat_to_act(seat).legal_actions()
    state = state.with_seat_to_act(1)
    state.apply(state.legal_actions()[0])
    with pytest.raises(ValueError, match="seat 1 has no decision pending"):
        state.with_seat_to_act(1)


def test_view_and_render_check_the_seat():
    state = new_game("gangs_of_kyoto", 3, seed=2)
    with pytest.raises(ValueError, match="seat"):
        state.view(3)
    with pytest.raises(ValueError, match="seat"):
        state.render(-1)
    assert state.view(0) == state.game.engine.view(state.to_bytes(), 0)


def test_whole_number_options_take_plain_digits_only():
    from fagin.engines.game import int_parser
    parse = int_parser(2, 13)
    assert parse("7", "n") == 7 and parse(" 13 ", "n") == 13 and parse(5, "n") == 5
    for bad in ("+7", "1_0", "\u0667", "7.0", "", "x", True, 14, "1"):
        with pytest.raises(ValueError, match="^options.n: expected a whole number from 2 to 13"):
            parse(bad, "n")
