"""A simple Goofspiel bot: bids the card matching the prize, near it when it is gone."""
from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass
class GoofspielHeuristicBot:
    """Bids the card whose value equals the prize on offer (the classic
    matching strategy), or the nearest card left, with ties broken at random."""

    name: str = "heuristic"

    def choose(self, state, seat, seed):
        rng = random.Random(seed)
        view = state.view(seat)
        legal = state.legal_actions(seat)             # action a bids card a + 1
        prize = view["point_cards"][-1] + 1           # point card ids are value - 1
        best = min(abs(a + 1 - prize) for a in legal)
        return rng.choice([a for a in legal if abs(a + 1 - prize) == best])
