"""What a game is to the rest of fagin: its description and its engine's interface.

A game lives in one folder, ``engines/<game_id>/`` (its room):

* ``engine.pyx`` — the nogil rules over a POD state, exported as a
  ``GameDef`` table in ``GAME_DEF`` (see ``engines/abi.pxd``), plus the
  Python-side functions listed in :class:`Engine`;
* ``__init__.py`` — ``GAME = GameSpec(...)``: name, player range, options,
  spec file, heuristic bot;
* optionally ``heuristic.py`` (its rule-based bot) and ``data/`` (component
  data the engine loads and checks).

The registry finds every such folder; the build compiles every
``engines/*/engine.pyx``; the server, the bots and the command line read
the :class:`GameSpec`. Nothing outside the room names the game, except the
two typed ``oneof``s of ``proto/fagin/v1/fagin.proto`` (guarded by the
catalogue test).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol


# ------------------------------------------------------------------ options

def parse_bool(value, name: str) -> bool:
    """An option's boolean: ``True``/``False`` or the strings true/false, yes/no, 1/0."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "1", "yes", "false", "0", "no"):
        return value.strip().lower() in ("true", "1", "yes")
    raise ValueError(f"options.{name}: expected true or false, got {value!r}")


def int_parser(lo: int, hi: int) -> Callable[[Any, str], int]:
    """A parser of whole numbers from ``lo`` to ``hi`` (given as ints or decimal strings)."""
    def parse(value, name):
        if isinstance(value, str):
            # Plain ASCII digits only: int() would also take "+7", "1_0" and other scripts' digits.
            text = value.strip()
            digits = text[1:] if text.startswith("-") else text
            try:
                if not (digits.isascii() and digits.isdigit()):
                    raise ValueError
                value = int(text)
            except ValueError:
                raise ValueError(f"options.{name}: expected a whole number from {lo} to {hi}, "
                                 f"got {value!r}") from None
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise ValueError(f"options.{name}: expected a whole number from {lo} to {hi}, got {value!r}")
        return value
    parse.accepts = f"a whole number from {lo} to {hi}"
    return parse


def choice_parser(*choices: str) -> Callable[[Any, str], str]:
    """A parser accepting one of ``choices`` (case-insensitive)."""
    def parse(value, name):
        if isinstance(value, str) and value.strip().lower() in choices:
            return value.strip().lower()
        raise ValueError(f"options.{name}: expected one of {', '.join(choices)}, got {value!r}")
    parse.accepts = "one of " + ", ".join(choices)
    return parse


parse_bool.accepts = "true or false"


@dataclass(frozen=True)
class GameOption:
    """A game option: its name, default, a one-line description and a parser.

    ``parse(value, name)`` turns a value given by a client (often a string,
    as in ``NewGameRequest.options``) into the engine's value, or raises
    ``ValueError`` starting with ``options.<name>:``.
    """

    name: str
    default: Any
    description: str
    parse: Callable[[Any, str], Any] = parse_bool

    @property
    def accepts(self) -> str:
        """What values the option takes, in words."""
        return getattr(self.parse, "accepts", "see the description")


# ------------------------------------------------------------- description

@dataclass(frozen=True)
class GameSpec:
    """Static facts about a game, declared once in its room's ``__init__.py``.

    ``spec`` is the rules specification (``seeds/<id>.md``; for reference
    games, the name of the OpenSpiel game they copy). ``heuristic`` names the
    class of the game's rule-based bot in its room's ``heuristic.py``
    (imported only when a bot is made: :meth:`make_heuristic`).
    ``reference`` names the OpenSpiel game a reference game replays exactly.
    """

    id: str
    name: str
    min_players: int
    max_players: int
    spec: str
    #: The field numbers of the game's entries in ``fagin.proto``'s two oneofs,
    #: (``GameState.game``, ``Action.typed``): part of the wire format, so fixed once and
    #: never reused; a new game takes numbers no game holds (the catalogue test checks the
    #: proto against every room).
    proto_fields: tuple = ()
    options: tuple[GameOption, ...] = field(default_factory=tuple)
    heuristic: str | None = None
    reference: str | None = None
    description: str = ""
    #: The longest list (repeated field) a state or typed action of this game can
    #: ever hold, e.g. its number of cards: the server refuses a longer one before
    #: reading it, so that a hostile megabyte list costs nothing.
    max_list: int = 256
    #: Its decoder (``from_description``) only reads the dict it is given: the server's
    #: codec may then give equal small sub-messages (a deck's cards) as one shared dict,
    #: which the decoder reads once (Gangs of Kyoto's 116 cards: a fifth of a request's cost).
    reads_description_only: bool = False
    #: The search's rollout when a request or bot names none ("random" or "policy", see
    #: SearchSettings.rollout), chosen per game by arena evidence recorded in its spec.
    rollout: str = "random"
    #: What the algorithm "auto" (the default) runs, by player count: entries (players,
    #: algorithm, sample_action), players None for every count not listed; chosen by arena
    #: evidence recorded in the game's spec (see fagin.search.levels).  Empty: plain ISMCTS.
    auto: tuple = ()
    #: The game's ten bot levels, (iterations, temperature) each, when its own calibration
    #: needs other budgets than the default ladder's (fagin.search.levels); empty: the default.
    levels: tuple = ()

    def make_heuristic(self):
        """A new rule-based bot for this game (``choose(state, seat, seed) -> action``)."""
        if self.heuristic is None:
            raise ValueError(f"no heuristic bot for {self.id}")
        module = importlib.import_module(f"fagin.engines.{self.id}.heuristic")
        return getattr(module, self.heuristic)()

    def option(self, name: str) -> GameOption:
        for o in self.options:
            if o.name == name:
                return o
        known = ", ".join(o.name for o in self.options)
        raise ValueError(f"options: unknown option {name!r} for {self.id}"
                         + (f"; known: {known}" if known else " (it has none)"))

    def parse_options(self, given: dict | None = None) -> dict:
        """Every option's value: the given ones parsed, the others at their defaults."""
        given = dict(given or {})
        for name in given:
            self.option(name)
        return {o.name: (o.parse(given[o.name], o.name) if o.name in given else o.default)
                for o in self.options}

    def check_players(self, players) -> int:
        if isinstance(players, bool) or not isinstance(players, int) or \
                not self.min_players <= players <= self.max_players:
            span = (f"{self.min_players}" if self.min_players == self.max_players
                    else f"{self.min_players} to {self.max_players}")
            raise ValueError(f"players: {self.name} takes {span} players, got {players!r}")
        return players


class EngineHeuristicBot:
    """A heuristic bot written in its engine, without the GIL (``engine.heuristic_action``, the
    player that is also the search's rollout policy): a room's ``heuristic.py`` names its
    engine and says how it plays."""

    engine = None            # the room's engine module, set by the subclass
    name = "heuristic"

    def choose(self, state, seat, seed):
        if state.current_player() != seat:
            state = state.with_seat_to_act(seat)
        action = self.engine.heuristic_action(state.to_bytes(), seed)
        if action < 0:
            raise ValueError(f"seat: seat {seat} has no decision pending")
        return action


# --------------------------------------------------------- engine interface

class Engine(Protocol):
    """The Python side of a game's engine module (``engines/<id>/engine.pyx``).

    None of it is on the search path. ``data`` is always a state's POD bytes
    as produced by the engine itself (never client bytes: those come in as a
    description and go through :meth:`from_description`). Plain dicts mirror
    the game's ``.proto`` messages field by field (see ``server/codec.py``).
    """

    #: PyCapsule carrying the ``GameDef`` (the nogil rules).
    GAME_DEF: object

    def initial_state_bytes(self, players: int, **options) -> bytes:
        """The state before the first chance event; options already parsed."""

    def describe(self, data: bytes) -> dict:
        """The whole state as a dict shaped like ``<Game>State`` (hidden parts included)."""

    def view(self, data: bytes, seat: int) -> dict:
        """The state as ``seat`` knows it: a valid description with everything it cannot see removed."""

    def from_description(self, d: dict) -> bytes:
        """Validates a description (complete or a view) and builds the state.

        Raises ``ValueError`` whose message starts with the offending field's
        path (``seats[1].hand: ...``); never fixes anything silently.
        """

    def render(self, data: bytes, seat: int | None = None) -> str:
        """A few lines of text showing the table (as ``seat`` sees it, if given)."""

    def summary(self, data: bytes) -> str:
        """One line for ``repr``."""

    def action_label(self, action: int, chance: bool = False, options: dict | None = None) -> str:
        """A short label for people (``"play 3"``) of a decision's action id, or with
        ``chance`` of a chance outcome's id (the two may share ids, as in
        OpenSpiel's games); ValueError for an unknown id. ``options``: the state's
        options (``options_of``) for a game whose ids mean different things under
        different options; None for the defaults."""

    def typed_action(self, action: int, chance: bool = False, options: dict | None = None) -> dict:
        """The typed form (``<Game>Action`` as a dict) of an action id (``chance``,
        ``options``: as above)."""

    def action_from_typed(self, d: dict, chance: bool = False, options: dict | None = None) -> int:
        """The action id of a typed form, which must be a chance outcome's with ``chance``
        and a decision's without; ValueError naming the field if it fits no such action."""

    # Optional, with ``GameDef.hidden_counts``: ``belief_layout(data, seat) -> (places,
    # items)``, naming the cells the hook counts for ``seat``: ``places`` a list of
    # ``(name, owner seat or None)`` (``GameDef.belief_places`` of them), ``items`` a list of
    # names (``GameDef.belief_items``; None for an unused index). The names depend only on
    # what ``seat`` knows (fagin.search.analysis reports them as beliefs).
    #
    # Optional: ``options_of(data) -> dict``, the options a state was made with, for
    # games whose action ids depend on them (Liar's Dice). Absent: no options matter.
    #
    # Optional, for games where identical cards are one action (London, LN-93), so that
    # people and frontends see and say which card moves:
    # ``action_label_at(data, action) -> str`` and ``typed_action_at(data, action) -> dict``,
    # a decision's label and typed form in that state, naming the card it moves there; and
    # ``apply_typed_at(data, action, typed) -> bytes``, the state after the legal decision
    # ``action`` of the typed form ``typed``, moving the card the form names (ValueError
    # naming the field if that card is not where the action takes it from).
