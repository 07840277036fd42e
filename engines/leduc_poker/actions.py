"""Leduc poker's action ids in words and in typed form, as OpenSpiel numbers them: at a
decision 0 folds, 1 calls and 2 raises; at a chance node 0 to 5 deal a card (J1 .. K2)."""
from fagin.engines.dealt_card_actions import dealt_card_actions
from fagin.engines.leduc_poker import engine as E

ACTION_KINDS, action_label, typed_action, action_from_typed = dealt_card_actions(
    ("fold", "call", "raise"), lambda: E.CARD_NAMES, "LeducPokerAction")
