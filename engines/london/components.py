"""London's components as data: the 110 cards, the board and the poverty penalty table.

The files are ``data/cards.json``, ``data/board.json`` and ``data/poverty.json``
beside this module. They are read once and checked strictly against the
first-edition rulebook (Treefrog Games, 2010) and the published components as
``seeds/london.md`` records them; any fault raises :class:`ValueError` naming the file and the record.
Plain Python on purpose (no compiled import): the tables are read once, off
the search path, and the engine copies what it needs into its own arrays.

Cards
-----
One record per card version (a name can have several: School, Hospital, Shops,
Paupers), with ``count`` copies. ``cost`` is the £ paid to place the card (on top
of expending a card of its colour), ``vp`` its end-of-game VP, ``base`` whether
it has the stone base that lets it be placed (hand-only cards have none).
Its powers sit in four slots, each a list of *power codes* with parameters
(``activation`` is an object with ``cost``, ``effects`` and ``flip``):

``play``
    rules for placing this card itself;
``permanent``
    powers in force while the card is face up and uncovered in a display;
``activation``
    what Run City may do with it: ``cost`` (absent = free; ``{"kind":
    "expend", "colour": "any"|"blue"}`` or ``{"kind": "money", "amount": £}``),
    ``effects`` applied when activated, and ``flip`` (face down afterwards,
    never usable again);
``hand``
    powers used from hand during Play Cards (the card then goes to the
    discard pile, not the Card Display).

Power codes (:data:`POWER_CODES`), as ``code`` (slot; parameters) and meaning:

``placed_without_expending`` (play)
    placing this card expends no card (Coffee House).
``expend_any_colour_for_money`` (permanent; amount: £1..5)
    when placing any card, pay ``amount`` to expend a card of any colour
    instead of one of the same colour, any number of times (School).
``look_at_deck_when_drawing`` (permanent; cards: 1..5)
    when taking the turn's card, look at the top ``cards`` deck cards and take
    one of them or a Card Display card; the rest go back on top in any order
    (University of London).
``swap_hand_with_display`` (permanent; per_turn: 1..3)
    up to ``per_turn`` times a turn, whatever the action, swap a hand card
    with a Card Display card (Stock Exchange).
``loan_amount`` (permanent; amount: £10..20)
    each loan gives ``amount`` instead of £10; repayment is unchanged
    (Bank of England).
``store_money_on_card`` (permanent; amount: £1..5)
    each time its owner places a card, ``amount`` from the bank goes onto
    this card (Shops).
``hand_not_counted_for_poverty`` (permanent)
    Run City's poverty counts no hand cards; the end of the game still does
    (Public Houses).
``draw_count_choice`` (permanent; min: 0..3, max: 1..3, min <= max)
    take ``min`` to ``max`` cards at the start of the turn instead of exactly
    one (Parliament).
``gain_money`` (activation; amount: £1..20)
    take ``amount`` from the bank.
``gain_vp`` (activation; amount: 1..10)
    take ``amount`` VP.
``discard_poverty`` (activation; amount: 1..5)
    discard up to ``amount`` poverty points (never below 0; unused discards
    are lost).
``take_poverty`` (activation; amount: 1..5)
    take ``amount`` poverty points (Leather Industry).
``money_per_borough`` (activation; amount: £1..5, boroughs: all | thames | north | south)
    ``amount`` per borough the player occupies among ``boroughs``: every one,
    those on the Thames, those on one bank (Omnibus, Steamboats, Train
    Station).
``money_per_card_in_display`` (activation; amount: £1..5, colours, covered: bool, flipped: bool)
    ``amount`` per card of ``colours`` (a list of blue, brown, pink) in the
    player's Building Display; ``covered`` and ``flipped`` say whether
    built-over and face-down cards count (Bridge, Tower Bridge).
``vp_per_card_in_display`` (activation; parameters as ``money_per_card_in_display``)
    ``amount`` VP per such card, this one included (Town Houses).
``collect_money_on_card`` (activation)
    take the money stored on this card (Shops).
``others_pay_you`` (activation; amount: £1..10)
    every other player pays the player ``amount``, with a loan if short, as
    for any money owed to a player (Lloyds of London).
``others_pay_bank_per_borough`` (activation; amount: £1..5)
    every other player pays the bank ``amount`` per borough they occupy
    (Fire Brigade).
``give_poverty`` (activation; amount: 1..3)
    move ``amount`` of the player's poverty points to a chosen player
    (Police Force).
``opponent_takes_poverty`` (activation; amount: 1..5)
    a chosen player takes ``amount`` poverty points from the pool
    (Fleet Street).
``expend_cards_for_poverty`` (activation; max_cards: 1..5, poverty_per_card: 0..3, vp_per_card: 0..3)
    put up to ``max_cards`` hand cards on the Card Display; per card discard
    ``poverty_per_card`` poverty points and take ``vp_per_card`` VP (Brixton
    Prison, Millbank Prison).
``expend_paupers`` (activation; money_per_card: £0..3, poverty_per_card: 0..3)
    expend any number of Paupers from hand; per Pauper take
    ``money_per_card`` and discard ``poverty_per_card`` poverty points
    (Workhouse).
``place_underground`` (activation; markers: 1..3)
    place ``markers`` Underground counters, each in a different borough, by
    the board's ``underground`` rules (Underground).
``reactivate_another`` (activation)
    activate again, without its money or card cost, another card activated
    earlier this turn (Whitehall).
``flip_in_place_of_another`` (activation)
    flip this card instead of a card just activated, which stays face up for
    a later turn (Hospital).
``place_from_display_on_this`` (activation)
    take a card from the Card Display and place it on this card, paying its
    £ cost but expending no card; it may be activated at once (Coffee House).
``discard_to_draw`` (hand; cards: 1..3)
    discard this card to take ``cards`` cards (Huguenots, Jewish Refugees).
``discard_to_place_any_colour`` (hand; cards: 1..3)
    discard this card to place ``cards`` cards of any colour without
    expending cards for them (Wren).

Board
-----
20 boroughs with ``cost`` (£), ``cards`` drawn on purchase, ``vp``, ``bank``
(north/south of the Thames), ``thames`` (frontage on the river), ``start``
(the first purchase of the game may be made there) and ``neighbours``:
``{borough id: "land" | "bridge"}``. The Thames separates the banks, so
boroughs on different banks are neighbours only at a bridge, and a bridge
always crosses. ``underground`` holds the counter supply, where the first
counter goes, the £ for crossing the river and the VP per counter.

Poverty
-------
``table[p]`` is the VP lost with ``p`` poverty points left after the lowest
player's total is taken from everyone; each point beyond the table costs
``beyond`` more.
"""
from __future__ import annotations

import pathlib
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType
from typing import Any, Iterator, Mapping

from fagin.engines.room_data import data_path, read_json

__all__ = [
    "Activation", "ActivationCost", "Board", "Borough", "Card", "POWER_CODES", "Power", "PowerCode",
    "Underground", "board", "card", "cards", "load_board", "load_cards", "load_poverty",
    "poverty_penalty",
]

CARDS_FILE = data_path(__file__, "cards.json")
BOARD_FILE = data_path(__file__, "board.json")
POVERTY_FILE = data_path(__file__, "poverty.json")

# What the rulebook fixes: the three decks (Components), the four colours
# (The Cards; their totals from the research's reading of every card), the 20
# boroughs of the map and the three red-named boroughs open to the first
# purchase (Buy Land).
DECKS = {"A": 25, "B": 50, "C": 35}
COLOURS = {"blue": 27, "brown": 50, "pink": 22, "grey": 11}
PLACEABLE_COLOURS = ("blue", "brown", "pink")   # Paupers (grey) have no stone base
NUM_BOROUGHS = 20
STARTING_BOROUGHS = frozenset({"city", "southwark_bermondsey", "westminster"})
BANKS = ("north", "south")
SLOTS = ("play", "permanent", "activation", "hand")
COST_KINDS = ("none", "expend", "money")

_ID = re.compile(r"[a-z][a-z0-9_]*\Z")


# ------------------------------------------------------------ parameter types

class _Int:
    def __init__(self, lo: int, hi: int):
        self.lo, self.hi = lo, hi

    def check(self, value: Any, where: str) -> int:
        # bool is an int in Python; a JSON true must not pass for 1.
        if type(value) is not int or not self.lo <= value <= self.hi:
            raise ValueError(f"{where}: expected an integer {self.lo}..{self.hi}, got {value!r}")
        return value


class _Choice:
    def __init__(self, *values: str):
        self.values = values

    def check(self, value: Any, where: str) -> str:
        if value not in self.values:
            raise ValueError(f"{where}: expected one of {', '.join(self.values)}, got {value!r}")
        return value


class _Bool:
    def check(self, value: Any, where: str) -> bool:
        if type(value) is not bool:
            raise ValueError(f"{where}: expected true or false, got {value!r}")
        return value


class _Colours:
    def check(self, value: Any, where: str) -> tuple[str, ...]:
        if (not isinstance(value, list) or not value or len(set(map(repr, value))) != len(value)
                or any(c not in PLACEABLE_COLOURS for c in value)):
            raise ValueError(f"{where}: expected a non-empty list of distinct colours among "
                             f"{', '.join(PLACEABLE_COLOURS)}, got {value!r}")
        return tuple(value)


@dataclass(frozen=True)
class PowerCode:
    """A power code's slot, parameter types and meaning."""
    slot: str
    params: Mapping[str, Any]
    meaning: str


def _code(slot: str, meaning: str, **params: Any) -> PowerCode:
    return PowerCode(slot, MappingProxyType(params), meaning)


_COUNTING = dict(amount=_Int(1, 5), colours=_Colours(), covered=_Bool(), flipped=_Bool())

#: Every power code a card may carry (the table in the module docstring says the same).
POWER_CODES: Mapping[str, PowerCode] = MappingProxyType({
    "placed_without_expending": _code("play", "placing this card expends no card"),
    "expend_any_colour_for_money": _code(
        "permanent", "pay `amount` to expend a card of any colour when placing a card; any number of times",
        amount=_Int(1, 5)),
    "look_at_deck_when_drawing": _code(
        "permanent", "at the turn's start look at the top `cards` deck cards; take one or a Card Display card",
        cards=_Int(1, 5)),
    "swap_hand_with_display": _code(
        "permanent", "up to `per_turn` times a turn swap a hand card with a Card Display card",
        per_turn=_Int(1, 3)),
    "loan_amount": _code("permanent", "each loan gives `amount` instead of £10", amount=_Int(10, 20)),
    "store_money_on_card": _code(
        "permanent", "each time its owner places a card, `amount` from the bank goes onto this card",
        amount=_Int(1, 5)),
    "hand_not_counted_for_poverty": _code("permanent", "Run City's poverty counts no hand cards"),
    "draw_count_choice": _code(
        "permanent", "take `min` to `max` cards at the turn's start instead of one",
        min=_Int(0, 3), max=_Int(1, 3)),
    "gain_money": _code("activation", "take `amount` £ from the bank", amount=_Int(1, 20)),
    "gain_vp": _code("activation", "take `amount` VP", amount=_Int(1, 10)),
    "discard_poverty": _code("activation", "discard up to `amount` poverty points", amount=_Int(1, 5)),
    "take_poverty": _code("activation", "take `amount` poverty points", amount=_Int(1, 5)),
    "money_per_borough": _code(
        "activation", "`amount` per occupied borough among `boroughs`",
        amount=_Int(1, 5), boroughs=_Choice("all", "thames", "north", "south")),
    "money_per_card_in_display": _code(
        "activation", "`amount` per card of `colours` in the display (`covered`/`flipped` ones too if true)",
        **_COUNTING),
    "vp_per_card_in_display": _code(
        "activation", "`amount` VP per card of `colours` in the display (`covered`/`flipped` ones too if true)",
        **_COUNTING),
    "collect_money_on_card": _code("activation", "take the money stored on this card"),
    "others_pay_you": _code("activation", "every other player pays the player `amount`", amount=_Int(1, 10)),
    "others_pay_bank_per_borough": _code(
        "activation", "every other player pays the bank `amount` per borough they occupy", amount=_Int(1, 5)),
    "give_poverty": _code("activation", "move `amount` of the player's poverty to a chosen player",
                          amount=_Int(1, 3)),
    "opponent_takes_poverty": _code("activation", "a chosen player takes `amount` poverty points",
                                    amount=_Int(1, 5)),
    "expend_cards_for_poverty": _code(
        "activation", "put up to `max_cards` hand cards on the Card Display; per card discard "
        "`poverty_per_card` poverty and take `vp_per_card` VP",
        max_cards=_Int(1, 5), poverty_per_card=_Int(0, 3), vp_per_card=_Int(0, 3)),
    "expend_paupers": _code(
        "activation", "expend any number of Paupers; per Pauper take `money_per_card` and discard "
        "`poverty_per_card` poverty",
        money_per_card=_Int(0, 3), poverty_per_card=_Int(0, 3)),
    "place_underground": _code("activation", "place `markers` Underground counters", markers=_Int(1, 3)),
    "reactivate_another": _code(
        "activation", "activate again, free, another card activated earlier this turn"),
    "flip_in_place_of_another": _code(
        "activation", "flip this instead of a card just activated, which stays face up for a later turn"),
    "place_from_display_on_this": _code(
        "activation", "place a Card Display card on this one paying its £ cost; it may be activated at once"),
    "discard_to_draw": _code("hand", "discard this card to take `cards` cards", cards=_Int(1, 3)),
    "discard_to_place_any_colour": _code(
        "hand", "discard this card to place `cards` cards of any colour without expending", cards=_Int(1, 3)),
})


# ------------------------------------------------------------------ records

@dataclass(frozen=True)
class Power:
    """One power code with its parameters (lists become tuples)."""
    code: str
    params: tuple[tuple[str, Any], ...] = ()

    def __getitem__(self, name: str) -> Any:
        for key, value in self.params:
            if key == name:
                return value
        raise KeyError(f"{self.code} has no parameter {name!r}")

    def get(self, name: str, default: Any = None) -> Any:
        return next((value for key, value in self.params if key == name), default)


@dataclass(frozen=True)
class ActivationCost:
    """``kind`` none (free), expend (a card of ``colour``: ``any`` or a colour) or money (``amount`` £)."""
    kind: str = "none"
    colour: str | None = None
    amount: int = 0


@dataclass(frozen=True)
class Activation:
    cost: ActivationCost
    effects: tuple[Power, ...]
    flip: bool


@dataclass(frozen=True)
class Card:
    """One card version; ``index`` is its place in ``cards.json``."""
    index: int
    id: str
    name: str
    deck: str
    colour: str
    count: int
    cost: int
    vp: int
    base: bool
    text: str
    play: tuple[Power, ...] = ()
    permanent: tuple[Power, ...] = ()
    activation: Activation | None = None
    hand: tuple[Power, ...] = ()
    notes: str | None = None

    def powers(self) -> Iterator[Power]:
        """Every power of the card, whatever its slot."""
        yield from self.play
        yield from self.permanent
        if self.activation is not None:
            yield from self.activation.effects
        yield from self.hand

    def power(self, code: str) -> Power | None:
        return next((p for p in self.powers() if p.code == code), None)


@dataclass(frozen=True)
class Borough:
    """A borough; ``neighbours`` are borough ids, ``bridges`` those reached across the Thames."""
    index: int
    id: str
    name: str
    cost: int
    cards: int
    vp: int
    bank: str
    thames: bool
    start: bool
    neighbours: tuple[str, ...]
    bridges: tuple[str, ...]
    notes: str | None = None


@dataclass(frozen=True)
class Underground:
    counters: int
    first_in_or_next_to: str
    river_crossing_cost: int
    vp_per_counter: int
    notes: str | None = None


@dataclass(frozen=True)
class Board:
    boroughs: tuple[Borough, ...]
    building_counters_per_player: int
    underground: Underground
    _by_id: Mapping[str, Borough] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_id", MappingProxyType({b.id: b for b in self.boroughs}))

    def borough(self, borough_id: str) -> Borough:
        try:
            return self._by_id[borough_id]
        except KeyError:
            raise KeyError(f"no borough {borough_id!r}") from None

    def adjacent(self, a: str, b: str) -> bool:
        return b in self.borough(a).neighbours

    def is_bridge(self, a: str, b: str) -> bool:
        return b in self.borough(a).bridges

    @property
    def starting(self) -> tuple[str, ...]:
        return tuple(b.id for b in self.boroughs if b.start)

    def edges(self) -> tuple[tuple[str, str, bool], ...]:
        """Each neighbour pair once, as ``(a, b, bridge)`` with ``a`` before ``b`` in board order."""
        order = {b.id: b.index for b in self.boroughs}
        return tuple((b.id, n, n in b.bridges) for b in self.boroughs for n in b.neighbours
                     if order[b.id] < order[n])


# ------------------------------------------------------------------ reading

def _keys(obj: Any, where: str, required: set[str], optional: set[str] = frozenset()) -> dict:
    if not isinstance(obj, dict):
        raise ValueError(f"{where}: expected an object, got {obj!r}")
    missing = sorted(required - obj.keys())
    unknown = sorted(obj.keys() - required - optional)
    if missing:
        raise ValueError(f"{where}: missing {', '.join(missing)}")
    if unknown:
        raise ValueError(f"{where}: unknown field {', '.join(unknown)}")
    return obj


def _named(obj: Any, where: str) -> str:
    """``where`` with the record's id, when it has one, so that every message names the record."""
    return f"{where} {obj['id']!r}" if isinstance(obj, dict) and "id" in obj else where


def _text(value: Any, where: str, optional: bool = False) -> str | None:
    if optional and value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{where}: expected a non-empty string, got {value!r}")
    return value


def _id(value: Any, where: str) -> str:
    if not isinstance(value, str) or not _ID.match(value):
        raise ValueError(f"{where}: expected an id in lower_snake_case, got {value!r}")
    return value


def _power(obj: Any, where: str, slot: str) -> Power:
    if not isinstance(obj, dict) or "code" not in obj:
        raise ValueError(f"{where}: expected an object with a code, got {obj!r}")
    code = obj["code"]
    spec = POWER_CODES.get(code) if isinstance(code, str) else None
    if spec is None:
        raise ValueError(f"{where}.code: unknown power code {code!r} (see POWER_CODES)")
    if spec.slot != slot:
        raise ValueError(f"{where}.code: {code} is a {spec.slot} power, not a {slot} power")
    _keys(obj, where, {"code", *spec.params})
    params = tuple((name, kind.check(obj[name], f"{where}.{name}")) for name, kind in spec.params.items())
    if code == "draw_count_choice" and obj["min"] > obj["max"]:
        raise ValueError(f"{where}: min {obj['min']} is more than max {obj['max']}")
    return Power(code, params)


def _powers(value: Any, where: str, slot: str) -> tuple[Power, ...]:
    if not isinstance(value, list) or not value:
        raise ValueError(f"{where}: expected a non-empty list of powers (leave the field out for none)")
    powers = tuple(_power(p, f"{where}[{i}]", slot) for i, p in enumerate(value))
    codes = [p.code for p in powers]
    dup = next((c for c in codes if codes.count(c) > 1), None)
    if dup is not None:
        raise ValueError(f"{where}: {dup} appears twice")
    return powers


def _activation(obj: Any, where: str) -> Activation:
    _keys(obj, where, {"effects", "flip"}, {"cost"})
    cost = ActivationCost()
    if "cost" in obj:
        c = obj["cost"]
        kind = _Choice("expend", "money").check(c.get("kind") if isinstance(c, dict) else None,
                                                f"{where}.cost.kind")
        if kind == "expend":
            _keys(c, f"{where}.cost", {"kind", "colour"})
            cost = ActivationCost("expend", colour=_Choice("any", *PLACEABLE_COLOURS).check(
                c["colour"], f"{where}.cost.colour"))
        else:
            _keys(c, f"{where}.cost", {"kind", "amount"})
            cost = ActivationCost("money", amount=_Int(1, 20).check(c["amount"], f"{where}.cost.amount"))
    effects = _powers(obj["effects"], f"{where}.effects", "activation")
    return Activation(cost, effects, _Bool().check(obj["flip"], f"{where}.flip"))


def _card(index: int, obj: Any, where: str) -> Card:
    where = _named(obj, where)
    _keys(obj, where, {"id", "name", "deck", "colour", "count", "cost", "vp", "base", "text"},
          {"play", "permanent", "activation", "hand", "notes"})
    card = Card(
        index=index,
        id=_id(obj["id"], f"{where}.id"),
        name=_text(obj["name"], f"{where}.name"),
        deck=_Choice(*DECKS).check(obj["deck"], f"{where}.deck"),
        colour=_Choice(*COLOURS).check(obj["colour"], f"{where}.colour"),
        count=_Int(1, 10).check(obj["count"], f"{where}.count"),
        cost=_Int(0, 20).check(obj["cost"], f"{where}.cost"),
        vp=_Int(0, 10).check(obj["vp"], f"{where}.vp"),
        base=_Bool().check(obj["base"], f"{where}.base"),
        text=_text(obj["text"], f"{where}.text"),
        play=_powers(obj["play"], f"{where}.play", "play") if "play" in obj else (),
        permanent=_powers(obj["permanent"], f"{where}.permanent", "permanent") if "permanent" in obj else (),
        activation=_activation(obj["activation"], f"{where}.activation") if "activation" in obj else None,
        hand=_powers(obj["hand"], f"{where}.hand", "hand") if "hand" in obj else (),
        notes=_text(obj.get("notes"), f"{where}.notes", optional=True),
    )
    if card.colour == "grey" and card.base:
        raise ValueError(f"{where}: a grey card (Paupers) has no stone base")
    if card.base and card.hand:
        raise ValueError(f"{where}: a card with a hand power is a hand-only card, it has no stone base")
    if not card.base and (card.play or card.permanent or card.activation or card.cost or card.vp):
        raise ValueError(f"{where}: a card without a stone base is never placed, so it has no play, "
                         f"permanent or activation power, cost or VP")
    return card


def load_cards(path: str | pathlib.Path = CARDS_FILE) -> tuple[Card, ...]:
    """Reads and checks a cards file (:func:`cards` reads the project's, once)."""
    path = pathlib.Path(path)
    data = _keys(read_json(path), str(path), {"cards"}, {"comment"})
    records = data["cards"]
    if not isinstance(records, list) or not records:
        raise ValueError(f"{path}: cards: expected a non-empty list")
    result = tuple(_card(i, r, f"{path}: cards[{i}]") for i, r in enumerate(records))
    seen: dict[Any, Card] = {}
    for c in result:
        for key in (c.id, (c.name, c.deck, c.colour)):
            if key in seen:
                raise ValueError(f"{path}: cards[{c.index}] {c.id!r}: repeats cards[{seen[key].index}] "
                                 f"{seen[key].id!r} (one record per card version, with a count)")
            seen[key] = c
    for what, key, wanted in (("deck", lambda c: c.deck, DECKS), ("colour", lambda c: c.colour, COLOURS)):
        got = Counter()
        for c in result:
            got[key(c)] += c.count
        for name, n in wanted.items():
            if got[name] != n:
                ids = ", ".join(f"{c.id} x{c.count}" for c in result if key(c) == name)
                raise ValueError(f"{path}: {what} {name} has {got[name]} cards, the game has {n} ({ids})")
    return result


def _borough(index: int, obj: Any, where: str) -> Borough:
    where = _named(obj, where)
    _keys(obj, where, {"id", "name", "cost", "cards", "vp", "bank", "thames", "start", "neighbours"}, {"notes"})
    neighbours = obj["neighbours"]
    if not isinstance(neighbours, dict) or not neighbours:
        raise ValueError(f"{where}.neighbours: expected an object {{borough id: \"land\" | \"bridge\"}}")
    kinds = {_id(n, f"{where}.neighbours"): _Choice("land", "bridge").check(k, f"{where}.neighbours.{n}")
             for n, k in neighbours.items()}
    return Borough(
        index=index,
        id=_id(obj["id"], f"{where}.id"),
        name=_text(obj["name"], f"{where}.name"),
        cost=_Int(1, 20).check(obj["cost"], f"{where}.cost"),
        cards=_Int(0, 10).check(obj["cards"], f"{where}.cards"),
        vp=_Int(0, 10).check(obj["vp"], f"{where}.vp"),
        bank=_Choice(*BANKS).check(obj["bank"], f"{where}.bank"),
        thames=_Bool().check(obj["thames"], f"{where}.thames"),
        start=_Bool().check(obj["start"], f"{where}.start"),
        neighbours=tuple(kinds),
        bridges=tuple(n for n, k in kinds.items() if k == "bridge"),
        notes=_text(obj.get("notes"), f"{where}.notes", optional=True),
    )


def load_board(path: str | pathlib.Path = BOARD_FILE) -> Board:
    """Reads and checks a board file (:func:`board` reads the project's, once)."""
    path = pathlib.Path(path)
    data = _keys(read_json(path), str(path), {"boroughs", "building_counters_per_player", "underground"},
                 {"comment"})
    records = data["boroughs"]
    if not isinstance(records, list) or len(records) != NUM_BOROUGHS:
        raise ValueError(f"{path}: boroughs: expected the board's {NUM_BOROUGHS} boroughs, got "
                         f"{len(records) if isinstance(records, list) else records!r}")
    boroughs = tuple(_borough(i, r, f"{path}: boroughs[{i}]") for i, r in enumerate(records))
    by_id: dict[str, Borough] = {}
    for b in boroughs:
        if b.id in by_id:
            raise ValueError(f"{path}: boroughs[{b.index}] {b.id!r}: repeats boroughs[{by_id[b.id].index}]")
        by_id[b.id] = b
    for b in boroughs:
        where = f"{path}: boroughs[{b.index}] {b.id!r}"
        for n in b.neighbours:
            other = by_id.get(n)
            if other is None:
                raise ValueError(f"{where}.neighbours: no borough {n!r}")
            if other is b:
                raise ValueError(f"{where}.neighbours: a borough is not its own neighbour")
            if b.id not in other.neighbours:
                raise ValueError(f"{where}.neighbours: {n!r} is listed here but {n!r} does not list "
                                 f"{b.id!r} (adjacency must be symmetric)")
            bridge = n in b.bridges
            if bridge != (b.id in other.bridges):
                raise ValueError(f"{where}.neighbours.{n}: a bridge on one side only ({n!r} says "
                                 f"{'bridge' if not bridge else 'land'})")
            if bridge and (b.bank == other.bank or not (b.thames and other.thames)):
                raise ValueError(f"{where}.neighbours.{n}: a bridge must cross the Thames between two "
                                 f"river boroughs on opposite banks ({b.bank} and {other.bank})")
            if not bridge and b.bank != other.bank:
                raise ValueError(f"{where}.neighbours.{n}: boroughs on opposite banks ({b.bank}, "
                                 f"{other.bank}) are neighbours only at a bridge")
    reached, todo = {boroughs[0].id}, [boroughs[0].id]
    while todo:
        for n in by_id[todo.pop()].neighbours:
            if n not in reached:
                reached.add(n)
                todo.append(n)
    if len(reached) != len(boroughs):
        cut_off = ", ".join(b.id for b in boroughs if b.id not in reached)
        raise ValueError(f"{path}: boroughs: the map is not connected ({cut_off} cannot be reached "
                         f"from {boroughs[0].id})")
    starting = {b.id for b in boroughs if b.start}
    if starting != STARTING_BOROUGHS:
        raise ValueError(f"{path}: boroughs: start must be true exactly for "
                         f"{', '.join(sorted(STARTING_BOROUGHS))} (Buy Land), got {', '.join(sorted(starting)) or 'none'}")
    u = _keys(data["underground"], f"{path}: underground",
              {"counters", "first_in_or_next_to", "river_crossing_cost", "vp_per_counter"}, {"notes"})
    underground = Underground(
        counters=_Int(1, 2 * NUM_BOROUGHS).check(u["counters"], f"{path}: underground.counters"),
        first_in_or_next_to=_Choice(*by_id).check(u["first_in_or_next_to"],
                                                  f"{path}: underground.first_in_or_next_to"),
        river_crossing_cost=_Int(0, 20).check(u["river_crossing_cost"],
                                              f"{path}: underground.river_crossing_cost"),
        vp_per_counter=_Int(0, 10).check(u["vp_per_counter"], f"{path}: underground.vp_per_counter"),
        notes=_text(u.get("notes"), f"{path}: underground.notes", optional=True),
    )
    counters = _Int(1, NUM_BOROUGHS).check(data["building_counters_per_player"],
                                            f"{path}: building_counters_per_player")
    return Board(boroughs, counters, underground)


def load_poverty(path: str | pathlib.Path = POVERTY_FILE) -> tuple[tuple[int, ...], int]:
    """Reads and checks a poverty file: ``(table, beyond)``."""
    path = pathlib.Path(path)
    data = _keys(read_json(path), str(path), {"table", "beyond"}, {"comment", "notes"})
    table = data["table"]
    if not isinstance(table, list) or len(table) < 2:
        raise ValueError(f"{path}: table: expected a list of at least 2 VP losses, got {table!r}")
    for p, loss in enumerate(table):
        _Int(0, 100).check(loss, f"{path}: table[{p}]")
        if p == 0 and loss != 0:
            raise ValueError(f"{path}: table[0]: no poverty left loses no VP, got {loss}")
        if p and loss < table[p - 1]:
            raise ValueError(f"{path}: table[{p}]: {loss} VP is less than table[{p - 1}] ({table[p - 1]}); "
                             f"more poverty never costs less")
    beyond = _Int(1, 20).check(data["beyond"], f"{path}: beyond")
    return tuple(table), beyond


# ------------------------------------------------------------------ the project's data, read once

@lru_cache(maxsize=None)
def cards() -> tuple[Card, ...]:
    """The game's card versions, in file order (``Card.index``)."""
    return load_cards()


@lru_cache(maxsize=None)
def _cards_by_id() -> Mapping[str, Card]:
    return MappingProxyType({c.id: c for c in cards()})


def card(card_id: str) -> Card:
    """The card version with this id."""
    try:
        return _cards_by_id()[card_id]
    except KeyError:
        raise KeyError(f"no card {card_id!r}") from None


@lru_cache(maxsize=None)
def board() -> Board:
    """The game's board."""
    return load_board()


@lru_cache(maxsize=None)
def _poverty() -> tuple[tuple[int, ...], int]:
    return load_poverty()


def poverty_penalty(points_over_lowest: int) -> int:
    """VP lost at the end of the game with this many poverty points above the lowest player's."""
    if type(points_over_lowest) is not int or points_over_lowest < 0:
        raise ValueError(f"points_over_lowest: expected an integer >= 0, got {points_over_lowest!r}")
    table, beyond = _poverty()
    if points_over_lowest < len(table):
        return table[points_over_lowest]
    return table[-1] + beyond * (points_over_lowest - len(table) + 1)
