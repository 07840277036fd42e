"""Actions of a card game numbered as OpenSpiel numbers Kuhn and Leduc poker: at a decision
the ids are the decision kinds in order (pass, bet; or fold, call, raise), and at a chance
node id c deals card c.  The ids of decisions and deals coincide, so every function needs
``chance``.  A room's ``actions.py`` makes its three functions with :func:`dealt_card_actions`.
"""
from fagin.engines.validation import enum_index, int_in


def dealt_card_actions(decisions, card_names, message):
    """``(action_kinds, action_label, typed_action, action_from_typed)`` for the decision kinds
    ``decisions`` (a tuple of names, ids 0, 1, ...), the cards ``card_names()`` (a function, so
    that the engine's names are read when called) and the typed action message ``message``."""
    action_kinds = tuple(decisions) + ("deal",)
    spelt = [f"KIND_{k.upper()}" for k in decisions]
    seat_kinds = ", ".join(spelt[:-1]) + " or " + spelt[-1] if len(spelt) > 1 else spelt[0]

    def typed_action(action: int, chance: bool = False, options=None) -> dict:
        if chance and 0 <= action < len(card_names()):
            return {"kind": "deal", "card": action}
        if not chance and 0 <= action < len(decisions):
            return {"kind": decisions[action]}
        raise ValueError(f"unknown {'chance outcome' if chance else 'action'} id {action}")

    def action_label(action: int, chance: bool = False, options=None) -> str:
        """The decision's name, or ``"deal"`` and the card's."""
        kind = typed_action(action, chance)
        return f"deal {card_names()[kind['card']]}" if chance else kind["kind"]

    def action_from_typed(d, chance: bool = False, options=None) -> int:
        """The id of a typed action; ``chance``: the position is at a chance event, where only
        a deal fits."""
        kind = action_kinds[enum_index(d.get("kind"), action_kinds, "KIND_", "kind")]
        if (kind == "deal") != bool(chance):
            raise ValueError("kind: " + ("a chance event is next: give KIND_DEAL with a card" if chance
                                         else f"KIND_DEAL is a chance outcome; a seat is to act ({seat_kinds})"))
        if kind == "deal":
            return int_in(d.get("card"), 0, len(card_names()) - 1, "card")
        return action_kinds.index(kind)

    typed_action.__doc__ = f"The typed form of an action id (the ``{message}`` message)."
    return action_kinds, action_label, typed_action, action_from_typed
