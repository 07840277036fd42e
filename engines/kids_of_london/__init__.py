"""Kids of London: simultaneous card play for coins (2-5 players). Rules: ``seeds/kids_of_london.md``."""
from fagin.engines.game import BudgetSettings, GameSpec, TunedSettings

GAME = GameSpec(
    id="kids_of_london",
    proto_fields=(1, 10, 10),  # its field numbers in GameState.game, Action.typed and Event.typed, fixed for good
    name="Kids of London",
    min_players=2,
    max_players=5,
    spec="seeds/kids_of_london.md",
    heuristic="KidsOfLondonHeuristicBot",
    description="street children play cards in secret to rob the characters of London; "
                "the richest is caught, the second richest wins",
    max_list=9,  # 9 turns, 9 cards a hand, 6 seats at most
    # 2 players (seeds/kids_of_london.md, "The default at 2 players"): a search on time alone, or of
    # 1,000 iterations or more, plays the rollout policy with a prior of 10 toward its pick, which
    # beats uniform playouts at equal time; smaller iteration budgets (bot levels 1-9, on which
    # the ladder was calibrated) keep uniform playouts and no prior.
    tuned_settings=(TunedSettings(players=2, settings={"rollout": "policy", "prior": 10.0}),),
    budget_settings=(BudgetSettings(least_iterations=1, players=2, settings={"rollout": "random", "prior": 0.0}),
                     BudgetSettings(least_iterations=1000, players=2, settings={"rollout": "policy", "prior": 10.0})),
)
