"""Liar's Dice exactly as OpenSpiel defines it (a reference game for the search).

The engine's rules take OpenSpiel's parameters (``numdice``, ``dice_sides``,
``bidding_rule``), but the game is served with OpenSpiel's defaults only —
one die each, six sides, ``reset-face`` — and so declares no options: what
an action id means (which bid, and which id calls "Liar") depends on those
parameters, while the engine interface labels and types an action from its
id alone (``action_label(action)``, ``typed_action(action)``, and the
server's per-(game, id) action cache).
"""
from fagin.engines.game import GameSpec

GAME = GameSpec(
    id="liars_dice",
    name="Liar's Dice",
    min_players=2,
    max_players=2,
    spec="OpenSpiel liars_dice",
    heuristic="LiarsDiceHeuristicBot",
    reference="liars_dice",
    description="secret dice, rising bids and a call of \"liar\" (OpenSpiel's liars_dice, one die each)",
)
