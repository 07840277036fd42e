"""Rules engines: one folder per game (``engines/<game>/``) over one ABI (``abi.pxd``).

Use :func:`load_game` to get a :class:`~fagin.engines.core.Game`, and its
``new_initial_state`` to start playing; :data:`GAMES` describes every game.
"""
from fagin.engines.core import CHANCE, TERMINAL, Game, IllegalActionError, State
from fagin.engines.game import GameOption, GameSpec
from fagin.engines.registry import GAMES, UnknownGameError, load_game, new_game

__all__ = ["CHANCE", "TERMINAL", "GAMES", "Game", "GameOption", "GameSpec", "IllegalActionError",
           "State", "UnknownGameError", "load_game", "new_game"]
