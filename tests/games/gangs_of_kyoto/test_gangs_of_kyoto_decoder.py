"""Gangs of Kyoto's decoder: a field the rules determine is derived or checked.

Each case was a position the decoder accepted although the engine never holds it, or refused
although a client may leave the field out; each then played differently from the true one.
"""
import pytest

from fagin.engines.gangs_of_kyoto import engine as gk
from fagin.server import codec
from tests.games.gangs_of_kyoto.helpers import GAME, REFUSE, bell, card, position


def _refused(d, field):
    with pytest.raises(ValueError) as e:
        GAME.from_description(d)
    assert str(e.value).startswith(field), str(e.value)
    return str(e.value)


def _through_proto(d, clear=(), clear_in_seats=()):
    """The description as a proto client sends it with these fields left out."""
    message = codec.encode_description(GAME, d).gangs_of_kyoto
    for name in clear:
        message.ClearField(name)
    for seat in message.seats:
        for name in clear_in_seats:
            seat.ClearField(name)
    return codec.message_to_dict(message)


def test_GK_3_a_view_without_deal_size_keeps_the_whole_deal():
    """A view has an empty `deal`; with `deal_size` left out it read 0 and every unseen card
    went into the deck, so after one give the turn ended and the rest of the deal was lost.
    One card per player (GK-3): the size is the players less the cards received, revealed
    and still to draw."""
    st = position(4, revealed=card(1), deal=[card(0), card(2), card(3)])
    view = st.view(0)
    assert view["deal_size"] == 3 and view["deck_top_size"] == 0
    back = _through_proto(view, clear=("deal_size", "deck_top_size"))
    assert back["deal_size"] is None and back["deck_top_size"] is None
    seen = GAME.from_description(back)
    assert seen.describe()["deal_size"] == 3 and seen.view(0) == view
    for s in (st, seen):
        s.apply(0)                                  # seat 0 keeps the revealed card
    assert seen.describe()["phase"] == st.describe()["phase"] == "give"
    assert seen.describe()["received"] == [0] and seen.legal_actions() == st.legal_actions() == [1, 2, 3]
    # Given, it must fit the deal.
    _refused({**view, "deal_size": 2}, "deal_size")


def test_GK_19_only_a_deck_that_has_run_out_deals_short():
    """A full description with a short deal (here none face down, nobody served yet) was
    accepted; a deal is short only when no card is left to deal (GK-19)."""
    d = position(3, revealed=card(1), deal=[card(0), card(2)]).describe()
    d["deck"] += d["deal"]
    d.update(deal=[], deal_size=None)
    message = _refused(d, "deal")
    assert "GK-19" in message, message
    d["deck_ran_out"] = True                        # then a short deal is a position of play
    assert GAME.from_description(d).describe()["deal_size"] == 0
    # A view of it cannot tell a short deal from a full one: the size must be given.
    view = GAME.from_description(d).view(1)
    assert "GK-19" in _refused({**view, "deal_size": None}, "deal_size")
    assert GAME.from_description(view).view(1) == view


def test_GK_3_deal_to_draw_is_what_the_deal_still_lacks():
    """deal_to_draw 1 with no card drawn yet (3 players) was accepted, and the deal went to
    give after a single draw; in phase draw_deal it is the players less the cards drawn, and
    0 in every other phase."""
    st = position(3, phase="draw_deal", to_draw=3)
    assert st.is_chance_node()
    d = st.describe()
    _refused({**d, "deal_to_draw": 1}, "deal_to_draw")
    drawn = position(3, phase="draw_deal", deal=[card(0)], to_draw=2).describe()
    _refused({**drawn, "deal_to_draw": 1}, "deal_to_draw")
    give = position(3, revealed=card(1), deal=[card(0), card(2)]).describe()
    _refused({**give, "deal_to_draw": 1}, "deal_to_draw")


def test_GK_5_the_receiver_has_received_its_card():
    """A refuse position whose receiver was missing from `received` offered the receiver a
    second card of the same deal after it accepted: a card reaches a seat only once the seat
    is marked as served (GK-5)."""
    kw = dict(phase="refuse", rows={0: [REFUSE]}, arriving=card(1), receiver=0, deal=[card(0)])
    st = position(3, received=[0, 2], **kw)
    st.apply(gk.ACTION_ACCEPT)
    d = st.describe()
    assert d["active_player"] == 1 and d["received"] == [] and d["seats"][1]["row"] == [card(0)]
    with pytest.raises(ValueError, match="^receiver: seat 0 is receiving"):
        position(3, received=[2], **kw)


def test_GK_10_a_draw_symbols_card_is_drawn_for_the_row_it_ended():
    """Phase draw_effect follows a card with a draw symbol placed at the right end of the
    receiver's row (GK-10)."""
    kw = dict(phase="draw_effect", receiver=0, received=[0], deal=[card(0), card(1)])
    assert position(3, rows={0: [card(2, draw=True)]}, **kw).is_chance_node()
    with pytest.raises(ValueError, match="^receiver: .*GK-10"):
        position(3, rows={0: [card(2, draw=True), card(2)]}, **kw)


def test_GK_14_the_winner_is_the_rules_one():
    """A finished game's winner was read as given: seat 1 could be made to win with 3 bells
    against 13. The rules fix it (most bells, ties by the First Player card): left out it is
    derived, given it must match."""
    vp = {0: [card(5, 2)] * 6 + [card(1, 1)], 1: [card(3, 1)] * 3}
    over = dict(phase="over", vp=vp, rounds=1, first=0)
    st = position(3, winner=None, **over)
    assert st.is_terminal() and st.returns() == [1.0, 0.0, 0.0]
    assert position(3, winner=0, **over).returns() == [1.0, 0.0, 0.0]
    with pytest.raises(ValueError, match="^winner: seat 1, but seat 0 wins .*GK-14"):
        position(3, winner=1, **over)


def test_GK_19_a_game_is_over_only_when_the_rules_end_it():
    """Nobody at 13 bells and cards left to draw: the game goes on (GK-14, GK-19); with
    play_through it ends at a bust once the deck has run out (GK-16), the rows banked (GK-12)."""
    vp = {0: [card(5, 2)] * 2, 1: [card(3, 1)] * 3}
    with pytest.raises(ValueError, match="^phase: the game is not over"):
        position(3, phase="over", vp=vp, rounds=1, first=0)
    through = {"play_through": True}
    with pytest.raises(ValueError, match="^phase: the game is not over"):
        position(3, phase="over", vp=vp, rounds=1, first=0, options=through)
    st = position(3, phase="over", vp=vp, rounds=1, first=0, options=through, deck_ran_out=True)
    assert st.returns() == [1.0, 0.0, 0.0]
    with pytest.raises(ValueError, match=r"^seats: the rows are banked"):
        position(3, phase="over", vp=vp, rows={2: [card(1)]}, rounds=1, first=0, options=through,
                 deck_ran_out=True)


def test_GK_11_no_card_waits_on_top_of_the_deck_during_a_draw():
    """A draw_deal position with a card put back on top was a chance node drawing from the
    shuffled deck; the cards on top are always taken first."""
    with pytest.raises(ValueError, match="^deck_top: 1 cards on top"):
        position(3, phase="draw_deal", to_draw=3, deck_top=[card(0)])
    view = position(3, phase="draw_deal", to_draw=3).view(0)
    _refused({**view, "deck_top_size": 1}, "deck_top_size")
    with pytest.raises(ValueError, match="^deck_top: "):
        position(3, phase="draw_effect", rows={0: [card(2, draw=True)]}, receiver=0, received=[0],
                 deal=[card(0), card(1)], deck_top=[card(0)])


def test_GK_17_hidden_bell_count_may_be_left_out():
    """A full description listing a pile's face-down Bell cards without their count (proto3
    read it as 0) was refused; left out, the count is the cards listed."""
    st = position(3, revealed=card(1), deal=[card(0), card(2)], hidden={1: [bell(1), bell(2)]})
    back = _through_proto(st.describe(), clear_in_seats=("hidden_bell_count",))
    assert back["seats"][1]["hidden_bell_count"] is None
    assert GAME.from_description(back).describe() == st.describe()


def test_GK_13_the_first_player_card_follows_the_rounds():
    """Seat 0 holds the First Player card in the first round (GK-1) and it passes one seat
    each round (GK-13): the holder is the rounds played, modulo the players."""
    kw = dict(revealed=card(1), deal=[card(0), card(2)], active=1, first=1)
    assert position(3, rounds=4, **kw).describe()["first_player"] == 1
    with pytest.raises(ValueError, match="^first_player: seat 1, but after 0 rounds .* seat 0 "):
        position(3, rounds=0, **kw)
