"""Leduc poker's events (``LeducPokerEvent``), as each seat sees them: the private deal (a
seat sees its own card only), the public card, each fold, call or raise, and the result."""
from fagin.engines.game import action_event, bookkeeping, dealt_event, event, named, result_event, told_by

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
            card = cards[-1]
            out = [dealt_event(len(cards) - 1, seat, card, _card(card) if card >= 0 else None)]
    else:
        out = [action_event(move, seat, _VERBS)]
    if move.after.is_terminal():
        out.append(result_event(move.after, seat, "chips"))
    return out


#: How each change in a seat's view is told (fagin.engines.game.untold_changes).
VIEW_CHANGES = {
    "private_cards": named("card", kinds=("deal",), hidden=(-1,)),
    "public_card": named("card", kinds=("public_card",)),
    "round1": told_by("action"),
    "round2": told_by("action"),
    "contributions": bookkeeping("the chips each seat has put in: the antes and the bets and calls told"),
}
