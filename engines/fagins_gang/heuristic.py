"""The Fagin's Gang rule-based bot.

The player itself is written once, without the GIL, in ``rollout.pxi``
(``hx_choose``): the same code is this bot and, with a small uniform share,
the search's rollout policy, so that ISMCTS plays its playouts the way this
bot plays.  Nothing in the game is hidden (FG-27), so it reads the whole
position: it values urchins home, urchins by their height on the track (less
where a constable may walk onto them), shillings up to what the remaining
returns cost, goods by whether its urchins' next steps need their colour, less
half the best rival's worth; it plays each action's steps greedily on a copy
and chooses the action whose end is worth most.
"""
from __future__ import annotations

from dataclasses import dataclass

from fagin.engines.fagins_gang import engine as E


@dataclass
class FaginsGangHeuristicBot:
    """A rule-based Fagin's Gang player (see the module docstring)."""

    name: str = "heuristic"

    def choose(self, state, seat, seed):
        if state.current_player() != seat:
            state = state.with_seat_to_act(seat)
        action = E.heuristic_action(state.to_bytes(), seed)
        if action < 0:
            raise ValueError(f"seat: seat {seat} has no decision pending")
        return action
