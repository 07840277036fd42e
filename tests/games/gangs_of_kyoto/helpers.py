"""Helpers to build Gangs of Kyoto positions for tests."""
import collections
import json

import pytest

from fagin.engines.gangs_of_kyoto import engine as gk
from fagin.engines import load_game

GAME = load_game("gangs_of_kyoto")


def card(value=0, bells=0, draw=False, kind="exploration"):
    return {"kind": kind, "value": value, "bells": bells, "draw": draw}


def bell(n):
    return card(0, n, kind="bell")


DISCARD = card(kind="discard")
STAY_LATE = card(kind="stay_late")
REFUSE = card(kind="refuse")


def k(c):
    """The kind index of a card dict."""
    return gk.kind_of_card(c, "card")


def draw_action(c):
    return gk.ACTION_DRAW + k(c)


def full_deck():
    return collections.Counter({i: c["count"] for i, c in enumerate(gk.CARDS)})


def position(players=3, phase="give", rows=None, vp=None, hidden=None, revealed=None, received=(),
             active=0, first=0, deal=(), deck_top=(), discard=(), to_draw=0, arriving=None,
             receiver=None, options=None, winner=None, deck_ran_out=False, deck=None, rounds=None):
    """A consistent position: every card not placed elsewhere is in the deck (or, if `deck`
    lists the deck's cards, in the discard pile). `rounds` defaults to the first round in
    which `first` holds the First Player card (GK-13)."""
    rows = rows or {}
    vp = vp or {}
    hidden = hidden or {}
    left = full_deck()
    used = []
    seats = []
    for p in range(players):
        seat = {"row": list(rows.get(p, [])), "victory_pile": list(vp.get(p, [])),
                "hidden_bells": list(hidden.get(p, []))}
        used += seat["row"] + seat["victory_pile"] + seat["hidden_bells"]
        seats.append(seat)
    used += list(deal) + list(deck_top) + list(discard)
    used += [c for c in (revealed, arriving) if c is not None]
    for c in used:
        left[k(c)] -= 1
        assert left[k(c)] >= 0, f"more {c} than the deck has"
    rest = [gk.card_dict(i) for i, n in left.items() for _ in range(n)]
    if deck is None:
        deck = rest
    else:
        discard = list(discard)
        for c in deck:
            rest.remove(c)
        discard += rest
    d = {"players": players, "phase": phase, "first_player": first, "active_player": active,
         "seats": seats, "deck": deck, "deck_top": list(deck_top), "deal": list(deal),
         "discard": list(discard), "revealed": revealed, "received": list(received),
         "deal_to_draw": to_draw, "arriving": arriving, "receiver": receiver,
         "options": options or {}, "winner": winner, "deck_ran_out": deck_ran_out,
         "rounds": first if rounds is None else rounds}
    return GAME.from_description(d)


def count_cards(d):
    """Every card of a described state, by kind index."""
    c = collections.Counter()
    for seat in d["seats"]:
        for key in ("row", "victory_pile", "hidden_bells"):
            c.update(k(x) for x in seat[key])
    for key in ("deck", "deck_top", "deal", "discard", "unseen"):
        c.update(k(x) for x in d[key])
    for key in ("revealed", "arriving"):
        if d[key] is not None:
            c[k(d[key])] += 1
    return c


def rows(st):
    return [[(c["value"], c["bells"], c["kind"]) for c in s["row"]] for s in st.describe()["seats"]]


def bells(st):
    return [s["bells"] for s in st.describe()["seats"]]


@pytest.fixture
def tiny_deck(tmp_path):
    """Swaps in another deck for one test (GK-2: the deck is data): use(list of entry(...))."""
    def use(cards):
        path = tmp_path / "deck.json"
        path.write_text(json.dumps({"cards": cards}))
        gk._load_deck(path)
    yield use
    gk._load_deck()


def entry(kind="exploration", value=0, bells=0, draw=False, count=1):
    """One line of a deck file."""
    return {"kind": kind, "value": value, "bells": bells, "draw": draw, "count": count}
