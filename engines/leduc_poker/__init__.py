"""Leduc poker exactly as OpenSpiel defines it (a reference game for the search)."""
from fagin.engines.game import GameSpec

GAME = GameSpec(
    id="leduc_poker",
    name="Leduc poker",
    min_players=2,
    max_players=2,
    spec="OpenSpiel leduc_poker",
    heuristic="LeducPokerHeuristicBot",
    reference="leduc_poker",
    description="six-card poker, two bet rounds and a public card (OpenSpiel's leduc_poker)",
    max_list=4,  # a round is at most check, raise, raise, call
    # "auto": regret-matching ISMCTS playing its mixed policy. Against OpenSpiel's ISMCTS bot
    # (1,000 simulations a move, 2,000 hands, seats alternated, equal wall time) it won
    # +0.40 chips a hand (95 % interval +0.24 .. +0.55), OOS +0.24, plain ISMCTS +0.12
    # (-0.03 .. +0.27): README, "Search algorithms".
    auto=((None, "ismcts_rm", True),),
)
