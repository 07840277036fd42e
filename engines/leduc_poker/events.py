"""Leduc poker's events (``LeducPokerEvent``), as each seat sees them: the private deal (a
seat sees its own card only), the public card, each fold, call or raise, and the result."""
from fagin.engines.game import event, result_event, seat_name, verb

RANKS = ("Jack", "Queen", "King")
_VERBS = {"fold": ("fold", "folds"), "call": ("call", "calls"), "raise": ("raise", "raises")}


def _card(c):
    return f"a {RANKS[c // 2]}"


def events(move, seat):
    if move.chance:
        before, after = move.view_before(seat), move.view_after(seat)
        if after["public_card"] is not None and before["public_card"] is None:
            c = after["public_card"]
            out = [event(f"the public card is {_card(c)}", "public_card", card=c)]
        else:
            cards = after["private_cards"]
            to, card = len(cards) - 1, cards[-1]
            shown = card >= 0
            out = [event(f"{seat_name(to, seat)} {verb(to, seat, 'are', 'is')} dealt "
                         + (_card(card) if shown else "a card"), "deal", to=to, card=card if shown else None)]
    else:
        a = move.actor
        out = [event(f"{seat_name(a, seat)} {verb(a, seat, *_VERBS[move.label])}", "action",
                     seat=a, action=move.typed)]
    if move.after.is_terminal():
        out.append(result_event(move.after, seat, "chips"))
    return out
