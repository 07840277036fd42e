"""Gangs of Kyoto's events (``GangsOfKyotoEvent``), as each seat sees them: the deal drawn
face down (seen by nobody, GK-3), each card turned up (GK-4), given, kept or refused, the
cards a draw symbol brings (seen by all, GK-17), and each round's end as the engine
recorded it (``round_ended``: who busted, GK-12) with the bells each seat banked as the
observer can count them."""
from collections import Counter

from fagin.engines.game import bookkeeping, event, result_event, seat_name, told_by, verb
from fagin.engines.gangs_of_kyoto import engine


_SPECIAL = {"discard": "a Discard card", "stay_late": "a Stay Late card", "refuse": "a Refuse card"}


def _name(card):
    """A card as a person says it: "a 4 with 2 bells", "a 2 with a draw symbol", "a Bell card
    (1 bell)", "a Refuse card" (GK-2)."""
    kind, bells = card["kind"], card.get("bells") or 0
    bell_text = f"{bells} bell{'s' if bells != 1 else ''}"
    if kind == "bell":
        return f"a Bell card ({bell_text})"
    if kind != "exploration":
        return _SPECIAL[kind]
    extras = ([bell_text] if bells else []) + (["a draw symbol"] if card.get("draw") else [])
    value = card.get("value") or 0
    return f"a {value}" + (" with " + " and ".join(extras) if extras else "")


def _key(card):
    return tuple(sorted(card.items()))


def _diff(b, a):
    b, a = Counter(map(_key, b)), Counter(map(_key, a))
    return [dict(k) for k in (a - b).elements()], [dict(k) for k in (b - a).elements()]


def _piles(before, after):
    """Every pile's change as the observer's views show it (``GangsOfKyotoPileChange`` dicts)."""
    out = []

    def add(place, seat, b, a):
        added, removed = _diff(b, a)
        if added or removed:
            out.append({"place": place, "seat": seat, "added": added, "removed": removed})

    for p, (sb, sa) in enumerate(zip(before["seats"], after["seats"])):
        add("row", p, sb["row"], sa["row"])
        add("victory_pile", p, sb["victory_pile"], sa["victory_pile"])
        add("hidden_bells", p, sb["hidden_bells"], sa["hidden_bells"])
        if sa["hidden_bell_count"] != sb["hidden_bell_count"]:
            out.append({"place": "hidden_bells", "seat": p, "added": [], "removed": [],
                        "face_down": sa["hidden_bell_count"] - sb["hidden_bell_count"]})
    add("discard", None, before["discard"], after["discard"])
    return out


_PLACES = {"row": "row", "victory_pile": "victory pile", "hidden_bells": "face-down Bell cards"}


def _piles_text(piles, seat, said):
    """The pile changes the other labels do not say, in words: "seat 1's row loses a 4 and a 2".
    ``said``: (card, seat) the first event names as going to that seat (into its row or,
    a Bell card, its victory pile), or None."""
    parts = []
    for c in piles:
        if said is not None and c["place"] in ("row", "victory_pile", "hidden_bells") and \
                c["seat"] == said[1] and c["added"] == [said[0]] and not c["removed"]:
            continue
        if c["seat"] is None:
            where = "the discard pile"
        else:
            owner = "your" if c["seat"] == seat else f"seat {c['seat']}'s"
            where = f"{owner} {_PLACES[c['place']]}"
        bits = [f"gains {_names(c['added'])}"] if c["added"] else []
        bits += [f"loses {_names(c['removed'])}"] if c["removed"] else []
        if c.get("face_down"):
            n = abs(c["face_down"])
            bits.append(f"{'gains' if c['face_down'] > 0 else 'loses'} {n} face-down card{'s' if n > 1 else ''}")
        parts.append(f"{where} {' and '.join(bits)}")
    return parts


def _names(cards):
    names = [_name(x) for x in cards]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def events(move, seat):
    before, after = move.view_before(seat), move.view_after(seat)
    out = []
    active = before["active_player"]
    if move.chance:
        if before["phase"] == "draw_deal":
            out.append(event(f"{seat_name(active, seat)} {verb(active, seat, 'draw', 'draws')} a card "
                             "face down for the deal", "deal_draw", to=active))
        else:
            card, to = move.typed["card"], before["receiver"]
            out.append(event(f"the draw symbol brings {_name(card)} to {seat_name(to, seat)}",
                             "drawn", card=card, to=to))
    else:
        a, typed = move.actor, move.typed
        if typed["kind"] == "give":
            card, to = before["revealed"], typed["seat"]
            label = (f"{seat_name(a, seat)} {verb(a, seat, 'give', 'gives')} {_name(card)} to "
                     + ("yourself" if to == a == seat else "itself" if to == a else seat_name(to, seat)))
        else:
            card, to = before["arriving"], a
            label = (f"{seat_name(a, seat)} {verb(a, seat, 'keep', 'keeps')} {_name(card)}"
                     if typed["kind"] == "accept" else
                     f"{seat_name(a, seat)} {verb(a, seat, 'refuse', 'refuses')} {_name(card)}, by "
                     f"{verb(a, seat, 'your', 'its')} Refuse card")
        out.append(event(label, "move", seat=a, action=typed, card=card, to=to))
    ended = engine.round_ended(move.after.to_bytes())
    if ended is not None:
        buster = ended["buster"]
        bells = [s["bells"] for s in after["seats"]]
        banked = [a["bells"] - b["bells"] for a, b in zip(after["seats"], before["seats"])]
        text = (f"round {before['rounds'] + 1} is over: "
                + (f"{seat_name(buster, seat)} busted and discarded {verb(buster, seat, 'your', 'its')} row; "
                   if buster is not None else "nobody busted; ")
                + "bells banked " + ", ".join(f"{seat_name(p, seat)} +{n} ({bells[p]} in all)"
                                              for p, n in enumerate(banked)))
        out.append(event(text, "round_end", summary=True, round=before["rounds"] + 1, buster=buster,
                         banked=banked, bells=bells))
    revealed = after["revealed"]
    if revealed is not None and (before["revealed"] is None or not move.chance and move.typed["kind"] == "give"):
        who = after["active_player"]
        out.append(event(f"{seat_name(who, seat)} {verb(who, seat, 'turn', 'turns')} up {_name(revealed)}",
                         "turn_up", card=revealed, to=who))
    arriving = after["arriving"]
    # A card arriving is new unless the transition left the one that was there: a decision on
    # it (keep or refuse) or a draw always brings the next.
    if arriving is not None and (arriving != before["arriving"] or before["phase"] != after["phase"]
                                 or move.chance or move.typed["kind"] in ("accept", "refuse")):
        r = after["receiver"]
        out.append(event(f"{_name(arriving)} comes to {seat_name(r, seat)}, "
                         f"who may turn it away with a Refuse card", "turn_up", card=arriving, to=r))
    if after["deal_size"] < before["deal_size"] and before["phase"] != "draw_deal":
        # The deal's last card goes face up to the one seat still without a card (GK-5), the
        # giver perhaps: into its row, or a Bell card onto its victory pile. It is the card
        # a seat gained that no event names going to it.
        named = Counter((_key(e["typed"]["card"]), e["typed"].get("to")) for e in out if e["typed"].get("card"))
        for p, (sb, sa) in enumerate(zip(before["seats"], after["seats"])):
            for card in _diff(sb["row"], sa["row"])[0] + _diff(sb["victory_pile"], sa["victory_pile"])[0]:
                if named[(_key(card), p)]:
                    named[(_key(card), p)] -= 1
                    continue
                out.append(event(f"the deal's last card goes to {seat_name(p, seat)}: {_name(card)}",
                                 "turn_up", card=card, to=p))
    piles = _piles(before, after)
    # Each pile's change goes on the event it follows from: a card into a seat's row or pile
    # on the event that names that card going to that seat, everything else on the round's
    # end if the round ended (the rows banked or busted), else on the first event.
    home = next((i for i, e in enumerate(out) if e["typed"]["kind"] == "round_end"), 0)
    by_event = {}
    for c in piles:
        at = next((i for i, e in enumerate(out) if e["typed"].get("card") is not None
                   and c["seat"] is not None and e["typed"].get("to") == c["seat"]
                   and c["added"] == [e["typed"]["card"]] and not c["removed"]), home)
        by_event.setdefault(at, []).append(c)
    for at, entries in sorted(by_event.items()):
        first = out[at]["typed"]
        said = (first["card"], first.get("to")) if first.get("card") else None
        extra = _piles_text(entries, seat, said)
        out[at] = {**out[at], "label": out[at]["label"] + "".join("; " + x for x in extra)}
        out[at]["typed"]["piles"] = entries
    if move.after.is_terminal():
        out.append(result_event(move.after, seat))
    return out


def _piles_told(change, move, seat, events):
    """A pile's change is named card by card (or, for face-down Bell cards, counted) by the
    ``piles`` of the events."""
    place = change.path[-1] if change.path[-1] != "hidden_bell_count" else "hidden_bells"
    owner = change.seat()
    entries = [c for e in events for c in e["typed"].get("piles", ())
               if c["place"] == place and c.get("seat") == owner]
    if change.path[-1] == "hidden_bell_count":
        return sum(c.get("face_down", 0) for c in entries) == change.after - change.before
    have = Counter(_key(x) for c in entries for x in c["added"] + c["removed"])
    return not (Counter(change.added + change.removed) - have)


def _card_told(key):
    """A rule: the card at ``key`` (turned up, or arriving in a row) is named by an event's
    ``card``; it goes when the card is given, kept or refused, which the move tells."""
    def rule(change, move, seat, events):
        card = move.view_after(seat)[key]
        if card is None:
            return any(e["typed"]["kind"] in ("move", "round_end") for e in events)
        return any(e["typed"].get("card") == card for e in events)
    return rule


#: How each change in a seat's view is told (fagin.engines.game.untold_changes).
VIEW_CHANGES = {
    "seats.*.row": _piles_told,
    "seats.*.victory_pile": _piles_told,
    "seats.*.hidden_bells": _piles_told,
    "seats.*.hidden_bell_count": _piles_told,
    "discard": _piles_told,
    "revealed": _card_told("revealed"),
    "arriving": _card_told("arriving"),
    "seats.*.bells": bookkeeping("the bells of the victory pile's cards (those the observer sees), "
                                 "which are told as they come"),
    "seats.*.row_sum": bookkeeping("the sum of the row's values, from the cards told added to it"),
    "seats.*.limit": bookkeeping("the row's bust limit, raised by the Stay Late cards told kept"),
    "winner": told_by("result"),
    "unseen": bookkeeping("the cards the seat has not seen: less each card told turned up or drawn"),
    "deal_size": bookkeeping("the face-down deal's size: one more for each deal draw told"),
    "deck_top_size": bookkeeping("how many cards were put back on the deck, from the moves told"),
    "deck_ran_out": bookkeeping("the deck is empty: it follows from the cards told drawn"),
    **{key: bookkeeping("the round's progress, following the draws and moves told") for key in (
        "phase", "active_player", "first_player", "rounds", "receiver", "received", "deal_to_draw",
        "arriving_drawn")},
}
