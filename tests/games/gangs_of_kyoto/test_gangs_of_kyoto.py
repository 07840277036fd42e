"""Gangs of Kyoto: one test per ruling of seeds/gangs_of_kyoto.md, and the rulebook's examples."""
import json

import pytest

from fagin.engines import CHANCE, TERMINAL, IllegalActionError, new_game
from fagin.engines.gangs_of_kyoto import engine as gk
from fagin.engines.gangs_of_kyoto import actions as gk_actions

from .helpers import (DISCARD, GAME, REFUSE, STAY_LATE, bell, bells, card, count_cards, draw_action,
                         entry as _entry, full_deck, k, position, rows, tiny_deck)  # noqa: F401 (fixture)

ACCEPT, REFUSE_ACTION = gk.ACTION_ACCEPT, gk.ACTION_REFUSE


def give(st, *seats):
    for s in seats:
        st.apply(s)
    return st


def test_rulebook_example_rows_grow_to_the_right():
    """GK-6: a 4, then a 1, then a 2 kept by the active player: the row reads 4 1 2."""
    st = position(3, revealed=card(2), rows={0: [card(4), card(1)]}, deal=[card(0), card(0)])
    give(st, 0)
    assert rows(st)[0] == [(4, 0, "exploration"), (1, 0, "exploration"), (2, 0, "exploration")]


def test_rulebook_example_stays_out_too_late():
    """GK-6, GK-12: a 2 takes a row to 14: it is discarded whole; the others bank their bells."""
    st = position(3, revealed=card(2), rows={0: [card(5, 2), card(4, 1), card(3)],
                                             1: [card(3, 2), card(1)], 2: [card(2, 1), card(4)]},
                  deal=[card(0), card(0)])
    give(st, 0)
    d = st.describe()
    assert [len(s["row"]) for s in d["seats"]] == [0, 0, 0]
    assert bells(st) == [0, 2, 1]
    assert d["first_player"] == 1 and d["rounds"] == 1


def test_GK_1_setup():
    """GK-1: the whole deck, seat 0 with the First Player card, the first deal."""
    st = GAME.new_initial_state(4)
    d = st.describe()
    assert st.current_player() == CHANCE and d["first_player"] == 0 and d["active_player"] == 0
    assert count_cards(d) == full_deck()
    st.resolve_chance(1)
    d = st.describe()
    assert d["phase"] == "give" and d["revealed"] is not None and len(d["deal"]) == 3
    assert st.legal_actions() == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="players"):
        GAME.new_initial_state(6)


def test_GK_2_deck_matches_the_rulebook_shape(tmp_path):
    """GK-2: 109 cards, 81 exploration, 28 special, symbols only where allowed."""
    cards = gk.CARDS
    assert sum(c["count"] for c in cards) == 109
    assert sum(c["count"] for c in cards if c["kind"] == "exploration") == 81
    for c in cards:
        if c["kind"] == "exploration":
            assert 0 <= c["value"] <= 5
            if c["draw"]:
                assert c["value"] <= 4 and c["bells"] == 0
            elif c["bells"]:
                assert 1 <= c["value"] <= 5 and c["bells"] in (1, 2)
            else:
                assert c["value"] <= 4
    bad = json.loads(gk.DECK_FILE.read_text())
    bad["cards"][0] = {"kind": "exploration", "value": 5, "bells": 0, "draw": False, "count": 6}
    path = tmp_path / "deck.json"
    path.write_text(json.dumps(bad))
    with pytest.raises(ValueError, match="constraints"):
        gk._load_deck(path)


def test_GK_3_next_seat_deals_after_a_full_deal():
    """GK-3: after every seat received a card, the next seat clockwise deals."""
    st = position(3, revealed=card(1), deal=[card(0), card(2)], active=1, first=1)
    give(st, 1, 2)          # the last card goes to seat 0 by itself
    d = st.describe()
    assert d["active_player"] == 2 and st.current_player() == CHANCE
    assert rows(st)[0] == [(2, 0, "exploration")]


def test_GK_4_face_down_cards_are_revealed_in_turn():
    """GK-4: the next revealed card is the first face-down one; revealing is not a choice."""
    st = position(3, revealed=card(1), deal=[card(3, 1), card(0)])
    give(st, 2)
    assert st.describe()["revealed"] == card(3, 1)


def test_GK_5_each_seat_gets_one_card_and_the_last_goes_alone():
    """GK-5: only seats without a card may receive; the last card has no choice."""
    st = position(4, revealed=card(1), deal=[card(2), card(3), card(4)])
    assert st.legal_actions() == [0, 1, 2, 3]
    give(st, 2)
    assert st.legal_actions() == [0, 1, 3]
    with pytest.raises(IllegalActionError):
        st.apply(2)
    give(st, 0, 3)
    assert rows(st)[1] == [(4, 0, "exploration")]


def test_GK_6_limit_checked_before_the_effect():
    """GK-6: a draw card that brings the row to 13 ends the round before drawing."""
    st = position(3, revealed=card(3, draw=True), rows={1: [card(5, 2), card(5, 2)], 2: [card(1, 1)]},
                  deal=[card(0), card(0)])
    give(st, 1)
    assert st.describe()["rounds"] == 1 and bells(st) == [0, 0, 1]
    # Special action cards add no time: a Refuse card at 12 is safe.
    st = position(3, revealed=REFUSE, rows={1: [card(4, 2), card(4, 2), card(4)]}, deal=[card(0), card(0)])
    give(st, 1)
    assert st.describe()["rounds"] == 0 and st.describe()["seats"][1]["row_sum"] == 12


def test_GK_7_bell_cards_go_straight_to_the_victory_pile():
    """GK-7: not in the row, no limit check; 13 bells win at once."""
    st = position(3, revealed=bell(2), rows={0: [card(4, 2), card(4, 2), card(4)]}, deal=[card(0), card(0)])
    give(st, 0)
    assert rows(st)[0] == [(4, 2, "exploration")] * 2 + [(4, 0, "exploration")]
    assert bells(st) == [2, 0, 0]
    st = position(3, revealed=bell(2), vp={1: [card(5, 2)] * 5 + [card(3, 1)]}, deal=[card(0), card(0)])
    give(st, 1)
    assert st.is_terminal() and st.returns() == [0.0, 1.0, 0.0]


def test_GK_8_discard_takes_the_rightmost_card():
    """GK-8: the rightmost card (a Stay Late too) goes with the Discard; an empty row loses nothing."""
    st = position(3, revealed=DISCARD, rows={0: [card(3, 1), card(4)]}, deal=[card(0), card(0)])
    give(st, 0)
    assert rows(st)[0] == [(3, 1, "exploration")]
    d = st.describe()
    assert card(4) in d["discard"] and DISCARD in d["discard"]
    st = position(3, revealed=DISCARD, rows={0: [card(3), STAY_LATE]}, deal=[card(0), card(0)])
    give(st, 0)
    assert rows(st)[0] == [(3, 0, "exploration")]
    st = position(3, revealed=DISCARD, deal=[card(0), card(0)])
    give(st, 2)
    assert rows(st)[2] == [] and DISCARD in st.describe()["discard"]


def test_GK_9_stay_late_raises_the_limit_while_in_the_row():
    """GK-9: 18 while a Stay Late lies in the row; losing it at 13 or more ends the round."""
    st = position(3, revealed=card(4), rows={0: [card(5, 2), card(4, 2), STAY_LATE]}, deal=[card(0), card(0)])
    give(st, 0)
    assert st.describe()["seats"][0]["row_sum"] == 13 and st.describe()["rounds"] == 0
    st = position(3, revealed=card(5, 2), rows={0: [card(5, 2), card(4, 2), card(4), STAY_LATE]},
                  deal=[card(0), card(0)])
    give(st, 0)     # 18: over even the raised limit
    assert st.describe()["rounds"] == 1
    st = position(3, revealed=DISCARD, rows={0: [card(5, 2), card(4, 2), card(4), STAY_LATE]},
                  deal=[card(0), card(0)])
    give(st, 0)
    assert st.describe()["rounds"] == 1 and bells(st) == [0, 0, 0]


def test_GK_10_refuse_is_the_receivers_choice():
    """GK-10: refusing discards the card and the rightmost Refuse card; accepting places it."""
    st = position(3, revealed=card(5, 2), rows={1: [card(4), REFUSE, card(3), REFUSE]}, deal=[card(0), card(0)])
    give(st, 1)
    assert st.current_player() == 1 and st.legal_actions() == [ACCEPT, REFUSE_ACTION]
    refused = st.child(REFUSE_ACTION)
    assert rows(refused)[1] == [(4, 0, "exploration"), (0, 0, "refuse"), (3, 0, "exploration")]
    assert card(5, 2) in refused.describe()["discard"]
    accepted = st.child(ACCEPT)
    assert rows(accepted)[1][-1] == (5, 2, "exploration")
    # Accepting a card that busts ends the round.
    st = position(3, revealed=card(5, 2), rows={1: [card(4), card(4), REFUSE]}, deal=[card(0), card(0)])
    give(st, 1)
    assert st.child(ACCEPT).describe()["rounds"] == 1
    assert st.child(REFUSE_ACTION).describe()["rounds"] == 0


def test_GK_10_draw_symbols_chain_and_drawn_cards_may_be_refused():
    """GK-10: a draw card brings the deck's next card; its effect applies too."""
    st = position(3, revealed=card(1, draw=True), rows={2: [REFUSE]}, deal=[card(0), card(0)])
    give(st, 2)
    assert st.current_player() == 2                 # the given card may be refused first
    st.apply(ACCEPT)
    assert st.current_player() == CHANCE
    st.apply(draw_action(card(2, draw=True)))      # a second draw card: chains
    assert st.current_player() == 2                 # ... but seat 2 may refuse it first
    st.apply(ACCEPT)
    assert st.current_player() == CHANCE
    st.apply(draw_action(card(3, 1)))
    st.apply(REFUSE_ACTION)
    assert rows(st)[2] == [(1, 0, "exploration"), (2, 0, "exploration")]
    assert st.current_player() == 0 and st.describe()["revealed"] == card(0)


def test_GK_11_undealt_cards_go_back_on_top():
    """GK-11: a mid-deal bust puts the face-down cards back on top; they are dealt next."""
    st = position(3, revealed=card(5, 2), rows={0: [card(4), card(4)]}, deal=[card(1, 1), card(2, 1)])
    give(st, 0)
    d = st.describe()
    # The next deal (first player 1) takes them first, then one card by chance.
    assert d["rounds"] == 1 and d["deal"] == [card(1, 1), card(2, 1)] and d["deck_top"] == []
    assert st.current_player() == CHANCE
    st.apply(draw_action(card(4)))
    d = st.describe()
    assert d["revealed"] == card(1, 1) and d["deal"] == [card(2, 1), card(4)] and d["active_player"] == 1


def test_GK_12_banking():
    """GK-12: the buster loses everything in its row; others keep only cards with bells."""
    st = position(3, revealed=card(4), rows={0: [card(4, 2), card(5, 2)], 1: [card(2, 1), card(3), STAY_LATE],
                                             2: [card(1, 1), REFUSE]}, deal=[card(0), card(0)])
    give(st, 0)
    d = st.describe()
    assert bells(st) == [0, 1, 1]
    assert [len(s["victory_pile"]) for s in d["seats"]] == [0, 1, 1]
    assert sum(1 for c in d["discard"] if c == card(4, 2) or c == STAY_LATE or c == REFUSE) == 3


def test_GK_13_first_player_card_passes_and_its_holder_starts():
    """GK-13: the new holder starts the round even if another seat was to deal next."""
    st = position(4, revealed=card(2), rows={2: [card(4), card(4), card(3)]}, deal=[card(0)] * 3, active=0,
                  first=3)
    give(st, 2)
    d = st.describe()
    assert d["first_player"] == 0 and d["active_player"] == 0


def test_GK_14_simultaneous_winners():
    """GK-14: most bells; on a tie the seat furthest after the First Player card wins."""
    vp = {0: [card(5, 2)] * 6, 1: [card(4, 2)] * 5 + [card(3, 2)]}
    st = position(3, revealed=card(2), rows={0: [card(1, 1)], 1: [card(2, 1)], 2: [card(4), card(4), card(3)]},
                  vp=vp, deal=[card(0), card(0)], first=0)
    give(st, 2)
    assert st.is_terminal() and bells(st)[:2] == [13, 13]
    assert st.returns() == [0.0, 1.0, 0.0]          # seat 1 sits further after seat 0
    st = position(3, revealed=card(2), rows={0: [card(1, 1)], 1: [card(2, 1)], 2: [card(4), card(4), card(3)]},
                  vp=vp, deal=[card(0), card(0)], first=1)
    give(st, 2)
    assert st.returns() == [1.0, 0.0, 0.0]          # from seat 1: seat 0 is furthest
    st = position(3, revealed=card(2), rows={0: [card(3, 2)], 1: [card(2, 1)], 2: [card(4), card(4), card(3)]},
                  vp=vp, deal=[card(0), card(0)], first=0)
    give(st, 2)
    assert st.returns() == [1.0, 0.0, 0.0]          # 14 beats 13


def test_GK_15_reshuffle_when_the_deck_is_empty():
    """GK-15: the discard pile becomes the deck."""
    left = full_deck()
    deck_cards = [gk.card_dict(i) for i, n in left.items() for _ in range(n)]
    # Everything is in the discard pile except two deal cards and the revealed card.
    st = position(3, revealed=card(0), deal=[card(1), card(2)],
                  discard=[c for c in deck_cards if c not in (card(0), card(1), card(2))]
                  + [card(0)] * 5 + [card(1)] * 5 + [card(2)] * 5)
    assert st.describe()["deck"] == []
    give(st, 0, 1)
    assert st.current_player() == CHANCE
    d = st.describe()
    assert d["deck_ran_out"] and d["discard"] == [] and len(d["deck"]) == 106


def test_GK_16_play_through_variant():
    """GK-16: 13 bells do not end the game; the first bust after the deck ran out does."""
    opts = {"play_through": True}
    st = position(3, revealed=bell(2), vp={1: [card(5, 2)] * 6}, deal=[card(0), card(0)], options=opts)
    give(st, 1)
    assert not st.is_terminal() and bells(st)[1] == 14
    st = position(3, revealed=card(2), rows={0: [card(4), card(4), card(3)], 2: [card(3, 2)]}, vp={1: [card(5, 2)]},
                  deal=[card(0), card(0)], options=opts)
    give(st, 0)
    assert not st.is_terminal()                     # the deck has not run out yet
    st = position(3, revealed=card(2), rows={0: [card(4), card(4), card(3)], 2: [card(3, 2)]}, vp={1: [card(5, 2)]},
                  deal=[card(0), card(0)], options=opts, deck_ran_out=True)
    give(st, 0)
    assert st.is_terminal() and st.returns() == [0.0, 0.0, 1.0]   # 2 + 2 beats 2 (seat 2 further)


def _drawn_bell(n, options=None):
    """Seat 1 receives a draw card, and the deck's next card is a Bell card worth n."""
    st = position(3, revealed=card(0, draw=True), deal=[card(1), card(2)], options=options)
    give(st, 1)
    st.apply(draw_action(bell(n)))
    return st


def test_GK_16_the_deck_runs_out_when_its_last_card_is_taken():
    """GK-16: a bust after the deck's last card was taken, before any reshuffle, ends the game."""
    opts = {"play_through": True}
    # Seat 0's row is at 9; the draw card takes it to 11 and brings the deck's last card, a 4.
    st = position(3, revealed=card(2, draw=True), rows={0: [card(4), card(4), card(1)], 2: [card(3, 2)]},
                  deal=[card(0), card(0)], deck=[card(4)], options=opts)
    assert not st.describe()["deck_ran_out"]
    give(st, 0)
    assert st.current_player() == CHANCE
    st.apply(draw_action(card(4)))
    assert st.is_terminal() and st.returns() == [0.0, 0.0, 1.0]    # banked first: seat 2's 2 bells


def test_GK_16_an_empty_deck_in_a_description_has_run_out():
    """GK-16: a described position whose deck is empty has had its deck run out."""
    st = position(3, revealed=card(2), deal=[card(0), card(0)], deck=[])
    assert st.describe()["deck_ran_out"]


def test_GK_17_a_bell_card_drawn_by_a_draw_symbol_is_seen_by_all():
    """GK-17 (decision): the drawn card is turned up to be placed, so every seat knows its worth."""
    one, two = _drawn_bell(1), _drawn_bell(2)
    assert all(one.infoset_key(p) != two.infoset_key(p) for p in range(3))
    v = one.view(0)
    assert v["seats"][1]["victory_pile"] == [bell(1)] and v["seats"][1]["bells"] == 1
    assert v["seats"][1]["hidden_bell_count"] == 0 and v["seats"][1]["hidden_bells"] == []
    assert sum(c == bell(1) for c in v["unseen"]) == full_deck()[k(bell(1))] - 1
    # Every victory pile is known to all, so a determinization keeps it (GK-18).
    for seed in range(5):
        assert one.determinize(0, seed).describe()["seats"][1]["victory_pile"] == [bell(1)]
    # With open piles nothing changes: the engine already remembers every card turned up.
    o1 = _drawn_bell(1, {"open_piles": True})
    assert o1.view(0)["seats"][1] == v["seats"][1]


def test_GK_17_a_pile_a_client_describes_face_down_stays_hidden_from_the_others():
    """GK-17: a client may describe a pile's face-down Bell cards; only its owner knows them."""
    def world(n, options=None):
        return position(3, revealed=card(1), deal=[card(0), card(0)], hidden={1: [bell(n)]}, options=options)
    one, two = world(1), world(2)
    assert one.infoset_key(0) == two.infoset_key(0) and one.infoset_key(2) == two.infoset_key(2)
    assert one.infoset_key(1) != two.infoset_key(1)
    assert one.view(0) == two.view(0)
    v = one.view(0)
    assert v["seats"][1]["hidden_bells"] == [] and v["seats"][1]["hidden_bell_count"] == 1
    assert v["seats"][1]["bells"] == 0 and one.view(1)["seats"][1]["bells"] == 1
    # With open piles they are face up: part of the victory pile, seen by all.
    o1, o2 = world(1, {"open_piles": True}), world(2, {"open_piles": True})
    assert o1.infoset_key(0) != o2.infoset_key(0)
    assert bells(o1)[1] == 1 and o1.describe()["seats"][1]["hidden_bells"] == []


def test_GK_18_determinize_and_views():
    """GK-18: unseen cards are reshuffled; the observer's key and legal actions stay; views are states."""
    st = new_game("gangs_of_kyoto", 4, seed=3)
    for seed in range(5):
        det = st.determinize(0, seed)
        assert det == st.determinize(0, seed)
        assert det.infoset_key(0) == st.infoset_key(0)
        assert det.legal_actions() == st.legal_actions()
        assert count_cards(det.describe()) == full_deck()
    assert any(st.determinize(0, s).describe()["deal"] != st.describe()["deal"] for s in range(5))
    view = st.view(2)
    again = GAME.from_description(view)
    assert again.infoset_key(2) == GAME.from_description(st.describe()).infoset_key(2)
    assert again.legal_actions() == st.legal_actions()


def test_GK_18_older_cards_are_exchanged_only_among_themselves():
    """GK-18: after a mid-deal reshuffle, the old deck's cards are not mixed with the new deck."""
    left = full_deck()
    deck_cards = [gk.card_dict(i) for i, n in left.items() for _ in range(n)]
    keep = [card(3), card(4), card(0)]
    discard = list(deck_cards)
    for c in keep + [card(1)]:
        discard.remove(c)
    # The deck holds a single 1: the next deal takes it, then reshuffles.
    st = position(3, revealed=card(0), deal=[card(3), card(4)], discard=discard)
    give(st, 0, 1)
    assert st.describe()["deck"] == [card(1)]
    # Seat 2 received the 4 and the next seat deals: the 1 (old) then two new cards.
    st.resolve_chance(5)
    gens = gk.generations(st.to_bytes())
    assert gens["deal"][:1] == [True] or st.describe()["revealed"] == card(1)
    for seed in range(10):
        det = st.determinize(0, seed)
        g = gk.generations(det.to_bytes())
        d = det.describe()
        old = [c for c, is_old in zip(d["deal"], g["deal"]) if is_old]
        assert all(c == card(1) for c in old)


def test_GK_19_a_deal_takes_what_there_is(tiny_deck):
    """GK-19: fewer cards than seats: a short deal; no card at all: the round ends unbusted."""
    tiny_deck([_entry(value=1, count=2), _entry(value=2), _entry(kind="bell", bells=1)])
    st = GAME.new_initial_state(3)
    for a in (draw_action(card(1)), draw_action(card(1)), draw_action(bell(1))):
        st.apply(a)
    give(st, 0, 1)                                  # the bell card goes to seat 2 by itself
    assert bells(st) == [0, 0, 1] and st.describe()["active_player"] == 1
    st.apply(draw_action(card(2)))                  # the last card: a deal of one
    d = st.describe()
    assert d["revealed"] == card(2) and d["deal"] == [] and st.legal_actions() == [0, 1, 2]
    give(st, 1)
    # Seat 2 cannot deal anything: the round ends, nobody busted, rows are banked.
    d = st.describe()
    assert d["rounds"] == 1 and d["first_player"] == 1 and all(s["row"] == [] for s in d["seats"])
    assert st.current_player() == CHANCE and len(d["deck"]) == 3   # the discard pile, reshuffled


def test_GK_19_nothing_left_anywhere_ends_the_game(tiny_deck):
    """GK-19: no card left to draw after a round: the most bells wins (ties by GK-14)."""
    tiny_deck([_entry(kind="bell", bells=1, count=3)])
    st = GAME.new_initial_state(3)
    st.resolve_chance(1)
    give(st, 0, 1)
    assert st.is_terminal() and st.returns() == [0.0, 0.0, 1.0]


def test_decoder_names_the_offending_field():
    base = position(3, revealed=card(1), deal=[card(0), card(0)]).describe()
    import copy
    cases = [
        (("players",), 7, "players"),
        (("phase",), "dance", "phase"),
        (("first_player",), 5, "first_player"),
        (("seats", 0, "row"), [card(5, 2)] * 3, r"seats\[0\].row"),
        (("seats", 1, "row"), [bell(1)], r"seats\[1\].row\[0\]"),
        (("seats", 1, "victory_pile"), [card(3)], r"seats\[1\].victory_pile\[0\]"),
        (("seats", 2, "hidden_bells"), [card(3, 1)], r"seats\[2\].hidden_bells\[0\]"),
        (("revealed",), None, "revealed"),
        (("revealed",), card(9), "revealed"),
        (("deck",), [], "cards"),
        (("received",), [0, 1], "received"),
        (("receiver",), 1, "receiver"),
    ]
    for path, value, field in cases:
        d = copy.deepcopy(base)
        target = d
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        with pytest.raises(ValueError, match=f"^{field}"):
            GAME.from_description(d)


def test_enum_errors_name_the_values_a_json_client_writes():
    """A missing or unknown enum is named as missing/unknown, with the proto value names."""
    from fagin.v1 import gangs_of_kyoto_pb2 as pb
    phases = ", ".join(v.name for v in pb.GangsOfKyotoState.Phase.DESCRIPTOR.values if v.number)
    kinds = ", ".join(v.name for v in pb.GangsOfKyotoCard.Kind.DESCRIPTOR.values if v.number)
    actions = ", ".join(v.name for v in pb.GangsOfKyotoAction.Kind.DESCRIPTOR.values if v.number)
    base = position(3, revealed=card(1), deal=[card(0), card(0)]).describe()
    with pytest.raises(ValueError) as e:
        GAME.from_description({**base, "phase": None})
    assert str(e.value) == f"phase: missing; expected one of {phases}"
    with pytest.raises(ValueError, match=f"^phase: unknown value 'dance'; expected one of {phases}$"):
        GAME.from_description({**base, "phase": "dance"})
    assert GAME.from_description({**base, "phase": "PHASE_GIVE"}) == GAME.from_description(base)
    with pytest.raises(ValueError) as e:
        GAME.from_description({**base, "revealed": {"value": 1}})
    assert str(e.value) == f"revealed.kind: missing; expected one of {kinds}"
    with pytest.raises(ValueError) as e:
        gk_actions.action_from_typed({"seat": 1})
    assert str(e.value) == f"kind: missing; expected one of {actions}"


def test_count_errors_state_the_totals():
    base = position(3, revealed=card(1), deal=[card(0), card(0)]).describe()
    with pytest.raises(ValueError) as e:
        GAME.from_description({**base, "received": [2]})
    assert str(e.value) == ("deal: received 1, face down 2, revealed 1, to draw 0: 4 cards, "
                            "more than the 3 of a deal (one per player)")
    view = position(3, revealed=card(1), deal=[card(0)], received=[0], deck=[card(2)]).view(0)
    with pytest.raises(ValueError) as e:
        GAME.from_description({**view, "deck_top_size": 2})
    assert str(e.value) == ("unseen: 2 cards, fewer than the 1 face-down cards of the deal (deal_size) "
                            "and 2 on top of the deck (deck_top_size) need")
    with pytest.raises(ValueError) as e:
        GAME.from_description({**base, "discard": [card(0)]})
    assert str(e.value) == "cards: the state holds 7 of card '0', the deck has 6 (every card must be in exactly one place)"


def test_labels_and_typed_actions():
    for a in list(range(7)) + [gk.ACTION_DRAW + i for i in range(len(gk.CARDS))]:
        assert gk_actions.action_from_typed(gk_actions.typed_action(a)) == a
        assert gk_actions.action_label(a)
    assert gk_actions.action_label(2) == "give to seat 2"
    with pytest.raises(ValueError):
        gk_actions.action_label(999)
    st = new_game("gangs_of_kyoto", 2, seed=1)
    assert "Gangs of Kyoto" in str(st) and "seat 1" in str(st)


def test_GK_18_a_hidden_pile_never_reaches_13_bells_while_the_game_goes_on():
    """GK-14, GK-18: the observer knows nobody has won, so seat 1's hidden Bell card is a +1."""
    vp = {1: [card(5, 2)] * 5 + [card(1, 1)]}                     # 11 visible bells
    st = position(3, revealed=card(1), deal=[card(0), card(0)], vp=vp, hidden={1: [bell(1)]})
    for seed in range(30):
        det = st.determinize(0, seed)
        assert det.describe()["seats"][1]["bells"] == 12
    seen = GAME.from_description(st.view(0))
    assert seen.describe()["seats"][1]["hidden_bells"] == [bell(1)]


def test_GK_20_the_top_of_the_deck_and_the_face_down_deal_hold_at_most_8_together():
    # 7 on top and 1 face down: the round's end (a bust) makes 8 on top, and the successor is
    # accepted as a position too.
    top7 = [card(0)] * 6 + [card(1)]
    st = position(3, revealed=card(5, 2), rows={0: [card(5, 2), card(4, 1), card(3)]}, deal=[card(1)],
                  received=[2], deck_top=top7)
    give(st, 0)                                     # 5 + 4 + 3 + 5: seat 0 stays out too late
    d = st.describe()
    # 8 went on top; the next deal has drawn its 3 cards from the top first.
    assert d["rounds"] == 1 and len(d["deck_top"]) == 5 and len(d["deal"]) + (d["revealed"] is not None) == 3
    assert GAME.from_description(d) and GAME.from_description(st.view(1))
    # 7 on top and 2 face down would make 9 on top (the fuzzer's case: accepted, then its
    # successor's view refused, and the engine's top array written past its end).
    with pytest.raises(ValueError) as e:
        position(3, revealed=card(5, 2), deal=[card(1), card(2)], deck_top=top7)
    assert str(e.value).startswith("deck_top: 7 cards on top of the deck and 2 face down in the deal")
    view = position(3, revealed=card(5, 2), deal=[card(1), card(2)], deck_top=top7[:6]).view(1)
    with pytest.raises(ValueError) as e:
        GAME.from_description({**view, "deck_top_size": 7})
    assert "(GK-20)" in str(e.value)
