"""The games fagin serves: game id -> engine module, names and options.

Adding a game is one line in ``GAMES`` (plus its engine module, its spec in
``seeds/`` and its tests).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from functools import lru_cache

from fagin.engines.core import Game, State


class UnknownGameError(KeyError):
    """A game id that no engine serves."""

    def __str__(self) -> str:  # KeyError quotes its argument; keep the message readable
        return self.args[0]


@dataclass(frozen=True)
class GameOption:
    """A game option with its default and a one-line description."""

    name: str
    default: object
    description: str


@dataclass(frozen=True)
class GameInfo:
    """Static facts about a served game."""

    id: str
    name: str
    module: str
    min_players: int
    max_players: int
    spec: str
    options: tuple[GameOption, ...] = field(default_factory=tuple)


GAMES: dict[str, GameInfo] = {
    info.id: info
    for info in (
        GameInfo("kids_of_london", "Kids of London", "fagin.engines.kids_of_london", 2, 5,
                 "seeds/kids_of_london.md"),
        GameInfo("gangs_of_kyoto", "Gangs of Kyoto", "fagin.engines.gangs_of_kyoto", 2, 5,
                 "seeds/gangs_of_kyoto.md", (
                     GameOption("play_through", False, "play through the whole deck; the first bust "
                                "after it ran out ends the game (GK-16)"),
                     GameOption("open_piles", False, "victory piles are face up (GK-17)"))),
        # Reference games, defined exactly as OpenSpiel defines them, to prove
        # the search correct and fast against OpenSpiel.
        GameInfo("kuhn_poker", "Kuhn poker", "fagin.engines.kuhn_poker", 2, 2, "OpenSpiel kuhn_poker"),
        GameInfo("leduc_poker", "Leduc poker", "fagin.engines.leduc_poker", 2, 2, "OpenSpiel leduc_poker"),
        GameInfo("goofspiel", "Goofspiel", "fagin.engines.goofspiel", 2, 2, "OpenSpiel goofspiel", (
            GameOption("num_cards", 13, "cards per hand and point cards, 2 to 13"),
            GameOption("imp_info", False, "a seat sees who won each turn, not the other's bids"),
            GameOption("points_order", "random", "random, descending or ascending"),
            GameOption("returns_type", "win_loss", "win_loss, point_difference or total_points"))),
    )
}


@lru_cache(maxsize=None)
def load_game(game_id: str) -> Game:
    """The :class:`Game` for ``game_id`` (e.g. ``"kids_of_london"``)."""
    info = GAMES.get(game_id)
    if info is None:
        raise UnknownGameError(
            f"unknown game {game_id!r}; known games: {', '.join(sorted(GAMES))}")
    engine = importlib.import_module(info.module)
    return Game(engine.GAME_DEF, engine, info)


def new_game(game_id: str, players: int, seed: int | None = None, **options) -> State:
    """A new game of ``players`` seats; with a ``seed``, opening chance events are resolved."""
    info = GAMES.get(game_id)
    if info is not None and not info.min_players <= players <= info.max_players:
        raise ValueError(f"players: {info.name} takes {info.min_players} to "
                         f"{info.max_players} players, not {players}")
    state = load_game(game_id).new_initial_state(players, **options)
    if seed is not None:
        state.resolve_chance(seed)
    return state
