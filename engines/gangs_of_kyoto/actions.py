"""Gangs of Kyoto's action ids in words and in typed form (plain Python, off the search path).

The ids (``engine.pyx``'s constants): give the card in hand to a seat (one id per seat),
accept or refuse the card given, and the chance outcomes, one per kind of card drawn
from the deck (``data/deck.json``).  Decisions and chance outcomes have ids of their
own, so ``chance`` changes nothing here.  The typed form is the ``GangsOfKyotoAction``
message as a dict; a drawn card is named by its ``GangsOfKyotoCard`` fields.
"""
from fagin.engines.gangs_of_kyoto import engine as E
from fagin.engines.validation import enum_index, int_in

# The dict names of GangsOfKyotoAction.Kind, in the proto's order.
ACTION_KINDS = ("give", "accept", "refuse", "draw")


def _decoded(action: int):
    """(kind, argument) of an action id: the seat given to, the kind of card drawn, or None."""
    if E.ACTION_GIVE <= action < E.ACTION_GIVE + E.MAX_PLAYERS:
        return "give", action - E.ACTION_GIVE
    if action == E.ACTION_ACCEPT:
        return "accept", None
    if action == E.ACTION_REFUSE:
        return "refuse", None
    if E.ACTION_DRAW <= action < E.ACTION_DRAW + len(E.CARDS):
        return "draw", action - E.ACTION_DRAW
    raise ValueError(f"unknown action id {action}")


def action_label(action: int, chance: bool = False, options=None) -> str:
    """The action in words: ``"give to seat 2"``, ``"draw 3+2b"``."""
    kind, arg = _decoded(action)
    if kind == "give":
        return f"give to seat {arg}"
    if kind == "draw":
        return f"draw {E.card_name(arg)}"
    return f"{kind} the card"


def typed_action(action: int, chance: bool = False, options=None) -> dict:
    """The typed form of an action id (the ``GangsOfKyotoAction`` message)."""
    kind, arg = _decoded(action)
    if kind == "give":
        return {"kind": kind, "seat": arg}
    if kind == "draw":
        return {"kind": kind, "card": E.card_dict(arg)}
    return {"kind": kind}


def action_from_typed(d, chance: bool = False, options=None) -> int:
    """The action id of a typed action dict (the inverse of :func:`typed_action`)."""
    kind = ACTION_KINDS[enum_index(d.get("kind"), ACTION_KINDS, "KIND_", "kind")]
    if kind == "give":
        return E.ACTION_GIVE + int_in(d.get("seat"), 0, E.MAX_PLAYERS - 1, "seat")
    if kind == "accept":
        return E.ACTION_ACCEPT
    if kind == "refuse":
        return E.ACTION_REFUSE
    return E.ACTION_DRAW + E.kind_of_card(d.get("card"), "card")
