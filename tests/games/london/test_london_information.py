"""What each seat knows in London, at the engine level (LN-6, LN-82 to LN-89): information-set
keys, the cards known in hands, the deck's layers and University's knowledge, determinization."""
import collections

import pytest

from fagin.engines.london import engine as E

from .helpers import (GAME, act, draw, hand_of, labels, phase, position, raw, total_cards, turn_start, version,
                             with_fields)


def _letters(cards):
    """How many cards of each deck letter a Counter of card ids holds."""
    out = collections.Counter()
    for c, n in cards.items():
        out[E.CARDS[version(c)].deck] += n
    return out


def _deck_letters(st):
    r = raw(st)
    out = collections.Counter()
    for v, n in enumerate(r["deck"][:len(E.VERSIONS)]):
        out[E.CARDS[v].deck] += n
    return out


# ------------------------------------------------------------------ keys

def test_public_holdings_are_in_every_key():
    """LN-6, LN-83, LN-88: a different amount of money (public) changes every seat's key; a
    different hidden hand card of the same letter changes only its holder's."""
    base = dict(players=3, hands={1: ["grocers", "sewers"]})
    st = position(**base)
    richer = position(money={1: 9}, **base)
    other_card = position(players=3, hands={1: ["mercers", "sewers"]})
    for p in range(3):
        assert st.infoset_key(p) != richer.infoset_key(p)
    assert st.infoset_key(1) != other_card.infoset_key(1)
    assert st.infoset_key(0) == other_card.infoset_key(0) and st.infoset_key(2) == other_card.infoset_key(2)


def test_perfect_memory_of_the_public_history():
    """LN-82, LN-88: the same position reached by two public histories (Take Three from the Card
    Display in two orders) gives different keys: each seat remembers what it was shown."""
    def take(order):
        st = position(display_top=["grocers", "mercers", "almshouses"])
        act(st, "take_three")
        for card in order:
            act(st, "take_top", card)
        return st
    one, two = take(["salters", "mercers", "almshouses"]), take(["almshouses", "mercers", "salters"])
    hashes = ("public_hash", "hand_hash", "sure_hash", "display")     # (the empty row slots keep stale values)
    assert {k: v for k, v in raw(one).items() if k not in hashes} == \
        {k: v for k, v in raw(two).items() if k not in hashes}
    assert one.infoset_key(1) != two.infoset_key(1)


def test_the_card_display_route_is_known_to_all():
    """LN-83, LN-84: a card taken from the Card Display is known in that hand (``known``); one
    leaving the hand lowers the count, never below zero."""
    st = turn_start(display_top=["sewers", "grocers"], hands={0: ["sewers"]})
    act(st, "take_top", "sewers")
    assert raw(st)["known"][0][version("sewers")] == 1 and hand_of(st, 0)["sewers"] == 2
    act(st, "play_cards")       # one Sewers placed, the other expended: every step is forced
    assert not hand_of(st, 0)["sewers"]
    assert raw(st)["known"][0][version("sewers")] == 0


# ------------------------------------------------------------------ the deck

def test_the_deck_draws_its_topmost_letter():
    """LN-85, LN-89: with A cards left the next card is an A card; once they are gone a B card."""
    st = turn_start(deck=["grocers", "sewers", "bridge"])
    assert [E.VERSIONS[a - E.ACTION_CHANCE] for a, _ in st.chance_outcomes()] == ["grocers"]
    st = turn_start(deck=["sewers", "bridge", "lords"])
    assert {E.VERSIONS[a - E.ACTION_CHANCE] for a, _ in st.chance_outcomes()} == {"bridge", "lords"}


def test_university_knowledge_is_the_owners():
    """LN-85, LN-86, LN-88: the cards put back are in the owner's key; the others only know their
    letters, so their keys do not depend on which A cards were put back."""
    def looked(cards):
        st = turn_start(stacks={0: [["university_of_london"]]}, display_top=["grocers"])
        act(st, "look")
        for c in cards:
            draw(st, c)
        act(st, "take_top", "salters")
        act(st, "put_back", cards[0])
        act(st, "put_back", cards[1])
        return st
    one = looked(["mercers", "almshouses", "covent_garden"])
    two = looked(["theatre_royal", "vauxhall_gardens", "covent_garden"])
    assert raw(one)["uni_owner"] == 0
    assert one.infoset_key(0) != two.infoset_key(0)
    assert one.infoset_key(1) == two.infoset_key(1)


# ------------------------------------------------------------------ determinization

def _hidden_position():
    st = position(players=3, active=0, hands={0: ["grocers", "st_pauls"],
                                              1: ["mercers", "almshouses", "sewers", "bridge"],
                                              2: ["covent_garden", "workhouse"]},
                  known={1: ["mercers"]}, display_top=["theatre_royal"], stacks={2: [["coffee_house"]]})
    return st


def test_determinize_re_deals_unseen_cards_within_their_letter():
    """LN-86, LN-87: the observer's hand, the known cards and all public parts stay; each hidden
    hand card is replaced by an unseen card of its letter; the 110 cards are conserved; the
    observer's key is unchanged."""
    st = _hidden_position()
    changed = False
    for seed in range(20):
        det = st.determinize(0, seed)
        assert total_cards(det) == 110
        assert hand_of(det, 0) == hand_of(st, 0)
        assert hand_of(det, 1)["mercers"] >= 1
        for p in (1, 2):
            assert _letters(hand_of(det, p)) == _letters(hand_of(st, p))
        assert _deck_letters(det) == _deck_letters(st)
        r, d = raw(st), raw(det)
        for field in ("display", "display_n", "discard", "pc_version", "pc_n", "money", "poverty", "known"):
            assert d[field] == r[field], field
        assert det.infoset_key(0) == st.infoset_key(0)
        changed |= hand_of(det, 1) != hand_of(st, 1) or hand_of(det, 2) != hand_of(st, 2)
    assert changed


def test_determinize_never_deals_the_observers_own_cards_to_others():
    """LN-87: the observer's own hand cards are seen, so never re-dealt to another hand."""
    st = _hidden_position()
    for seed in range(20):
        det = st.determinize(1, seed)
        assert hand_of(det, 1) == hand_of(st, 1)
        for p in (0, 2):
            assert "almshouses" not in hand_of(det, p) and "mercers" not in hand_of(det, p)   # one copy each


def test_determinize_keeps_the_university_owners_knowledge():
    """LN-85, LN-87: the owner keeps the put-back cards where they are, and a put-back card another
    seat drew (``owner_sure``); for the others both are re-dealt within their letter."""
    st = position(players=2, hands={1: ["workhouse", "paupers_c"]}, top=["sewers", "underground"],
                  uni_owner=0, deck=["parliament", "whitehall", "tower_bridge", "school_c", "sewers"])
    r = raw(st)
    r["owner_sure"][1][version("workhouse")] = 1
    st = with_fields(st, owner_sure=r["owner_sure"])
    owner_changed = other_changed = False
    for seed in range(30):
        det = st.determinize(0, seed)
        d = raw(det)
        assert [E.VERSIONS[v] for v in d["top"][:2]] == ["sewers", "underground"]
        assert hand_of(det, 1)["workhouse"] == 1
        owner_changed |= hand_of(det, 1) != hand_of(st, 1)
        other = st.determinize(1, seed)
        o = raw(other)
        assert all(E.CARDS[v].deck == "C" for v in o["top"][:2])
        other_changed |= [E.VERSIONS[v] for v in o["top"][:2]] != ["sewers", "underground"]
        assert total_cards(det) == total_cards(other) == 110
    assert owner_changed and other_changed


def test_determinize_during_a_look_hides_the_looked_cards_from_the_others_only():
    """LN-85, LN-87: while the University owner chooses among the cards it looked at, another
    seat's determinization re-deals them within their letters; the owner's keeps them, and both
    keep their own information set and legal actions."""
    st = turn_start(stacks={0: [["university_of_london"]]}, display_top=["grocers"])
    act(st, "look")
    for c in ("mercers", "almshouses", "covent_garden"):
        draw(st, c)
    assert phase(st) == "take_looked"
    looked = sorted(E.VERSIONS[v] for v in raw(st)["look"][:raw(st)["look_n"]])
    seen_by_owner, redealt = set(), set()
    for seed in range(40):
        mine = st.determinize(0, seed)
        assert sorted(E.VERSIONS[v] for v in raw(mine)["look"][:raw(mine)["look_n"]]) == looked
        assert mine.infoset_key(0) == st.infoset_key(0) and mine.legal_actions() == st.legal_actions()
        theirs = st.determinize(1, seed)
        cards = [E.VERSIONS[v] for v in raw(theirs)["look"][:raw(theirs)["look_n"]]]
        assert len(cards) == 3 and all(E.CARDS[E.VERSION_INDEX[c]].deck == "A" for c in cards)
        assert theirs.infoset_key(1) == st.infoset_key(1)
        assert total_cards(theirs) == 110
        seen_by_owner.add(tuple(sorted(cards)))
        redealt.add(tuple(sorted(cards)) != tuple(looked))
    assert True in redealt and len(seen_by_owner) > 1
