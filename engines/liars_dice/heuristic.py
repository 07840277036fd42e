"""A simple Liar's Dice bot: calls a bid unlikely to hold, otherwise bids what its dice support."""
from __future__ import annotations

from dataclasses import dataclass
from math import comb

from fagin.engines.liars_dice import engine


def _at_least(k, n, p):
    """P(Binomial(n, p) >= k)."""
    if k <= 0:
        return 1.0
    return sum(comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(k, n + 1))


@dataclass
class LiarsDiceHeuristicBot:
    """Counts its own dice toward a bid (the highest face is wild), treats the
    unseen dice as fair, calls "Liar" when the last bid holds with probability
    below ``call_below``, and otherwise makes the lowest bid most likely to hold."""

    name: str = "heuristic"
    call_below: float = 0.5

    @staticmethod
    def _holds(bid, mine, unseen, options, sides):
        quantity, face = engine._bid(bid, options)
        have = sum(1 for d in mine if d == face or d == sides)
        p = 1 / sides if face == sides else 2 / sides
        return _at_least(quantity - have, unseen, p)

    def choose(self, state, seat, seed):
        view = state.view(seat)
        options = view["options"]
        sides = options["dice_sides"]
        mine = view[f"dice{seat}"]
        unseen = len(view[f"dice{1 - seat}"])
        liar = (len(mine) + unseen) * sides
        legal = state.legal_actions(seat)
        if view["actions"] and liar in legal and \
                self._holds(view["actions"][-1], mine, unseen, options, sides) < self.call_below:
            return liar
        bids = [a for a in legal if a != liar]
        if not bids:
            return liar
        scores = {b: self._holds(b, mine, unseen, options, sides) for b in bids}
        best = max(scores.values())
        if best < self.call_below and liar in legal:
            return liar
        return min(b for b in bids if scores[b] >= best - 1e-12)
