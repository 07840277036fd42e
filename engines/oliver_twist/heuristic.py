"""The Oliver Twist rule-based bot.

The player itself is written once, without the GIL, in ``rollout.pxi``
(``hx_choose``): the same code is this bot and, with a uniform share of one
action in ten, the search's rollout policy.  It reads only what its seat
sees (see the module docstring of ``rollout.pxi``): it is handed the real
state but never reads another seat's Police file or cards, nor a face-down
token it has not looked at.
"""
from __future__ import annotations

from dataclasses import dataclass

from fagin.engines.oliver_twist import engine as E


@dataclass
class OliverTwistHeuristicBot:
    """A rule-based Oliver Twist player: the best line by coins minus police risk, sets to
    Fagin when they pay well or the stash is full, Character cards when the streets offer little."""

    name: str = "heuristic"

    def choose(self, state, seat, seed):
        if state.current_player() != seat:
            state = state.with_seat_to_act(seat)
        action = E.heuristic_action(state.to_bytes(), seed)
        if action < 0:
            raise ValueError(f"seat: seat {seat} has no decision pending")
        return action
