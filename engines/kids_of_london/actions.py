"""Kids of London's action ids in words and in typed form (plain Python, off the search path).

The ids (``engine.pyx``'s constants): 0..8 play the Street Child card of that value;
then the robbers' choices of the Prince tile (take 0 as the Comedian, or 8 as the
Prince) and of a lone robber (take the card's value, or rob the character); then the
chance outcomes, one per character kind revealed and one per card value the
fictitious player shows.  Decisions and chance outcomes have ids of their own, so
``chance`` changes nothing here.  The typed form is the ``KidsOfLondonAction``
message as a dict.
"""
from fagin.engines.kids_of_london import engine as E
from fagin.engines.validation import enum_index, int_in

# The dict names of KidsOfLondonAction.Kind, in the proto's order.
ACTION_KINDS = ("play_card", "comedian", "prince", "take_card_value", "rob_character",
                "reveal_character", "reveal_fictitious_card")


def card_action(value: int) -> int:
    """Action id of playing the Street Child card ``value``."""
    if not 0 <= value < E.CARD_VALUES:
        raise ValueError(f"card value {value} out of range 0..{E.CARD_VALUES - 1}")
    return E.ACTION_CARD + value


def character_action(kind: str) -> int:
    """Chance action id revealing a character of ``kind`` (a name in CHARACTERS)."""
    return E.ACTION_REVEAL_CHARACTER + E.CHARACTERS.index(kind)


def fictitious_action(value: int) -> int:
    """Chance action id revealing the fictitious player's card ``value``."""
    if not 0 <= value < E.CARD_VALUES:
        raise ValueError(f"card value {value} out of range 0..{E.CARD_VALUES - 1}")
    return E.ACTION_REVEAL_FICTITIOUS + value


def action_label(action: int, chance: bool = False, options=None) -> str:
    """The action in words: ``"play 5"``, ``"reveal Jeweller"``."""
    kind, arg = _decoded(action)
    if kind == "play_card":
        return f"play {arg}"
    if kind == "reveal_character":
        return f"reveal {E.CHARACTER_NAMES[arg]}"
    if kind == "reveal_fictitious_card":
        return f"fictitious player reveals {arg}"
    return {"comedian": "comedian (take 0)", "prince": "prince (take 8)",
            "take_card_value": "take the card's value", "rob_character": "rob the character"}[kind]


def typed_action(action: int, chance: bool = False, options=None) -> dict:
    """The typed form of an action id, shaped like the ``KidsOfLondonAction`` message."""
    kind, arg = _decoded(action)
    if kind in ("play_card", "reveal_fictitious_card"):
        return {"kind": kind, "card": arg}
    if kind == "reveal_character":
        return {"kind": kind, "character": arg}
    return {"kind": kind}


def action_from_typed(d, chance: bool = False, options=None) -> int:
    """The action id of a typed action dict (the inverse of :func:`typed_action`)."""
    kind = ACTION_KINDS[enum_index(d.get("kind"), ACTION_KINDS, "KIND_", "kind")]
    if kind in _SIMPLE_KINDS:
        return _SIMPLE_KINDS[kind]
    if kind == "play_card":
        return E.ACTION_CARD + int_in(d.get("card"), 0, E.CARD_VALUES - 1, "card")
    if kind == "reveal_fictitious_card":
        return E.ACTION_REVEAL_FICTITIOUS + int_in(d.get("card"), 0, E.CARD_VALUES - 1, "card")
    return E.ACTION_REVEAL_CHARACTER + enum_index(d.get("character"), E.CHARACTERS, "CHARACTER_", "character")


def _decoded(action: int):
    """(kind, argument) of an action id: the card value, the character's name, or None."""
    if 0 <= action < len(_DECODED):
        return _DECODED[action]
    raise ValueError(f"unknown action id {action}")


def _decode(action: int):
    if E.ACTION_CARD <= action < E.ACTION_CARD + E.CARD_VALUES:
        return "play_card", action - E.ACTION_CARD
    for kind, a in _SIMPLE_KINDS.items():
        if action == a:
            return kind, None
    if E.ACTION_REVEAL_CHARACTER <= action < E.ACTION_REVEAL_CHARACTER + len(E.CHARACTERS):
        return "reveal_character", E.CHARACTERS[action - E.ACTION_REVEAL_CHARACTER]
    if E.ACTION_REVEAL_FICTITIOUS <= action < E.ACTION_REVEAL_FICTITIOUS + E.CARD_VALUES:
        return "reveal_fictitious_card", action - E.ACTION_REVEAL_FICTITIOUS
    raise ValueError(f"unknown action id {action}")


# The choices without an argument, by kind.
_SIMPLE_KINDS = {"comedian": E.ACTION_COMEDIAN, "prince": E.ACTION_PRINCE,
                 "take_card_value": E.ACTION_LONE_CARD, "rob_character": E.ACTION_LONE_CHARACTER}
# Every id decoded once (the ids are fixed; a frontend labels them all at every position).
_DECODED = []
for _a in range(E.ACTION_REVEAL_FICTITIOUS + E.CARD_VALUES):
    _DECODED.append(_decode(_a))
