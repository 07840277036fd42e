"""The shared wording of events (engines/game.py): seats named from the observer's seat."""
from fagin.engines import new_game
from fagin.engines.game import result_event, seats_text


def test_seats_are_named_from_the_observers_seat():
    assert seats_text([2], 0) == "seat 2"
    assert seats_text([0], 0) == "you"
    assert seats_text([0, 2], 0) == "you and seat 2"
    assert seats_text([0, 1, 3], 2) == "seats 0, 1 and 3"
    assert seats_text([], 1) == "nobody"


def test_the_result_names_the_winners_or_each_seats_chips():
    st = new_game("kuhn_poker", 2)
    for a in (2, 0, 1, 1):          # seat 0 holds the King, seat 1 the Jack; bet, call
        st.apply(a)
    assert st.returns() == [2.0, -2.0]
    assert result_event(st, 0, "chips")["label"] == "game over: you win 2 chips, seat 1 loses 2 chips"
    assert result_event(st, 1)["label"] == "game over: seat 0 wins"
    assert result_event(st, 0)["typed"] == {"kind": "result", "returns": [2.0, -2.0]}


def test_a_die_rolled_is_named_even_when_the_dice_are_put_in_order():
    """Liar's Dice puts the dice in order after the last roll: that roll is told with the die
    rolled, not the last die of the sorted list."""
    from fagin.engines import load_game

    state = load_game("liars_dice").new_initial_state(2, numdice=2)
    for outcome in (5, 0, 2):       # seat 0 rolls a 6 and a 1, seat 1 a 3
        state = state.child(outcome)
    after = state.child(1)          # seat 1's last die, a 2: its dice become [2, 3]
    assert after.view(1)["dice1"] == [2, 3]
    assert state.events(1, after, 1)[0]["label"] == "you roll a 2"
    assert state.events(1, after, 0)[0]["label"] == "seat 1 rolls a die"
