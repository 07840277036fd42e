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

from fagin.engines.abi cimport GameDef, PLAYER_CHANCE, PLAYER_TERMINAL
from fagin.engines.room cimport export_game_def, game_def, read_state
from fagin.engines.rng cimport Rng, rng_below, mix64

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

# The room's table (engines/abi.pxd), filled by the room kit (engines/room.pxd): a reference
# game's rules alone.
cdef GameDef LD_DEF
game_def(&LD_DEF, b"liars_dice", sizeof(LiarsState), 2, MAX_BIDS + 1, MAX_BIDS, MAX_BIDS,
         2 * MAX_DICE + MAX_BIDS + 1, ld_num_players, ld_current_player, ld_legal_actions, ld_apply_action,
         ld_chance_outcomes, ld_sample_chance, ld_returns, ld_determinize, ld_infoset_key, ld_make_current)

GAME_DEF = export_game_def(&LD_DEF)

# What an action id means depends on the options (OpenSpiel's parameters): actions.py names,
# types and reads actions under the state's options (``options_of``), and the state's Python
# side below reads the options with the same helpers (actions.py does not import this module).
from fagin.engines.liars_dice.actions import RULES, _bid, _settings, given_options


include "state.pxi"
