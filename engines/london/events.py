"""London's events (``LondonEvent``), as each seat sees them, written beside the room's
actions (``actions.py``), whose labels they reuse.

A move is told with its label (naming the card it moves, LN-93) and what it changed for
every seat: money, loans taken, poverty, VP counters, cards to take. What another seat
may not know is told by its deck letter only (LN-85, LN-86): a card drawn into a hand,
looked at or put back with University of London. The game's end is scored by the engine
(``final_scoring``, LN-75 to LN-80) and told seat by seat, category by category.
"""
from collections import Counter

from fagin.engines.game import event, result_event, seat_changes, seat_name, verb
from fagin.engines.london import state as _state

#: The four actions of a turn (LN-18).
_ACTIONS = ("play_cards", "run_city", "buy_land", "take_three")
#: Decisions whose card another seat may not know (University of London, LN-50, LN-85).
_PRIVATE = {"take_looked": "takes a looked-at card", "put_back": "puts a card back on the deck"}


def _engine():
    from fagin.engines.london import engine
    return engine


def _changes(before, after, seat):
    def bits(p, b, a):
        out = []
        if a["money"] != b["money"]:
            out.append(f"money £{b['money']} → £{a['money']}")
        if a["loans"] > b["loans"]:
            n = a["loans"] - b["loans"]
            out.append(f"{verb(p, seat, 'take', 'takes')} {n} loan{'s' if n > 1 else ''}")
        for key, name in (("poverty", "poverty"), ("vp_counters", "VP counters")):
            if a[key] != b[key]:
                out.append(f"{name} {b[key]} → {a[key]}")
        return out
    return seat_changes(before["seats"], after["seats"], seat, bits)


def _draw(move, seat, before, after):
    """A card off the deck: into a hand (the opening deal, LN-5, or a draw, LN-89) or
    into University of London's look (LN-50)."""
    for p, (b, a) in enumerate(zip(before["seats"], after["seats"])):
        if a["hand_size"] > b["hand_size"]:
            return _drawn(p, seat, ("draw", "draws"), "", "a card",
                          Counter(a["hand"]) - Counter(b["hand"]),
                          Counter(a["hand_hidden"]) - Counter(b["hand_hidden"]))
    return _drawn(before["active_player"], seat, ("look", "looks"), "at ", "a card off the deck",
                  Counter(after["looked"]) - Counter(before["looked"]),
                  Counter(after["looked_letters"]) - Counter(before["looked_letters"]))


def _drawn(p, seat, verbs, at, unseen, seen, letters):
    """Seat p drew (or looked at) the card in ``seen`` if the observer sees it, else one of
    the deck letter in ``letters`` (LN-86)."""
    head = f"{seat_name(p, seat)} {verb(p, seat, *verbs)} {at}"
    if seen:
        card = next(iter(seen))
        return event(head + _state._name(card), "draw", to=p, card=card)
    letter = next(iter(letters)) if letters else None
    return event(head + unseen + (f" ({letter.upper()})" if letter else ""), "draw", to=p, letter=letter)


def _move(move, seat, before, after):
    a, typed = move.actor, move.typed
    kind = typed["kind"]
    me = seat_name(a, seat)
    if kind in _PRIVATE and a != seat:
        return event(f"{me} {_PRIVATE[kind]}", "move", seat=a)
    if kind == "buy":
        borough = next(b for b in _state._board().boroughs if b.id == typed["borough"])
        label = f"{me} {verb(a, seat, 'buy', 'buys')} {borough.name} for £{borough.cost}"
    elif kind in _ACTIONS:
        label = f"{me} {verb(a, seat, 'choose', 'chooses')} {move.label}"
    else:
        label = f"{me}: {move.label}"
    take = after["draws_left"] - before["draws_left"] if after["draw_for"] != "turn" else 0
    if take > 0:
        label += f" and {verb(a, seat, 'take', 'takes')} {take} card{'s' if take > 1 else ''}"
    changes = _changes(before, after, seat)
    if changes:
        label += " (" + "; ".join(changes) + ")"
    s_b, s_a = before["seats"][a], after["seats"][a]
    return event(label, "move", seat=a, action=typed, money=s_a["money"] - s_b["money"],
                 loans=s_a["loans"] - s_b["loans"], poverty=s_a["poverty"] - s_b["poverty"],
                 cards_to_take=max(take, 0))


def _scoring(state, seat):
    E = _engine()
    scores = E.final_scoring(state.to_bytes())
    spread = max(sc["poverty"] for sc in scores) - min(sc["poverty"] for sc in scores)
    table = [E.poverty_penalty_of(n) for n in range(spread + 1)]
    lowest = min(sc["poverty"] for sc in scores)
    out = []
    for p, sc in enumerate(scores):
        label = (f"final scoring, {seat_name(p, seat)}: {sc['vp_counters']} VP counters, "
                 f"boroughs {sc['borough_vp']}, Underground {sc['underground_vp']}, cards {sc['card_vp']}, "
                 f"money £{sc['money_left']} → {sc['money_vp']}, loans {sc['repaid']} repaid and "
                 f"{sc['unpaid']} unpaid → −{7 * sc['unpaid']}, poverty {sc['poverty']} "
                 f"({sc['poverty'] - lowest} above the lowest) → −{sc['poverty_penalty']}; "
                 f"total {sc['vp']} VP")
        out.append(event(label, "scoring", summary=True, scores=[{"seat": p, **sc}],
                         poverty_table=table))
    return out


def events(move, seat):
    before, after = move.view_before(seat), move.view_after(seat)
    out = [_draw(move, seat, before, after) if move.chance else _move(move, seat, before, after)]
    if move.after.is_terminal():
        out.extend(_scoring(move.after, seat))
        out.append(result_event(move.after, seat))
    return out
