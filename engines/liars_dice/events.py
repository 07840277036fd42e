"""Liar's Dice's events (``LiarsDiceEvent``), as each seat sees them: rolls (a seat sees its
own dice only), bids, the call of "liar", and the result. Written beside the room's
actions (``actions.py``), whose labels and typed forms they reuse."""
from fagin.engines.game import event, result_event, seat_name, verb


def events(move, seat):
    if move.chance:
        before, after = move.view_before(seat), move.view_after(seat)
        to = 0 if len(after["dice0"]) > len(before["dice0"]) else 1
        face = after[f"dice{to}"][-1]
        shown = face >= 0
        label = f"{seat_name(to, seat)} {verb(to, seat, 'roll', 'rolls')} " + (f"a {face}" if shown else "a die")
        out = [event(label, "roll", to=to, face=face if shown else None)]
    else:
        a = move.actor
        typed = move.typed
        if typed["kind"] == "bid":
            q, f = typed["quantity"], typed["face"]
            label = f"{seat_name(a, seat)} {verb(a, seat, 'bid', 'bids')} {q} × {f}"
        else:
            label = f"{seat_name(a, seat)} {verb(a, seat, 'call', 'calls')} liar"
        out = [event(label, "action", seat=a, action=typed)]
    if move.after.is_terminal():
        out.append(result_event(move.after, seat, "chips"))
    return out
