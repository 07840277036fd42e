"""London: build the city after the Great Fire, 2-4 players. Rules: ``seeds/london.md``."""
from fagin.engines.game import GameSpec

GAME = GameSpec(
    id="london",
    name="London",
    min_players=2,
    max_players=4,
    spec="seeds/london.md",
    heuristic="LondonHeuristicBot",
    rollout="policy",            # seeds/london.md, "The bot and the search"
    description="card play and city building: take cards, build stacks in your display, run your city "
                "against mounting poverty, buy boroughs",
    max_list=110,  # 110 cards; every other list (seats, boroughs, stacks) is shorter
)
