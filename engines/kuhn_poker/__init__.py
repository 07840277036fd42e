"""Kuhn poker exactly as OpenSpiel defines it (a reference game for the search)."""
from fagin.engines.game import GameSpec, Level

GAME = GameSpec(
    id="kuhn_poker",
    proto_fields=(3, 12, 12),  # its field numbers in GameState.game, Action.typed and Event.typed, fixed for good
    name="Kuhn poker",
    min_players=2,
    max_players=2,
    spec="OpenSpiel kuhn_poker",
    heuristic="KuhnPokerHeuristicBot",
    reference="kuhn_poker",
    description="three-card poker, one bet round (OpenSpiel's kuhn_poker)",
    max_list=3,  # 3 cards; at most 3 actions (pass, bet, call or fold)
    # Bot levels 1-10: regret-matching ISMCTS playing its mixed policy, budgets only. Plain
    # ISMCTS's best move gains no chips past 4 iterations here; this ladder wins chips from the
    # level below at every step (docs/reference_games.md, "Kuhn poker").
    levels=tuple(Level(n, 1.0, "ismcts_rm") for n in (1, 2, 4, 8, 16, 32, 64, 150, 400, 4000)),
)
