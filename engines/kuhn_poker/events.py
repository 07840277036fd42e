"""Kuhn poker's events (``KuhnPokerEvent``), as each seat sees them: the deal (a seat sees
its own card only), each pass or bet, and the result."""
from fagin.engines.game import event, result_event, seat_name, verb

CARDS = ("Jack", "Queen", "King")
_VERBS = {"pass": ("pass", "passes"), "bet": ("bet", "bets")}


def events(move, seat):
    if move.chance:
        cards = move.view_after(seat)["cards"]
        to, card = len(cards) - 1, cards[-1]
        shown = card >= 0
        label = (f"{seat_name(to, seat)} {verb(to, seat, 'are', 'is')} dealt "
                 + (f"the {CARDS[card]}" if shown else "a card"))
        out = [event(label, "deal", to=to, card=card if shown else None)]
    else:
        a = move.actor
        out = [event(f"{seat_name(a, seat)} {verb(a, seat, *_VERBS[move.label])}", "action",
                     seat=a, action=move.typed)]
    if move.after.is_terminal():
        out.append(result_event(move.after, seat, "chips"))
    return out
