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
