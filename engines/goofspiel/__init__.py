"""Goofspiel exactly as OpenSpiel defines it (a reference game for the search)."""
from fagin.engines.game import GameOption, GameSpec, Level, choice_parser, int_parser, parse_bool

GAME = GameSpec(
    id="goofspiel",
    proto_fields=(5, 14, 14),  # its field numbers in GameState.game, Action.typed and Event.typed, fixed for good
    name="Goofspiel",
    min_players=2,
    max_players=2,
    spec="OpenSpiel goofspiel",
    options=(
        GameOption("num_cards", 13, "cards per hand and point cards, 2 to 13", int_parser(2, 13)),
        GameOption("imp_info", False, "a seat sees who won each turn, not the other's bids", parse_bool),
        GameOption("points_order", "random", "random, descending or ascending",
                   choice_parser("random", "descending", "ascending")),
        GameOption("returns_type", "win_loss", "win_loss, point_difference or total_points",
                   choice_parser("win_loss", "point_difference", "total_points")),
    ),
    heuristic="GoofspielHeuristicBot",
    reference="goofspiel",
    description="simultaneous secret bids for point cards (OpenSpiel's goofspiel)",
    max_list=13,  # 13 cards a hand at most (num_cards)
    # Bot levels 1-10: the best move, no hot levels (measured in docs/reference_games.md, "Goofspiel").
    levels=tuple(Level(n) for n in (1, 2, 4, 8, 16, 32, 64, 150, 600, 4000)),
)
