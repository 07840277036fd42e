"""Kuhn poker's action ids in words and in typed form, as OpenSpiel numbers them: at a
decision 0 passes and 1 bets; at a chance node 0 to 2 deal the J, Q or K."""
from fagin.engines.dealt_card_actions import dealt_card_actions
from fagin.engines.kuhn_poker import engine as E

ACTION_KINDS, action_label, typed_action, action_from_typed = dealt_card_actions(
    ("pass", "bet"), lambda: E.CARD_NAMES, "KuhnPokerAction")
