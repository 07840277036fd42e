"""Positions of Oliver Twist built for rule tests (see tests/games/oliver_twist/test_oliver_twist*.py).

``position`` lists what a test cares about and puts every other token in the
bag (by day) or the face-down pool (by night), every other card in its draw
pile, through the validating constructor.
"""
from __future__ import annotations

import random

from fagin.engines import load_game
from fagin.engines.oliver_twist import engine as E

GAME = load_game("oliver_twist")
KINDS = E.KIND_NAMES

# Day and night sides share these streets' space ids (board.json).
TOP = [58, 57, 56, 55, 54]          # from the square up to junction 2
JUNCTION_TOP = 2
LEFT_OF_TOP = [14, 13, 12, 11, 10, 9]   # junction 2 towards junction 1 (yellow)
RIGHT_OF_TOP = [15, 16, 17, 18, 19, 20]  # junction 2 towards junction 3
BOTTOM = [59, 60, 61, 62, 63]       # from the square down to junction 7
LEFT = [25, 24, 23, 22, 21]         # from the square to junction 4
RIGHT = [26, 27, 28, 29, 30]        # from the square to junction 5


def position(players=3, night=False, phase="turn", active=0, pawn=0, board=None, stashes=None,
             files=None, tools=None, money=None, hands=None, kept=None, discard=(), **extra):
    """A full description: ``board`` maps a space to a token name, or to ("fd", token or "",
    known_by) for a face-down one."""
    ns = E.side_spaces(1 if night else 0)
    cells = [{"token": "", "face_down": False, "known_by": []} for _ in range(ns)]
    listed = {}

    def note(t):
        listed[t] = listed.get(t, 0) + 1

    undecided = 0
    for sp, t in (board or {}).items():
        if isinstance(t, tuple):
            _, tok, kb = t
            cells[sp] = {"token": tok, "face_down": True, "known_by": list(kb)}
            if tok:
                note(tok)
            else:
                undecided += 1
        else:
            cells[sp] = {"token": t, "face_down": False, "known_by": []}
            note(t)
    seats = []
    for p in range(players):
        st = list((stashes or {}).get(p, []))
        pf = list((files or {}).get(p, []))
        tl = list((tools or {}).get(p, []))
        for t in st + pf:
            note(t)
        for t in tl:
            note("tool_" + t)
        seats.append({"money": (money or {}).get(p, 10), "stash": st, "tools": tl, "police_file": pf,
                      "characters": list((hands or {}).get(p, [])),
                      "burglary_cards": list((kept or {}).get(p, []))})
    for key in ("set",):
        for t in extra.get(key, []):
            note(t)
    if extra.get("pending_token"):
        note(extra["pending_token"])
    rest_round = []
    rest_start = []
    for k, name in enumerate(KINDS):
        have = listed.get(name, 0)
        if E.is_start(k):
            rest_start += [name] * (E.start_count(k) - have)
        else:
            total = E.round_count(k) if (night or k != E.KIND_BURGLARY) else 0
            rest_round += [name] * (total - have)
    assert all(n >= 0 for n in listed.values())
    held = [c for p in range(players) for c in (hands or {}).get(p, [])] + list(discard)
    d = {
        "players": players, "phase": phase, "night": night, "active_player": active, "pawn": pawn,
        "board": cells, "seats": seats,
        "bag": [] if night else rest_round,
        "face_down_pool": rest_round if night else [],
        "starting_aside": rest_start,
        "burglary_tokens_aside": 0 if night else 10,
        "character_draw": [c for c in E.CHARACTERS if c not in held],
        "character_discard": list(discard),
        "burglary_draw": _burglary_left(kept or {}),
    }
    d.update({k: v for k, v in extra.items()})
    return GAME.from_description(d)


def _burglary_left(kept):
    cards = [10, 9, 8, 7, 6, 5, 4, 4, 3, 3, 2, 1, -1, -2, -3, -5]
    for vals in kept.values():
        for v in vals:
            cards.remove(v)
    return cards


def act(state, *actions, rng=None):
    """Applies decisions in order, resolving chance events at random in between."""
    rng = rng or random.Random(0)
    for a in actions:
        resolve(state, rng)
        assert a in state.legal_actions(), (a, state.legal_actions(), state.describe()["phase"])
        state.apply(a)
    resolve(state, rng)
    return state


def resolve(state, rng=None, pick=None):
    rng = rng or random.Random(0)
    while state.is_chance_node():
        outcomes = [a for a, _ in state.chance_outcomes()]
        state.apply(pick(outcomes) if pick else state.sample_chance(rng.getrandbits(63)))
    return state


def space(sp):
    return E.ACTION_SPACE + sp


def kind(name):
    return E.ACTION_KIND + KINDS.index(name)


def play(name):
    return E.ACTION_PLAY + E.CHARACTERS.index(name)


def hide(name):
    return E.ACTION_HIDE + E.CHARACTERS.index(name)


def fagin(t):
    return E.ACTION_FAGIN + E.OBJECT_TYPES.index(t)


def seat(p):
    return E.ACTION_SEAT + p


def keep(v):
    return E.ACTION_KEEP + E.BURGLARY_VALUES.index(v)


def tool(t):
    return E.ACTION_TOOL + E.TOOL_NAMES.index(t)


TAKE = E.ACTION_TAKE
DONE = E.ACTION_DONE
RELOCATE = E.ACTION_RELOCATE
GIVE_UP = E.ACTION_GIVE_UP


def money(state):
    return [s["money"] for s in state.describe()["seats"]]
