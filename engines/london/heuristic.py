"""The London rule-based bot: a plain economic game, scored card by card.

The player itself is written once, without the GIL, in ``rollout.pxi``
(``heuristic_choice``): the same code is this bot and, with a small uniform share,
the search's rollout policy, so that ISMCTS plays its playouts the way this
bot plays the game.

What it reads.  It is handed the real state but looks only at what its seat
knows (LN-83 to LN-86): every seat's money, loans, VP, poverty and hand size;
every Building Display; the Card Display; who owns which borough and where
the Underground runs; how many cards the deck holds; the phase and turn
fields; its own hand, and the cards University of London shows it while it
looks.  Never another seat's hand or knowledge, the deck's make-up, or the
order of put-back cards.

The strategy, in VP-equivalents (a pound is worth about 0.4 VP during the
game: it buys buildings and land; a poverty point about 1.5 VP at the end,
LN-79): build money engines and cheap VP cards early, high-VP buildings when
the money is there, buy land whenever it is affordable (VP, cards, and one
poverty point fewer at every later Run City, LN-44), run the city when the
activatable cards yield more than the poverty the run adds (stacks plus hand
minus boroughs), keep the hand small before a run, take a good card from the
Card Display but otherwise the deck, Take Three Cards when the hand is thin,
avoid loans unless the gain pays for them (a loan costs about 7 VP at the
end, LN-78), and cover flipped cards rather than start new stacks.  Every
legal action gets a score and the best is played; ``seed`` breaks ties.
"""
from __future__ import annotations

from fagin.engines.game import EngineHeuristicBot
from fagin.engines.london import engine as E


class LondonHeuristicBot(EngineHeuristicBot):
    """A rule-based London player (see the module docstring for what it reads and how it plays)."""

    engine = E
