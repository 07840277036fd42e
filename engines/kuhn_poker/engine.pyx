# cython: language_level=3
"""Kuhn poker, exactly as OpenSpiel's ``kuhn_poker`` (2 players): a reference game.

Three cards (0 < 1 < 2); chance deals one to seat 0, then one to seat 1.
Each seat antes 1. Actions: 0 = pass, 1 = bet (1 chip). Terminal sequences:
pass-pass and bet-bet / pass-bet-bet are showdowns; bet-pass and
pass-bet-pass are folds. Chance outcomes are the card ids, as in OpenSpiel.
"""
from libc.stdint cimport int8_t, uint64_t
from libc.string cimport memset

from fagin.engines.abi cimport GameDef, PLAYER_CHANCE, PLAYER_TERMINAL
from fagin.engines.room cimport export_game_def, game_def, read_state
from fagin.engines.rng cimport Rng, rng_below, mix64


cdef enum:
    PASS = 0
    BET = 1
    MAX_HISTORY = 3

ctypedef struct KuhnState:
    int8_t card[2]
    int8_t history[MAX_HISTORY]
    int8_t num_actions

cdef inline int dealt(const KuhnState* s) noexcept nogil:
    return (s.card[0] >= 0) + (s.card[1] >= 0)

cdef int terminal(const KuhnState* s) noexcept nogil:
    cdef int n = s.num_actions
    if n == 2:
        return s.history[0] == s.history[1] or (s.history[0] == BET and s.history[1] == PASS)
    return n == 3

cdef int kp_num_players(const void* st) noexcept nogil:
    return 2

cdef int kp_current_player(const void* st) noexcept nogil:
    cdef const KuhnState* s = <const KuhnState*>st
    if dealt(s) < 2:
        return PLAYER_CHANCE
    if terminal(s):
        return PLAYER_TERMINAL
    return s.num_actions % 2

cdef int kp_legal_actions(const void* st, int* out) noexcept nogil:
    cdef const KuhnState* s = <const KuhnState*>st
    cdef int c, n = 0
    if dealt(s) < 2:
        for c in range(3):
            if c != s.card[0]:
                out[n] = c
                n += 1
        return n
    out[0] = PASS
    out[1] = BET
    return 2

cdef void kp_apply_action(void* st, int action) noexcept nogil:
    cdef KuhnState* s = <KuhnState*>st
    if s.card[0] < 0:
        s.card[0] = action
    elif s.card[1] < 0:
        s.card[1] = action
    else:
        s.history[s.num_actions] = action
        s.num_actions += 1

cdef int kp_chance_outcomes(const void* st, int* actions, double* probs) noexcept nogil:
    cdef int n = kp_legal_actions(st, actions), i
    for i in range(n):
        probs[i] = 1.0 / n
    return n

cdef int kp_sample_chance(const void* st, Rng* rng) noexcept nogil:
    cdef int acts[3]
    cdef int n = kp_legal_actions(st, acts)
    return acts[rng_below(rng, n)]

cdef void kp_returns(const void* st, double* out) noexcept nogil:
    cdef const KuhnState* s = <const KuhnState*>st
    cdef int bets = 0, i, winner
    cdef double pot
    for i in range(s.num_actions):
        bets += s.history[i] == BET
    if s.num_actions == 2 and s.history[0] == BET and s.history[1] == PASS:
        winner = 0
        pot = 1.0
    elif s.num_actions == 3 and s.history[2] == PASS:
        winner = 1
        pot = 1.0
    else:
        winner = 0 if s.card[0] > s.card[1] else 1
        pot = 1.0 + (1.0 if bets == 2 else 0.0)
    out[winner] = pot
    out[1 - winner] = -pot

cdef void kp_determinize(void* st, int observer, Rng* rng) noexcept nogil:
    # The other seat's card is the only hidden thing: any card but the observer's.
    cdef KuhnState* s = <KuhnState*>st
    cdef int other = 1 - observer, r
    if s.card[other] < 0 or s.card[observer] < 0:
        return
    r = rng_below(rng, 2)
    s.card[other] = r if r < s.card[observer] else r + 1

cdef uint64_t kp_infoset_key(const void* st, int player) noexcept nogil:
    cdef const KuhnState* s = <const KuhnState*>st
    cdef uint64_t h = mix64(<uint64_t>(player + 1), <uint64_t>(s.card[player] + 2))
    cdef int i
    for i in range(s.num_actions):
        h = mix64(h, <uint64_t>(s.history[i] + 10))
    return mix64(h, <uint64_t>s.num_actions)

cdef int kp_make_current(void* st, int seat) noexcept nogil:
    return 1 if kp_current_player(st) == seat else 0

# The room's table (engines/abi.pxd), filled by the room kit (engines/room.pxd): a reference
# game's rules alone: 2 seats, 3 action ids (at most 3 legal, 2 at a decision), at most 5 actions a game.
cdef GameDef KP_DEF
game_def(&KP_DEF, b"kuhn_poker", sizeof(KuhnState), 2, 3, 3, 2, 5, kp_num_players, kp_current_player,
         kp_legal_actions, kp_apply_action, kp_chance_outcomes, kp_sample_chance, kp_returns, kp_determinize,
         kp_infoset_key, kp_make_current)

GAME_DEF = export_game_def(&KP_DEF)

include "state.pxi"
