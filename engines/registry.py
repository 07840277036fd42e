"""The games fagin serves, found rather than listed.

Every folder ``engines/<game_id>/`` whose ``__init__.py`` declares
``GAME = GameSpec(...)`` is a game (its room; see :mod:`fagin.engines.game`).
Its rules are the compiled module ``fagin.engines.<game_id>.engine``.
"""
from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache

from fagin.engines.core import Game, State
from fagin.engines.game import GameOption, GameSpec

__all__ = ["GAMES", "GameOption", "GameSpec", "UnknownGameError", "load_game", "new_game"]


class UnknownGameError(KeyError):
    """A game id that no engine serves."""

    def __str__(self) -> str:  # KeyError quotes its argument; keep the message readable
        return self.args[0]


def _discover() -> dict[str, GameSpec]:
    import fagin.engines as package
    found = {}
    for module in pkgutil.iter_modules(package.__path__):
        if not module.ispkg:
            continue
        spec = getattr(importlib.import_module(f"{package.__name__}.{module.name}"), "GAME", None)
        if spec is None:
            continue
        if not isinstance(spec, GameSpec) or spec.id != module.name:
            raise TypeError(f"engines/{module.name}/__init__.py: GAME must be a GameSpec with id "
                            f"{module.name!r}")
        found[spec.id] = spec
    # The seed games first, then the reference games; each group by name.
    return dict(sorted(found.items(), key=lambda kv: (kv[1].reference is not None, kv[0])))


#: Every served game's :class:`GameSpec`, by id.
GAMES: dict[str, GameSpec] = _discover()


@lru_cache(maxsize=None)
def load_game(game_id: str) -> Game:
    """The :class:`Game` for ``game_id`` (e.g. ``"kids_of_london"``)."""
    spec = GAMES.get(game_id)
    if spec is None:
        raise UnknownGameError(
            f"unknown game {game_id!r}; known games: {', '.join(sorted(GAMES))}")
    return Game(importlib.import_module(f"fagin.engines.{game_id}.engine"), spec)


def new_game(game_id: str, players: int, seed: int | None = None, **options) -> State:
    """A new game of ``players`` seats; with a ``seed``, opening chance events are resolved."""
    state = load_game(game_id).new_initial_state(players, **options)
    if seed is not None:
        state.resolve_chance(seed)
    return state
