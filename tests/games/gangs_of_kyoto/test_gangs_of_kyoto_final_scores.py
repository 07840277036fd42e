"""Gangs of Kyoto's final scores (StateStatus.final_scores): each seat's bells by where they came
from (the engine's bell_sources: banked from the rows, GK-12, or Bell cards, GK-7) add up to its
bells, and the sentence names the rule that ended the game (the engine's ending_rule) and GK-14's
tie-break by the First Player card where it decided."""
from fagin.engines import GAMES

from .helpers import GAME, bell, bells, card, draw_action, position, tiny_deck
from .test_gangs_of_kyoto import _entry, give

SPEC = GAMES["gangs_of_kyoto"]


def check_sums(scores, st):
    assert [s.total for s in scores.seats] == bells(st) == st.scores()
    for s in scores.seats:
        assert sum(p.points for p in s.parts) == s.total


def test_a_tie_at_13_goes_to_the_seat_furthest_after_the_first_player():
    """GK-14: seats 0 and 1 both reach 13 at the same banking; seat 1 sits further after seat 0,
    the First Player card's holder, and wins."""
    vp = {0: [card(5, 2)] * 6, 1: [card(4, 2)] * 5 + [card(3, 2)]}
    st = position(3, revealed=card(2), rows={0: [card(1, 1)], 1: [card(2, 1)], 2: [card(4), card(4), card(3)]},
                  vp=vp, deal=[card(0), card(0)], first=0)
    give(st, 2)
    scores = SPEC.final_scores(st)
    check_sums(scores, st)
    assert scores.winners == (1,) and st.returns() == [0.0, 1.0, 0.0]
    assert [(p.name, p.points) for p in scores.seat(0).parts] == [("banked from rows", 13), ("Bell cards", 0)]
    assert scores.tie_break == ("level on 13 bells with seat 0, seat 1 sits furthest after the First Player "
                                "card's holder, seat 0 (GK-14)")
    assert scores.explanation == (
        "Seat 1 wins Gangs of Kyoto with 13 bells, the most bells of the seats that reached 13 at the same "
        "banking, seats 0 and 1 (GK-14); " + scores.tie_break + ".")


def test_a_bell_card_wins_at_once():
    """GK-7, GK-14: a Bell card's 13th bell ends the game mid-round; its bells are Bell cards'."""
    st = position(3, revealed=bell(1), vp={0: [card(5, 2)] * 6}, deal=[card(0), card(0)])
    give(st, 0)
    scores = SPEC.final_scores(st)
    check_sums(scores, st)
    assert scores.winners == (0,) and scores.tie_break == ""
    assert [(p.name, p.points) for p in scores.seat(0).parts] == [("banked from rows", 12), ("Bell cards", 1)]
    assert scores.explanation == "Seat 0 wins Gangs of Kyoto with 13 bells, reaching 13 bells first (GK-14)."


def test_no_card_left_to_draw(tiny_deck):
    """GK-19: with no card left the most bells win; three seats level on one Bell card each, GK-14's
    tie-break gives it to seat 2, furthest after seat 0."""
    tiny_deck([_entry(kind="bell", bells=1, count=3)])
    st = GAME.new_initial_state(3)
    st.resolve_chance(1)
    give(st, 0, 1)
    scores = SPEC.final_scores(st)
    check_sums(scores, st)
    assert scores.winners == (2,) == tuple(p for p, r in enumerate(st.returns()) if r)
    assert [s.total for s in scores.seats] == [1, 1, 1]
    assert scores.explanation == (
        "Seat 2 wins Gangs of Kyoto with 1 bell, the most bells when no card was left to draw (GK-19); level on "
        "1 bell with seats 0 and 1, seat 2 sits furthest after the First Player card's holder, seat 0 (GK-14).")


def test_play_through_ends_at_the_first_bust_after_the_deck_ran_out():
    """GK-16: seat 0 busts once the deck's last card is taken; the round is banked first, and
    seat 2's 2 bells are the most."""
    st = position(3, revealed=card(2, draw=True), rows={0: [card(4), card(4), card(1)], 2: [card(3, 2)]},
                  deal=[card(0), card(0)], deck=[card(4)], options={"play_through": True})
    give(st, 0)
    st.apply(draw_action(card(4)))
    scores = SPEC.final_scores(st)
    check_sums(scores, st)
    assert scores.winners == (2,) and st.returns() == [0.0, 0.0, 1.0]
    assert scores.explanation == ("Seat 2 wins Gangs of Kyoto with 2 bells, the most bells when the first bust "
                                  "after the deck ran out ended the game (GK-16).")
