"""London's action ids in words and in typed form (plain Python, off the search path).

The ids are laid out in ``engine.pyx``'s docstring.  A decision names a card's
*kind* (LN-93), so its label names the kind: the card's name when the kind is
one version, the versions' names joined with "or" when the rules tell several
apart by name only (``"Salters or Vintners or Haberdashers or Grocers"``), and,
where two kinds share a name (School, Hospital, Shops, Paupers), the deck letter
(and the colour if the letter is not enough): ``"School (A, blue)"``,
``"Paupers (C)"``.  A chance outcome names the exact card drawn (``"draw Paupers (C)"``).

The typed form is the ``LondonAction`` message as a dict: ``kind`` (the
engine's spelling, ``"place"``; or the proto's ``"KIND_PLACE"``), ``card`` (a
card id from ``cards.json``), ``borough`` (a borough id) and ``seat``.  A kind
action's typed form names the kind's lowest version; any version of the kind is
accepted back.

In a position (``action_label_at``, ``typed_action_at``, ``apply_typed_at``, used
by the core ``State``), labels and typed forms name the very card a kind action
moves there (``"place Vintners"``), and a typed form naming a copy moves that copy
(LN-93): people see, and frontends say, which of identical cards was played.
"""
from __future__ import annotations

import functools

from fagin.engines.london import engine as E
from fagin.engines.validation import enum_index, int_in, mapping

#: Typed action kinds: the fixed ids, the per-seat / per-borough ids, the kind
#: ranges (the engine's ``RANGES``, in order) and the chance outcome.
FIXED_KINDS = ("deck", "done", "stop", "look", "no_look", "no_swap", "play_cards", "run_city", "buy_land",
               "take_three", "new_stack")
RANGE_KINDS = ("take_top", "take_bottom", "take_looked", "put_back", "swap_top", "swap_bottom", "give", "place",
               "use", "on_stack_up", "on_stack_down", "expend", "school_expend", "activate", "again", "keep",
               "coffee_top", "coffee_bottom", "cut")
ACTION_KINDS = FIXED_KINDS + ("player", "buy", "underground") + RANGE_KINDS + ("draw",)

_FIXED_LABELS = {
    "deck": "take the top card of the deck",
    "done": "done",
    "stop": "stop",
    "look": "look at the top cards of the deck (University of London)",
    "no_look": "do not look at the deck",
    "no_swap": "no swap",
    "play_cards": "Play Cards",
    "run_city": "Run City",
    "buy_land": "Buy Land",
    "take_three": "Take Three Cards",
    "new_stack": "start a new stack",
}

_RANGE_LABELS = {
    "take_top": "take {} from the top row",
    "take_bottom": "take {} from the bottom row",
    "take_looked": "take {} (looked at)",
    "put_back": "put {} back next",
    "swap_top": "swap for {} from the top row",
    "swap_bottom": "swap for {} from the bottom row",
    "give": "give {} to the Card Display",
    "place": "place {}",
    "use": "use {}",
    "on_stack_up": "on the stack topped by {}",
    "on_stack_down": "on the stack topped by {} (face down)",
    "expend": "expend {}",
    "school_expend": "School: expend {}",
    "activate": "activate {}",
    "again": "again: {}",
    "keep": "keep {} face up",
    "coffee_top": "Coffee House: {} from the top row",
    "coffee_bottom": "Coffee House: {} from the bottom row",
    "cut": "cut {}",
}




@functools.lru_cache(maxsize=None)
def kind_names() -> tuple[str, ...]:
    """A name for people of each kind (see the module docstring)."""
    plain = []
    for versions in E.KINDS:
        names = []
        for v in versions:
            if E.CARDS[v].name not in names:
                names.append(E.CARDS[v].name)
        plain.append(" or ".join(names))
    out = []
    for k, name in enumerate(plain):
        same = [j for j, n in enumerate(plain) if n == name]
        if len(same) > 1:
            first = E.CARDS[E.KINDS[k][0]]
            letters = [E.CARDS[E.KINDS[j][0]].deck for j in same]
            qualifier = first.deck if letters.count(first.deck) == 1 else f"{first.deck}, {first.colour}"
            name = f"{name} ({qualifier})"
        out.append(name)
    return tuple(out)


def kind_name(kind: int) -> str:
    return kind_names()[kind]


@functools.lru_cache(maxsize=None)
def version_names() -> tuple[str, ...]:
    """A name for people of each card version: its name, with the letter (and colour) where
    versions share it (``"Paupers (C)"``)."""
    out = []
    for c in E.CARDS:
        same = [d for d in E.CARDS if d.name == c.name]
        if len(same) == 1:
            out.append(c.name)
        elif [d.deck for d in same].count(c.deck) == 1:
            out.append(f"{c.name} ({c.deck})")
        else:
            out.append(f"{c.name} ({c.deck}, {c.colour})")
    return tuple(out)


def _decode(action: int):
    """(typed kind, kind or version or seat or borough index) of an id; ValueError if unknown."""
    if isinstance(action, bool) or not isinstance(action, int):
        raise ValueError(f"unknown action id {action!r}")
    if 0 <= action <= E.ACTION_NEW_STACK:
        return FIXED_KINDS[action], None
    if E.ACTION_PLAYER <= action < E.ACTION_PLAYER + E.MAX_PLAYERS_STATE:
        return "player", action - E.ACTION_PLAYER
    if E.ACTION_BUY <= action < E.ACTION_BUY + len(E.BOROUGHS):
        return "buy", action - E.ACTION_BUY
    if E.ACTION_COUNTER <= action < E.ACTION_COUNTER + len(E.BOROUGHS):
        return "underground", action - E.ACTION_COUNTER
    split = E.split_action(action)
    if split is not None and split[1] < len(E.KINDS):
        return split
    if E.ACTION_CHANCE <= action < E.ACTION_CHANCE + len(E.VERSIONS):
        return "draw", action - E.ACTION_CHANCE
    raise ValueError(f"unknown action id {action}")


def _label(action) -> str:
    kind, index = _decode(action)
    if kind in _FIXED_LABELS:
        return _FIXED_LABELS[kind]
    if kind == "player":
        return f"choose seat {index}"
    if kind == "buy":
        return f"buy {E.BOROUGHS[index].name}"
    if kind == "underground":
        return f"Underground counter in {E.BOROUGHS[index].name}"
    if kind == "draw":
        return f"draw {version_names()[index]}"
    return _RANGE_LABELS[kind].format(kind_name(index))


def _typed(action) -> dict:
    kind, index = _decode(action)
    if kind in _FIXED_LABELS:
        return {"kind": kind}
    if kind == "player":
        return {"kind": kind, "seat": index}
    if kind in ("buy", "underground"):
        return {"kind": kind, "borough": E.BOROUGH_IDS[index]}
    if kind == "draw":
        return {"kind": kind, "card": E.VERSIONS[index]}
    return {"kind": kind, "card": E.VERSIONS[E.KINDS[index][0]]}


_LABELS: dict = {}
_TYPED: dict = {}


def _fill_tables():
    """Every valid id's label and typed form, computed once (the contract tests and clients
    ask for them over and over)."""
    for a in range(E.NUM_DISTINCT_ACTIONS):
        try:
            label = _label(a)
        except ValueError:
            continue
        _TYPED[a] = _typed(a)
        _LABELS[a] = label


def action_label(action, chance=False, options=None) -> str:
    """A label for people (``"place St Paul's"``); decisions and chance outcomes have
    ids of their own, so ``chance`` changes nothing."""
    if not _LABELS:
        _fill_tables()
    try:
        return _LABELS[action]
    except (KeyError, TypeError):
        raise ValueError(f"unknown action id {action!r}") from None


def typed_action(action, chance=False, options=None) -> dict:
    """The ``LondonAction`` form of an id (``chance`` changes nothing, as for labels)."""
    if not _TYPED:
        _fill_tables()
    try:
        return dict(_TYPED[action])
    except (KeyError, TypeError):
        raise ValueError(f"unknown action id {action!r}") from None


def _card(d, field) -> int:
    card = d.get("card")
    if not isinstance(card, str) or card not in E.VERSION_INDEX:
        raise ValueError(f"{field}: {'missing' if card in (None, '') else f'unknown card {card!r}'}"
                         f" (a card id of cards.json, e.g. 'st_pauls')")
    return E.VERSION_INDEX[card]


def action_from_typed(d, chance=False, options=None) -> int:
    """The id of a typed form: a chance outcome (kind ``draw``) with ``chance``, a
    decision without; ValueError naming the field otherwise."""
    mapping(d, "action")
    kind = ACTION_KINDS[enum_index(d.get("kind"), ACTION_KINDS, "KIND_", "kind")]
    if chance != (kind == "draw"):
        raise ValueError("kind: " + ("the position is at a chance event: only kind draw (a card off the deck)"
                                     if chance else "kind draw is a chance outcome, not a decision"))
    if kind in FIXED_KINDS:
        return FIXED_KINDS.index(kind)
    if kind == "player":
        return E.ACTION_PLAYER + int_in(d.get("seat"), 0, E.MAX_PLAYERS_STATE - 1, "seat")
    if kind in ("buy", "underground"):
        borough = d.get("borough")
        if not isinstance(borough, str) or borough not in E.BOROUGH_INDEX:
            raise ValueError(f"borough: {'missing' if borough in (None, '') else f'unknown borough {borough!r}'}"
                             f" (a borough id of board.json, e.g. 'city')")
        base = E.ACTION_BUY if kind == "buy" else E.ACTION_COUNTER
        return base + E.BOROUGH_INDEX[borough]
    v = _card(d, "card")
    if kind == "draw":
        return E.ACTION_CHANCE + v
    return E.kind_action(kind, E.KIND_OF[v])


# ------------------------------------------------------------------ naming the exact card (LN-93)

def _moved(data, action, named=-1):
    """The version a kind decision moves (or marks, for a card in play) in state ``data``."""
    return E.moved_version(data, action, named) if E.split_action(action) is not None else -1


def _named(d):
    """The version a typed form names, -1 for none (the kind's lowest then moves)."""
    return _card(d, "card") if d and d.get("card") else -1


def action_label_at(data, action, typed=None) -> str:
    """A decision's label in the state ``data``: a kind action names the one card it moves
    there (``"place Vintners"``, not the kind's "Salters or Vintners or ..."), or the copy
    the typed form ``typed`` names; other ids as :func:`action_label`."""
    label = action_label(action)
    v = _moved(data, action, _named(typed))
    if v < 0:
        return label
    kind, index = _decode(action)
    return _RANGE_LABELS[kind].format(version_names()[v])


def typed_action_at(data, action, typed=None) -> dict:
    """A decision's typed form in the state ``data``: a kind action's ``card`` is the card it
    moves there (or the copy ``typed`` names); other ids as :func:`typed_action`."""
    out = typed_action(action)
    v = _moved(data, action, _named(typed))
    if v >= 0:
        out["card"] = E.VERSIONS[v]
    return out


def apply_typed_at(data, action, d) -> bytes:
    """The state after the legal decision ``action`` read from the typed form ``d``: a kind
    action moves the very card ``d`` names (LN-93); ValueError naming ``card`` if that copy is
    not where the action takes it from (or, for a card in play, not one the rules may pick)."""
    if E.split_action(action) is None:
        return E.apply_named(data, action, -1)
    v = _card(d, "card")
    if _moved(data, action, v) != v:
        kind, _ = _decode(action)
        moved = _moved(data, action)
        raise ValueError(f"card: {version_names()[v]} is not a card this {kind} can take here; "
                         f"the {kind_name(E.KIND_OF[v])} it takes is {version_names()[moved]}")
    return E.apply_named(data, action, v)
