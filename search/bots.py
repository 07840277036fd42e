"""Baseline players: random, a Kids of London rule-based heuristic, and ISMCTS.

Every bot answers ``choose(state, seat, seed) -> action`` for a seat with a
decision pending.  Bots are handed the real state; each one looks only at
what its seat may know: the heuristic reads public facts and simulates with a
determinized copy, and ISMCTS determinizes every iteration.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from fagin.engines import gangs_of_kyoto as gk
from fagin.engines import kids_of_london as kol
from fagin.search import root_parallel


def _pending_view(state, seat):
    """A copy where `seat` is to act (in a simultaneous phase it may not be the first)."""
    view = state.clone()
    if not view.make_current(seat):
        raise ValueError(f"seat {seat} has no decision pending")
    return view


@dataclass
class RandomBot:
    """Uniformly random legal actions."""

    name: str = "random"

    def choose(self, state, seat, seed):
        return random.Random(seed).choice(_pending_view(state, seat).legal_actions())


@dataclass
class ISMCTSBot:
    """Plays the action ISMCTS recommends after ``iterations`` iterations,
    spread over ``threads`` threads (root parallelism) when more than one."""

    iterations: int = 2000
    exploration: float = 0.7
    threads: int = 1
    name: str = "ismcts"

    def choose(self, state, seat, seed):
        return root_parallel.search(state, seat, iterations=self.iterations, seed=seed,
                                    threads=self.threads, exploration=self.exploration).action


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
        view = _pending_view(state.determinize(seat, seed), seat)
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
        view = state.game.engine.view(state.to_bytes(), seat)
        legal = _pending_view(state, seat).legal_actions()
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


HEURISTICS = {"kids_of_london": KidsOfLondonHeuristicBot, "gangs_of_kyoto": GangsOfKyotoHeuristicBot}


class HeuristicBot:
    """The rule-based bot of whatever game the state is."""

    name = "heuristic"

    def __init__(self):
        self._bots = {}

    def choose(self, state, seat, seed):
        game = state.game.id
        if game not in HEURISTICS:
            raise ValueError(f"no heuristic bot for {game}")
        bot = self._bots.setdefault(game, HEURISTICS[game]())
        return bot.choose(state, seat, seed)


def make_bot(spec: str):
    """A bot from a spec: ``random``, ``heuristic``, ``ismcts``, ``ismcts:ITERATIONS`` or
    ``ismcts:ITERATIONSxTHREADS`` (the iterations spread over that many threads)."""
    name, _, arg = spec.partition(":")
    if name == "random" and not arg:
        return RandomBot()
    if name == "heuristic" and not arg:
        return HeuristicBot()
    if name == "ismcts":
        its, _, thr = (arg or "2000").partition("x")
        try:
            iterations, threads = int(its), int(thr or 1)
        except ValueError:
            raise ValueError(f"bot spec {spec!r}: iterations and threads must be whole numbers") from None
        if iterations <= 0 or not 1 <= threads <= root_parallel.MAX_THREADS:
            raise ValueError(f"bot spec {spec!r}: iterations must be positive, threads from 1 to "
                             f"{root_parallel.MAX_THREADS}")
        label = f"ismcts:{iterations}" + (f"x{threads}" if threads > 1 else "")
        return ISMCTSBot(iterations=iterations, threads=threads, name=label)
    raise ValueError(f"unknown bot spec {spec!r}; use random, heuristic or ismcts[:ITERATIONS[xTHREADS]]")
