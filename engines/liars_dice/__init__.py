"""Liar's Dice exactly as OpenSpiel defines it (a reference game for the search).

The options are OpenSpiel's parameters. What an action id means (which bid,
and which id calls "Liar") depends on them, so the engine records them in the
state (``options_of``) and names, types and reads actions under them.
"""
from fagin.engines.game import GameOption, GameSpec, Level, choice_parser, int_parser

GAME = GameSpec(
    id="liars_dice",
    proto_fields=(6, 15, 15),  # its field numbers in GameState.game, Action.typed and Event.typed, fixed for good
    name="Liar's Dice",
    min_players=2,
    max_players=2,
    spec="OpenSpiel liars_dice",
    options=(
        GameOption("numdice", 1, "dice a seat, 1 to 5", int_parser(1, 5)),
        GameOption("dice_sides", 6, "sides of a die, 2 to 6 (the highest face is wild)", int_parser(2, 6)),
        GameOption("bidding_rule", "reset-face", "how bids are ranked: reset-face or reset-quantity",
                   choice_parser("reset-face", "reset-quantity")),
    ),
    heuristic="LiarsDiceHeuristicBot",
    reference="liars_dice",
    description="secret dice, rising bids and a call of \"liar\" (OpenSpiel's liars_dice)",
    max_list=61,  # 5 dice a seat; bids only rise: 2 seats x 5 dice x 6 faces, then liar
    # Bot levels 1-10 (iterations, temperature), measured in docs/reference_games.md, "Liar's Dice".
    levels=(Level(1), Level(4, 1.0), Level(4, 0.4), Level(4), Level(6), Level(8), Level(16), Level(100), Level(300),
            Level(1000)),
)
