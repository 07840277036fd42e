"""Kids of London's events (engines/kids_of_london/events.py): a card put down is told as
such, never which (KL-23), until the hour's reveal, which every seat is told with the
thefts it brought."""
from fagin.engines import new_game
from fagin.engines.kids_of_london import engine as kol
from fagin.engines.kids_of_london import actions as kol_actions


def test_an_hour_is_told_as_each_seat_saw_it():
    """KL-2, KL-4, KL-5, KL-23: seat 1's card is its own until all are shown; then every
    seat is told every card and each seat's coins before and after, as the engine paid."""
    st = new_game("kids_of_london", 3, seed=1)
    cards = {0: 2, 1: 7, 2: 5}
    told = {s: [] for s in range(3)}
    for seat, card in cards.items():
        before = st.with_seat_to_act(seat)
        after = before.child(kol_actions.card_action(card))
        for s in range(3):
            told[s] += before.events(kol_actions.card_action(card), after, s)
        st = after
    for s in range(3):
        moves = [e for e in told[s] if not e["summary"]]
        for seat, e in zip(cards, moves):
            assert e["seat"] == seat
            if seat == s:
                assert e["label"] == f"you put your {cards[seat]} down" and e["typed"]["action"]["card"] == cards[seat]
            else:
                assert e["label"] == f"seat {seat} puts a card down" and "action" not in e["typed"]
        reveal = next(e for e in told[s] if e["typed"]["kind"] == "reveal")
        assert reveal["typed"]["cards"] == [2, 7, 5] and reveal["typed"]["hour"] == 1
        thefts = next(e for e in told[s] if e["typed"]["kind"] == "thefts")
        assert thefts["typed"]["coins_after"] == [x["coins"] for x in st.describe()["seats"]]
        assert thefts["typed"]["coins_before"] == [0, 0, 0]


def test_twins_that_differ_in_a_hidden_card_tell_the_same():
    """KL-18, KL-23: seat 0 cannot tell seat 1's 3 from its 6 before the reveal, and is told
    the same of either."""
    st = new_game("kids_of_london", 3, seed=2).with_seat_to_act(1)
    a, b = st.child(kol_actions.card_action(3)), st.child(kol_actions.card_action(6))
    assert a.infoset_key(0) == b.infoset_key(0)
    assert st.events(kol_actions.card_action(3), a, 0) == st.events(kol_actions.card_action(6), b, 0)
    assert st.events(kol_actions.card_action(3), a, 1) != st.events(kol_actions.card_action(6), b, 1)
