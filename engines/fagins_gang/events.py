"""Fagin's Gang's events (``FaginsGangEvent``). Nothing is hidden (FG-27), so every seat
sees the same events (named from its own seat), read from the views before and after: each
move with what it cost or brought (shillings, goods, urchins knocked out or home), the set-up
and wheel dice, and the patrol (FG-20) with the urchins the constable caught and sent back
to Fagin's den, as a round's summary."""
from collections import Counter

from fagin.engines.fagins_gang import engine
from fagin.engines.game import event, result_event, seat_changes, seat_name, verb


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
                             "setup_die", die=die, location=L))
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
            out.append(event(text, "patrol", summary=True, die=die, location=L,
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
    if move.after.is_terminal():
        out.append(result_event(move.after, seat))
    return out
