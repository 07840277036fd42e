"""Fagin's Gang's action ids in words and in typed form (plain Python, off the search path).

The ids (``engine.pyx``'s constants): choosing the turn's action (a to d) and "done";
per location, an urchin entering, moving between spaces, going home or back to the
den; stealing goods or shillings at a space; the white hand's, the exchange's and the
market's colours; and the chance outcomes of the patrol die.  Decisions and chance
outcomes have ids of their own, so ``chance`` changes nothing here.  The typed form
is the ``FaginsGangAction`` message as a dict.
"""
from fagin.engines.fagins_gang import engine as E
from fagin.engines.validation import enum_index, int_in, mapping

def action_label(action: int, chance: bool = False, options=None) -> str:
    """The action in words: ``"urchin enters Covent Garden"``, ``"sell blue"``."""
    t = typed_action(action)
    k = t["kind"]
    if k == "choose":
        return {"move": "move urchins", "steal_goods": "steal or exchange goods",
                "steal_shillings": "steal shillings", "market": "go to Smithfield Market"}[t["action"]]
    if k == "done":
        return "done"
    where = f"{E.LOCATIONS[t['location']]}" if "location" in t else ""
    if k == "enter":
        return f"urchin enters {where}"
    if k == "home":
        return f"urchin at {where} top goes home to Fagin"
    if k == "den":
        return f"urchin at {where} street leaves for the den"
    if k == "move":
        return f"urchin at {where} {_level(t['space'])} moves {'up' if t['to'] > t['space'] else 'down'} " \
               f"to {_level(t['to'])}"
    if k in ("steal_goods", "steal_shillings"):
        return f"steal {'goods' if k == 'steal_goods' else 'shillings'} at {where} {_level(t['space'])}"
    if k == "die":
        return f"die shows {t['die']}"
    verb = {"white_hand": "white hand takes", "exchange_pay": "exchange: pay", "exchange_take": "exchange: take",
            "sell": "sell", "buy": "buy"}[k]
    return f"{verb} {t['colour']}"


def _level(sp):
    return "street" if sp == 0 else f"level {sp - 1}"


# The dict names of FaginsGangAction.Kind, in the proto's order.
ACTION_KINDS = ("choose", "done", "enter", "move", "home", "den", "steal_goods", "steal_shillings", "white_hand",
                "exchange_pay", "exchange_take", "sell", "buy", "die")


def typed_action(action: int, chance: bool = False, options=None) -> dict:
    """The typed form of an action id (the ``FaginsGangAction`` message)."""
    if E.ACTION_CHOOSE <= action < E.ACTION_DONE:
        return {"kind": "choose", "action": E.ACTIONS[action - E.ACTION_CHOOSE + 1]}
    if action == E.ACTION_DONE:
        return {"kind": "done"}
    if E.ACTION_MOVE <= action < E.ACTION_STEAL_GOODS:
        L, j = divmod(action - E.ACTION_MOVE, E.MOVES_PER_LOCATION)
        if j == 0:
            return {"kind": "enter", "location": L}
        src, t = divmod(j - 1, 8)
        if t == 7 and src == E.TOP_SPACE:
            return {"kind": "home", "location": L}
        if t == 7 and src == 0:
            return {"kind": "den", "location": L}
        if t == 7 or t == src:
            raise ValueError(f"unknown action id {action} (no such move)")
        return {"kind": "move", "location": L, "space": src, "to": t}
    if E.ACTION_STEAL_GOODS <= action < E.ACTION_STEAL_SHILLINGS:
        L, sp = divmod(action - E.ACTION_STEAL_GOODS, E.TRACK_SPACES)
        return {"kind": "steal_goods", "location": L, "space": sp}
    if E.ACTION_STEAL_SHILLINGS <= action < E.ACTION_WHITE_HAND:
        L, sp = divmod(action - E.ACTION_STEAL_SHILLINGS, E.TRACK_SPACES)
        return {"kind": "steal_shillings", "location": L, "space": sp}
    for base, kind in ((E.ACTION_WHITE_HAND, "white_hand"), (E.ACTION_EXCHANGE_PAY, "exchange_pay"), (E.ACTION_EXCHANGE_TAKE, "exchange_take"),
                       (E.ACTION_SELL, "sell"), (E.ACTION_BUY, "buy")):
        if base <= action < base + E.COLOUR_COUNT:
            return {"kind": kind, "colour": E.COLOURS[action - base]}
    if E.ACTION_DIE <= action < E.ACTION_DIE + 6:
        return {"kind": "die", "die": action - E.ACTION_DIE + 1}
    raise ValueError(f"unknown action id {action}")


def action_from_typed(d, chance: bool = False, options=None) -> int:
    """The action id of a typed action dict (the inverse of :func:`typed_action`)."""
    mapping(d, "action")
    kind = ACTION_KINDS[enum_index(d.get("kind"), ACTION_KINDS, "KIND_", "kind")]
    if kind == "choose":
        a = enum_index(d.get("action"), E.ACTIONS, "ACTION_", "action")
        if a == E.ACTION_KIND_NONE:
            raise ValueError("action: none is not an action to choose")
        return E.ACTION_CHOOSE + a - 1
    if kind == "done":
        return E.ACTION_DONE
    if kind == "die":
        return E.ACTION_DIE + int_in(d.get("die"), 1, 6, "die") - 1
    if kind in ("enter", "move", "home", "den", "steal_goods", "steal_shillings"):
        L = int_in(d.get("location"), 0, E.LOCATION_COUNT - 1, "location")
        base = E.ACTION_MOVE + L * E.MOVES_PER_LOCATION
        if kind == "enter":
            return base
        if kind == "home":
            return base + 1 + 8 * E.TOP_SPACE + 7
        if kind == "den":
            return base + 1 + 7
        sp = int_in(d.get("space"), 0, E.TRACK_SPACES - 1, "space")
        if kind == "move":
            to = int_in(d.get("to"), 0, E.TRACK_SPACES - 1, "to")
            if to == sp:
                raise ValueError(f"to: a move goes to another space than {sp}")
            return base + 1 + 8 * sp + to
        return (E.ACTION_STEAL_GOODS if kind == "steal_goods" else E.ACTION_STEAL_SHILLINGS) + L * E.TRACK_SPACES + sp
    c = E.colour_index(d.get("colour"), "colour")
    return {"white_hand": E.ACTION_WHITE_HAND, "exchange_pay": E.ACTION_EXCHANGE_PAY, "exchange_take": E.ACTION_EXCHANGE_TAKE, "sell": E.ACTION_SELL,
            "buy": E.ACTION_BUY}[kind] + c
