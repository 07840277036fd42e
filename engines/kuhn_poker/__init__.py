"""Kuhn poker exactly as OpenSpiel defines it (a reference game for the search)."""
from fagin.engines.game import GameSpec

GAME = GameSpec(
    id="kuhn_poker",
    name="Kuhn poker",
    min_players=2,
    max_players=2,
    spec="OpenSpiel kuhn_poker",
    heuristic="KuhnPokerHeuristicBot",
    reference="kuhn_poker",
    description="three-card poker, one bet round (OpenSpiel's kuhn_poker)",
    max_list=3,  # 3 cards; at most 3 actions (pass, bet, call or fold)
)
