"""The Oliver Twist rule-based bot.

The player itself is written once, without the GIL, in ``rollout.pxi``
(``heuristic_choice``): the same code is this bot and, with a uniform share of one
action in ten, the search's rollout policy.  It reads only what its seat
sees (see the module docstring of ``rollout.pxi``): it is handed the real
state but never reads another seat's stash, Police file or cards, nor a
face-down token it has not looked at (``tests/engines/test_oliver_twist_information.py``
checks its answer is the same in every world its seat cannot tell apart).
"""
from __future__ import annotations

from fagin.engines.game import EngineHeuristicBot
from fagin.engines.oliver_twist import engine as E


class OliverTwistHeuristicBot(EngineHeuristicBot):
    """A rule-based Oliver Twist player: the best line by coins minus police risk, sets to
    Fagin when they pay well or the stash is full, Character cards when the streets offer little."""

    engine = E
