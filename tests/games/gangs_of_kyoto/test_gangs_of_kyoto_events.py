"""Gangs of Kyoto's events (engines/gangs_of_kyoto/events.py): the rulebook's bust told as
every seat sees it, and the deal's face-down cards told to nobody."""
from fagin.engines.gangs_of_kyoto import engine as gk

from ..playing import random_path
from .helpers import card, position


def test_a_bust_is_told_with_the_buster_and_the_bells_banked():
    """GK-6, GK-12: the rulebook's 2 that takes a row to 14: every seat is told that seat 0
    gave it to itself, that seat 0 busted (the engine's record of the move) and who banked
    how many bells."""
    st = position(3, revealed=card(2), rows={0: [card(5, 2), card(4, 1), card(3)],
                                             1: [card(3, 2), card(1)], 2: [card(2, 1), card(4)]},
                  deal=[card(0), card(0)])
    after = st.child(0)
    assert gk.round_ended(after.to_bytes()) == {"buster": 0}
    for seat in range(3):
        events = st.events(0, after, seat)
        move, end = events[0], events[1]
        assert move["seat"] == 0 and move["typed"]["action"] == {"kind": "give", "seat": 0}
        assert move["label"] == ("you give a 2 to yourself" if seat == 0 else "seat 0 gives a 2 to itself")
        assert end["summary"] and end["typed"]["kind"] == "round_end"
        assert end["typed"]["buster"] == 0 and end["typed"]["round"] == 1
        assert end["typed"]["banked"] == [0, 2, 1] and end["typed"]["bells"] == [0, 2, 1]
        assert ("you busted" if seat == 0 else "seat 0 busted") in end["label"]
    # A move that ends no round leaves no record: the next one is not told as a bust.
    again = after.clone()
    while again.is_chance_node():
        again.apply(again.legal_actions()[0])
    assert gk.round_ended(again.to_bytes()) is None


def test_the_deals_face_down_cards_are_told_to_nobody():
    """GK-3, GK-4: a card drawn for the deal is named to no seat, the active one included;
    once turned up, every seat is told which it is."""
    st = position(3, phase="draw_deal", to_draw=3)
    drawn = st.child(st.legal_actions()[0])
    for seat in range(3):
        (e,) = st.events(st.legal_actions()[0], drawn, seat)
        assert e["typed"] == {"kind": "deal_draw", "to": 0} and "face down" in e["label"]


def test_every_card_reaching_a_seat_is_named_going_to_that_seat():
    """GK-5: the deal's last card goes to the last seat without one, with no choice; GK-7: a
    refused card's successor comes to the same seat. Each card that reaches a seat's row or
    victory pile is named to every seat by an event whose card and seat are those."""
    from collections import Counter

    from fagin.engines import load_game

    game = load_game("gangs_of_kyoto")
    key = lambda c: tuple(sorted(c.items()))
    seen = 0
    for seed in range(3):
        for before, action, after in random_path(game, 3, seed=seed):
            b, a = before.describe(), after.describe()
            for p in range(3):
                gained = (Counter(map(key, a["seats"][p]["row"] + a["seats"][p]["victory_pile"]))
                          - Counter(map(key, b["seats"][p]["row"] + b["seats"][p]["victory_pile"])))
                for card in gained.elements():
                    for seat in range(3):
                        told = before.events(action, after, seat)
                        assert any(key(e["typed"].get("card") or {}) == card and e["typed"].get("to") == p
                                   for e in told), ([e["label"] for e in told], dict(card), p)
                    seen += 1
    assert seen > 50
