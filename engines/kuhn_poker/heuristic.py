"""A simple Kuhn poker bot: the textbook value strategy, with a few bluffs."""
from __future__ import annotations

import random
from dataclasses import dataclass

PASS, BET = 0, 1
JACK, QUEEN, KING = 0, 1, 2


@dataclass
class KuhnPokerHeuristicBot:
    """Bets and calls with the King, checks and folds the Jack (bluffing it a
    third of the time when first to act), checks the Queen and calls a bet with
    it a third of the time: close to the family of equilibria OpenSpiel's CFR
    finds, but with fixed frequencies."""

    name: str = "heuristic"

    def choose(self, state, seat, seed):
        rng = random.Random(seed)
        view = state.view(seat)
        card, facing_bet = view["cards"][seat], BET in view["actions"]
        if card == KING:
            return BET
        if card == QUEEN:
            return BET if facing_bet and rng.random() < 1 / 3 else PASS
        return BET if not view["actions"] and rng.random() < 1 / 3 else PASS
