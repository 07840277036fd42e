"""The Fagin's Gang rule-based bot.

The player itself is written once, without the GIL, in ``rollout.pxi``
(``heuristic_choice``): the same code is this bot and, with a small uniform share,
the search's rollout policy, so that ISMCTS plays its playouts the way this
bot plays.  Nothing in the game is hidden (FG-27), so it reads the whole
position: it values urchins home, urchins by their height on the track (less
where a constable may walk onto them), shillings up to what the remaining
returns cost, goods by whether its urchins' next steps need their colour, less
half the best rival's worth; it plays each action's steps greedily on a copy
and chooses the action whose end is worth most.
"""
from __future__ import annotations

from fagin.engines.fagins_gang import engine as E
from fagin.engines.game import EngineHeuristicBot


class FaginsGangHeuristicBot(EngineHeuristicBot):
    """A rule-based Fagin's Gang player (see the module docstring)."""

    engine = E
