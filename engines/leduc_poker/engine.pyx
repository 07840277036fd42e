# cython: language_level=3
"""Leduc poker, exactly as OpenSpiel's ``leduc_poker`` (2 players): a reference game.

Six cards: ids 0..5, rank ``id // 2`` (J, J, Q, Q, K, K). Each seat antes 1
and gets one private card (chance: seat 0 first); a betting round; one
public card (chance); a second betting round; showdown (a pair with the
public card wins, else the higher rank; equal ranks split). Actions: 0 =
fold (only when facing a bet), 1 = call/check, 2 = raise (2 chips in the
first round, 4 in the second; at most two raises a round). Seat 0 opens
both rounds. A round ends after check-check, or after a call that answers a
raise. Chance outcomes are card ids, as in OpenSpiel.
"""
from libc.stdint cimport int8_t, int16_t, uint64_t
from libc.string cimport memset

from fagin.engines.abi cimport GameDef, PLAYER_CHANCE, PLAYER_TERMINAL
from fagin.engines.room cimport export_game_def, game_def, read_state
from fagin.engines.rng cimport Rng, rng_below, mix64


cdef enum:
    FOLD = 0
    CALL = 1
    RAISE = 2
    MAX_ROUND_ACTIONS = 4
    NUM_CARDS = 6

ctypedef struct LeducState:
    int16_t contrib[2]
    int16_t stakes
    int8_t priv[2]
    int8_t public_card
    int8_t round            # 0 or 1
    int8_t raises
    int8_t calls
    int8_t player
    int8_t folded           # the seat that folded, or -1
    int8_t showdown         # the second round is over
    int8_t need_public      # the first round is over, the public card not dealt yet
    int8_t history[2][MAX_ROUND_ACTIONS]
    int8_t num_actions[2]

cdef int lp_num_players(const void* st) noexcept nogil:
    return 2

cdef int lp_current_player(const void* st) noexcept nogil:
    cdef const LeducState* s = <const LeducState*>st
    if s.folded >= 0 or s.showdown:
        return PLAYER_TERMINAL
    if s.priv[1] < 0 or s.need_public:
        return PLAYER_CHANCE
    return s.player

cdef int lp_legal_actions(const void* st, int* out) noexcept nogil:
    cdef const LeducState* s = <const LeducState*>st
    cdef int n = 0, c
    if s.priv[1] < 0 or s.need_public:
        for c in range(NUM_CARDS):
            if c != s.priv[0] and c != s.priv[1] and c != s.public_card:
                out[n] = c
                n += 1
        return n
    if s.contrib[s.player] < s.stakes:
        out[n] = FOLD
        n += 1
    out[n] = CALL
    n += 1
    if s.raises < 2:
        out[n] = RAISE
        n += 1
    return n

cdef void lp_apply_action(void* st, int action) noexcept nogil:
    cdef LeducState* s = <LeducState*>st
    cdef int p = s.player
    if s.priv[0] < 0:
        s.priv[0] = action
        return
    if s.priv[1] < 0:
        s.priv[1] = action
        return
    if s.need_public:
        s.public_card = action
        s.need_public = 0
        return
    s.history[s.round][s.num_actions[s.round]] = action
    s.num_actions[s.round] += 1
    if action == FOLD:
        s.folded = p
        return
    if action == CALL:
        s.contrib[p] = s.stakes
        s.calls += 1
        if (s.raises == 0 and s.calls == 2) or (s.raises > 0 and s.calls == 1):
            if s.round == 0:
                s.round = 1
                s.raises = 0
                s.calls = 0
                s.player = 0
                s.need_public = 1
            else:
                s.showdown = 1
            return
    else:
        s.stakes += 2 if s.round == 0 else 4
        s.contrib[p] = s.stakes
        s.raises += 1
        s.calls = 0
    s.player = 1 - p

cdef int lp_chance_outcomes(const void* st, int* actions, double* probs) noexcept nogil:
    cdef int n = lp_legal_actions(st, actions), i
    for i in range(n):
        probs[i] = 1.0 / n
    return n

cdef int lp_sample_chance(const void* st, Rng* rng) noexcept nogil:
    cdef int acts[NUM_CARDS]
    cdef int n = lp_legal_actions(st, acts)
    return acts[rng_below(rng, n)]

cdef int strength(const LeducState* s, int p) noexcept nogil:
    cdef int rank = s.priv[p] // 2
    if rank == s.public_card // 2:
        return 100 + rank
    return rank

cdef void lp_returns(const void* st, double* out) noexcept nogil:
    cdef const LeducState* s = <const LeducState*>st
    cdef int a, b
    if s.folded >= 0:
        out[s.folded] = -s.contrib[s.folded]
        out[1 - s.folded] = s.contrib[s.folded]
        return
    a = strength(s, 0)
    b = strength(s, 1)
    if a == b:
        out[0] = 0.0
        out[1] = 0.0
    elif a > b:
        out[0] = s.contrib[1]
        out[1] = -s.contrib[1]
    else:
        out[0] = -s.contrib[0]
        out[1] = s.contrib[0]

cdef void lp_determinize(void* st, int observer, Rng* rng) noexcept nogil:
    # The other seat's card is the only hidden thing.
    cdef LeducState* s = <LeducState*>st
    cdef int other = 1 - observer, n = 0, c
    cdef int free[NUM_CARDS]
    if s.priv[other] < 0 or s.priv[observer] < 0:
        return
    for c in range(NUM_CARDS):
        if c != s.priv[observer] and c != s.public_card:
            free[n] = c
            n += 1
    s.priv[other] = free[rng_below(rng, n)]

cdef uint64_t lp_infoset_key(const void* st, int player) noexcept nogil:
    cdef const LeducState* s = <const LeducState*>st
    cdef uint64_t h = mix64(<uint64_t>(player + 1), <uint64_t>(s.priv[player] + 2))
    cdef int r, i
    h = mix64(h, <uint64_t>(s.public_card + 2))
    for r in range(2):
        for i in range(s.num_actions[r]):
            h = mix64(h, <uint64_t>(s.history[r][i] + 10))
        h = mix64(h, <uint64_t>(100 + s.num_actions[r]))
    return h

cdef int lp_make_current(void* st, int seat) noexcept nogil:
    return 1 if lp_current_player(st) == seat else 0

# The room's table (engines/abi.pxd), filled by the room kit (engines/room.pxd): a reference
# game's rules alone.
cdef GameDef LP_DEF
game_def(&LP_DEF, b"leduc_poker", sizeof(LeducState), 2, NUM_CARDS, NUM_CARDS, 3, 3 + 2 * MAX_ROUND_ACTIONS,
         lp_num_players, lp_current_player, lp_legal_actions, lp_apply_action, lp_chance_outcomes, lp_sample_chance,
         lp_returns, lp_determinize, lp_infoset_key, lp_make_current)

GAME_DEF = export_game_def(&LP_DEF)

include "state.pxi"
