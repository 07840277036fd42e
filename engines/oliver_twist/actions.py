"""Oliver Twist's action ids in words and in typed form (plain Python, off the search path).

The ids (``engine.pyx``'s constants): a space of the board; take, done, relocate the
Gang pawn, give up the round; go to Fagin's with an Object type; a token kind, a
Character card played or hidden, a seat, a Burglary card kept, a Tool discarded.
Chance outcomes (a token, a Character card or a Burglary card drawn) have ids of their
own above the decisions'.  The typed form is the ``OliverTwistAction`` message as a dict.
"""
from fagin.engines.oliver_twist import engine as E
from fagin.engines.oliver_twist.state import (BURGLARY_VALUE_COUNT, CHARACTER_COUNT, CHARACTER_NAMES,
                                              CHARS, KIND_COUNT, KINDS, TOOLS, TYPE_PLURALS, TYPES, VALUES,
                                              _kind, token_name)
from fagin.engines.validation import enum_index, int_in, mapping

ACTION_KINDS = ("space", "take", "done", "relocate", "give_up", "fagin", "token", "play", "hide", "seat",
                "keep", "discard_tool", "draw_token", "draw_character", "draw_burglary")


def _split(a, chance):
    if chance:
        if E.ACTION_DRAW_TOKEN <= a < E.ACTION_DRAW_TOKEN + KIND_COUNT:
            return "draw_token", a - E.ACTION_DRAW_TOKEN
        if E.ACTION_DRAW_CHARACTER <= a < E.ACTION_DRAW_CHARACTER + CHARACTER_COUNT:
            return "draw_character", a - E.ACTION_DRAW_CHARACTER
        if E.ACTION_DRAW_BURGLARY <= a < E.ACTION_DRAW_BURGLARY + BURGLARY_VALUE_COUNT:
            return "draw_burglary", a - E.ACTION_DRAW_BURGLARY
        raise ValueError(f"action: {a} is not a chance outcome of Oliver Twist")
    if 0 <= a < E.ACTION_TAKE:
        return "space", a
    for name, lo, n in (("take", E.ACTION_TAKE, 1), ("done", E.ACTION_DONE, 1), ("relocate", E.ACTION_RELOCATE, 1),
                        ("give_up", E.ACTION_GIVE_UP, 1), ("fagin", E.ACTION_FAGIN, 6), ("token", E.ACTION_KIND, KIND_COUNT),
                        ("play", E.ACTION_PLAY, CHARACTER_COUNT), ("hide", E.ACTION_HIDE, CHARACTER_COUNT), ("seat", E.ACTION_SEAT, 4),
                        ("keep", E.ACTION_KEEP, BURGLARY_VALUE_COUNT), ("discard_tool", E.ACTION_TOOL, 5)):
        if lo <= a < lo + n:
            return name, a - lo
    raise ValueError(f"action: {a} is not a decision of Oliver Twist")


def action_label(action, chance=False, options=None):
    kind, i = _split(action, chance)
    return {
        "space": lambda: f"space {i}",
        "take": lambda: "take the token",
        "done": lambda: "done",
        "relocate": lambda: "move the Gang pawn (pay £2)",
        "give_up": lambda: "pay the police £4 and end the round",
        "fagin": lambda: f"go to Fagin's with {TYPE_PLURALS[i]}",
        "token": lambda: f"token: {token_name(i)}",
        "play": lambda: f"play {CHARACTER_NAMES[i]}",
        "hide": lambda: f"hide with {CHARACTER_NAMES[i]}",
        "seat": lambda: f"seat {i}",
        "keep": lambda: f"keep Burglary card {VALUES[i]:+d}",
        "discard_tool": lambda: f"discard the {TOOLS[i]} Tool",
        "draw_token": lambda: f"draw token: {token_name(i)}",
        "draw_character": lambda: f"draw Character {CHARACTER_NAMES[i]}",
        "draw_burglary": lambda: f"draw Burglary card {VALUES[i]:+d}",
    }[kind]()


def typed_action(action, chance=False, options=None):
    kind, i = _split(action, chance)
    d = {"kind": kind}
    if kind == "space":
        d["space"] = i
    elif kind == "fagin":
        d["object_type"] = TYPES[i]
    elif kind in ("token", "draw_token"):
        d["token"] = KINDS[i]
    elif kind in ("play", "hide", "draw_character"):
        d["character"] = CHARS[i]
    elif kind == "seat":
        d["seat"] = i
    elif kind in ("keep", "draw_burglary"):
        d["burglary_value"] = VALUES[i]
    elif kind == "discard_tool":
        d["tool"] = TOOLS[i]
    return d


def action_from_typed(d, chance=False, options=None):
    d = mapping(d, "action")
    kind = ACTION_KINDS[enum_index(d.get("kind"), ACTION_KINDS, "KIND_", "action.kind")]
    is_chance = kind.startswith("draw_")
    if is_chance != bool(chance):
        raise ValueError(f"action.kind: {kind} is {'a chance outcome' if is_chance else 'a decision'}, "
                         f"expected {'a chance outcome' if chance else 'a decision'}")
    if kind == "space":
        return int_in(d.get("space"), 0, E.ACTION_TAKE - 1, "action.space")
    if kind in ("take", "done", "relocate", "give_up"):
        return {"take": E.ACTION_TAKE, "done": E.ACTION_DONE, "relocate": E.ACTION_RELOCATE,
                "give_up": E.ACTION_GIVE_UP}[kind]
    if kind == "fagin":
        t = d.get("object_type")
        if t not in TYPES:
            raise ValueError(f"action.object_type: {t!r}; expected one of {', '.join(TYPES)}")
        return E.ACTION_FAGIN + TYPES.index(t)
    if kind in ("token", "draw_token"):
        return (E.ACTION_DRAW_TOKEN if chance else E.ACTION_KIND) + _kind(d.get("token"), "action.token")
    if kind in ("play", "hide", "draw_character"):
        ch = d.get("character")
        if ch not in CHARS:
            raise ValueError(f"action.character: {ch!r}; expected one of {', '.join(CHARS)}")
        return {"play": E.ACTION_PLAY, "hide": E.ACTION_HIDE, "draw_character": E.ACTION_DRAW_CHARACTER}[kind] + CHARS.index(ch)
    if kind == "seat":
        return E.ACTION_SEAT + int_in(d.get("seat"), 0, 3, "action.seat")
    if kind in ("keep", "draw_burglary"):
        v = d.get("burglary_value")
        if isinstance(v, bool) or v not in VALUES:
            raise ValueError(f"action.burglary_value: {v!r} is no Burglary card's value")
        return (E.ACTION_DRAW_BURGLARY if chance else E.ACTION_KEEP) + VALUES.index(v)
    t = d.get("tool")
    if t not in TOOLS:
        raise ValueError(f"action.tool: {t!r}; expected one of {', '.join(TOOLS)}")
    return E.ACTION_TOOL + TOOLS.index(t)
