"""Oliver Twist: pick pockets by day and by night for Fagin, 2-4 players. Rules: ``seeds/oliver_twist.md``."""
from fagin.engines.game import GameSpec, Level, TunedSettings

#: The search settings every player count shares (GameSpec.tuned_settings below).
_TUNED = {"cutoff": 48, "evaluation": "learned", "prior": 3.0}

GAME = GameSpec(
    id="oliver_twist",
    proto_fields=(20, 30, 30),  # its field numbers in GameState.game, Action.typed and Event.typed, fixed for good
    name="Oliver Twist",
    min_players=2,
    max_players=4,
    spec="seeds/oliver_twist.md",
    heuristic="OliverTwistHeuristicBot",
    rollout="policy",            # seeds/oliver_twist.md, "The bot and the search"
    # Tuned search settings (seeds/oliver_twist.md, "The evaluation at a cut-off, and a learned
    # one"): playouts cut after 48 actions and scored by the learned evaluation, with a light
    # prior toward the rollout policy's pick; at 3 players also progressive widening in the
    # policy's order and the other seats modelled as the rollout policy, which win more games
    # against heuristic bots and against the search without them ("The last points at 3 players").
    tuned_settings=(TunedSettings(players=None, settings=_TUNED),
                    TunedSettings(players=3, settings=_TUNED | {"widen": 1.0, "opponents": "policy"})),
    description="take tokens from lines in London's streets, sell sets to Fagin, keep your Police file "
                "thin; a day round, then a night of face-down tokens and burglaries",
    max_list=96,  # 85 round and 9 starting tokens; every other list (spaces, cards, seats) is shorter
    # Bot levels 1-10 (iterations, temperature), set on the tuned search: with the prior one
    # iteration plays the rollout policy's pick, and past 1,024 iterations the search gains too
    # little to show, so the ladder ends at 1,024; below the policy's pick, level 1 draws all but
    # uniformly from a small search's moves and levels 2-5 play a 4-iteration search ever colder;
    # levels 6-10 play the best move after 1 to 1,024 iterations, fourfold or eightfold steps
    # (doublings were not told apart) (seeds/oliver_twist.md, "Bot levels").
    levels=(Level(64, 10.0), Level(4, 3.0), Level(4, 1.5), Level(4, 1.0), Level(4, 0.5), Level(1), Level(8),
            Level(64), Level(256), Level(1024)),
)
