# cython: language_level=3
"""Liar's Dice, exactly as OpenSpiel's ``liars_dice`` (2 players): a reference game.

Each seat rolls its dice in secret (chance: seat 0's dice one by one, then
seat 1's; outcome ``i`` is face ``i + 1``, each with probability
``1 / dice_sides``); once all are rolled, each seat's dice are sorted. Seat 0
bids first; each bid must be higher than the last. A bid claims that at
least ``quantity`` dice on the table show ``face``; the highest face is wild
(it matches every face). Instead of bidding, a seat may call the last bid a
lie (not before the first bid): if the bid holds, the bidder wins (+1, the
caller -1), otherwise the caller wins.

Action ids are OpenSpiel's: with ``T`` dice in all and ``S`` sides, bids are
``0 .. T*S - 1``, ranked so that a higher id is a higher bid, and ``T*S``
calls "Liar". With the ``reset-face`` rule (the default) bid ``b`` is
quantity ``b // S + 1``, face ``b % S + 1``; with ``reset-quantity`` it is
quantity ``b % T + 1``, face ``b // T + 1``.

The rules run for OpenSpiel's parameters ``numdice`` (up to ``MAX_DICE`` a
seat), ``dice_sides`` (up to ``MAX_SIDES``) and ``bidding_rule``, the API's
options; the state records them (``options_of``), and actions are named,
typed and read under them (``actions.py``).
"""
cimport cython
from libc.stdint cimport int8_t, uint64_t
from libc.string cimport memset

from engines.abi cimport GameDef, GAMEDEF_CAPSULE, PLAYER_CHANCE, PLAYER_TERMINAL
from engines.rng cimport Rng, rng_below, mix64
from cpython.pycapsule cimport PyCapsule_New

from fagin.engines.validation import int_in

cdef enum:
    MAX_DICE = 5                            # per seat
    MAX_SIDES = 6
    MAX_BIDS = 2 * MAX_DICE * MAX_SIDES     # bid ids of the largest game; its Liar id
    RESET_FACE = 0
    RESET_QUANTITY = 1

ctypedef struct LiarsState:
    int8_t num_dice[2]
    int8_t sides
    int8_t rule
    int8_t total            # num_dice[0] + num_dice[1]
    int8_t rolled           # dice rolled so far, seat 0's first
    int8_t dice[2][MAX_DICE]    # faces 1..sides; 0 = not rolled yet
    int8_t player
    int8_t winner           # -1 until someone calls
    int8_t num_actions
    int8_t actions[MAX_BIDS + 1]

cdef inline int liar_id(const LiarsState* s) noexcept nogil:
    return s.total * s.sides

cdef int ld_num_players(const void* st) noexcept nogil:
    return 2

cdef int ld_current_player(const void* st) noexcept nogil:
    cdef const LiarsState* s = <const LiarsState*>st
    if s.winner >= 0:
        return PLAYER_TERMINAL
    if s.rolled < s.total:
        return PLAYER_CHANCE
    return s.player

cdef int ld_legal_actions(const void* st, int* out) noexcept nogil:
    cdef const LiarsState* s = <const LiarsState*>st
    cdef int n = 0, b, first = 0
    if s.rolled < s.total:
        for b in range(s.sides):
            out[b] = b
        return s.sides
    if s.num_actions > 0:
        first = s.actions[s.num_actions - 1] + 1
    for b in range(first, liar_id(s)):
        out[n] = b
        n += 1
    if s.num_actions > 0:
        out[n] = liar_id(s)
        n += 1
    return n

cdef void sort_dice(int8_t* d, int n) noexcept nogil:
    cdef int i, j
    cdef int8_t v
    for i in range(1, n):
        v = d[i]
        j = i - 1
        while j >= 0 and d[j] > v:
            d[j + 1] = d[j]
            j -= 1
        d[j + 1] = v

cdef void ld_apply_action(void* st, int action) noexcept nogil:
    cdef LiarsState* s = <LiarsState*>st
    cdef int seat, slot, bid, quantity, face, matches = 0, p, d
    if s.rolled < s.total:
        seat = 0 if s.rolled < s.num_dice[0] else 1
        slot = s.rolled - (0 if seat == 0 else s.num_dice[0])
        s.dice[seat][slot] = action + 1
        s.rolled += 1
        if s.rolled == s.total:
            # OpenSpiel sorts each seat's dice once all are rolled; only the
            # multiset is information.
            sort_dice(s.dice[0], s.num_dice[0])
            sort_dice(s.dice[1], s.num_dice[1])
            s.player = 0
        return
    s.actions[s.num_actions] = action
    s.num_actions += 1
    if action != liar_id(s):
        s.player = 1 - s.player
        return
    bid = s.actions[s.num_actions - 2]
    if s.rule == RESET_FACE:
        quantity = bid // s.sides + 1
        face = bid % s.sides + 1
    else:
        quantity = bid % s.total + 1
        face = bid // s.total + 1
    for p in range(2):
        for d in range(s.num_dice[p]):
            if s.dice[p][d] == face or s.dice[p][d] == s.sides:
                matches += 1
    # The bidder is the other seat (the caller is s.player).
    s.winner = 1 - s.player if matches >= quantity else s.player

cdef int ld_chance_outcomes(const void* st, int* actions, double* probs) noexcept nogil:
    cdef const LiarsState* s = <const LiarsState*>st
    cdef int i
    for i in range(s.sides):
        actions[i] = i
        probs[i] = 1.0 / s.sides
    return s.sides

cdef int ld_sample_chance(const void* st, Rng* rng) noexcept nogil:
    return <int>rng_below(rng, (<const LiarsState*>st).sides)

cdef void ld_returns(const void* st, double* out) noexcept nogil:
    cdef const LiarsState* s = <const LiarsState*>st
    out[0] = 0.0
    out[1] = 0.0
    if s.winner >= 0:
        out[s.winner] = 1.0
        out[1 - s.winner] = -1.0

cdef void ld_determinize(void* st, int observer, Rng* rng) noexcept nogil:
    # Bids are actions, not evidence the rules act on: every roll of the other
    # seat's dice stays possible, each with its chance probability.
    cdef LiarsState* s = <LiarsState*>st
    cdef int other = 1 - observer, d
    if s.rolled < s.total:
        return
    for d in range(s.num_dice[other]):
        s.dice[other][d] = <int8_t>(rng_below(rng, s.sides) + 1)
    sort_dice(s.dice[other], s.num_dice[other])

cdef uint64_t ld_infoset_key(const void* st, int player) noexcept nogil:
    # OpenSpiel's information state string: the seat's own dice (sorted once
    # all are rolled) and every action so far. Dice counts are fixed per seat,
    # so dice then actions is unambiguous.
    cdef const LiarsState* s = <const LiarsState*>st
    cdef uint64_t h = mix64(<uint64_t>(player + 1), <uint64_t>s.rolled)
    cdef int i
    for i in range(s.num_dice[player]):
        h = mix64(h, <uint64_t>s.dice[player][i])
    for i in range(s.num_actions):
        h = mix64(h, <uint64_t>(s.actions[i] + 16))
    return mix64(h, <uint64_t>(1000 + s.num_actions))

cdef int ld_make_current(void* st, int seat) noexcept nogil:
    return 1 if ld_current_player(st) == seat else 0

cdef GameDef LD_DEF
LD_DEF.game_id = b"liars_dice"
LD_DEF.state_size = sizeof(LiarsState)
LD_DEF.max_players = 2
LD_DEF.num_distinct_actions = MAX_BIDS + 1
LD_DEF.max_legal_actions = MAX_BIDS
LD_DEF.max_decision_actions = MAX_BIDS
LD_DEF.max_game_length = 2 * MAX_DICE + MAX_BIDS + 1
LD_DEF.num_players = ld_num_players
LD_DEF.current_player = ld_current_player
LD_DEF.legal_actions = ld_legal_actions
LD_DEF.apply_action = ld_apply_action
LD_DEF.chance_outcomes = ld_chance_outcomes
LD_DEF.sample_chance = ld_sample_chance
LD_DEF.returns = ld_returns
LD_DEF.determinize = ld_determinize
LD_DEF.infoset_key = ld_infoset_key
LD_DEF.make_current = ld_make_current
LD_DEF.rollout_action = NULL

GAME_DEF = PyCapsule_New(<void*>&LD_DEF, GAMEDEF_CAPSULE, NULL)

# What an action id means depends on the options (OpenSpiel's parameters):
# naming, typing and reading actions is plain Python in actions.py, under the
# state's options (``options_of``).
from fagin.engines.liars_dice.actions import (RULES, _bid, _settings, action_from_typed, action_label,
                                              given_options, typed_action)


def initial_state_bytes(int players=2, int numdice=1, int dice_sides=6, bidding_rule="reset-face"):
    """The state before the first roll; the keywords are OpenSpiel's parameters."""
    if players != 2:
        raise ValueError(f"players: Liar's Dice is a 2-player game, not {players}")
    if not 1 <= numdice <= MAX_DICE:
        raise ValueError(f"options.numdice: expected 1 to {MAX_DICE} dice a seat, got {numdice}")
    if not 1 <= dice_sides <= MAX_SIDES:
        raise ValueError(f"options.dice_sides: expected 1 to {MAX_SIDES} sides, got {dice_sides}")
    if bidding_rule not in RULES:
        raise ValueError(f"options.bidding_rule: expected reset-face or reset-quantity, got {bidding_rule!r}")
    cdef LiarsState s
    memset(&s, 0, sizeof(LiarsState))
    s.num_dice[0] = numdice
    s.num_dice[1] = numdice
    s.total = 2 * numdice
    s.sides = dice_sides
    s.rule = RESET_FACE if bidding_rule == "reset-face" else RESET_QUANTITY
    s.winner = -1
    return (<char*>&s)[:sizeof(LiarsState)]


def options_of(data):
    """The options (OpenSpiel's parameters) a state was made with."""
    cdef const unsigned char[::1] view = data
    cdef const LiarsState* s = <const LiarsState*>&view[0]
    return {"numdice": s.num_dice[0], "dice_sides": s.sides, "bidding_rule": RULES[s.rule]}


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


# ------------------------------------------------- the API's dict form
# Shaped like the LiarsDiceState message. Positions are rebuilt by replaying
# the rolls and the actions through the engine, so every rule checks them.

def describe(data):
    cdef const unsigned char[::1] view = data
    cdef const LiarsState* s = <const LiarsState*>&view[0]
    rolled = [min(s.rolled, s.num_dice[0]), max(0, s.rolled - s.num_dice[0])]
    return {"options": options_of(data),
            "dice0": [s.dice[0][i] for i in range(rolled[0])],
            "dice1": [s.dice[1][i] for i in range(rolled[1])],
            "actions": [s.actions[i] for i in range(s.num_actions)]}


def view(data, int seat):
    """The state as ``seat`` sees it: the other seat's dice are -1 (how many it rolled is public)."""
    if seat not in (0, 1):
        raise ValueError(f"seat: {seat} is not a seat of Liar's Dice")
    d = describe(data)
    d[f"dice{1 - seat}"] = [-1] * len(d[f"dice{1 - seat}"])
    return d


@cython.boundscheck(True)
@cython.wraparound(True)
def from_description(d, game):
    """Replays the rolls and the actions; hidden dice (-1) become 1s (a search redraws them)."""
    given = given_options(d.get("options"))
    try:
        st = game.new_initial_state(2, **given)
    except ValueError as e:
        raise ValueError(f"options.{e}" if not str(e).startswith("options") else str(e)) from None
    n, sides, _ = _settings(options_of(st.to_bytes()))
    dice = [list(d.get("dice0") or []), list(d.get("dice1") or [])]
    for p in (0, 1):
        field = f"dice{p}"
        if len(dice[p]) > n:
            raise ValueError(f"{field}: seat {p} has {n} {'die' if n == 1 else 'dice'}, "
                             f"got {len(dice[p])}")
        for i, face in enumerate(dice[p]):
            if not _is_int(face) or not (face == -1 or 1 <= face <= sides):
                raise ValueError(f"{field}[{i}]: a face is 1 to {sides} (or -1 when hidden), got {face!r}")
        if -1 in dice[p] and any(f != -1 for f in dice[p]):
            raise ValueError(f"{field}: hide all of a seat's dice or none")
    if dice[1] and len(dice[0]) < n:
        raise ValueError("dice1: seat 0 rolls all its dice before seat 1 rolls")
    for p in (0, 1):
        for face in dice[p]:
            st.apply(0 if face == -1 else face - 1)
    for i, a in enumerate(d.get("actions") or []):
        if st.is_chance_node():
            raise ValueError(f"actions[{i}]: the dice are not all rolled yet")
        if st.is_terminal():
            raise ValueError(f"actions[{i}]: the game is over (the last bid was called)")
        if not _is_int(a) or a not in st.legal_actions():
            raise ValueError(f"actions[{i}]: {a!r} is not legal here (legal: {_span(st.legal_actions())})")
        st.apply(a)
    return st.to_bytes()


def _span(actions):
    return f"{actions[0]} to {actions[len(actions) - 1]}" if len(actions) > 2 else ", ".join(map(str, actions))


def _action_text(a, options):
    n, sides, _ = _settings(options)
    return "liar" if a == 2 * n * sides else "%d-%d" % _bid(a, options)


def summary(data):
    d = describe(data)
    return (f"dice {d['dice0']} {d['dice1']}, "
            f"actions {' '.join(_action_text(a, d['options']) for a in d['actions']) or '-'}")


def render(data, seat=None):
    d = describe(data) if seat is None else view(data, seat)
    dice = lambda faces: " ".join(str(f) if f > 0 else "?" for f in faces) or "-"
    return (f"Liar's Dice: seat 0 dice {dice(d['dice0'])}, seat 1 dice {dice(d['dice1'])}; "
            f"actions {' '.join(_action_text(a, d['options']) for a in d['actions']) or '-'}")
