"""Goofspiel's action ids in words and in typed form, as OpenSpiel numbers them: id c bids
the card of value c + 1, and at a chance node turns up the point card of value c + 1."""
from fagin.engines.goofspiel import engine as E


def action_label(action: int, chance: bool = False, options=None) -> str:
    """A bid of card ``action + 1``; at a chance node, the point card ``action + 1`` turned up."""
    if not 0 <= action < E.MOST_CARDS:
        raise ValueError(f"unknown action id {action}")
    return f"{'point card' if chance else 'card'} {action + 1}"


def typed_action(action: int, chance: bool = False, options=None) -> dict:
    """The typed form of an action id (the ``GoofspielAction`` message)."""
    if not 0 <= action < E.MOST_CARDS:
        raise ValueError(f"unknown action id {action}")
    return {"card": action}


def action_from_typed(d, chance: bool = False, options=None) -> int:
    """A bid (or, with ``chance``, the point card turned up) of card id ``card``."""
    most = E.MOST_CARDS
    card = d.get("card")
    if card is None:
        raise ValueError(f"card: missing; give a card id from 0 to {most - 1} (card value - 1)")
    if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card < most:
        raise ValueError(f"card: a card id from 0 to {most - 1}, got {card!r}")
    return card
