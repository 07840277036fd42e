"""Bots: random, each game's rule-based heuristic, search bots and bot levels.

Every bot answers ``choose(state, seat, seed) -> action`` for a seat with a
decision pending.  Bots are handed the real state; each one looks only at
what its seat may know: the heuristic reads public facts and simulates with a
determinized copy, and ISMCTS determinizes every iteration.
"""
from __future__ import annotations

import random
import textwrap
import uuid
from dataclasses import dataclass, field

from fagin.search import levels
from fagin.search.ismcts import ISMCTS, ROLLOUTS, SearchSettings
from fagin.search.limits import MAX_THREADS, default_rollout, per_tree
from fagin.search.playouts import has_rollout_policy, rollout_policy_answers
from fagin.search.root_parallel import root_parallel_search


@dataclass
class RandomBot:
    """Uniformly random legal actions."""

    name: str = "random"

    def choose(self, state, seat, seed):
        return random.Random(seed).choice(state.legal_actions(seat))


@dataclass
class ISMCTSBot:
    """Plays what a search recommends after ``iterations`` iterations or ``time_ms``
    milliseconds, spread over ``threads`` threads (root parallelism) when more than one.

    ``algorithm`` is "ismcts", "ismcts_rm", "oos" or "auto" (the game's choice for the
    player count, ``GameSpec.auto``); ``rollout`` is the playout setting ("policy" or
    "random"; None: the game's default, ``GameSpec.rollout``); ``temperature`` 0 plays the
    best move, above 0 draws from the policy raised to 1/temperature (1: the policy itself,
    as ``sample`` does; None: the algorithm's own way, sampled for ``auto``'s sampled
    choices).

    ``reuse`` (spec ``:reuse=1``; one thread, UCB selection): the bot keeps each seat's
    search tree from one decision to the next, and a decision whose information set the
    tree already holds starts from what the tree knows there (``ISMCTS.reroot``) and adds
    its budget to it.  ``decided`` (spec ``:decided=1``; an iteration budget, the best move
    played): a search stops once the rest of its budget could not change the most visited
    move (``ISMCTS.run(decided=True)``), so easy decisions cost less.  Both are
    game-playing economies, for a bot that plays a whole game: they change what a move
    costs and what it is worth, not the rules of the search (docs/search.md, "Tree reuse")."""

    iterations: int | None = 2000
    exploration: float | None = None      # None: the game's tuned value (GameSpec.tuned_settings)
    threads: int = 1
    time_ms: int | None = None
    rollout: str | None = None
    name: str = "ismcts"
    algorithm: str = "ismcts"
    temperature: float | None = None
    #: Search settings beyond the budget (``prior``, ...): passed to the search as given; a
    #: bot spec sets them with ``:NAME=VALUE`` parts (see :func:`make_bot`).
    tuning: dict | None = None
    reuse: bool = False
    decided: bool = False
    #: reuse: each seat's kept search, and the visits the last decision found at its root.
    _kept: dict = field(default_factory=dict, init=False, repr=False, compare=False)
    head_start: int = field(default=-1, init=False, repr=False, compare=False)

    def __post_init__(self):
        if not (self.reuse or self.decided):
            return
        if self.threads != 1:
            raise ValueError("reuse/decided: one thread (root parallelism keeps no single tree)")
        if self.algorithm in ("ismcts_rm", "oos"):
            raise ValueError(f"reuse/decided: UCB selection (ismcts or auto), not {self.algorithm}")
        final = (self.tuning or {}).get("final", "visits")
        if final != "visits":
            raise ValueError(f"reuse/decided: the final-move rule 'visits', not final={final} (whose "
                             f"statistics only a root gathers)")

    def choose(self, state, seat, seed):
        spec = state.game.spec
        algorithm, sampled = levels.resolve(spec, state.num_players, self.algorithm)
        selection = levels.SELECTION[algorithm]
        rollout = self.rollout or default_rollout(spec, state.num_players, per_tree(self.iterations, self.threads),
                                                  selection)
        temperature = self.temperature if self.temperature is not None else (1.0 if sampled else 0.0)
        settings = dict(exploration=self.exploration, rollout=rollout, selection=selection, **(self.tuning or {}))
        if (self.reuse or self.decided) and selection == "ucb":
            search = self._search_of(state, seat, seed, settings)
            reason = search.run(iterations=self.iterations, time_ms=self.time_ms,
                                decided=self.decided and temperature == 0)
            result = search.result(reason)
        else:
            result = root_parallel_search(state, seat, iterations=self.iterations, time_ms=self.time_ms, seed=seed,
                                          threads=self.threads, **settings)
        return levels.choose(result.stats, temperature, random.Random(seed), result.action)

    def _search_of(self, state, seat, seed, settings):
        """The search for this decision: the seat's kept one moved to ``state`` where it reaches
        it (``reuse``), else a new one (kept for the next decision where ``reuse``)."""
        self.head_start = -1
        key = (state.game.spec.id, state.num_players, seat)
        kept = self._kept.get(key) if self.reuse else None
        if kept is not None:
            self.head_start = kept.reroot(state, seed)
            if self.head_start >= 0:
                return kept
        search = ISMCTS(state, seat, SearchSettings(budget=self.iterations, **settings), seed)
        if self.reuse and search.final == "visits":     # (a game may tune another rule for auto)
            # One game at a time: searches of another game or player count are dropped.
            self._kept = {k: s for k, s in self._kept.items() if k[:2] == key[:2] and k != key} | {key: search}
        return search


@dataclass
class LevelBot:
    """Plays as ``SearchSettings.level`` does (see :mod:`fagin.search.levels`)."""

    level: int
    name: str = "level"

    def choose(self, state, seat, seed):
        lv = levels.level(state.game.spec, self.level)
        return ISMCTSBot(iterations=lv.iterations, algorithm=lv.algorithm,
                         temperature=lv.temperature or None).choose(state, seat, seed)


@dataclass
class PolicyBot:
    """Plays as the game's rollout policy does (``GameDef.rollout_action``, the search's
    playout policy, uniform share included): a yardstick for what the search adds to it."""

    name: str = "policy"

    def choose(self, state, seat, seed):
        state = state.with_seat_to_act(seat) if state.current_player() != seat else state
        if not has_rollout_policy(state):
            raise ValueError(f"bot policy: {state.game.spec.id} has no rollout policy")
        (action, _), = rollout_policy_answers(state, 1, seed).items()
        return action


class HeuristicBot:
    """The rule-based bot of whatever game the state is (declared by the game's
    ``GameSpec.heuristic``, kept in its room: ``engines/<game>/heuristic.py``)."""

    name = "heuristic"

    def __init__(self):
        self._bots = {}

    def choose(self, state, seat, seed):
        spec = state.game.spec
        bot = self._bots.get(spec.id)
        if bot is None:
            bot = self._bots[spec.id] = spec.make_heuristic()
        return bot.choose(state, seat, seed)


class RemoteBot:
    """Plays what another fagin server recommends, through the public API: each decision
    sends ``Recommend`` the deciding seat's view (``state.view(seat)``, so the remote sees
    exactly what the seat may know) with the settings of ``inner``, a local bot spec
    (``level:N`` or a search bot such as ``ismcts@100ms``).  So a build can play an earlier
    build served from a ``git worktree``: ``remote:127.0.0.1:50052:level:10``.

    ``determinized=True`` (spec ``remote-determinized:HOST:PORT:SPEC``) sends a whole state
    instead: the position with everything the seat cannot see drawn afresh from what it can
    (``state.determinize(seat, seed)``).  That is for an earlier build that cannot read
    today's views (a view's format may change between builds; whole states stay readable).
    The hidden part it gets is a sample of the seat's beliefs, never the real hidden cards:
    as fair as a view where both builds hide the same things.  Where the earlier build shows
    what today's rules hide (Oliver Twist's stashes before OT-30), it takes the sample for
    the truth, a handicap to it (docs/search.md)."""

    def __init__(self, host, port, inner, timeout=600.0, determinized=False):
        self.host, self.port, self.inner = host, port, inner
        self.determinized = determinized
        self.name = f"{'remote-determinized' if determinized else 'remote'}:{host}:{port}:{inner}"
        self.timeout = timeout
        self.settings = remote_settings(inner)
        # reuse=1: the remote server keeps this bot's trees between its calls, under a session
        # of this bot's own (the arena makes a bot for every game, so a session is one game).
        self.session = f"bot-{uuid.uuid4().hex}" if getattr(make_bot(inner), "reuse", False) else ""
        self._client = None

    def __getstate__(self):          # the channel stays in the process that opened it
        return {k: v for k, v in self.__dict__.items() if k != "_client"} | {"_client": None}

    def choose(self, state, seat, seed):
        from fagin.server.codec import encode_description
        if self._client is None:
            from fagin.clients import FaginClient
            self._client = FaginClient(f"{self.host}:{self.port}", timeout=self.timeout)
        if self.determinized:
            # A seed of its own for the draw, so that it is not the search's seed.
            sent = state.determinize(seat, (seed * 0x9E3779B97F4A7C15 + 1) & 0xFFFFFFFFFFFFFFFF).describe()
        else:
            sent = state.view(seat)
        rec = self._client.recommend(encode_description(state.game, sent), seat, session=self.session,
                                     seed=seed & 0x7FFFFFFFFFFFFFFF, **self.settings)
        action = rec.action.id
        if action not in state.legal_actions(seat):
            raise RuntimeError(f"{self.name}: recommended action {action}, not legal here")
        return action


def remote_settings(inner: str) -> dict:
    """The ``Recommend`` settings that play as the local bot spec ``inner`` does (a level or a
    search bot); ValueError for any other spec."""
    bot = make_bot(inner)
    if isinstance(bot, LevelBot):
        return {"level": bot.level}
    if not isinstance(bot, ISMCTSBot):
        raise ValueError(f"bot spec 'remote:HOST:PORT:{inner}': a remote bot is a level or a search "
                         f"bot, e.g. remote:127.0.0.1:50052:level:10 or remote:127.0.0.1:50052:ismcts@100ms")
    if bot.tuning:
        raise ValueError(f"bot spec 'remote:HOST:PORT:{inner}': the API takes no "
                         f"{', '.join(_SETTING_OF[k] + '=' for k in bot.tuning)} setting; a served search "
                         f"runs with the game's tuned settings (c=, reuse=1 and decided=1 are carried)")
    settings = {"algorithm": bot.algorithm, "threads": bot.threads, "rollout": bot.rollout or ""}
    if bot.exploration is not None:
        settings["exploration"] = bot.exploration
    if bot.decided:
        settings["stop_when_decided"] = True
    if bot.time_ms is not None:
        settings["time_ms"] = bot.time_ms
    else:
        settings["iterations"] = bot.iterations
    if bot.temperature is not None:
        settings["temperature"] = bot.temperature
    return settings


def _remote_bot(spec: str, kind: str, arg: str):
    host, sep, rest = arg.partition(":")
    port, sep2, inner = rest.partition(":")
    if not (host and sep and sep2 and inner and port.isdigit() and 0 < int(port) < 65536):
        raise ValueError(f"bot spec {spec!r}: {kind}:HOST:PORT:SPEC, e.g. {kind}:127.0.0.1:50052:level:10")
    if inner.startswith(("remote:", "remote-determinized:")):
        raise ValueError(f"bot spec {spec!r}: a remote bot plays a local spec of the remote server")
    return RemoteBot(host, int(port), inner, determinized=kind == "remote-determinized")


#: Settings a bot spec may set with ``:NAME=VALUE``: name -> (keyword, type).  ``reuse`` and
#: ``decided`` are the bot's own (:class:`ISMCTSBot`); the others are passed to the search.
TUNABLE = {"c": ("exploration", float), "prior": ("prior", float), "oprior": ("opponent_prior", float),
           "cut": ("cutoff", int),
           "final": ("final", str), "eval": ("evaluation", str), "opp": ("opponents", str), "turns": ("turns", int),
           "mscale": ("margin_scale", float), "widen": ("widen", float),
           "reuse": ("reuse", int), "decided": ("decided", int)}
_SETTING_OF = {keyword: name for name, (keyword, _) in TUNABLE.items()}

#: A search bot's iterations a move when its spec names no budget (``ismcts``).
DEFAULT_BOT_ITERATIONS = 2000

#: Every kind of bot spec ``make_bot`` takes, with what it plays: the one source of the specs'
#: help (``make_bot``'s docstring, ``fagin arena --help`` and the other commands' ``--help``,
#: through :func:`spec_help`); tests/search/test_bot_spec_help.py checks that every kind
#: ``make_bot`` parses is here and in each command's help.
SPEC_KINDS = (
    ("random", "a uniformly random legal move"),
    ("heuristic", "the game's rule-based player"),
    ("policy", "the game's rollout policy (its heuristic with a uniform share)"),
    ("level:N", f"a bot level, {levels.MIN_LEVEL} (weakest) to {levels.MAX_LEVEL} (strongest): the "
                f"game's calibrated ladder of budgets, algorithms and temperatures"),
    ("ALGORITHM", f"a search bot of {DEFAULT_BOT_ITERATIONS:,} iterations a move; ALGORITHM is "
                  f"{', '.join(levels.ALGORITHMS)} or auto (the game's choice)"),
    ("ALGORITHM:ITERATIONS", "that many iterations a move"),
    ("ALGORITHM:ITERATIONSxTHREADS", "the iterations spread over that many threads"),
    ("ALGORITHM@MSms", "MS milliseconds of search a move (equal wall time whatever an iteration costs)"),
    ("ALGORITHM@MSmsxTHREADS", "the milliseconds on that many threads"),
    ("...:policy, ...:random", "a search bot's rollouts (without either: the game's default)"),
    ("...:sample", "a search bot plays a move drawn from its policy (as a mixed strategy should be played)"),
    ("...:NAME=VALUE", "a search bot's setting (the settings below); several may follow one another"),
    ("remote:HOST:PORT:SPEC", "the fagin server at HOST:PORT plays as SPEC (a level or a search bot) "
                              "would, sent the seat's view"),
    ("remote-determinized:HOST:PORT:SPEC", "as remote:, but sent a whole state sampled from the seat's "
                                           "view (for an earlier server that cannot read views)"),
)

#: What each ``:NAME=VALUE`` setting of a search bot does (the keys of TUNABLE).
SETTING_HELP = {
    "c": "the exploration constant of UCB selection",
    "prior": "the weight of the rollout policy's pick in the tree (progressive bias)",
    "oprior": "that weight where another seat decides",
    "cut": "policy rollouts stop after this many actions and the evaluation scores them",
    "final": "the final-move rule (visits, value or lcb)",
    "eval": "what scores a cut-off playout (the game's evaluations)",
    "opp": "how the other seats are modelled (own, observer or policy)",
    "turns": "policy rollouts also stop where this many turns out of the tree end",
    "mscale": "the score units of one unit of the margin evaluation's logistic",
    "widen": "progressive widening in the policy's order (> 0)",
    "reuse": "reuse=1 keeps each seat's tree between its decisions",
    "decided": "decided=1 stops a search once the rest of its budget cannot change the move",
}

EXAMPLE_SPECS = ("ismcts:5000", "ismcts:236:reuse=1:decided=1", "ismcts@50ms", "ismcts:2000:random",
                 "ismcts_rm@50msx2:policy:sample", "level:5", "remote:127.0.0.1:50051:level:7")


def spec_help(width=100) -> str:
    """The bot specs' help, for a command's ``--help`` (with argparse's
    RawDescriptionHelpFormatter) and make_bot's docstring: every kind, every setting, examples."""
    form = max(len(f) for f, _ in SPEC_KINDS)

    def entry(name, what):
        return textwrap.fill(what, width, initial_indent=f"  {name:<{form}}  ",
                             subsequent_indent=" " * (form + 4))

    lines = ["bot specs:"]
    lines += [entry(f, what) for f, what in SPEC_KINDS]
    lines.append("search bot settings (...:NAME=VALUE):")
    lines += [entry(f"{name}=VALUE", SETTING_HELP[name]) for name in TUNABLE]
    lines.append(textwrap.fill("examples: " + "  ".join(EXAMPLE_SPECS), width, subsequent_indent="  ",
                               break_on_hyphens=False))
    return "\n".join(lines)


_BOT_SPECS = ", ".join(form for form, _ in SPEC_KINDS) + " (fagin arena --help explains them)"


def make_bot(spec: str):
    # The docstring is spec_help(), set below: the specs' one description.
    name, _, arg = spec.partition(":")
    if name == "random" and not arg:
        return RandomBot()
    if name == "heuristic" and not arg:
        return HeuristicBot()
    if name == "policy" and not arg:
        return PolicyBot()
    if name in ("remote", "remote-determinized"):
        return _remote_bot(spec, name, arg)
    if name == "level":
        if not arg.isdigit() or not levels.MIN_LEVEL <= int(arg) <= levels.MAX_LEVEL:
            raise ValueError(f"bot spec {spec!r}: a level from {levels.MIN_LEVEL} to {levels.MAX_LEVEL}, "
                             f"e.g. level:5")
        return LevelBot(int(arg), name=spec)
    base, at, timed = name.partition("@")
    if base not in levels.ALGORITHMS + ("auto",):
        raise ValueError(f"unknown bot spec {spec!r}; use {_BOT_SPECS}")
    parts = arg.split(":") if arg else []
    tuning = {}
    for part in [q for q in parts if "=" in q]:
        parts.remove(part)
        key, _, value = part.partition("=")
        if key not in TUNABLE:
            raise ValueError(f"bot spec {spec!r}: unknown setting {key!r}; settings: {', '.join(TUNABLE)}")
        try:
            tuning[TUNABLE[key][0]] = TUNABLE[key][1](value)
        except ValueError:
            raise ValueError(f"bot spec {spec!r}: {key}={value!r} is not a valid value") from None
    sample = bool(parts) and parts[-1] == "sample"
    if sample:
        parts.pop()
    rollout = None
    if parts and parts[-1] in ROLLOUTS:
        rollout = parts.pop()
    if at:
        if parts:
            raise ValueError(f"bot spec {spec!r}: a timed bot takes no iteration count; use {_BOT_SPECS}")
        budget, _, thr = timed.partition("x")
        if not budget.endswith("ms"):
            raise ValueError(f"bot spec {spec!r}: the time budget is in ms, e.g. {base}@50ms")
        budget = budget[:-2]
    else:
        if len(parts) > 1:
            raise ValueError(f"unknown bot spec {spec!r}; use {_BOT_SPECS}")
        budget, _, thr = (parts[0] if parts else str(DEFAULT_BOT_ITERATIONS)).partition("x")
    try:
        amount, threads = int(budget), int(thr or 1)
    except ValueError:
        raise ValueError(f"bot spec {spec!r}: the budget and threads must be whole numbers") from None
    if amount <= 0 or not 1 <= threads <= MAX_THREADS:
        raise ValueError(f"bot spec {spec!r}: the budget must be positive, threads from 1 to "
                         f"{MAX_THREADS}")
    label = (f"{base}@{amount}ms" if at else f"{base}:{amount}") + (f"x{threads}" if threads > 1 else "")
    if rollout is not None:
        label += f":{rollout}"
    if sample:
        label += ":sample"
    for key, value in tuning.items():
        label += f":{_SETTING_OF[key]}={value:g}" if isinstance(value, float) else f":{_SETTING_OF[key]}={value}"
    exploration = tuning.pop("exploration", None)
    reuse = bool(tuning.pop("reuse", 0))
    decided = bool(tuning.pop("decided", 0))
    common = dict(reuse=reuse, decided=decided, threads=threads, rollout=rollout, name=label, algorithm=base,
                  temperature=1.0 if sample else None, exploration=exploration, tuning=tuning or None)
    try:
        if at:
            return ISMCTSBot(iterations=None, time_ms=amount, **common)
        return ISMCTSBot(iterations=amount, **common)
    except ValueError as e:
        raise ValueError(f"bot spec {spec!r}: {e}") from None


make_bot.__doc__ = "A bot from a spec (see SPEC_KINDS).\n\n" + spec_help()
