"""KL-18 through the real server: what a seat cannot see never changes its recommendation."""
import copy

from .helpers import kol_dict, kol_state


def _same(client, states, seat, **search):
    recs = [client.recommend(kol_state(d), seat, seed=11, **search) for d in states]
    first = recs[0]
    for r in recs[1:]:
        assert r.actions == first.actions and r.action == first.action
    return first


def test_other_seats_committed_cards_are_invisible(client):
    worlds = [kol_dict(players=4, character="jeweller", coins=[5, 2, 9, 4], cards=c)
              for c in [(8, 0), (1, 7), (4, 4)]]
    _same(client, worlds, 2, iterations=1500)
    # ... and the same for a seat asked out of order (seat 3 while seat 2 has not chosen).
    _same(client, worlds, 3, iterations=1500)


def test_character_pile_order_is_invisible(client):
    base = kol_dict(players=3, character="banker")
    shuffled = copy.deepcopy(base)
    shuffled["pile"] = list(reversed(base["pile"]))
    rotated = copy.deepcopy(base)
    rotated["pile"] = base["pile"][3:] + base["pile"][:3]
    _same(client, [base, shuffled, rotated], 0, iterations=1500)


def test_fictitious_deck_order_and_other_players_card_are_invisible(client):
    a = kol_dict(players=2, character="prince", fict_card=5, cards=(8,))
    b = kol_dict(players=2, character="prince", fict_card=5, cards=(0,))
    b["fictitious"]["deck"] = list(reversed(b["fictitious"]["deck"]))
    _same(client, [a, b], 1, iterations=1500)


def test_prince_choice_of_the_other_robber_is_invisible(client):
    from ..games.kids_of_london.helpers import play, position
    from fagin.engines.kids_of_london import engine as kol
    base = play(position(4, "prince", coins=[3, 6, 0, 1]), 6, 6, 1, 2)
    took = base.clone().apply(kol.ACTION_PRINCE).describe()
    declined = base.clone().apply(kol.ACTION_COMEDIAN).describe()
    _same(client, [base.describe(), took, declined], 1, iterations=1000)


def _gk_state(d):
    from fagin.v1 import fagin_pb2
    from fagin.server import codec
    msg = fagin_pb2.GameState()
    codec.dict_to_message(d, msg.gangs_of_kyoto)
    msg.gangs_of_kyoto.SetInParent()
    return msg


def test_gangs_of_kyoto_unseen_cards_are_invisible(client):
    """GK-17, GK-18: the deck's order, the face-down deal and a rival's hidden Bell card."""
    from fagin.engines.gangs_of_kyoto import engine as gk
    from ..games.gangs_of_kyoto.helpers import bell, card, draw_action, position

    def world(first_deal, hidden_bell, deck_reversed):
        # Seat 1's pile holds a face-down Bell card seat 0 does not know (a client's position, GK-17).
        st = position(3, revealed=card(0, draw=True), deal=[card(1), card(2)], hidden={1: [bell(hidden_bell)]})
        st.apply(1)
        st.apply(draw_action(card(3)))
        d = st.describe()
        if first_deal != d["deal"]:
            # Swap the face-down deal with deck cards (nobody has seen either).
            for c in d["deal"]:
                d["deck"].append(c)
            for c in first_deal:
                d["deck"].remove(c)
            d["deal"] = list(first_deal)
        if deck_reversed:
            d["deck"].reverse()
        return d

    worlds = [world([card(2)], 1, False), world([card(4, 2)], 1, True), world([card(2)], 2, False)]
    # Seat 0 (to give the revealed card) cannot tell these apart ...
    recs = [client.recommend(_gk_state(d), 0, iterations=1500, seed=5) for d in worlds]
    assert recs[0].actions == recs[1].actions == recs[2].actions
    # ... and its view of each is the same.
    views = [client.view(_gk_state(d), 0).state for d in worlds]
    assert views[0] == views[1] == views[2]
