"""Fagin's Gang's events (``FaginsGangEvent``). Nothing is hidden (FG-27), so every seat
sees the same events (named from its own seat), read from the views before and after: each
move with what it cost or brought (shillings, goods, urchins knocked out or home), the set-up
and wheel dice, and the patrol (FG-20) with the urchins the constable caught and sent back
to Fagin's den, as a round's summary."""
from collections import Counter

from fagin.engines.fagins_gang import engine
from fagin.engines.game import bookkeeping, event, result_event, seat_changes, seat_name, told_by, verb


def _level(space):
    return "the street" if space == 0 else f"level {space - 1}"


def _changes(before, after, seat):
    """What changed for each seat: shillings, goods, urchins home (public figures)."""
    def bits(p, b, a):
        out = [f"{a['shillings'] - b['shillings']:+d} shillings"] if a["shillings"] != b["shillings"] else []
        out += [f"{ga - gb:+d} {engine.COLOURS[c]}" for c, (gb, ga) in enumerate(zip(b["goods"], a["goods"]))
                if ga != gb]
        if a["home"] != b["home"]:
            out.append(f"{a['home'] - b['home']:+d} home ({a['home']} in all)")
        return out
    return seat_changes(before["seats"], after["seats"], seat, bits)


def _caught(before, after):
    """Urchins on the board before and off it after, back in the den: (seat, location, space)."""
    left = Counter((u["seat"], u["location"], u["space"]) for u in before["urchins"])
    left.subtract(Counter((u["seat"], u["location"], u["space"]) for u in after["urchins"]))
    back = [after["seats"][p]["den"] - before["seats"][p]["den"] for p in range(after["players"])]
    out = []
    for (p, L, sp), n in sorted(left.items()):
        for _ in range(max(0, min(n, back[p]))):
            out.append((p, L, sp))
            back[p] -= 1
    return out


def _figures(before, after):
    """Every figure's change (``FaginsGangChange`` dicts), and the urchins put on the board
    and taken off it (as multisets: an urchin that moves is one taken off and one put on)."""
    out = []
    for p, (b, a) in enumerate(zip(before["seats"], after["seats"])):
        for key in ("shillings", "den", "home"):
            if a[key] != b[key]:
                out.append({"place": key, "seat": p, "by": a[key] - b[key]})
        out += [{"place": "goods", "seat": p, "colour": c, "by": ga - gb}
                for c, (gb, ga) in enumerate(zip(b["goods"], a["goods"])) if ga != gb]
    for key in ("stalls", "warehouses"):
        out += [{"place": key, "colour": c, "by": na - nb}
                for c, (nb, na) in enumerate(zip(before[key], after[key])) if na != nb]
    key = lambda u: (u["seat"], u["location"], u["space"])
    b, a = Counter(map(key, before["urchins"])), Counter(map(key, after["urchins"]))
    urchin = lambda t: {"seat": t[0], "location": t[1], "space": t[2]}
    return out, [urchin(t) for t in sorted((a - b).elements())], [urchin(t) for t in sorted((b - a).elements())]


def events(move, seat):
    before, after = move.view_before(seat), move.view_after(seat)
    out = []
    changes = _changes(before, after, seat)
    if move.chance:
        die = move.typed["die"]
        phase = before["phase"]
        if phase == "setup_constable":
            L = before["setup_step"]
            c = after["constables"][L]
            out.append(event(f"set-up die {die}: the constable of {engine.LOCATIONS[L]} starts on "
                             f"{_level(c['space'])}, facing {'up' if c['facing_up'] else 'down'}",
                             "setup_die", die=die, location=L, space=c["space"], facing_up=c["facing_up"]))
        elif phase in ("setup_wheel", "wheel"):
            out.append(event(f"wheel die {die}: the price wheel turns to {after['wheel']}; prices "
                             + ", ".join(f"{engine.COLOURS[c]} {p}" for c, p in enumerate(after["prices"])),
                             "wheel_die", die=die, prices=after["prices"]))
        else:
            L = die - 1
            c = after["constables"][L]
            caught = _caught(before, after)
            text = (f"patrol die {die}: the constable of {engine.LOCATIONS[L]} walks to {_level(c['space'])}"
                    + ("; caught and sent back to the den: "
                       + ", ".join(f"{seat_name(p, seat)}'s urchin on {_level(sp)}" for p, _, sp in caught)
                       if caught else "; nobody is caught"))
            out.append(event(text, "patrol", summary=True, die=die, location=L, space=c["space"],
                             facing_up=c["facing_up"],
                             caught=[{"seat": p, "location": loc, "space": sp} for p, loc, sp in caught]))
            if after["phase"] != "over":
                out.append(event(f"round {after['round']} is over; urchins home: "
                                 + ", ".join(f"{seat_name(p, seat)} {s['home']}"
                                             for p, s in enumerate(after["seats"])),
                                 "round_end", summary=True, round=after["round"],
                                 home=[s["home"] for s in after["seats"]]))
    else:
        a = move.actor
        knocked = [(p, L, sp) for p, L, sp in _caught(before, after)]
        text = (f"{seat_name(a, seat)} {verb(a, seat, 'choose', 'chooses')} {move.label}"
                if move.typed["kind"] == "choose" else f"{seat_name(a, seat)}: {move.label}")
        if changes:
            text += " (" + "; ".join(changes) + ")"
        if knocked:
            text += "; knocked out to the den: " + ", ".join(
                f"{seat_name(p, seat)}'s urchin" for p, _, _ in knocked)
        out.append(event(text, "move", seat=a, action=move.typed))
    figures, placed, removed = _figures(before, after)
    if figures or placed or removed:
        out[0]["typed"].update(changes=figures, urchins_placed=placed, urchins_removed=removed)
    if move.after.is_terminal():
        out.append(result_event(move.after, seat))
    return out


def _figure_told(change, move, seat, events):
    """A figure's change is carried by a ``changes`` entry of its place and seat, colour by
    colour for goods, stalls and warehouses (lists by colour)."""
    path = change.path
    place, owner = (path[2], path[1]) if path[0] == "seats" else (path[0], None)
    if change.is_list:
        wanted = [(c, a - b) for c, (b, a) in enumerate(zip(change.before, change.after)) if a != b]
    else:
        wanted = [(None, change.after - change.before)]
    carried = {(c.get("colour"), c["by"]) for e in events for c in e["typed"].get("changes", ())
               if c["place"] == place and c.get("seat") == owner}
    return all(w in carried for w in wanted)


def _urchins_told(change, move, seat, events):
    """The urchins on the board, compared as a whole (their order is the engine's): every
    urchin put on and taken off is carried by the events."""
    key = lambda u: (u["seat"], u["location"], u["space"])
    b = Counter(map(key, move.view_before(seat)["urchins"]))
    a = Counter(map(key, move.view_after(seat)["urchins"]))
    placed = Counter(key(u) for e in events for u in e["typed"].get("urchins_placed", ()))
    removed = Counter(key(u) for e in events for u in e["typed"].get("urchins_removed", ()))
    return placed == a - b and removed == b - a


def _constable_told(change, move, seat, events):
    """A constable's move (a set-up or patrol die) is told by the die's event naming its
    location, space and facing."""
    L = change.path[1]
    c = move.view_after(seat)["constables"][L]
    return any(e["typed"].get("location") == L and e["typed"].get("space") == c["space"]
               and e["typed"].get("facing_up") == c["facing_up"] for e in events)


def _prices_told(change, move, seat, events):
    return any(e["typed"].get("prices") == move.view_after(seat)["prices"] for e in events)


#: How each change in a seat's view is told (fagin.engines.game.untold_changes). Nothing is
#: hidden (FG-27): every seat's view is the whole table.
VIEW_CHANGES = {
    "seats.*.shillings": _figure_told,
    "seats.*.den": _figure_told,
    "seats.*.home": _figure_told,
    "seats.*.goods": _figure_told,
    "stalls": _figure_told,
    "warehouses": _figure_told,
    "urchins": _urchins_told,
    "constables": _constable_told,
    "prices": _prices_told,
    "wheel": bookkeeping("the price wheel's position, whose prices the wheel die's event gives"),
    "winner": told_by("result"),
    "round": bookkeeping("the round, counted by the round ends told"),
    **{key: bookkeeping("the turn's progress, following the moves and dice told") for key in (
        "phase", "action", "active_player", "first_player", "turns_done", "steps_done", "setup_step",
        "used_locations", "white_hands_left", "white_hand_min", "exchange_paid", "exchange_min",
        "market_caller", "market_seat", "market_visited", "market_buying", "market_sold",
        "market_bought", "market_last")},
}
