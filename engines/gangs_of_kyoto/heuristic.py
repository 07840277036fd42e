"""The Gangs of Kyoto rule-based bot."""
from __future__ import annotations

import random
from dataclasses import dataclass

from fagin.engines.gangs_of_kyoto import engine as gk


@dataclass
class GangsOfKyotoHeuristicBot:
    """A rule-based Gangs of Kyoto player.

    It scores each possible receiver of the revealed card from its own view
    (other seats' hidden bells unknown): bells for itself, no bells for
    rivals, busting a rival when its own row holds bells, never busting
    itself; it refuses a card that would bust it or cost it a bell card.
    """

    name: str = "heuristic"

    @staticmethod
    def _row_bells(seat):
        return sum(c["bells"] for c in seat["row"])

    def _score(self, d, me, r, card):
        seats = d["seats"]
        mine = self._row_bells(seats[me])
        lead = max(range(len(seats)), key=lambda p: seats[p]["bells"])
        rival = 1.5 if r == lead and r != me else 1.0
        kind = card["kind"]
        if kind == "bell":
            return 3 * card["bells"] if r == me else -2 * card["bells"] * rival
        if kind == "discard":
            row = seats[r]["row"]
            if not row:
                return 0.0
            last = row[-1]
            gain = last["value"] / 4 - 2 * last["bells"]
            return gain if r == me else -gain * rival
        if kind in ("stay_late", "refuse"):
            bonus = 2.0 if kind == "stay_late" and seats[r]["row_sum"] >= 8 else 1.2
            return bonus if r == me else -bonus * rival
        value = card["value"] + (2 if card["draw"] else 0)
        new_sum = seats[r]["row_sum"] + value
        refuses = any(c["kind"] == "refuse" for c in seats[r]["row"])
        if new_sum >= seats[r]["limit"] and not refuses:
            others = sum(self._row_bells(seats[p]) for p in range(len(seats)) if p not in (me, r))
            if r == me:
                return -3 * mine - 1 - others
            return 2 * mine + self._row_bells(seats[r]) * rival - 0.5 * others
        risk = value * new_sum / seats[r]["limit"]
        if r == me:
            return 2 * card["bells"] - 0.5 * risk
        return -2 * card["bells"] * rival + 0.2 * risk

    def choose(self, state, seat, seed):
        rng = random.Random(seed)
        view = state.view(seat)
        legal = state.legal_actions(seat)
        me = view["seats"][seat]
        if view["phase"] == "refuse":
            card = view["arriving"]
            value = card["value"] + (2 if card["draw"] else 0)
            refuse = (card["kind"] in ("exploration",) and me["row_sum"] + value >= me["limit"]) or \
                (card["kind"] == "discard" and me["row"] and me["row"][-1]["bells"] > 0) or \
                (card["kind"] == "exploration" and card["bells"] == 0 and value >= 4 and me["row_sum"] >= 6)
            return gk.ACTION_REFUSE if refuse else gk.ACTION_ACCEPT
        card = view["revealed"]
        scores = {a: self._score(view, seat, a, card) for a in legal}
        top = max(scores.values())
        return rng.choice([a for a, v in scores.items() if v >= top - 1e-9])
