"""The Kids of London rule-based bot."""
from __future__ import annotations

import random
from dataclasses import dataclass

from fagin.engines.kids_of_london import engine as kol


@dataclass
class KidsOfLondonHeuristicBot:
    """A rule-based Kids of London player aiming to finish second richest.

    For each card it could play it simulates the hour a few times against
    opponents drawing uniformly from their (public) hands, with the engine as
    the simulator, and scores the coins that result: close below the richest
    rival is good, becoming the richest is bad.
    """

    samples: int = 12
    name: str = "heuristic"

    @staticmethod
    def _score(all_coins, seat):
        mine = all_coins[seat]
        rival = max(c for s, c in enumerate(all_coins) if s != seat)
        if mine > rival:
            return -2.0 - 1.5 * (mine - rival)
        return -(rival - mine)

    def _finish_hour(self, sim, rng):
        """Plays the rest of the hour: random cards, greedy prince/lone choices."""
        while not sim.is_terminal() and not sim.is_chance_node():
            legal = sim.legal_actions()
            if kol.ACTION_PRINCE in legal:
                sim.apply(kol.ACTION_PRINCE)
            elif kol.ACTION_LONE_CHARACTER in legal:
                sim.apply(kol.ACTION_LONE_CHARACTER)
            else:
                sim.apply(rng.choice(legal))

    def _coins(self, state):
        d = state.describe()
        return [seat["coins"] for seat in d["seats"]] + ([d["fictitious"]["coins"]] if d["fictitious"] else [])

    def choose(self, state, seat, seed):
        rng = random.Random(seed)
        view = state.determinize(seat, seed).with_seat_to_act(seat)
        legal = view.legal_actions()
        phase = view.describe()["phase"]
        if phase in ("choose_prince", "choose_lone"):
            # Both options are resolved exactly by the engine (others' pending
            # prince choices are simulated as "prince").
            best, best_score = legal[0], None
            for action in legal:
                sim = view.child(action)
                self._finish_hour(sim, rng)
                score = self._score(self._coins(sim), seat)
                if best_score is None or score > best_score:
                    best, best_score = action, score
            return best
        scores = {}
        for action in legal:
            total = 0.0
            for _ in range(self.samples):
                sim = view.child(action)
                self._finish_hour(sim, rng)
                total += self._score(self._coins(sim), seat)
            scores[action] = total / self.samples
        top = max(scores.values())
        return rng.choice([a for a, s in scores.items() if s >= top - 1e-9])
