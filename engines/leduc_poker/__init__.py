"""Leduc poker exactly as OpenSpiel defines it (a reference game for the search)."""
from fagin.engines.game import AutoAlgorithm, GameSpec, Level

GAME = GameSpec(
    id="leduc_poker",
    proto_fields=(4, 13, 13),  # its field numbers in GameState.game, Action.typed and Event.typed, fixed for good
    name="Leduc poker",
    min_players=2,
    max_players=2,
    spec="OpenSpiel leduc_poker",
    heuristic="LeducPokerHeuristicBot",
    reference="leduc_poker",
    description="six-card poker, two bet rounds and a public card (OpenSpiel's leduc_poker)",
    max_list=4,  # a round is at most check, raise, raise, call
    # "auto": regret-matching ISMCTS playing its mixed policy, which won the most chips a hand
    # against OpenSpiel's ISMCTS bot at equal wall time of the three searches tried (the
    # figures: docs/search.md, "Search algorithms").
    auto=(AutoAlgorithm(players=None, algorithm="ismcts_rm", sample_action=True),),
    # Bot levels 1-10 (iterations, temperature): auto plays its mixed policy at every level
    # (temperature 1), so the levels differ by budget alone; the default ladder's 0.4
    # temperature at level 3 played colder, and so won more hands, than its level 4
    # (docs/reference_games.md, "Leduc poker").
    levels=tuple(Level(n, 1.0) for n in (1, 2, 4, 8, 16, 32, 64, 300, 1000, 4000)),
)
