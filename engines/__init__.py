"""Rules engines: one Cython module per game over one ABI (``abi.pxd``).

Use :func:`load_game` to get a :class:`~fagin.engines.core.Game`, and its
``new_initial_state`` to start playing.
"""
from fagin.engines.core import CHANCE, TERMINAL, Game, IllegalActionError, State
from fagin.engines.registry import GAMES, GameInfo, UnknownGameError, load_game, new_game

__all__ = ["CHANCE", "TERMINAL", "GAMES", "Game", "GameInfo", "IllegalActionError",
           "State", "UnknownGameError", "load_game", "new_game"]
