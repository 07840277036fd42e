"""fagin's games as OpenSpiel games: ``pyspiel.load_game("fagin_<id>(players=3)")``.

:func:`register_games` registers every game of :data:`fagin.engines.GAMES` with
OpenSpiel as a Python game named ``fagin_<game id>`` (so ``fagin_kids_of_london``
beside OpenSpiel's own ``kuhn_poker``). Its parameters are ``players`` (the
game's player range; the least by default) and the game's own options
(``GameSpec.options``, same names and defaults). The engine does the work: the
OpenSpiel state holds a :class:`fagin.engines.State` and forwards to it, so
OpenSpiel's Python algorithms (CFR, exploitability, MCTS, ...) and its C++
checks (``pyspiel.random_sim_test``) run on the very rules the server searches.

How the games map onto OpenSpiel:

* **Dynamics: sequential, with simultaneous moves sequentialised.** A fagin
  engine already plays a simultaneous phase (Kids of London's secret choices,
  Goofspiel's bids) as a sequence of decisions whose choices stay hidden from
  the other seats until the reveal: a seat's information state does not
  change when another seat commits, so a seat deciding later in the sequence
  knows exactly what it would know deciding at the same time. That is the
  same game as OpenSpiel's SIMULTANEOUS form (OpenSpiel's own
  ``turn_based_simultaneous_game`` transform makes the same sequence), and it
  keeps every OpenSpiel algorithm for sequential imperfect-information games
  (CFR, MCCFR, ISMCTS-style bots, exploitability) usable, including in games
  that mix simultaneous and ordinary turns.
* **Chance** is explicit: chance nodes with their exact outcomes and
  probabilities (``GameDef.chance_outcomes``).
* **Information.** ``information_state_string(p)`` is seat ``p``'s 64-bit
  information-set key (the one fagin's searches key their nodes by; equal for
  two states iff ``p`` cannot tell them apart) followed by ``p``'s view of the
  table; ``observation_string(p)`` is that view alone, as canonical JSON
  (``State.view(p)``: the state as the seat knows it, everything it cannot
  see removed). Neither reveals anything the seat may not know. No tensors:
  the views have no fixed-size numeric form common to all games.
* **Utilities.** A reference game (``GameSpec.reference``, a copy of an
  OpenSpiel game) takes its utility bounds and sum from that OpenSpiel game
  with the same options; the other games are win/lose: each seat's return is
  1 if it wins, else 0 (general-sum, as several seats may win).

OpenSpiel is imported only by this module, so the server does not need it
(``pip install open-spiel``, or ``fagin[test]``).
"""
from __future__ import annotations

import json
import pickle

try:
    import pyspiel
except ImportError as error:  # pragma: no cover - depends on the environment
    raise ImportError("fagin.clients.openspiel_games needs OpenSpiel: pip install open-spiel") from error

from fagin.engines import CHANCE, GAMES, TERMINAL, load_game

__all__ = ["PREFIX", "FaginGame", "FaginState", "load", "register_games", "short_name", "view_json"]

#: OpenSpiel names fagin's games ``PREFIX + game id`` (OpenSpiel has its own ``kuhn_poker``).
PREFIX = "fagin_"

_PLAYER = {CHANCE: pyspiel.PlayerId.CHANCE, TERMINAL: pyspiel.PlayerId.TERMINAL}


def short_name(game_id: str) -> str:
    """The OpenSpiel name of fagin's game ``game_id``."""
    return PREFIX + game_id


def view_json(state, seat: int) -> str:
    """``state.view(seat)`` (a fagin :class:`~fagin.engines.State`) as canonical JSON:
    keys sorted, no spaces, ASCII only, so equal views give equal strings."""
    return json.dumps(state.view(seat), sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def _parameters(spec) -> dict:
    return {"players": spec.min_players, **{o.name: o.default for o in spec.options}}


def _reference_game(spec, options: dict, players: int | None = None):
    """The OpenSpiel game a reference game copies, with the same options (and players)."""
    params = dict(options)
    takes_players = "players" in pyspiel.load_game(spec.reference).get_type().parameter_specification
    if players is not None and takes_players:
        params["players"] = players
    return pyspiel.load_game(spec.reference, params)


def _game_type(spec) -> "pyspiel.GameType":
    utility = pyspiel.GameType.Utility.GENERAL_SUM
    if spec.reference is not None:
        utility = _reference_game(spec, spec.parse_options()).get_type().utility
    return pyspiel.GameType(
        short_name=short_name(spec.id),
        long_name=f"fagin {spec.name}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=spec.max_players,
        min_num_players=spec.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=False,
        parameter_specification=_parameters(spec),
    )


def register_games() -> list[str]:
    """Registers with OpenSpiel every game fagin serves that is not registered yet
    (importing this module does it) and returns their OpenSpiel names."""
    known = set(pyspiel.registered_names())
    names = []
    for game_id, spec in GAMES.items():
        name = short_name(game_id)
        if name not in known:
            # One subclass a game, registered as its factory: a class stays alive until the
            # interpreter is gone (types reference themselves), whereas a closure's last
            # reference, held by OpenSpiel's C++ registry, would be dropped after
            # finalisation and abort the process at exit.
            factory = type(f"FaginGame_{game_id}", (FaginGame,), {"game_id": game_id,
                                                                   "__module__": __name__})
            pyspiel.register_game(_game_type(spec), factory)
        names.append(name)
    return names


def load(game_id: str, players: int | None = None, **options) -> "FaginGame":
    """``pyspiel.load_game`` of fagin's game ``game_id`` (registering the games first);
    ``players`` defaults to the game's least."""
    register_games()
    params = dict(options)
    if players is not None:
        params["players"] = players
    return pyspiel.load_game(short_name(game_id), params)


class FaginGame(pyspiel.Game):
    """One of fagin's games, for OpenSpiel: a player count and the game's options.

    :func:`register_games` makes one subclass a game, which sets ``game_id``."""

    game_id: str

    def __init__(self, params: dict | None = None):
        spec = GAMES[self.game_id]
        params = {**_parameters(spec), **(params or {})}
        players = spec.check_players(params.pop("players"))
        self.fagin_options = spec.parse_options(params)
        self.fagin_game = load_game(self.game_id)
        if spec.reference is not None:
            reference = _reference_game(spec, self.fagin_options, players)
            low, high = reference.min_utility(), reference.max_utility()
            total = reference.utility_sum() if reference.get_type().utility in (
                pyspiel.GameType.Utility.ZERO_SUM, pyspiel.GameType.Utility.CONSTANT_SUM) else None
        else:
            low, high, total = 0.0, 1.0, None
        info = pyspiel.GameInfo(
            num_distinct_actions=self.fagin_game.num_distinct_actions,
            # Chance outcome ids share the action id range (as in OpenSpiel's games).
            max_chance_outcomes=self.fagin_game.num_distinct_actions,
            num_players=players,
            min_utility=low,
            max_utility=high,
            utility_sum=total,
            # The engine's bound counts chance events too, so it bounds the decisions.
            max_game_length=self.fagin_game.max_game_length,
        )
        super().__init__(_game_type(spec), info, {"players": players, **self.fagin_options})

    def new_initial_state(self, *args) -> "FaginState":
        """The state before the first chance event."""
        if args:
            raise ValueError(f"{self}: a fagin game's initial state takes no argument")
        return FaginState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> "_Observer":
        """The observer behind ``information_state_string`` (perfect recall) and
        ``observation_string`` (the seat's current view); strings only."""
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        if not isinstance(iig_obs_type, pyspiel.IIGObservationType):
            # OpenSpiel's default observer is asked for without a type (and maybe params in its place).
            if iig_obs_type:
                raise ValueError(f"observation parameters are not supported; got {iig_obs_type}")
            iig_obs_type = pyspiel.IIGObservationType(perfect_recall=False)
        if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not iig_obs_type.public_info:
            raise ValueError("fagin's games observe for one seat (public and that seat's private "
                             f"information) only; got {iig_obs_type}")
        return _Observer(perfect_recall=iig_obs_type.perfect_recall)


class _Held:
    """The engine state inside an OpenSpiel state, the actions that made it, and the
    texts already made of it.

    OpenSpiel clones a Python state by deep-copying its ``__dict__`` and
    serialises it by pickling that dict; an engine state is a raw buffer that
    neither copies nor pickles itself. A clone is one ``memcpy``; a pickle is
    the game, the options and the actions, replayed (and so checked) by the
    engine when read back (a state drawn by ``resample_from_infostate`` has no
    such actions: ``actions`` is None, and it does not pickle). The texts (the
    table, each seat's view) are kept until the next action: OpenSpiel asks for
    them repeatedly (its checks, and algorithms keying tables by information
    state), and a big game's view costs far more than an action.
    """

    __slots__ = ("state", "actions", "options", "texts")

    def __init__(self, state, actions, options, texts=None):
        self.state = state
        self.actions = actions
        self.options = options
        self.texts = {} if texts is None else texts

    @classmethod
    def initial(cls, game_id, players, options, actions=()):
        held = cls(load_game(game_id).new_initial_state(players, **options), [], options)
        for action in actions:
            held.apply(action)
        return held

    def apply(self, action: int):
        self.state.apply(action)
        if self.actions is not None:
            self.actions.append(action)
        self.texts.clear()

    def view(self, seat: int) -> str:
        """The seat's view as canonical JSON (:func:`view_json`)."""
        text = self.texts.get(seat)
        if text is None:
            text = self.texts[seat] = view_json(self.state, seat)
        return text

    def render(self) -> str:
        text = self.texts.get("table")
        if text is None:
            text = self.texts["table"] = self.state.render()
        return text

    def __deepcopy__(self, memo):
        actions = None if self.actions is None else list(self.actions)
        return _Held(self.state.clone(), actions, self.options, dict(self.texts))

    def __reduce__(self):
        if self.actions is None:
            raise pickle.PicklingError("a state drawn by resample_from_infostate has no actions "
                                       "leading to it, so it cannot be serialised")
        return _Held.initial, (self.state.game.id, self.state.num_players, self.options, self.actions)


class FaginState(pyspiel.State):
    """A position of one of fagin's games, for OpenSpiel; ``fagin_state`` is the engine's."""

    def __init__(self, game: FaginGame):
        super().__init__(game)
        self._held = _Held.initial(game.fagin_game.id, game.num_players(), game.fagin_options)

    @property
    def fagin_state(self):
        """The :class:`fagin.engines.State` (a live reference: do not apply actions to it)."""
        return self._held.state

    def current_player(self) -> int:
        player = self._held.state.current_player()
        return _PLAYER.get(player, player)

    def _legal_actions(self, player: int) -> list[int]:
        return self._held.state.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self._held.state.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        self._held.apply(action)

    def _action_to_string(self, player: int, action: int) -> str:
        game = self._held.state.game
        return game.action_label(action, player == pyspiel.PlayerId.CHANCE, self._held.options or None)

    def is_terminal(self) -> bool:
        return self._held.state.is_terminal()

    def returns(self) -> list[float]:
        state = self._held.state
        return state.returns() if state.is_terminal() else [0.0] * state.num_players

    def __str__(self) -> str:
        return self._held.render()

    def resample_from_infostate(self, player_id: int, probability_sampler) -> "FaginState":
        """A state seat ``player_id`` cannot tell from this one, drawn by the engine
        (``State.determinize``) with a seed from ``probability_sampler`` (a callable
        giving a number in [0, 1), as OpenSpiel's samplers do): what lets OpenSpiel's
        Python ISMCTS bot (``open_spiel.python.algorithms.ismcts``) play every game.

        The seat keeps its information state, and the seat to act here still acts
        there. The drawn state's ``history()`` is this one's (OpenSpiel's record is
        not the engine's to rewrite), so it is no guide to the drawn world, and the
        drawn state cannot be serialised.
        """
        engine = self._held.state
        drawn = engine.determinize(player_id, int(probability_sampler() * 2**53))
        if engine.current_player() == player_id:
            # Determinizing may reopen other seats' hidden choices of a simultaneous step
            # (to be decided afresh); the seat that was acting is still the one asked.
            drawn.make_current(player_id)
        state = self.clone()
        state._held = _Held(drawn, None, self._held.options)
        return state


class _Observer:
    """OpenSpiel's PyObserver interface, strings only (``tensor`` is None)."""

    def __init__(self, perfect_recall: bool):
        self.perfect_recall = perfect_recall
        self.tensor = None
        self.dict = {}

    def set_from(self, state, player):
        # Part of the interface; with no tensor there is nothing to fill (OpenSpiel never
        # calls it when `tensor` is None).
        pass

    def string_from(self, state: FaginState, player: int) -> str:
        held = state._held
        if not self.perfect_recall:
            return held.view(player)
        return f"{held.state.infoset_key(player):016x} {held.view(player)}"


# Importing the module registers the games, as OpenSpiel's own Python games do.
register_games()
