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
)
