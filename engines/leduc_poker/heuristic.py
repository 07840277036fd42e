"""A simple Leduc poker bot: raises strength, calls fair prices, folds the rest."""
from __future__ import annotations

import random
from dataclasses import dataclass

FOLD, CALL, RAISE = 0, 1, 2


@dataclass
class LeducPokerHeuristicBot:
    """Raises with a pair (private card matching the public one) or a King
    before the flop; calls with a Queen or better, or any card when the bet
    to call is small; folds otherwise (and bluffs a raise now and then)."""

    name: str = "heuristic"
    bluff: float = 0.1

    def choose(self, state, seat, seed):
        rng = random.Random(seed)
        view = state.view(seat)
        legal = state.legal_actions(seat)
        rank = view["private_cards"][seat] // 2           # 0 J, 1 Q, 2 K
        public = view["public_card"]
        pair = public is not None and public // 2 == rank
        contributions = view["contributions"]
        to_call = max(contributions) - contributions[seat]
        strong = pair or (public is None and rank == 2)
        if (strong or rng.random() < self.bluff) and RAISE in legal:
            return RAISE
        if strong or rank >= 1 or to_call <= 2 or FOLD not in legal:
            return CALL
        return FOLD
