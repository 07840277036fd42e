# cython: language_level=3
"""Goofspiel, exactly as OpenSpiel's ``goofspiel`` (2 players): a reference game.

Each seat holds bid cards 1..N (action ids 0..N-1); each turn a point card
(ids 0..N-1, worth id + 1) is turned up — by chance, or in descending or
ascending order — and both seats bid at once; the higher bid wins the
point card's value, a tie discards it. With one card left in each hand the
last turn plays itself. OpenSpiel's simultaneous bids are two sequential
decisions here, the first hidden from the second (docs/architecture.md).
Options (OpenSpiel's): ``num_cards``, ``imp_info`` (a seat sees only who won
each turn, not the other's bids), ``points_order``, ``returns_type``
(``win_loss``: +1/-1/0; ``point_difference``: points minus the mean;
``total_points``).
"""
from libc.stdint cimport int8_t, int16_t, uint16_t, uint64_t
from libc.string cimport memset

from fagin.engines.abi cimport GameDef, PLAYER_CHANCE, PLAYER_TERMINAL
from fagin.engines.room cimport export_game_def, game_def, read_state
from fagin.engines.rng cimport Rng, rng_below, mix64

cdef enum:
    MAX_CARDS = 13
    ORDER_RANDOM = 0
    ORDER_DESCENDING = 1
    ORDER_ASCENDING = 2
    RETURNS_WIN_LOSS = 0
    RETURNS_POINT_DIFFERENCE = 1
    RETURNS_TOTAL_POINTS = 2

ctypedef struct GoofState:
    uint16_t hand[2]            # bid cards left (bit = card id)
    uint16_t deck               # point cards not yet turned up
    int16_t points[2]
    int8_t n
    int8_t imp_info
    int8_t order
    int8_t returns_type
    int8_t turn                 # bidding turns completed
    int8_t need_point           # chance: the point card of this turn
    int8_t priority             # seat made current (simultaneous bids), -1 none
    int8_t pending[2]           # this turn's bids, -1 if not made
    int8_t point[MAX_CARDS]     # point card of each turn
    int8_t bids[2][MAX_CARDS]
    int8_t winner[MAX_CARDS]    # 0, 1, or 2 for a tie

cdef inline int lowest(unsigned int x) noexcept nogil:
    cdef int i = 0
    while not (x >> i) & 1:
        i += 1
    return i

cdef inline int highest(unsigned int x) noexcept nogil:
    cdef int i = 15
    while not (x >> i) & 1:
        i -= 1
    return i

cdef void next_point(GoofState* s) noexcept nogil:
    """Turns up the next point card, unless chance must."""
    if s.order == ORDER_RANDOM:
        s.need_point = 1
    else:
        s.point[s.turn] = highest(s.deck) if s.order == ORDER_DESCENDING else lowest(s.deck)
        s.deck &= ~(1u << s.point[s.turn])

cdef void resolve(GoofState* s, int b0, int b1) noexcept nogil:
    cdef int t = s.turn
    s.bids[0][t] = b0
    s.bids[1][t] = b1
    s.hand[0] &= ~(1u << b0)
    s.hand[1] &= ~(1u << b1)
    if b0 > b1:
        s.winner[t] = 0
        s.points[0] += s.point[t] + 1
    elif b1 > b0:
        s.winner[t] = 1
        s.points[1] += s.point[t] + 1
    else:
        s.winner[t] = 2
    s.turn += 1

cdef void end_turn(GoofState* s) noexcept nogil:
    resolve(s, s.pending[0], s.pending[1])
    s.pending[0] = -1
    s.pending[1] = -1
    s.priority = -1
    if s.turn == s.n - 1:
        # The last cards play themselves.
        s.point[s.turn] = lowest(s.deck)
        s.deck = 0
        resolve(s, lowest(s.hand[0]), lowest(s.hand[1]))
    else:
        next_point(s)

cdef int gs_num_players(const void* st) noexcept nogil:
    return 2

cdef int gs_current_player(const void* st) noexcept nogil:
    cdef const GoofState* s = <const GoofState*>st
    if s.turn >= s.n:
        return PLAYER_TERMINAL
    if s.need_point:
        return PLAYER_CHANCE
    if s.priority >= 0 and s.pending[s.priority] < 0:
        return s.priority
    return 0 if s.pending[0] < 0 else 1

cdef int gs_legal_actions(const void* st, int* out) noexcept nogil:
    cdef const GoofState* s = <const GoofState*>st
    cdef unsigned int bits
    cdef int n = 0, c
    if s.need_point:
        bits = s.deck
    else:
        bits = s.hand[gs_current_player(st)]
    for c in range(s.n):
        if (bits >> c) & 1:
            out[n] = c
            n += 1
    return n

cdef void gs_apply_action(void* st, int action) noexcept nogil:
    cdef GoofState* s = <GoofState*>st
    cdef int p
    if s.need_point:
        s.point[s.turn] = action
        s.deck &= ~(1u << action)
        s.need_point = 0
        return
    p = gs_current_player(st)
    s.pending[p] = action
    if s.pending[0] >= 0 and s.pending[1] >= 0:
        end_turn(s)

cdef int gs_chance_outcomes(const void* st, int* actions, double* probs) noexcept nogil:
    cdef int n = gs_legal_actions(st, actions), i
    for i in range(n):
        probs[i] = 1.0 / n
    return n

cdef int gs_sample_chance(const void* st, Rng* rng) noexcept nogil:
    cdef int acts[MAX_CARDS]
    cdef int n = gs_legal_actions(st, acts)
    return acts[rng_below(rng, n)]

cdef void gs_returns(const void* st, double* out) noexcept nogil:
    cdef const GoofState* s = <const GoofState*>st
    cdef double mean = (s.points[0] + s.points[1]) / 2.0
    if s.returns_type == RETURNS_WIN_LOSS:
        out[0] = 1.0 if s.points[0] > s.points[1] else (-1.0 if s.points[0] < s.points[1] else 0.0)
        out[1] = -out[0]
    elif s.returns_type == RETURNS_POINT_DIFFERENCE:
        out[0] = s.points[0] - mean
        out[1] = s.points[1] - mean
    else:
        out[0] = s.points[0]
        out[1] = s.points[1]

cdef bint sample_bids(GoofState* s, int observer, int t, unsigned int used, Rng* rng) noexcept nogil:
    """Gives the other seat past bids consistent with what `observer` saw (imp_info)."""
    cdef int other = 1 - observer, mine, v, k, i, n = 0
    cdef int cand[MAX_CARDS]
    if t == s.turn:
        return True
    mine = s.bids[observer][t]
    for v in range(s.n):
        if (used >> v) & 1:
            continue
        # A tie (2) needs the same card; the observer's win a lower one; the other's win a higher one.
        if s.winner[t] == 2:
            if v != mine:
                continue
        elif s.winner[t] == observer:
            if v >= mine:
                continue
        elif v <= mine:
            continue
        cand[n] = v
        n += 1
    # Try the candidates in random order (a random depth-first search).
    while n > 0:
        k = rng_below(rng, n)
        v = cand[k]
        cand[k] = cand[n - 1]
        n -= 1
        s.bids[other][t] = v
        if sample_bids(s, observer, t + 1, used | (1u << v), rng):
            return True
    return False

cdef void gs_determinize(void* st, int observer, Rng* rng) noexcept nogil:
    cdef GoofState* s = <GoofState*>st
    cdef int other = 1 - observer, t
    cdef unsigned int used = 0
    cdef int8_t saved[MAX_CARDS]
    s.pending[other] = -1                          # a bid not yet shown
    if s.imp_info and s.turn > 0:
        for t in range(s.turn):
            saved[t] = s.bids[other][t]
        if not sample_bids(s, observer, 0, 0, rng):
            for t in range(s.turn):
                s.bids[other][t] = saved[t]        # cannot happen: the truth is consistent
        s.hand[other] = (1u << s.n) - 1
        for t in range(s.turn):
            s.hand[other] &= ~(1u << s.bids[other][t])

cdef uint64_t gs_infoset_key(const void* st, int player) noexcept nogil:
    cdef const GoofState* s = <const GoofState*>st
    cdef uint64_t h = mix64(<uint64_t>(player + 1), <uint64_t>(s.n * 64 + s.turn))
    cdef int t
    if s.imp_info:
        # Own bids in order, the point cards and who won each turn (OpenSpiel's view).
        for t in range(s.turn):
            h = mix64(h, <uint64_t>(s.point[t] * 256 + s.bids[player][t] * 16 + s.winner[t]))
    else:
        # OpenSpiel's perfect-information view: point cards, who won, and both hands.
        for t in range(s.turn):
            h = mix64(h, <uint64_t>(s.point[t] * 16 + s.winner[t]))
        h = mix64(h, <uint64_t>(s.hand[0] * 65536 + s.hand[1]))
    if s.turn < s.n and not s.need_point:
        h = mix64(h, <uint64_t>(2000 + s.point[s.turn]))
    h = mix64(h, <uint64_t>(3000 + s.pending[player] + 1))
    return h

cdef int gs_make_current(void* st, int seat) noexcept nogil:
    cdef GoofState* s = <GoofState*>st
    if gs_current_player(st) >= 0 and s.pending[seat] < 0:
        s.priority = seat
        return 1
    return 0

# The room's table (engines/abi.pxd), filled by the room kit (engines/room.pxd): a reference
# game's rules alone.
cdef GameDef GS_DEF
game_def(&GS_DEF, b"goofspiel", sizeof(GoofState), 2, MAX_CARDS, MAX_CARDS, MAX_CARDS, 3 * MAX_CARDS,
         gs_num_players, gs_current_player, gs_legal_actions, gs_apply_action, gs_chance_outcomes, gs_sample_chance,
         gs_returns, gs_determinize, gs_infoset_key, gs_make_current)

GAME_DEF = export_game_def(&GS_DEF)

include "state.pxi"
