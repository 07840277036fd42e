"""London's events (engines/london/events.py): a move told with what it cost, another
seat's draw told by its deck letter, and the final scoring told category by category as
the engine scored it."""
from collections import Counter

from fagin.engines import load_game
from fagin.engines.london import engine as E
from fagin.engines.london.components import board

from ..playing import random_path

GAME = load_game("london")


PATH = random_path(GAME, 3, seed=3)


def test_the_final_scoring_is_told_by_category_as_the_engine_scored_it():
    """LN-75, LN-76, LN-77, LN-78, LN-79, LN-80: each seat's scoring event adds up to its
    final VP, category by category, the poverty penalty read from the table (LN-11)."""
    before, action, after = PATH[-1]
    final = after.describe()
    for seat in range(3):
        scoring = [e for e in before.events(action, after, seat) if e["typed"]["kind"] == "scoring"]
        assert [e["typed"]["scores"][0]["seat"] for e in scoring] == [0, 1, 2]
        lowest = min(e["typed"]["scores"][0]["poverty"] for e in scoring)
        for p, e in enumerate(scoring):
            sc, table = e["typed"]["scores"][0], e["typed"]["poverty_table"]
            assert e["summary"] and sc["vp"] == final["final_vp"][p]
            assert sc["poverty"] == final["final_poverty"][p]
            assert sc["vp"] == (sc["vp_counters"] + sc["money_vp"] - 7 * sc["unpaid"] + sc["borough_vp"]
                                + sc["underground_vp"] + sc["card_vp"] - sc["poverty_penalty"])
            assert sc["poverty_penalty"] == table[sc["poverty"] - lowest] == E.poverty_penalty_of(sc["poverty"] - lowest)
            assert f"total {sc['vp']} VP" in e["label"] and f"{sc['vp_counters']} VP counters" in e["label"]
        assert before.events(action, after, seat)[-1]["typed"]["kind"] == "result"


def test_buying_a_borough_is_told_with_its_price_its_cards_and_any_loan():
    """LN-71, LN-22: "seat 1 buys Westminster for £6 and takes 3 cards", with the loans the
    price took; told alike to every seat."""
    buys = [(b, a, c) for b, a, c in PATH if not b.is_chance_node() and b.typed_action(a)["kind"] == "buy"]
    assert buys
    loans = 0
    for before, action, after in buys:
        borough = next(x for x in board().boroughs if x.id == before.typed_action(action)["borough"])
        actor = before.current_player()
        told = [before.events(action, after, seat)[0] for seat in range(3)]
        for seat, e in enumerate(told):
            who = "you buy" if seat == actor else f"seat {actor} buys"
            cards = after.describe()["draws_left"]
            assert e["label"].startswith(f"{who} {borough.name} for £{borough.cost} and "
                                         f"take{'' if seat == actor else 's'} {cards} card")
            assert e["typed"]["cards_to_take"] == cards
            took = after.describe()["seats"][actor]["loans"] - before.describe()["seats"][actor]["loans"]
            assert e["typed"]["loans"] == took and (took == 0 or "loan" in e["label"])
        loans += took
    assert loans, "no borough bought on a loan in this game: choose another seed"


def test_another_seats_draw_is_told_by_its_letter_only():
    """LN-84, LN-86: a card drawn into a hand is named to its seat; the others are told its
    deck letter (and every seat's events of it name one card at most)."""
    draws = [(b, a, c) for b, a, c in PATH if b.is_chance_node() and b.describe()["phase"] == "draw"]
    assert draws
    for before, action, after in draws[:40]:
        card = before.typed_action(action)["card"]
        for seat in range(3):
            (e,) = before.events(action, after, seat)
            to = e["typed"]["to"]
            if seat == to:
                assert e["typed"].get("card") == card
            elif "card" not in e["typed"]:
                assert e["typed"]["letter"] in "abc" and E.CARDS[E.VERSION_INDEX[card]].name not in e["label"]


def _version_name(card):
    from fagin.engines.london.actions import version_names
    return version_names()[E.VERSION_INDEX[card]]


def test_every_card_leaving_a_hand_or_reaching_the_card_display_is_named():
    """A seat placing a card may expend others of its colour (LN-28): each card that leaves
    the mover's hand is named to the mover, and each card that reaches the Card Display or the
    discard pile (face up, open to all) is named to every seat, with the place it went to."""
    checked = set()
    for before, action, after in PATH:
        if before.is_chance_node():
            continue
        mover = before.current_player()
        own_before, own_after = before.view(mover)["seats"][mover]["hand"], after.view(mover)["seats"][mover]["hand"]
        left = list((Counter(own_before) - Counter(own_after)).elements())
        b, a = before.describe(), after.describe()
        gained = {words: list((Counter(a[row]) - Counter(b[row])).elements())
                  for row, words in (("display_top", "top row"), ("display_bottom", "bottom row"),
                                     ("discard", "discard pile"))}
        if not left and not any(gained.values()):
            continue
        labels = [e[0]["label"] for e in (before.events(action, after, seat) for seat in range(3))]
        for card in left:
            assert _version_name(card) in labels[mover], (labels[mover], card)
            checked.add("hand")
        for words, cards in gained.items():
            for label in labels:
                for card in cards:
                    assert _version_name(card) in label and words in label, (label, card)
                    checked.add(words)
    assert {"hand", "top row", "discard pile"} <= checked


def test_the_opening_deal_is_summed_up_in_one_line():
    """LN-5: the deal's draws are each told (and marked as summed up), and the last is followed
    by one summary of every hand as the seat sees it: its own cards by name, the others' by
    count and deck letter."""
    deal = [(b, a, c) for b, a, c in PATH if b.describe()["phase"] == "deal"]
    assert deal and all(b.events(a, c, 0)[0].get("summed_up") for b, a, c in deal)
    before, action, after = deal[-1]
    for seat in range(3):
        summary = before.events(action, after, seat)[-1]
        assert summary["summary"] and summary["typed"]["kind"] == "deal"
        mine = after.view(seat)["seats"][seat]["hand"]
        assert summary["label"].startswith("the deal: ")
        assert all(_version_name(c) in summary["label"] for c in mine)
        other = (seat + 1) % 3
        assert "you: " in summary["label"] and f"seat {other}: 6 cards (" in summary["label"]
        dealt = {(d["place"], d["seat"]): d["added"] for d in summary["typed"]["dealt"]}
        assert sorted(dealt[("hand", seat)]) == sorted(mine)
        assert len(dealt[("hand_hidden", other)]) + len(dealt[("hand", other)]) == 6
