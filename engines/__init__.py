"""Rules engines: one folder per game (``engines/<game>/``) over one ABI (``abi.pxd``).

Use :func:`load_game` to get a :class:`~fagin.engines.core.Game`, and its
``new_initial_state`` to start playing; :data:`GAMES` describes every game.

The names below are imported from their modules when first used (PEP 562), so that a
plain-Python module of this package (the data loader ``room_data``, London's component
tables) can be imported without the compiled engines.
"""
from __future__ import annotations

import importlib as _importlib
from typing import TYPE_CHECKING as _TYPE_CHECKING

if _TYPE_CHECKING:     # what the names are, for type checkers and editors
    from fagin.engines.core import CHANCE, TERMINAL, Game, IllegalActionError, State
    from fagin.engines.game import GameOption, GameSpec
    from fagin.engines.registry import GAMES, UnknownGameError, load_game, new_game

#: Each public name and the module that defines it.
_HOMES = {
    "CHANCE": "core", "TERMINAL": "core", "Game": "core", "IllegalActionError": "core", "State": "core",
    "GameOption": "game", "GameSpec": "game",
    "GAMES": "registry", "UnknownGameError": "registry", "load_game": "registry", "new_game": "registry",
}

__all__ = sorted(_HOMES)


def __getattr__(name):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
