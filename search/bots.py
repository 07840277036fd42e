"""Bots: random, each game's rule-based heuristic, and ISMCTS.

Every bot answers ``choose(state, seat, seed) -> action`` for a seat with a
decision pending.  Bots are handed the real state; each one looks only at
what its seat may know: the heuristic reads public facts and simulates with a
determinized copy, and ISMCTS determinizes every iteration.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from fagin.search import root_parallel


@dataclass
class RandomBot:
    """Uniformly random legal actions."""

    name: str = "random"

    def choose(self, state, seat, seed):
        return random.Random(seed).choice(state.legal_actions(seat))


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


class HeuristicBot:
    """The rule-based bot of whatever game the state is (declared by the game's
    ``GameSpec.heuristic``, kept in its room: ``engines/<game>/heuristic.py``)."""

    name = "heuristic"

    def __init__(self):
        self._bots = {}

    def choose(self, state, seat, seed):
        spec = state.game.spec
        if spec.heuristic is None:
            raise ValueError(f"no heuristic bot for {spec.id}")
        bot = self._bots.get(spec.id)
        if bot is None:
            bot = self._bots[spec.id] = spec.heuristic()
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
