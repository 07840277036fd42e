"""Kids of London's events (``KidsOfLondonEvent``), as each seat sees them.

Every seat sees the character and the fictitious player's card turned up, that a seat
has put a card down or chosen prince or comedian (KL-23) but not what, until the hour's
cards are shown together (KL-2): that reveal and the thefts it brings (each seat's coins
before and after, as the engine paid them) are the hour's summary events. Everything is
read from the seat's views; a seat's own secret choices are told to it alone.
"""
from fagin.engines.game import bookkeeping, event, named, result_event, seat_name, verb
from fagin.engines.kids_of_london.engine import CHARACTER_NAMES

_CHOOSING = ("choose_card", "reveal_character", "reveal_fictitious")


def _whose(i, players, seat):
    return "the fictitious player" if i == players else seat_name(i, seat)


def _reveal(before, after, seat):
    """The hour's cards, shown together, if this transition turned them up."""
    if before["phase"] not in _CHOOSING:
        return None
    if after["phase"] in ("choose_prince", "choose_lone"):
        cards = [s["card"] for s in after["seats"]] + (
            [after["fictitious"]["card"]] if after["fictitious"] else [])
        character = after["character"]
    elif after["turn"] > before["turn"]:
        cards, character = after["last_hour"]["cards"], after["last_hour"]["character"]
    else:
        return None
    players = after["players"]
    shown = ", ".join(f"{_whose(i, players, seat)} {c}" for i, c in enumerate(cards))
    return event(f"hour {before['turn'] + 1}, the {CHARACTER_NAMES[character]}: the cards are {shown}",
                 "reveal", summary=True, hour=before["turn"] + 1, character=character, cards=cards)


def _thefts(before, after, seat):
    coins_before = [s["coins"] for s in before["seats"]]
    coins_after = [s["coins"] for s in after["seats"]]
    if before["fictitious"]:
        coins_before.append(before["fictitious"]["coins"])
        coins_after.append(after["fictitious"]["coins"])
    if coins_before == coins_after:
        if after["turn"] > before["turn"]:
            return event("nobody gains or loses a coin this hour", "thefts", summary=True,
                         coins_before=coins_before, coins_after=coins_after)
        return None
    players = after["players"]
    parts = []
    for i, (b, a) in enumerate(zip(coins_before, coins_after)):
        if a != b:
            gains = verb(i, seat, "gain", "gains") if a > b else verb(i, seat, "lose", "loses")
            parts.append(f"{_whose(i, players, seat)} {gains} {abs(a - b)} (now {a})")
    return event("coins: " + ", ".join(parts), "thefts", summary=True,
                 coins_before=coins_before, coins_after=coins_after)


def events(move, seat):
    before, after = move.view_before(seat), move.view_after(seat)
    out = []
    if move.chance:
        typed = move.typed
        if typed["kind"] == "reveal_character":
            out.append(event(f"the {CHARACTER_NAMES[typed['character']]} is turned up", "character",
                             character=typed["character"]))
        else:
            out.append(event(f"the fictitious player turns up its {typed['card']}", "fictitious_card",
                             card=typed["card"]))
    else:
        a, typed = move.actor, move.typed
        mine = a == seat
        if typed["kind"] == "play_card":
            label = (f"you put your {typed['card']} down" if mine
                     else f"seat {a} puts a card down")
        elif typed["kind"] in ("prince", "comedian"):
            label = (f"you choose the {typed['kind']}" if mine
                     else f"seat {a} chooses prince or comedian")
        elif typed["kind"] == "take_card_value":
            label = f"{seat_name(a, seat)} {verb(a, seat, 'take', 'takes')} the card's value"
        else:
            label = f"{seat_name(a, seat)} {verb(a, seat, 'rob', 'robs')} the character"
        public = mine or typed["kind"] in ("take_card_value", "rob_character")
        out.append(event(label, "choice", seat=a, action=typed if public else None))
    for e in (_reveal(before, after, seat), _thefts(before, after, seat)):
        if e is not None:
            out.append(e)
    if move.after.is_terminal():
        out.append(result_event(move.after, seat))
    return out


def _prince_told(change, move, seat, events):
    """A seat's own choice of prince (True) or comedian (False), by its choice event."""
    if change.after is None:
        return any(e["typed"]["kind"] in ("reveal", "thefts") for e in events)
    want = "prince" if change.after else "comedian"
    return any(e["typed"]["kind"] == "choice" and (e["typed"].get("action") or {}).get("kind") == want
               for e in events)


def _chosen_told(change, move, seat, events):
    """That a seat has chosen (not what, KL-23) is told by its choice; the marks go when the
    hour's cards are shown."""
    if change.after:
        return any(e["typed"]["kind"] == "choice" and e["seat"] == change.seat() for e in events)
    return any(e["typed"]["kind"] in ("reveal", "thefts") for e in events)


#: How each change in a seat's view is told (fagin.engines.game.untold_changes).
VIEW_CHANGES = {
    "character": named("character", cleared_by=("reveal", "thefts")),
    "pile": named("character", kinds=("character",)),
    "fictitious.card": named("card", "cards", cleared_by=("reveal", "thefts")),
    "fictitious.deck": named("card", kinds=("fictitious_card",)),
    "fictitious.coins": named("coins_after", kinds=("thefts",)),
    "seats.*.coins": named("coins_after", kinds=("thefts",)),
    "seats.*.card": named("card", "cards", cleared_by=("reveal", "thefts")),
    "seats.*.prince_choice": _prince_told,
    "seats.*.chosen": _chosen_told,
    "seats.*.hand": named("card", "cards"),
    "last_hour": bookkeeping("the record of the hour just ended: its character and cards, as its reveal told "
                             "them (with the hour's end, or before a prince or comedian was chosen)"),
    "robbers": bookkeeping("the seats that rob the character: the highest cards of the reveal told"),
    "lone": bookkeeping("the seat left to choose alone, from the reveal told"),
    "phase": bookkeeping("the hour's step, following the choices and reveals told"),
    "turn": bookkeeping("the hour, counted by the reveals told"),
}
