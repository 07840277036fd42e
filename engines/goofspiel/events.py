"""Goofspiel's events (``GoofspielEvent``), as each seat sees them: point cards turned up,
one's own bids (the other seat's bid stays secret until its turn is over), and each turn's
outcome, read from the seat's views (with ``imp_info`` it learns the winner, not the bid)."""
from fagin.engines.game import bookkeeping, event, named, result_event, seat_name, verb


def _turn(after, t, seat):
    bids = [after["bids0"][t], after["bids1"][t]]
    point, w = after["point_cards"][t] + 1, after["winners"][t]
    shown = ", ".join(f"{seat_name(s, seat)} bid {b + 1}" for s, b in enumerate(bids) if b >= 0)
    outcome = (f"{seat_name(w, seat)} {verb(w, seat, 'win', 'wins')} the {point}" if w in (0, 1)
               else f"a tie: the {point} is discarded")
    return event(f"turn {t + 1}: " + (shown + "; " if shown else "") + outcome, "turn",
                 summary=True, turn=t + 1, point=point, bids=[b + 1 if b >= 0 else 0 for b in bids], winner=w)


def events(move, seat):
    before, after = move.view_before(seat), move.view_after(seat)
    out = []
    if not move.chance and move.actor == seat:
        out.append(event(f"you bid {move.action + 1}", "bid", seat=seat, action=move.typed))
    points = range(len(before["point_cards"]), len(after["point_cards"]))
    turns = range(len(before["winners"]), len(after["winners"]))
    # The last turn plays itself (its point card turned up and bid at once): in order.
    for t in sorted(set(points) | set(turns)):
        if t in points:
            out.append(event(f"the point card is {after['point_cards'][t] + 1}", "point_card",
                             point=after["point_cards"][t] + 1))
        if t in turns:
            out.append(_turn(after, t, seat))
    if move.after.is_terminal():
        out.append(result_event(move.after, seat, "points"
                                if after["options"]["returns_type"] != "win_loss" else None))
    return out



def _pending_told(change, move, seat, events):
    """The seat's own bid, before the other's is in: named by its bid event (cleared when the
    turn's outcome is told)."""
    if change.after is None:
        return any(e["typed"]["kind"] == "turn" for e in events)
    return any(e["typed"]["kind"] == "bid" and e["typed"]["action"]["card"] == change.after for e in events)


#: How each change in a seat's view is told (fagin.engines.game.untold_changes); the views
#: count cards from 0, the events as people do, from 1.
VIEW_CHANGES = {
    "point_cards": named("point", item=lambda c: c + 1),
    "bids0": named("bids", kinds=("turn",), hidden=(-1,), item=lambda b: b + 1),
    "bids1": named("bids", kinds=("turn",), hidden=(-1,), item=lambda b: b + 1),
    "winners": named("winner", kinds=("turn",)),
    "pending0": _pending_told,
    "pending1": _pending_told,
    "points": bookkeeping("each seat's points: the point cards of the turns told won"),
}
