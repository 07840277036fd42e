"""Rules engines: one folder per game (``engines/<game>/``) over one ABI (``abi.pxd``).

Use :func:`load_game` to get a :class:`~fagin.engines.core.Game`, and its
``new_initial_state`` to start playing; :data:`GAMES` describes every game.

The names below are imported when first used (PEP 562), so that a plain-Python part of a
room (London's component tables, the data loader ``room_data``) can be imported without
the compiled engines.
"""
import importlib

_HOMES = {
    "CHANCE": "core", "TERMINAL": "core", "Game": "core", "IllegalActionError": "core", "State": "core",
    "GameOption": "game", "GameSpec": "game",
    "GAMES": "registry", "UnknownGameError": "registry", "load_game": "registry", "new_game": "registry",
}

__all__ = ["CHANCE", "TERMINAL", "GAMES", "Game", "GameOption", "GameSpec", "IllegalActionError",
           "State", "UnknownGameError", "load_game", "new_game"]


def __getattr__(name):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
