"""Liar's Dice's events (``LiarsDiceEvent``), as each seat sees them: rolls (a seat sees its
own dice only), bids, the call of "liar", and the result. Written beside the room's
actions (``actions.py``), whose labels and typed forms they reuse."""
from collections import Counter

from fagin.engines.game import event, named, result_event, seat_name, told_by, verb


def events(move, seat):
    if move.chance:
        before, after = move.view_before(seat), move.view_after(seat)
        to = 0 if len(after["dice0"]) > len(before["dice0"]) else 1
        # The engine puts a seat's dice in order after its last roll: the die rolled is the
        # one added, not the last in the list.
        face = next((Counter(after[f"dice{to}"]) - Counter(before[f"dice{to}"])).elements())
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


#: How each change in a seat's view is told (fagin.engines.game.untold_changes): a die by the
#: roll naming its face to its owner only (-1 in the other's view), a bid or call by the
#: action event's typed action.
_rolled = named("face", kinds=("roll",), hidden=(-1,))


def _dice_told(change, move, seat, events):
    """A die rolled; the dice put in order after the last roll is no change a seat needs told."""
    return not (change.added or change.removed) or _rolled(change, move, seat, events)


VIEW_CHANGES = {
    "dice0": _dice_told,
    "dice1": _dice_told,
    "actions": told_by("action"),
}
