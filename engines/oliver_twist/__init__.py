"""Oliver Twist: pick pockets by day and by night for Fagin, 2-4 players. Rules: ``seeds/oliver_twist.md``."""
from fagin.engines.game import GameSpec

GAME = GameSpec(
    id="oliver_twist",
    name="Oliver Twist",
    min_players=2,
    max_players=4,
    spec="seeds/oliver_twist.md",
    heuristic="OliverTwistHeuristicBot",
    rollout="policy",            # seeds/oliver_twist.md, "The bot and the search"
    description="take tokens from lines in London's streets, sell sets to Fagin, keep your Police file "
                "thin; a day round, then a night of face-down tokens and burglaries",
    max_list=96,  # 85 round and 9 starting tokens; every other list (spaces, cards, seats) is shorter
)
