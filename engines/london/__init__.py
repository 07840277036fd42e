"""London: build the city after the Great Fire, 2-4 players. Rules: ``seeds/london.md``."""
from fagin.engines.game import GameSpec, Level, TunedSettings

GAME = GameSpec(
    id="london",
    proto_fields=(7, 16, 16),  # its field numbers in GameState.game, Action.typed and Event.typed, fixed for good
    name="London",
    min_players=2,
    max_players=4,
    spec="seeds/london.md",
    heuristic="LondonHeuristicBot",
    rollout="policy",            # seeds/london.md, "The bot and the search"
    description="card play and city building: take cards, build stacks in your display, run your city "
                "against mounting poverty, buy boroughs",
    max_list=110,  # 110 cards; every other list (seats, boroughs, stacks) is shorter
    # Bot levels 1-10 (iterations, temperature): one iteration plays the rollout policy's pick
    # (the prior), strong already, so level 1 draws all but uniformly from a small search's moves
    # (temperature 10), levels 2-6 play a few iterations' policy hot, level 7 one iteration and
    # levels 8-10 the best move after 64, 256 and 1,024, each 4x step measured stronger with the
    # longer playouts (seeds/london.md, "Bot levels").
    # At 3 players the cut-off playouts are scored by the learned evaluation (data/learned.json,
    # python -m fagin.train --game london --seed 1): it predicts the winner better than the
    # hand-written one and wins more at equal time (seeds/london.md, "The bot and the search").
    # At 2 and 4 players playouts run 96 policy actions before the evaluation instead of 48:
    # twice the cost of an iteration, and stronger at equal time (seeds/london.md, "Longer
    # playouts", and "The equal time measured again, and 3 and 4 players").
    tuned_settings=(TunedSettings(players=2, settings={"cutoff": 96}),
                    TunedSettings(players=3, settings={"evaluation": "learned"}),
                    TunedSettings(players=4, settings={"cutoff": 96})),
    levels=(Level(64, 10.0), Level(4, 1.0), Level(2, 1.0), Level(8, 1.0), Level(12, 1.0), Level(16, 0.7), Level(1),
            Level(64), Level(256), Level(1024)),
)
