"""Helpers to build and play London positions at the engine's raw level.

London is tested below its Python side: a position is the engine's ``LNState``
struct as a dict (``engine._raw``), edited field by field and packed again
(``engine._pack``), then wrapped in the core :class:`State`.  :func:`position`
builds such a state from readable arguments and keeps the 110 cards conserved:
every card it places (hands, displays, the Card Display, the discard pile,
University's put-back cards) is taken out of the deck, so that the chance
draws that follow stay consistent.

Cards are named by their id in ``cards.json`` ("st_pauls", "grocers").  A card
in a Building Display may carry markers after a colon: ``"woolwich_arsenal:down"``
(flipped), ``"coffee_house:now"`` (placed this turn), ``"shops_b:$3"`` (£3 on
a Shops); several markers are joined with colons.
"""
from __future__ import annotations

import collections

import pytest

from fagin.engines.core import Game
from fagin.engines.game import GameSpec
from fagin.engines.london import engine as E

SPEC = GameSpec(id="london", name="London", min_players=2, max_players=4, spec="seeds/london.md",
                heuristic=None, description="London")
GAME = Game(E, SPEC)

PHASES = E.PHASES
F_DOWN = E.FLAGS["down"]
F_COVERED = E.FLAGS["covered"]
F_NOW = E.FLAGS["placed_this_turn"]
F_ACTIVATED = E.FLAGS["activated"]

ACTIONS = {"none": 0, "play_cards": 1, "run_city": 2, "buy_land": 3, "take_three": 4}
SIMPLE_ACTIONS = {
    "deck": E.ACTION_DECK, "done": E.ACTION_DONE, "stop": E.ACTION_STOP, "look": E.ACTION_LOOK,
    "no_look": E.ACTION_NO_LOOK, "no_swap": E.ACTION_NO_SWAP, "play_cards": E.ACTION_PLAY_CARDS,
    "run_city": E.ACTION_RUN_CITY, "buy_land": E.ACTION_BUY_LAND, "take_three": E.ACTION_TAKE_THREE,
    "new_stack": E.ACTION_NEW_STACK,
}


# ------------------------------------------------------------------ names and ids

def version(card: str) -> int:
    """The version index of a card id."""
    return E.VERSION_INDEX[card]


def kind(card: str) -> int:
    """The kind index (LN-93) of a card id."""
    return E.KIND_OF[version(card)]


def borough(name: str) -> int:
    return E.BOROUGH_INDEX[name]


def card_of_kind(k: int) -> str:
    """The card id naming kind ``k``: its lowest version."""
    return E.VERSIONS[E.KINDS[k][0]]


def action_id(what: str, arg=None) -> int:
    """The action id of a readable decision.

    ``what`` is one of :data:`SIMPLE_ACTIONS` (no ``arg``), ``"buy"`` or
    ``"counter"`` with a borough id, ``"player"`` with a seat, ``"chance"`` with
    a card id, or a kind range of the engine (``"place"``, ``"expend"``,
    ``"activate"``, ...) with a card id.
    """
    if what in SIMPLE_ACTIONS:
        assert arg is None, what
        return SIMPLE_ACTIONS[what]
    if what == "buy":
        return E.ACTION_BUY + borough(arg)
    if what == "counter":
        return E.ACTION_COUNTER + borough(arg)
    if what == "player":
        return E.ACTION_PLAYER + arg
    if what == "chance":
        return E.ACTION_CHANCE + version(arg)
    return E.kind_action(what, kind(arg))


def label(action: int) -> str:
    """A readable label of an action id, the inverse of :func:`action_id`: ``"place salters"``
    (a kind is named by its lowest version), ``"buy city"``, ``"done"``."""
    for name, a in SIMPLE_ACTIONS.items():
        if a == action:
            return name
    if action >= E.ACTION_CHANCE:
        return "chance " + E.VERSIONS[action - E.ACTION_CHANCE]
    split = E.split_action(action)
    if split is not None:
        return f"{split[0]} {card_of_kind(split[1])}"
    if E.ACTION_COUNTER <= action < E.ACTION_KINDS:
        return "counter " + E.BOROUGH_IDS[action - E.ACTION_COUNTER]
    if E.ACTION_BUY <= action < E.ACTION_COUNTER:
        return "buy " + E.BOROUGH_IDS[action - E.ACTION_BUY]
    if E.ACTION_PLAYER <= action < E.ACTION_BUY:
        return f"player {action - E.ACTION_PLAYER}"
    return f"#{action}"


def labels(st) -> set[str]:
    """The legal actions of ``st`` as readable labels."""
    return {label(a) for a in st.legal_actions()}


# ------------------------------------------------------------------ building positions

def _cards(spec) -> list[str]:
    """A list of card ids from a list or a ``{card: count}`` dict."""
    if isinstance(spec, dict):
        return [c for c, n in spec.items() for _ in range(n)]
    return list(spec)


def _split_markers(entry: str):
    card, *markers = entry.split(":")
    flags, money = 0, 0
    for m in markers:
        if m == "down":
            flags |= F_DOWN
        elif m == "now":
            flags |= F_NOW
        elif m.startswith("$"):
            money = int(m[1:])
        else:
            raise ValueError(f"unknown marker {m!r} in {entry!r}")
    return card, flags, money


def position(players=2, active=0, phase="action", action="none", hands=None, known=None, money=None,
             loans=None, vp=None, poverty=None, display_top=(), display_bottom=(), discard=(),
             stacks=None, boroughs=None, underground=(), deck=None, top=(), uni_owner=-1, turns=0,
             last_round=False, turns_left=-1, **fields):
    """A London state (core ``State``) built from readable parts.

    ``hands``/``known``: ``{seat: cards}`` (``known``: the copies every seat is sure of,
    also used as the University owner's knowledge); ``money``/``loans``/``vp``/
    ``poverty``: ``{seat: n}`` over the defaults of a new game (£5, 0, 0, 5);
    ``stacks``: ``{seat: [[bottom card, ..., top card], ...]}`` with markers (module
    docstring); ``boroughs``: ``{borough: seat}``; ``underground``: boroughs holding a
    counter; ``top``: University's put-back cards, drawn first; ``deck``: the exact
    unseen deck (the cards not placed anywhere else then go to the discard pile), or
    None for every card not placed elsewhere.  ``fields`` set any other raw field.
    """
    raw = E._raw(E.initial_state_bytes(players))
    left = collections.Counter({v: c.count for v, c in enumerate(E.CARDS)})

    def use(card):
        v = version(card)
        left[v] -= 1
        assert left[v] >= 0, f"more copies of {card} than the game has"
        return v

    raw["deal_left"] = 0
    raw["active"] = active
    raw["phase"] = PHASES.index(phase)
    raw["action"] = ACTIONS[action]
    raw["turns"] = turns
    raw["last_round"] = int(last_round)
    raw["turns_left"] = turns_left
    raw["uni_owner"] = uni_owner
    for name, table in (("money", money), ("loans", loans), ("vp", vp), ("poverty", poverty)):
        for p, n in (table or {}).items():
            raw[name][p] = n
    for p, cards in (hands or {}).items():
        for c in _cards(cards):
            raw["hand"][p][use(c)] += 1
            raw["hand_n"][p] += 1
    for p, cards in (known or {}).items():
        for c in _cards(cards):
            raw["known"][p][version(c)] += 1
            raw["owner_sure"][p][version(c)] += 1
    for r, row in enumerate((display_top, display_bottom)):
        vs = sorted(use(c) for c in row)
        assert len(vs) <= players + 1, "a Card Display row holds players + 1 cards (LN-19)"
        raw["display_n"][r] = len(vs)
        for i, v in enumerate(vs):
            raw["display"][r][i] = v
    for c in _cards(discard):
        raw["discard"][use(c)] += 1
    for p, seat_stacks in (stacks or {}).items():
        n = 0
        for s, stack in enumerate(seat_stacks):
            for depth, entry in enumerate(stack):
                card, flags, on_card = _split_markers(entry)
                if depth < len(stack) - 1:
                    flags |= F_COVERED
                raw["pc_version"][p][n] = use(card)
                raw["pc_stack"][p][n] = s
                raw["pc_flags"][p][n] = flags
                raw["pc_money"][p][n] = on_card
                n += 1
        raw["pc_n"][p] = n
        raw["stacks"][p] = len(seat_stacks)
    for b, p in (boroughs or {}).items():
        raw["owner"][borough(b)] = p
    for b in underground:
        raw["underground"][borough(b)] = 1
        raw["underground_left"] -= 1
    raw["top_n"] = len(top)
    for i, c in enumerate(top):
        raw["top"][i] = use(c)
    if deck is not None:
        wanted = collections.Counter(version(c) for c in _cards(deck))
        for v, n in wanted.items():
            assert left[v] >= n, f"more copies of {E.VERSIONS[v]} than are left for the deck"
            left[v] -= n
        for v, n in left.items():
            raw["discard"][v] += n          # conservation: what is nowhere else was discarded
        left = wanted
    raw["deck"] = [left.get(v, 0) for v in range(len(raw["deck"]))]
    for name, value in fields.items():
        assert name in raw, f"no field {name!r} in LNState"
        raw[name] = value
    return GAME._trusted(E._pack(raw))


def raw(st) -> dict:
    """The state's struct as a dict."""
    return E._raw(st.to_bytes())


def phase(st) -> str:
    return PHASES[raw(st)["phase"]]


def total_cards(st) -> int:
    """Every card of the game, wherever it is (LN-2: always 110)."""
    r = raw(st)
    n = sum(r["deck"]) + r["top_n"] + r["look_n"] + sum(r["discard"]) + sum(r["display_n"])
    n += sum(r["hand_n"][:r["players"]]) + sum(r["pc_n"][:r["players"]])
    if PHASES[r["phase"]] in ("where", "pay"):
        n += 1                              # the card being placed has left the hand (``pending``)
    return n


def with_fields(st, **fields):
    """A copy of ``st`` with raw fields replaced (hashes recomputed)."""
    r = raw(st)
    r.update(fields)
    return GAME._trusted(E._pack(r))


# ------------------------------------------------------------------ playing

def act(st, what: str, arg=None):
    """Applies a readable decision (see :func:`action_id`); returns ``st``.

    (Checked here: the core's error message asks the engine for labels, which London's
    Python side does not give yet.)"""
    a = action_id(what, arg)
    if a not in st.legal_actions():
        raise AssertionError(f"{label(a)} is not legal in phase {phase(st)}; legal: {sorted(labels(st))}")
    return st.apply(a)


def scored(players=2, **kw):
    """The state after the last turn of a finished game (Take Three with nothing left to take):
    the final scoring of the position ``kw`` describes, no money unless given."""
    kw.setdefault("money", {p: 0 for p in range(players)})
    st = position(players=players, active=0, phase="action", deck=[], last_round=True, turns_left=1, **kw)
    act(st, "take_three")
    assert st.is_terminal()
    return st


def draw(st, card: str):
    """Applies the chance outcome "the deck gives ``card``"."""
    assert st.is_chance_node(), f"not a chance node (phase {phase(st)})"
    a = action_id("chance", card)
    assert a in st.legal_actions(), f"{card} cannot come off the deck now; possible: {sorted(labels(st))}"
    return st.apply(a)


def hand_of(st, p: int) -> collections.Counter:
    r = raw(st)
    return collections.Counter({E.VERSIONS[v]: n for v, n in enumerate(r["hand"][p][:len(E.VERSIONS)]) if n})


def display_rows(st) -> tuple[list[str], list[str]]:
    """The Card Display's rows (top, bottom) as sorted card ids."""
    r = raw(st)
    return tuple(sorted(E.VERSIONS[r["display"][i][j]] for j in range(r["display_n"][i])) for i in range(2))


def discard_pile(st) -> collections.Counter:
    r = raw(st)
    return collections.Counter({E.VERSIONS[v]: n for v, n in enumerate(r["discard"][:len(E.VERSIONS)]) if n})


def building_display(st, p: int) -> list[list[dict]]:
    """Seat ``p``'s stacks, each bottom to top, each card ``{card, down, covered, money, ...}``."""
    r = raw(st)
    out = [[] for _ in range(r["stacks"][p])]
    for i in range(r["pc_n"][p]):
        f = r["pc_flags"][p][i]
        out[r["pc_stack"][p][i]].append({
            "card": E.VERSIONS[r["pc_version"][p][i]], "down": bool(f & F_DOWN),
            "covered": bool(f & F_COVERED), "now": bool(f & F_NOW), "money": r["pc_money"][p][i]})
    return out


def tops(st, p: int) -> list[str]:
    """The uncovered card of each of ``p``'s stacks, with ":down" when flipped."""
    return [s[-1]["card"] + (":down" if s[-1]["down"] else "") for s in building_display(st, p)]


def seat(st, p: int) -> dict:
    """A readable summary of seat ``p``."""
    r = raw(st)
    return {
        "money": r["money"][p], "loans": r["loans"][p], "vp": r["vp"][p], "poverty": r["poverty"][p],
        "hand": hand_of(st, p), "hand_n": r["hand_n"][p], "stacks": building_display(st, p),
        "boroughs": {E.BOROUGH_IDS[b] for b in range(len(E.BOROUGH_IDS)) if r["owner"][b] == p},
    }


def turn_start(active=0, players=2, **kw):
    """A position at the very start of ``active``'s turn, reached through the engine: the
    previous seat ends a Play Cards action with "done" and the engine starts the turn (the
    Parliament, University and Stock Exchange steps are then the engine's own)."""
    previous = (active - 1) % players
    st = position(players=players, active=previous, phase="play", action="play_cards", placed=1, **kw)
    assert raw(st)["hand_n"][previous] <= 9, "the previous seat would have to cut its hand"
    return act(st, "done")
