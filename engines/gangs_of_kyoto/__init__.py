"""Gangs of Kyoto: give cards, bust rows, collect bells (2-5 players). Rules: ``seeds/gangs_of_kyoto.md``."""
from fagin.engines.game import BudgetSettings, GameOption, GameSpec, Level, parse_bool

GAME = GameSpec(
    id="gangs_of_kyoto",
    proto_fields=(2, 11, 11),  # its field numbers in GameState.game, Action.typed and Event.typed, fixed for good
    name="Gangs of Kyoto",
    min_players=2,
    max_players=5,
    spec="seeds/gangs_of_kyoto.md",
    options=(
        GameOption("play_through", False, "play through the whole deck; the first bust after it "
                   "ran out ends the game (GK-16)", parse_bool),
        GameOption("open_piles", False, "victory piles are face up; in play every pile is known to "
                   "all anyway (GK-17), so this matters only for client-built face-down piles", parse_bool),
    ),
    heuristic="GangsOfKyotoHeuristicBot",
    description="press-your-luck card giving: each card goes to a row, a row at its limit busts",
    max_list=255,  # the engine holds at most 255 cards (MAX_DECK); lists are of cards or seats
    reads_description_only=True,   # equal cards may come as one dict (engine.from_description)
    # Bot levels 1-10 (iterations, temperature), spaced by this game's strength curve: it rises
    # longer than Kids of London's; uniform playouts flatten past about a thousand iterations at
    # 2 players, the large-budget search below gains up to 4,096, so level 9 searches 400 and
    # level 10 4,096 (seeds/gangs_of_kyoto.md, "The bot (not rules)").
    levels=(Level(1), Level(4, 1.0), Level(2), Level(5), Level(11), Level(25), Level(60), Level(150),
            Level(400), Level(4096)),
    # From 4,096 iterations at 2 players: the heuristic's playouts and its pick as the tree's
    # prior.  Uniform playouts stop gaining past 1,024; these gain there, but not below, where a
    # prior of 10 holds the tree on one move (seeds/gangs_of_kyoto.md, "Large budgets").
    budget_settings=(BudgetSettings(least_iterations=4096, players=2, settings={"rollout": "policy", "prior": 10.0}),),
)
