"""Kuhn poker's events (``KuhnPokerEvent``), as each seat sees them: the deal (a seat sees
its own card only), each pass or bet, and the result."""
from fagin.engines.game import action_event, dealt_event, named, result_event, told_by

CARDS = ("Jack", "Queen", "King")
_VERBS = {"pass": ("pass", "passes"), "bet": ("bet", "bets")}


def events(move, seat):
    if move.chance:
        cards = move.view_after(seat)["cards"]
        card = cards[-1]
        out = [dealt_event(len(cards) - 1, seat, card, f"the {CARDS[card]}" if card >= 0 else None)]
    else:
        out = [action_event(move, seat, _VERBS)]
    if move.after.is_terminal():
        out.append(result_event(move.after, seat, "chips"))
    return out


#: How each change in a seat's view is told (fagin.engines.game.untold_changes): a card dealt
#: by the deal event (naming it to its holder only, -1 in the view of the other), a pass or
#: bet by the action event's typed action.
VIEW_CHANGES = {
    "cards": named("card", kinds=("deal",), hidden=(-1,)),
    "actions": told_by("action"),
}
