"""Fagin's Gang: urchins steal goods and shillings around London, 2-6 players. Rules: ``seeds/fagins_gang.md``."""
from fagin.engines.game import GameSpec, Level, TunedSettings

GAME = GameSpec(
    id="fagins_gang",
    proto_fields=(9, 19, 19),  # its field numbers in GameState.game, Action.typed and Event.typed, fixed for good
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
    # (the prior), and the search gains little past 256 iterations, so level 1 draws all but
    # uniformly from a small search's moves (temperature 10), levels 2-5 play a few iterations'
    # policy hot and levels 6-10 the best move after 2 to 256 iterations
    # (seeds/fagins_gang.md, "Bot levels").
    # At 3 and 4 players the cut-off playouts are scored by the learned evaluation
    # (data/learned.json, python -m fagin.train --game fagins_gang --seed 1): it predicts the
    # winner better than the hand-written one and wins more at equal time (seeds/fagins_gang.md,
    # "The bot and the search", and the 4-player match against the earlier build).
    # At 2 players playouts run 48 policy actions before the evaluation instead of 24: stronger at
    # equal time (seeds/fagins_gang.md, "Longer playouts").
    tuned_settings=(TunedSettings(players=2, settings={"cutoff": 48}),
                    TunedSettings(players=3, settings={"evaluation": "learned"}),
                    TunedSettings(players=4, settings={"evaluation": "learned"})),
    levels=(Level(64, 10.0), Level(4, 1.0), Level(8, 1.0), Level(2, 1.0), Level(16, 0.85), Level(2), Level(8),
            Level(11), Level(96), Level(256)),
)
