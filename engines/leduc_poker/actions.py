"""Leduc poker's action ids in words and in typed form, as OpenSpiel numbers them: at a
decision 0 folds, 1 calls and 2 raises; at a chance node 0 to 5 deal a card (J1 .. K2)."""
from fagin.engines.validation import enum_index, int_in

# The dict names of LeducPokerAction.Kind, in the proto's order.
ACTION_KINDS = ("fold", "call", "raise", "deal")


def action_label(action: int, chance: bool = False, options=None) -> str:
    """``"fold"``, ``"call"``, ``"raise"`` or ``"deal Q1"``."""
    kind = typed_action(action, chance)
    return f"deal {E.CARD_NAMES[kind['card']]}" if chance else kind["kind"]


def typed_action(action: int, chance: bool = False, options=None) -> dict:
    """The typed form of an action id (the ``LeducPokerAction`` message)."""
    if chance and 0 <= action < len(E.CARD_NAMES):
        return {"kind": "deal", "card": action}
    if not chance and 0 <= action < 3:
        return {"kind": ("fold", "call", "raise")[action]}
    raise ValueError(f"unknown {'chance outcome' if chance else 'action'} id {action}")


def action_from_typed(d, chance: bool = False, options=None) -> int:
    """The id of a typed action; ``chance``: the position is at a chance event, where only
    a deal fits (ids of decisions and deals coincide, as in OpenSpiel)."""
    kind = ACTION_KINDS[enum_index(d.get("kind"), ACTION_KINDS, "KIND_", "kind")]
    if (kind == "deal") != bool(chance):
        raise ValueError("kind: " + ("a chance event is next: give KIND_DEAL with a card" if chance
                                     else "KIND_DEAL is a chance outcome; a seat is to act "
                                          "(KIND_FOLD, KIND_CALL or KIND_RAISE)"))
    if kind == "deal":
        return int_in(d.get("card"), 0, len(E.CARD_NAMES) - 1, "card")
    return ACTION_KINDS.index(kind)


# Last: the engine imports this module at its end, so either may be imported first (the
# functions above read the engine's names only when called).
from fagin.engines.leduc_poker import engine as E  # noqa: E402
