"""Fagin's Gang: urchins steal goods and shillings around London, 2-6 players. Rules: ``seeds/fagins_gang.md``."""
from fagin.engines.game import GameSpec

GAME = GameSpec(
    id="fagins_gang",
    name="Fagin's Gang",
    min_players=2,
    max_players=6,
    spec="seeds/fagins_gang.md",
    heuristic="FaginsGangHeuristicBot",
    rollout="policy",            # seeds/fagins_gang.md, "The bot and the search"
    description="urchins climb six London locations, steal goods and shillings, sell at Smithfield "
                "Market and bring three of their number home to Fagin",
    max_list=64,  # the longest list: the urchins on the board (at most 30)
)
