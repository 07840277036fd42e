"""Helpers to build Kids of London positions for tests."""
import copy
from fagin.engines import load_game
from fagin.engines.kids_of_london import engine as kol
from fagin.engines.kids_of_london import actions as kol_actions

GAME = load_game("kids_of_london")


def position(players, character, coins=None, turn=0, hands=None, fict_card=None,
             fict_coins=0, fict_deck=None, pile=None):
    """A position at the secret card choice of an hour, built through the validating decoder."""
    coins = coins or [0] * players
    hands = hands or [list(range(turn, 9))] * players
    if pile is None:
        pile = dict(kol.CHARACTER_TILES)
        pile[character] -= 1
        # Remove tiles for the hours already played, cheapest first.
        left = 9 - turn - 1
        for name in kol.CHARACTERS:
            while sum(pile.values()) > left and pile[name] > 0 and name != "prince":
                pile[name] -= 1
    pile = [name for name, n in pile.items() for _ in range(n)]
    d = {"players": players, "turn": turn, "phase": "choose_card", "character": character,
         "pile": pile, "seats": [{"coins": c, "hand": h} for c, h in zip(coins, hands)]}
    if players == 2:
        deck = fict_deck if fict_deck is not None else [v for v in range(9) if v != fict_card][: 9 - turn - 1]
        d["fictitious"] = {"coins": fict_coins, "deck": deck, "card": fict_card}
    return GAME.from_description(d)


def play(state, *cards):
    """Each seat, in order of the engine's asking, plays the given card."""
    for card in cards:
        state.apply(kol_actions.card_action(card))
    return state


def coins(state):
    """Every seat's coins, the fictitious player's last."""
    d = state.describe()
    extra = [d["fictitious"]["coins"]] if d["fictitious"] else []
    return [seat["coins"] for seat in d["seats"]] + extra


def with_(d, path, value):
    """A deep copy of the dict `d` with the item at `path` (a tuple of keys/indices) set to `value`."""
    d = copy.deepcopy(d)
    target = d
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return d
