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
    # Bot levels 1-10 (iterations, temperature): one iteration plays the rollout policy's pick
    # (the prior), so level 1 plays a hot 4-iteration policy and level 2 two iterations; the top
    # stays at 1,024 since a 2-player game at thousands of iterations takes minutes
    # (seeds/fagins_gang.md, "Bot levels (partly calibrated)").
    levels=((4, 1.0), (2, 0.0), (8, 0.0), (16, 0.0), (32, 0.0), (64, 0.0), (128, 0.0), (256, 0.0), (512, 0.0),
            (1024, 0.0)),
)
