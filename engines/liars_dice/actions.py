"""Liar's Dice actions under the game's options: labels, typed forms, and back.

OpenSpiel's action ids depend on its parameters (the API's options): with N
dice on the table (2 * numdice) and S sides, bids are ids 0..N*S-1, ranked by
the bidding rule, and N*S calls "Liar"; at a chance node, ids 0..S-1 roll a
face. Every function takes the state's options (``engine.options_of``); None
means the defaults.
"""
from fagin.engines.validation import enum_index

RULES = ("reset-face", "reset-quantity")
DEFAULTS = {"numdice": 1, "dice_sides": 6, "bidding_rule": "reset-face"}
ACTION_KINDS = ("bid", "liar", "roll")


def _settings(options):
    """(dice a seat, sides, rule) of an options dict (missing entries at their defaults)."""
    o = DEFAULTS if not options else {**DEFAULTS, **options}
    return int(o["numdice"]), int(o["dice_sides"]), o["bidding_rule"]


def given_options(options):
    """The options a state message sets: proto3 leaves unset ones 0 or "" (the defaults)."""
    return {k: v for k, v in (options or {}).items() if v not in (None, 0, "")}


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _bid(action, options=None):
    """(quantity, face) of a bid id, as OpenSpiel ranks bids under the bidding rule."""
    n, sides, rule = _settings(options)
    if rule == "reset-face":
        return action // sides + 1, action % sides + 1
    return action % (2 * n) + 1, action // (2 * n) + 1


def _bid_id(quantity, face, options=None):
    n, sides, rule = _settings(options)
    if rule == "reset-face":
        return (quantity - 1) * sides + (face - 1)
    return (face - 1) * (2 * n) + (quantity - 1)


def action_label(action, chance=False, options=None):
    """A bid or "liar" at a decision; at a chance node a die rolled (roll ids
    coincide with the lowest bids, as in OpenSpiel)."""
    n, sides, _ = _settings(options)
    if chance:
        if 0 <= action < sides:
            return f"roll {action + 1}"
        raise ValueError(f"unknown chance outcome id {action}")
    if 0 <= action < 2 * n * sides:
        q, f = _bid(action, options)
        return f"bid {q}-{f}"
    if action == 2 * n * sides:
        return "liar"
    raise ValueError(f"unknown action id {action}")


def typed_action(action, chance=False, options=None):
    n, sides, _ = _settings(options)
    if chance:
        if 0 <= action < sides:
            return {"kind": "roll", "face": action + 1}
        raise ValueError(f"unknown chance outcome id {action}")
    if 0 <= action < 2 * n * sides:
        q, f = _bid(action, options)
        return {"kind": "bid", "quantity": q, "face": f}
    if action == 2 * n * sides:
        return {"kind": "liar"}
    raise ValueError(f"unknown action id {action}")


def action_from_typed(d, chance=False, options=None):
    """The id of a typed action; ``chance``: the position is at a chance event, where only
    a roll fits (roll ids coincide with the lowest bids, as in OpenSpiel)."""
    n, sides, _ = _settings(options)
    kind = ACTION_KINDS[enum_index(d.get("kind"), ACTION_KINDS, "KIND_", "kind")]
    if (kind == "roll") != bool(chance):
        raise ValueError("kind: " + ("a chance event is next: give KIND_ROLL with a face" if chance
                                     else "KIND_ROLL is a chance outcome; a seat is to act "
                                          "(KIND_BID or KIND_LIAR)"))
    if kind == "liar":
        return 2 * n * sides
    if kind == "bid":
        q, f = d.get("quantity"), d.get("face")
        if not _is_int(q) or not 1 <= q <= 2 * n:
            raise ValueError(f"quantity: a bid names 1 to {2 * n} dice, got {q!r}")
        if not _is_int(f) or not 1 <= f <= sides:
            raise ValueError(f"face: a bid names a face from 1 to {sides}, got {f!r}")
        return _bid_id(q, f, options)
    f = d.get("face")
    if not _is_int(f) or not 1 <= f <= sides:
        raise ValueError(f"face: a roll shows a face from 1 to {sides}, got {f!r}")
    return f - 1
