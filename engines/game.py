"""What a game is to the rest of fagin: its description and its engine's interface.

A game lives in one folder, ``engines/<game_id>/`` (its room):

* ``engine.pyx`` — the nogil rules over a POD state, exported as a
  ``GameDef`` table in ``GAME_DEF`` (see ``engines/abi.pxd``);
* ``state.pxi`` (included by the engine) or ``state.py`` — the Python-side
  functions listed in :class:`Engine`;
* ``__init__.py`` — ``GAME = GameSpec(...)``: name, player range, options,
  spec file, heuristic bot;
* ``actions.py`` — the action ids in words and typed form (``action_label``,
  ``typed_action``, ``action_from_typed``);
* ``events.py`` — ``events(move, seat)``: what a seat is told of a transition
  (:class:`Move`, :func:`event`), and ``VIEW_CHANGES``, how every change in a seat's
  view is found in those events (:func:`untold_changes`);
* ``heuristic.py`` — its rule-based bot;
* ``scores.py`` (optional) — ``final_scores(state)``: a finished game's scores by category
  and why the winners won, read from the engine's own scoring
  (:mod:`fagin.engines.final_scores`; without it, the returns stand as the scores);
* ``rollout.pxi`` (a seed game) — its nogil rule-based player, the search's
  rollout policy;
* ``data/`` if it has components (data the engine loads and checks, read
  through ``engines/room_data.py``); London adds ``components.py``.

The registry finds every such folder; the build compiles every
``engines/*/engine.pyx`` and writes the game's lines in the three typed
``oneof``s of ``proto/fagin/v1/fagin.proto`` from :attr:`GameSpec.proto_fields`;
the server, the bots and the command line read the :class:`GameSpec`. Beside
the room, a game has its messages in ``proto/fagin/v1/<game_id>.proto``, its
rules in ``seeds/`` and its tests (CONTRIBUTING.md lists every file).
"""
from __future__ import annotations

import importlib
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple, Protocol

from fagin.engines.validation import bool_error


# ------------------------------------------------------------------ options

def parse_bool(value, name: str) -> bool:
    """An option's boolean: ``True``/``False`` or the strings true/false, yes/no, 1/0."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "1", "yes", "false", "0", "no"):
        return value.strip().lower() in ("true", "1", "yes")
    raise ValueError(bool_error(f"options.{name}", value))


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

class Level(NamedTuple):
    """One bot level (fagin.search.levels): iterations a move, the temperature of the move
    choice (0: the best move) and the algorithm ("auto": the game's choice)."""

    iterations: int
    temperature: float = 0.0
    algorithm: str = "auto"


class AutoAlgorithm(NamedTuple):
    """What the algorithm "auto" runs for ``players`` seats (None: every count not listed)."""

    players: int | None
    algorithm: str
    sample_action: bool


class TunedSettings(NamedTuple):
    """The search's settings for ``players`` seats (None: every count not listed), by the
    names of :data:`fagin.search.limits.TUNED_SETTINGS`."""

    players: int | None
    settings: dict


class BudgetSettings(NamedTuple):
    """Settings that a UCB search of at least ``least_iterations`` iterations a tree takes over
    the tuned ones, for ``players`` seats (None: every count)."""

    least_iterations: int
    players: int | None
    settings: dict


#: Each table of records a GameSpec holds, and the record its entries are.
_RECORDS = {"auto": AutoAlgorithm, "levels": Level, "tuned_settings": TunedSettings,
            "budget_settings": BudgetSettings}


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
    #: The field numbers of the game's entries in ``fagin.proto``'s three oneofs,
    #: (``GameState.game``, ``Action.typed``, ``Event.typed``), the one place they are typed:
    #: the build writes those entries from them (``proto/generate.py``, which reads the
    #: room's ``__init__.py`` as text, so they are written there as a literal).  Part of the
    #: wire format, so fixed once and never reused; a new game takes numbers no game holds.
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
    #: which the decoder reads once (a deck of cards decoded apart is a large part of a
    #: request's cost: docs/architecture.md, "Client positions are untrusted").
    reads_description_only: bool = False
    #: The search's rollout when a request or bot names none ("random" or "policy", see
    #: SearchSettings.rollout), chosen per game by arena evidence recorded in its spec.
    rollout: str = "random"
    #: What the algorithm "auto" (the default) runs, by player count (:class:`AutoAlgorithm`);
    #: chosen by arena evidence recorded in the game's spec (see fagin.search.levels).  Empty:
    #: plain ISMCTS.
    auto: tuple[AutoAlgorithm, ...] = ()
    #: The game's ten bot levels (:class:`Level`), when its own calibration needs other budgets
    #: than the default ladder's (fagin.search.levels); empty: the default.
    levels: tuple[Level, ...] = ()
    #: The search's tuned settings for a request or bot that sets none, by player count
    #: (:class:`TunedSettings`, with ISMCTS's keywords: ``exploration``, ``prior``, ``cutoff``,
    #: ``final``, ...; see :func:`fagin.search.limits.tuned`); found by ``python -m
    #: fagin.search.tune`` and confirmed by a separate match, both recorded in the game's spec.
    #: Empty: the defaults.
    tuned_settings: tuple[TunedSettings, ...] = ()
    #: Settings for large budgets, where a search's best settings differ from a small one's
    #: (:class:`BudgetSettings`).  A UCB search budgeted at least ``least_iterations``
    #: iterations a tree (a root-parallel search's share per thread) takes them over
    #: ``tuned_settings``, ``rollout`` among them; a search on time alone does not (its
    #: iterations are not known in advance), nor regret matching or outcome sampling (not
    #: measured).  Chosen by the strength curve (bench/strength.py), recorded in the game's
    #: spec.  Empty: ``tuned_settings`` at every budget.
    budget_settings: tuple[BudgetSettings, ...] = ()

    def __post_init__(self):
        # A positional tuple would be read by position: a misplaced number changes a bot silently.
        for name, record in _RECORDS.items():
            for entry in getattr(self, name):
                if not isinstance(entry, record):
                    raise TypeError(f"{self.id}: GameSpec.{name} holds {entry!r}, not a {record.__name__}")

    def make_heuristic(self):
        """A new rule-based bot for this game (``choose(state, seat, seed) -> action``)."""
        if self.heuristic is None:
            raise ValueError(f"no heuristic bot for {self.id}")
        module = importlib.import_module(f"fagin.engines.{self.id}.heuristic")
        return getattr(module, self.heuristic)()

    def final_scores(self, state):
        """A finished game's final scores, their parts and why the winners won
        (:class:`fagin.engines.final_scores.FinalScores`): as the room's ``scores.py`` explains
        them from its engine's scoring, or, for a room without one, its returns as scores
        (:func:`~fagin.engines.final_scores.generic_final_scores`). ValueError before the end."""
        from fagin.engines import final_scores as fs
        if not state.is_terminal():
            raise ValueError("final scores are defined only for a finished game")
        try:
            module = importlib.import_module(f"fagin.engines.{self.id}.scores")
        except ModuleNotFoundError as e:
            if e.name != f"fagin.engines.{self.id}.scores":
                raise
            return fs.generic_final_scores(state)
        return module.final_scores(state)

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


def decisions(state, chance):
    """Each seat to decide as ``state`` is played to its end, in order, chance outcomes drawn
    from ``chance`` (a ``random.Random``) in between: the caller applies that seat's action to
    ``state`` before asking for the next seat."""
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply(state.sample_chance(chance.getrandbits(63)))
        else:
            yield state.current_player()


def random_moves(state, rng):
    """Each move of a game played on from ``state`` at random by ``rng`` (a ``random.Random``),
    any seat with a decision pending moving next: (the position, the position with the moving
    seat to act, the action, the next position).  ``state`` itself is not changed."""
    while not state.is_terminal():
        if state.is_chance_node():
            mover, action = state, state.sample_chance(rng.getrandbits(63))
        else:
            mover = state.with_seat_to_act(rng.choice(state.pending_seats()))
            action = rng.choice(mover.legal_actions())
        after = mover.child(action)
        yield state, mover, action, after
        state = after


# ------------------------------------------------------------------ events

class Move:
    """One transition, as a room's event writer reads it: the state ``before``, the
    ``action`` applied there (a chance outcome when ``chance``), the state ``after``, and
    ``actor``, the seat that decided (None at a chance event).

    The writer describes it to one seat, and must use only what that seat may know: its
    views (:meth:`view_before`, :meth:`view_after`), the action's label and typed form
    where the seat may know the action, and public figures of the engine (a final score
    shown to all). The contract suite plays random games and checks that positions the
    seat cannot tell apart give it equal events.
    """

    __slots__ = ("before", "action", "after", "actor", "chance", "_views", "_memo")

    def __init__(self, before, action, after):
        player = before.current_player()
        self.before, self.action, self.after = before, action, after
        self.chance = player < 0
        self.actor = None if self.chance else player
        self._views = {}
        self._memo = {}

    def memo(self, key, compute):
        """``compute()``, once per ``key`` for this move (what several rules read alike)."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    def view_before(self, seat):
        """``before`` as ``seat`` sees it (a description dict; cached)."""
        return self._view(0, seat)

    def view_after(self, seat):
        """``after`` as ``seat`` sees it (a description dict; cached)."""
        return self._view(1, seat)

    def _view(self, which, seat):
        key = (which, seat)
        if key not in self._views:
            self._views[key] = (self.after if which else self.before).view(seat)
        return self._views[key]

    @property
    def label(self):
        """The action's label where it was taken (``before``)."""
        return self.before.action_label(self.action)

    @property
    def typed(self):
        """The action's typed form where it was taken."""
        return self.before.typed_action(self.action)


def event(label, kind, seat=None, summary=False, summed_up=False, **typed):
    """An event as the API carries it (``fagin.v1.Event``, a dict): ``label``, what happened
    in English as a person says it; ``seat``, the seat that acted (None for a chance event
    or a summary); ``summary``, whether it sums up a round's or the game's end (or its
    set-up); ``summed_up``, whether a later summary event sums it up (one draw of the opening
    deal, one token of the board's fill), so that a log may show that summary in its place;
    ``typed``, the game's ``<Game>Event`` message as a dict, whose ``kind`` is ``kind``."""
    out = {"label": label, "seat": seat, "summary": bool(summary),
           "typed": {"kind": kind, **{k: v for k, v in typed.items() if v is not None}}}
    if summed_up:
        out["summed_up"] = True
    return out


def seat_name(seat, observer):
    """"you" for the observer's own seat, else "seat N"."""
    return "you" if seat == observer else f"seat {seat}"


def verb(seat, observer, you, other):
    """The verb after :func:`seat_name`: ``you`` for the observer, ``other`` for the rest."""
    return you if seat == observer else other


def action_event(move, observer, verbs, kind="action"):
    """A decision told with a verb: ``verbs`` maps the action's label to its two forms
    (``{"bet": ("bet", "bets")}``): "you bet", "seat 1 bets"."""
    a = move.actor
    return event(f"{seat_name(a, observer)} {verb(a, observer, *verbs[move.label])}", kind,
                 seat=a, action=move.typed)


def dealt_event(to, observer, card, shown, kind="deal", **typed):
    """A card dealt to seat ``to``: "you are dealt the King" (``shown``: how the observer
    may name it) or "seat 1 is dealt a card"; ``card`` in the typed form only if shown."""
    label = f"{seat_name(to, observer)} {verb(to, observer, 'are', 'is')} dealt {shown or 'a card'}"
    return event(label, kind, to=to, card=card if shown else None, **typed)


def seat_changes(before_seats, after_seats, observer, bits_of):
    """What changed for each seat, as "seat 1: money £2 → £6, takes 1 loan": ``bits_of(seat,
    before, after)`` lists a seat's changes (its entries of the views' ``seats``)."""
    parts = []
    for p, (b, a) in enumerate(zip(before_seats, after_seats)):
        bits = bits_of(p, b, a)
        if bits:
            parts.append(f"{seat_name(p, observer)}: " + ", ".join(bits))
    return parts


def seats_text(seats, observer):
    """"you", "seat 2", "you and seat 2", "seats 0, 1 and 3" (the observer first, as "you")."""
    seats = list(seats)
    others = [str(s) for s in seats if s != observer]
    parts = ["you"] if observer in seats else []
    if others:
        joined = others[0] if len(others) == 1 else ", ".join(others[:-1]) + " and " + others[-1]
        parts.append(("seat " if len(others) == 1 else "seats ") + joined)
    return " and ".join(parts) or "nobody"


def _amount(r, unit):
    """"2 chips", "1 chip"."""
    return f"{abs(r):g} {unit[:-1] if abs(r) == 1 and unit.endswith('s') else unit}"


def result_event(state, observer, unit=None):
    """The game's end as every seat sees it (returns are public once a game is over):
    with ``unit`` (chips, points), each seat's return in it; otherwise the winners (the
    seats with a positive return)."""
    returns = state.returns()
    if unit:
        def told(s, r):
            if r == 0:
                return f"{seat_name(s, observer)} {verb(s, observer, 'break', 'breaks')} even"
            won = verb(s, observer, "win", "wins") if r > 0 else verb(s, observer, "lose", "loses")
            return f"{seat_name(s, observer)} {won} {_amount(r, unit)}"
        label = "game over: " + ", ".join(told(s, r) for s, r in enumerate(returns))
    else:
        winners = [s for s, r in enumerate(returns) if r > 0]
        plural = observer in winners or len(winners) > 1
        label = "game over: " + (f"{seats_text(winners, observer)} {'win' if plural else 'wins'}"
                                 if winners else "nobody wins")
    return event(label, "result", summary=True, returns=list(returns))


# ------------------------------------------------------- complete events
#
# Every change a seat can see in its view is told by the move's events. A room declares how
# in its ``events.py``: ``VIEW_CHANGES``, a dict from a view path (keys and list indices
# joined by dots, ``*`` for any one segment: ``seats.*.hand``) to a rule, the most specific
# path that covers a change deciding. A rule is :func:`bookkeeping` (a field no event need
# tell, with the reason) or a callable ``rule(change, move, seat, events) -> bool``, True
# when ``events`` tell ``change``; :func:`named` makes the common one. A changed path that
# no entry covers is untold, so that a new view field cannot go untold silently
# (tests/contract/test_events.py checks every room over random play).


class ViewChange:
    """One difference between two views: at ``path`` (a tuple of keys and list indices),
    the ``before`` and ``after`` values; for a list, the items ``added`` and ``removed`` (as
    multisets, a dict item frozen to a tuple of its sorted items), else both empty."""

    __slots__ = ("path", "before", "after", "added", "removed")

    def __init__(self, path, before, after, added=(), removed=()):
        self.path, self.before, self.after = path, before, after
        self.added, self.removed = list(added), list(removed)

    @property
    def is_list(self):
        return isinstance(self.before, list) or isinstance(self.after, list)

    def seat(self):
        """The first list index in the path (a seat's, under ``seats``), or None."""
        return next((k for k in self.path if isinstance(k, int)), None)

    def __repr__(self):
        where = ".".join(map(str, self.path)) or "(the view)"
        if self.is_list:
            return f"{where}: added {self.added}, removed {self.removed}"
        return f"{where}: {self.before!r} → {self.after!r}"


def _frozen(value):
    if isinstance(value, dict):
        return tuple(sorted((k, _frozen(v)) for k, v in value.items()))
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value


def view_changes(before, after, path=()):
    """What differs between two views: dicts key by key; lists of equal length whose items
    are dicts or lists position by position; other lists (cards in a hand, a row that grows) as
    the multisets of items added and removed; anything else by value."""
    if before == after:
        return []
    if isinstance(before, dict) and isinstance(after, dict):
        return [c for k in sorted(before.keys() | after.keys(), key=str)
                for c in view_changes(before.get(k), after.get(k), path + (k,))]
    if isinstance(before, list) and isinstance(after, list):
        nested = any(isinstance(v, (dict, list)) for v in before + after)
        if nested and len(before) == len(after):
            return [c for i, (b, a) in enumerate(zip(before, after))
                    for c in view_changes(b, a, path + (i,))]
        b, a = Counter(map(_frozen, before)), Counter(map(_frozen, after))
        added, removed = list((a - b).elements()), list((b - a).elements())
        if not added and not removed:
            # The same items reordered: told as a change of the whole list.
            return [ViewChange(path, before, after)]
        return [ViewChange(path, before, after, added, removed)]
    return [ViewChange(path, before, after)]


class bookkeeping:
    """A view field no event need tell, and why (whose turn it is, a counter, a total
    derived from told changes)."""

    def __init__(self, reason):
        if not reason.strip():
            raise ValueError("bookkeeping: give the reason")
        self.reason = reason

    def __call__(self, change, move, seat, events):
        return True

    def __repr__(self):
        return f"bookkeeping({self.reason!r})"


def event_values(events, field, kinds=None):
    """Every value an event's typed form carries under the key ``field``, at any depth (a
    list's items one by one, a dict frozen as in :class:`ViewChange`), as a Counter; with
    ``kinds``, only from events of those kinds."""
    out = Counter()

    def walk(d):
        for k, v in d.items():
            if isinstance(v, dict):
                walk(v)
            elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
                for x in v:
                    walk(x)
            if k == field:
                for x in (v if isinstance(v, list) else [v]):
                    out[_frozen(x)] += 1

    for e in events:
        typed = e.get("typed") or {}
        if kinds is None or typed.get("kind") in kinds:
            walk(typed)
    return out


def named(*fields, kinds=None, hidden=(), delta=True, item=None, cleared_by=()):
    """A rule: the change is told when the events carry what changed under one of ``fields``
    (of events of ``kinds`` if given). A list's items added and removed must all be carried
    (as many times as they changed), but for items in ``hidden`` (how the view shows what the
    seat cannot see, told without naming it); ``item(x)`` maps a list item to what an event
    carries (a card counted from 0 to one counted from 1). A value is told by its new value
    or, numeric with ``delta``, its change; a value cleared (to None) by an event of
    ``cleared_by`` (the reveal that ends an hour)."""
    def rule(change, move, seat, events):
        if change.after is None and cleared_by:
            return any((e.get("typed") or {}).get("kind") in cleared_by for e in events)
        carried = sum((event_values(events, f, kinds) for f in fields), start=Counter())
        if change.added or change.removed:
            want = Counter(_frozen(item(x) if item else x) for x in change.added + change.removed
                           if x not in hidden)
            return not (want - carried)
        if change.is_list:
            return _frozen(change.after) in carried
        if _frozen(change.after) in carried:
            return True
        return delta and isinstance(change.after, (int, float)) and isinstance(change.before, (int, float)) \
            and not isinstance(change.after, bool) and change.after - change.before in carried
    return rule


def told_by(*kinds):
    """A rule: the change is told by an event of one of ``kinds``, whose typed form says it
    whole (the game's result: its ``returns`` name every winner)."""
    def rule(change, move, seat, events):
        return any((e.get("typed") or {}).get("kind") in kinds for e in events)
    return rule


def change_entries(before, after, skip=(), named_values=()):
    """The changes between two views as typed event entries (a room's ``<Game>Change``
    message as dicts), for a room that tells changes place by place: ``place``, the path's
    last key; ``seat`` and ``space``, the indices under ``seats`` and ``board``; ``added`` and
    ``removed``, a list's items (or a named thing's new and old name); ``by``, a number's
    change, but for places in ``named_values`` (a position, as the Gang pawn's space), told by
    their new and old values. Paths covered by a pattern of ``skip`` (bookkeeping) are left out."""
    out = []
    for c in view_changes(before, after):
        if any(_matches(p, c.path) for p in skip):
            continue
        entry = {"place": next(str(k) for k in reversed(c.path) if not isinstance(k, int))}
        for owner, key in (("seats", "seat"), ("board", "space")):
            if len(c.path) > 1 and c.path[0] == owner and isinstance(c.path[1], int):
                entry[key] = c.path[1]
        if c.is_list and not (c.added or c.removed):
            # Reordered: the list as it was and as it is.
            entry["added"], entry["removed"] = [str(x) for x in c.after], [str(x) for x in c.before]
        elif c.is_list:
            entry["added"], entry["removed"] = [str(x) for x in c.added], [str(x) for x in c.removed]
        elif isinstance(c.after, (bool, int)) and isinstance(c.before, (bool, int)) and entry["place"] not in named_values:
            entry["by"] = int(c.after) - int(c.before)
        else:
            entry["added"] = [str(c.after)] if c.after not in (None, "") else []
            entry["removed"] = [str(c.before)] if c.before not in (None, "") else []
        out.append(entry)
    return out


def in_change_entries(named_values=()):
    """A rule for a room that carries :func:`change_entries` in its events' ``changes``: the
    change's entry is among them."""
    return lambda change, move, seat, events: _in_change_entries(change, move, seat, events, named_values)


def _in_change_entries(change, move, seat, events, named_values):
    def by_path():
        b, a = move.view_before(seat), move.view_after(seat)
        out = {}
        for w, c in zip(change_entries(b, a, named_values=named_values), view_changes(b, a)):
            out.setdefault(c.path, []).append(w)
        return out
    mine = move.memo(("change_entries", seat, named_values), by_path).get(change.path, [])
    carried = [c for e in events for c in (e.get("typed") or {}).get("changes", ())]
    return all(w in carried for w in mine)


def _matches(pattern, path):
    """How specifically ``pattern`` covers ``path`` (it matches a prefix of the path; more
    segments, then fewer wildcards, is more specific), or None."""
    parts = pattern.split(".") if pattern else []
    if len(parts) > len(path):
        return None
    for p, k in zip(parts, path):
        if p != "*" and p != str(k):
            return None
    return (len(parts), -parts.count("*"))


def untold_changes(move, seat, events, rules):
    """The changes in ``seat``'s view across ``move`` that ``events`` do not tell by the
    room's ``rules`` (its ``VIEW_CHANGES``): a list of (change, why)."""
    out = []
    for change in view_changes(move.view_before(seat), move.view_after(seat)):
        best = None
        for pattern, rule in rules.items():
            m = _matches(pattern, change.path)
            if m is not None and (best is None or m > best[0]):
                best = (m, pattern, rule)
        if best is None:
            out.append((change, "no entry of VIEW_CHANGES covers this path"))
        elif not best[2](change, move, seat, events):
            out.append((change, f"not told as {best[1]!r} requires"))
    return out


def transition_events(before, action, after, seat, move=None):
    """The events of the transition ``before`` --``action``--> ``after`` as ``seat`` saw them:
    the room's ``events`` module (``engines/<id>/events.py``) writes them; checked here to
    have a label each. ``move``: that transition's :class:`Move`, to share its views among
    seats."""
    module = importlib.import_module(f"fagin.engines.{before.game.id}.events")
    out = module.events(move or Move(before, action, after), seat)
    for e in out:
        if not (isinstance(e.get("label"), str) and e["label"].strip()):
            raise TypeError(f"{before.game.id}: an event without a label: {e!r}")
    return out


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

    def from_description(self, d: dict, game) -> bytes:
        """Validates a description (complete or a view) and builds the state.

        Raises ``ValueError`` whose message starts with the offending field's
        path (``seats[1].hand: ...``); never fixes anything silently.  ``game``
        is the :class:`fagin.engines.core.Game` asking: an engine that builds a
        position by replaying its moves through the rules starts from
        ``game.new_initial_state`` (the options checked by the room's GameSpec),
        so that no engine imports the registry or its room.
        """

    def render(self, data: bytes, seat: int | None = None) -> str:
        """A few lines of text showing the table (as ``seat`` sees it, if given)."""

    def summary(self, data: bytes) -> str:
        """One line for ``repr``."""

    # Optional, with ``GameDef.hidden_counts``: ``belief_layout(data, seat) -> (places,
    # items)``, naming the cells the hook counts for ``seat``: ``places`` a list of
    # ``(name, owner seat or None)`` (``GameDef.belief_places`` of them), ``items`` a list of
    # names (``GameDef.belief_items``; None for an unused index). The names depend only on
    # what ``seat`` knows (fagin.search.analysis reports them as beliefs).
    #
    # Optional: ``options_of(data) -> dict``, the options a state was made with, for
    # games whose action ids depend on them (Liar's Dice). Absent: no options matter.


class Actions(Protocol):
    """A room's action ids in words and in typed form: its ``actions.py``, plain Python reading
    the engine's constants (the engine does not import it; :class:`fagin.engines.core.Game`
    does)."""

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

    # Optional, for games where identical cards are one action (London, LN-93), so that
    # people and frontends see and say which card moves:
    # ``action_label_at(data, action) -> str`` and ``typed_action_at(data, action) -> dict``,
    # a decision's label and typed form in that state, naming the card it moves there; and
    # ``apply_typed_at(data, action, typed) -> bytes``, the state after the legal decision
    # ``action`` of the typed form ``typed``, moving the card the form names (ValueError
    # naming the field if that card is not where the action takes it from).

