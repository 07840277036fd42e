# cython: language_level=3
"""Gangs of Kyoto (Rüdiger Dorn, Matagot 2025): the rules engine.

The rules in our words, with every ruling cited here as ``GK-n``, are in
``seeds/gangs_of_kyoto.md``.  The deck is data: ``data/deck.json``
lists each kind of card and its count (GK-2), loaded when this module is
imported.

How the hidden cards are held (GK-18): the shuffled deck is a multiset of
counts (``pool``): drawing from it is a chance event.  Cards that have been
drawn but that nobody has seen — the active player's face-down cards, and
those put back on top of the deck when a round ends mid-deal — are held
explicitly, each with the *generation* of the deck it came from, so that
``determinize`` can reshuffle exactly the cards a seat cannot tell apart.

Action ids (stable):

* ``0..4``  give the revealed card to that seat
* ``5``     accept the arriving card;  ``6``: refuse it with a Refuse card
* ``7..``   chance: the top card of the shuffled deck is a card of kind ``id - 7``
"""
import json
import pathlib

cimport cython
from libc.stdint cimport int8_t, int16_t, int32_t, uint8_t, uint64_t
from libc.string cimport memset

from engines.abi cimport GameDef, GAMEDEF_CAPSULE, PLAYER_CHANCE, PLAYER_TERMINAL
from engines.rng cimport Rng, rng_below, mix64
from cpython.pycapsule cimport PyCapsule_New

from fagin.engines.validation import int_in as _int_in

cdef enum:
    GK_MAX_PLAYERS = 5
    MAX_KINDS = 32           # distinct kinds of card the data file may list
    ROW_CAP = 64             # cards in one row (zero-valued cards make rows long)
    HIDDEN_CAP = 24          # hidden bell cards in one victory pile
    TOP_CAP = 8              # cards put back on top of the deck (at most one deal)
    MAX_DECK = 255

    A_GIVE = 0
    A_ACCEPT = 5
    A_REFUSE = 6
    A_DRAW = 7

    # Card kinds.
    K_EXPLORATION = 0
    K_BELL = 1
    K_DISCARD = 2
    K_STAY_LATE = 3
    K_REFUSE = 4

    # Phases.
    PH_DRAW_DEAL = 0        # chance: the active player draws a card of the deal
    PH_GIVE = 1             # the active player gives the revealed card
    PH_REFUSE = 2           # the receiver may refuse the arriving card
    PH_DRAW_EFFECT = 3      # chance: a draw symbol's card comes off the deck
    PH_OVER = 4

    LIMIT = 13
    LIMIT_STAY_LATE = 18
    WIN_BELLS = 13

    # Public events folded into the information-set hashes.
    EV_POSITION = 1
    EV_REVEAL = 2
    EV_GIVE = 3
    EV_REFUSE = 4
    EV_PLACE = 5
    EV_HIDDEN_BELL = 6
    EV_OWN_BELL = 7
    EV_SEAT = 8

# The deck, from the data file (see _load_deck).
cdef int NUM_KINDS = 0
cdef int DECK_SIZE = 0
cdef int KIND_OF[MAX_KINDS]
cdef int VALUE_OF[MAX_KINDS]
cdef int BELLS_OF[MAX_KINDS]
cdef int DRAWS[MAX_KINDS]
cdef int COUNT_OF[MAX_KINDS]

ctypedef struct GKState:
    uint64_t public_hash
    uint64_t private_hash[GK_MAX_PLAYERS]
    int16_t pool[MAX_KINDS]                 # the shuffled deck, by kind (generation `gen`)
    int16_t discard[MAX_KINDS]              # the discard pile (face up, public)
    int8_t vp[GK_MAX_PLAYERS][MAX_KINDS]    # victory piles: cards everyone saw go in
    uint8_t hidden[GK_MAX_PLAYERS][HIDDEN_CAP]      # bell cards only their owner saw
    uint8_t hidden_gen[GK_MAX_PLAYERS][HIDDEN_CAP]
    uint8_t row[GK_MAX_PLAYERS][ROW_CAP]    # left to right
    uint8_t hand[GK_MAX_PLAYERS]            # the active player's face-down cards, next to reveal first
    uint8_t hand_gen[GK_MAX_PLAYERS]
    uint8_t top[TOP_CAP]                    # cards put back on top of the deck, next to draw last
    uint8_t top_gen[TOP_CAP]
    int16_t row_sum[GK_MAX_PLAYERS]
    int8_t row_len[GK_MAX_PLAYERS]
    int8_t hidden_len[GK_MAX_PLAYERS]
    int8_t hand_len
    int8_t top_len
    int8_t to_draw                          # cards of the deal still to draw
    int8_t players
    int8_t first                            # holder of the First Player card
    int8_t active
    int8_t phase
    int8_t revealed                         # kind revealed and not yet given, -1 if none
    int8_t receiver                         # seat receiving the arriving card
    int8_t arriving                         # kind of the arriving card, -1 if none
    uint8_t arriving_gen
    int8_t arriving_drawn                   # the arriving card came off the deck (draw symbol)
    int8_t winner
    uint8_t received                        # seats that received a card this turn
    uint8_t gen                             # generation of the pool (bumped by each reshuffle)
    uint8_t deck_ran_out                    # the deck has run out at least once (GK-16)
    uint8_t play_through                    # variant: play through the deck (GK-16)
    uint8_t open_piles                      # variant: victory piles face up (GK-17)
    int16_t rounds                          # rounds completed

# ------------------------------------------------------------------ helpers

cdef inline int pool_total(const GKState* s) noexcept nogil:
    cdef int t, n = 0
    for t in range(NUM_KINDS):
        n += s.pool[t]
    return n

cdef inline int discard_total(const GKState* s) noexcept nogil:
    cdef int t, n = 0
    for t in range(NUM_KINDS):
        n += s.discard[t]
    return n

cdef inline int count_kind(const GKState* s, int seat, int kind) noexcept nogil:
    cdef int i, n = 0
    for i in range(s.row_len[seat]):
        if KIND_OF[s.row[seat][i]] == kind:
            n += 1
    return n

cdef inline int limit_of(const GKState* s, int seat) noexcept nogil:
    # GK-9: a Stay Late card raises the limit while it lies in the row.
    return LIMIT_STAY_LATE if count_kind(s, seat, K_STAY_LATE) > 0 else LIMIT

cdef inline int bells_of(const GKState* s, int seat) noexcept nogil:
    cdef int t, i, n = 0
    for t in range(NUM_KINDS):
        n += s.vp[seat][t] * BELLS_OF[t]
    for i in range(s.hidden_len[seat]):
        n += BELLS_OF[s.hidden[seat][i]]
    return n

cdef inline void fold_public(GKState* s, uint64_t event) noexcept nogil:
    s.public_hash = mix64(s.public_hash, event)

cdef void reshuffle(GKState* s) noexcept nogil:
    """GK-15: the discard pile becomes the new deck (a new generation)."""
    cdef int t
    for t in range(NUM_KINDS):
        s.pool[t] = s.discard[t]
        s.discard[t] = 0
    s.gen += 1
    s.deck_ran_out = 1

cdef int take_top(GKState* s, uint8_t* kind, uint8_t* gen) noexcept nogil:
    """The next card of the deck if no chance is involved: 1 if taken from the
    cards put back on top; 0 if the pool must be drawn (chance); -1 if no card
    is left anywhere.  Reshuffles when the deck is empty."""
    if s.top_len > 0:
        s.top_len -= 1
        kind[0] = s.top[s.top_len]
        gen[0] = s.top_gen[s.top_len]
        return 1
    if pool_total(s) == 0:
        if discard_total(s) == 0:
            return -1
        reshuffle(s)
    return 0

cdef void bank_rows(GKState* s, int buster) noexcept nogil:
    """GK-12: the buster discards its row; the others keep their bell cards."""
    cdef int p, i, k
    for p in range(s.players):
        for i in range(s.row_len[p]):
            k = s.row[p][i]
            if p != buster and BELLS_OF[k] > 0:
                s.vp[p][k] += 1
            else:
                s.discard[k] += 1
        s.row_len[p] = 0
        s.row_sum[p] = 0

cdef int best_of(const GKState* s, unsigned int candidates) noexcept nogil:
    """GK-14: most bells; ties go to the seat furthest after the First Player card."""
    cdef int p, best = -1, best_bells = -1, best_pos = -1, b, pos
    for p in range(s.players):
        if not (candidates >> p) & 1:
            continue
        b = bells_of(s, p)
        pos = (p - s.first + s.players) % s.players
        if b > best_bells or (b == best_bells and pos > best_pos):
            best, best_bells, best_pos = p, b, pos
    return best

cdef void start_turn(GKState* s) noexcept nogil:
    s.received = 0
    s.hand_len = 0
    s.to_draw = s.players
    s.phase = PH_DRAW_DEAL

cdef void end_round(GKState* s, int buster) noexcept nogil:
    """The round ends at once (GK-11, GK-12, GK-13); `buster` is -1 if nobody busted."""
    cdef int i, p
    cdef unsigned int reached = 0
    # GK-11: undealt cards go back on top of the deck, unseen.
    for i in range(s.hand_len - 1, -1, -1):
        s.top[s.top_len] = s.hand[i]
        s.top_gen[s.top_len] = s.hand_gen[i]
        s.top_len += 1
    s.hand_len = 0
    s.to_draw = 0
    s.revealed = -1
    s.arriving = -1
    bank_rows(s, buster)
    s.rounds += 1
    fold_public(s, <uint64_t>((EV_PLACE << 16) | 0xFF00 | (buster & 0xFF)))
    if s.play_through:
        # GK-16: the first bust after the deck ran out ends the game.
        if s.deck_ran_out and buster >= 0:
            s.winner = best_of(s, (1u << s.players) - 1)
            s.phase = PH_OVER
            return
    else:
        for p in range(s.players):
            if bells_of(s, p) >= WIN_BELLS:
                reached |= 1u << p
        if reached:
            s.winner = best_of(s, reached)
            s.phase = PH_OVER
            return
    if pool_total(s) + discard_total(s) + s.top_len == 0:
        # GK-19: nothing left to draw: the game ends.
        s.winner = best_of(s, (1u << s.players) - 1)
        s.phase = PH_OVER
        return
    # GK-13: the First Player card passes clockwise; its holder starts.
    s.first = (s.first + 1) % s.players
    s.active = s.first
    start_turn(s)

cdef int place(GKState* s, int r, int k, uint8_t gen, bint drawn) noexcept nogil:
    """The receiver keeps card `k` (GK-6..GK-10).  Returns 1 if play paused
    (a chance or a decision is pending), 2 if the round or game ended, 0 to
    go on with the deal."""
    cdef int kind = KIND_OF[k], i, last
    cdef uint8_t nk, ng
    cdef int got
    s.arriving = -1
    if kind == K_BELL:
        # GK-7: straight to the victory pile.  A card drawn by a draw symbol
        # was seen by its receiver only (GK-17).
        if drawn and not s.open_piles and s.hidden_len[r] < HIDDEN_CAP:
            s.hidden[r][s.hidden_len[r]] = k
            s.hidden_gen[r][s.hidden_len[r]] = gen
            s.hidden_len[r] += 1
            fold_public(s, <uint64_t>((EV_HIDDEN_BELL << 16) | r))
            s.private_hash[r] = mix64(s.private_hash[r], <uint64_t>((EV_OWN_BELL << 16) | k))
        else:
            s.vp[r][k] += 1
        if not s.play_through and bells_of(s, r) >= WIN_BELLS:
            s.winner = r                       # GK-14: an immediate win
            s.phase = PH_OVER
            return 2
        return 0
    if kind == K_DISCARD:
        # GK-8: the rightmost card of the row goes with it; an empty row loses nothing.
        s.discard[k] += 1
        if s.row_len[r] > 0:
            s.row_len[r] -= 1
            last = s.row[r][s.row_len[r]]
            s.row_sum[r] -= VALUE_OF[last]
            s.discard[last] += 1
            # GK-9: without its Stay Late card the row may now be over the limit.
            if s.row_sum[r] >= limit_of(s, r):
                end_round(s, r)
                return 2
        return 0
    # Exploration, Stay Late and Refuse cards join the row (GK-6).
    if s.row_len[r] < ROW_CAP:
        s.row[r][s.row_len[r]] = k
        s.row_len[r] += 1
    else:
        s.discard[k] += 1                      # cannot happen with a sane deck
    s.row_sum[r] += VALUE_OF[k]
    if s.row_sum[r] >= limit_of(s, r):
        end_round(s, r)                        # GK-6: checked before any effect
        return 2
    if DRAWS[k]:
        # GK-10: a draw symbol brings the deck's next card to the same row.
        got = take_top(s, &nk, &ng)
        if got == 1:
            return receive(s, r, nk, ng, True)
        if got == 0:
            s.receiver = r
            s.phase = PH_DRAW_EFFECT
            return 1
    return 0

cdef int receive(GKState* s, int r, int k, uint8_t gen, bint drawn) noexcept nogil:
    """A card arrives at seat `r`: with a Refuse card in the row, r decides (GK-10)."""
    if drawn and KIND_OF[k] == K_BELL and not s.open_piles:
        fold_public(s, <uint64_t>((EV_PLACE << 16) | (r << 8) | 0xFF))   # GK-17: which Bell is unseen
    else:
        fold_public(s, <uint64_t>((EV_PLACE << 16) | (r << 8) | k))
    if count_kind(s, r, K_REFUSE) > 0:
        s.receiver = r
        s.arriving = k
        s.arriving_gen = gen
        s.arriving_drawn = drawn
        s.phase = PH_REFUSE
        return 1
    return place(s, r, k, gen, drawn)

cdef int advance(GKState* s) noexcept nogil:
    """Plays every step that needs no decision and no chance; stops at the next one."""
    cdef uint8_t k, g
    cdef int got, p, left, target
    while True:
        if s.phase == PH_DRAW_DEAL:
            while s.to_draw > 0:
                got = take_top(s, &k, &g)
                if got == 0:
                    return 0                    # chance: draw from the pool
                if got < 0:
                    s.to_draw = 0               # GK-19: fewer cards than players
                    break
                s.hand[s.hand_len] = k
                s.hand_gen[s.hand_len] = g
                s.hand_len += 1
                s.to_draw -= 1
            if s.hand_len == 0:
                end_round(s, -1)                # GK-19: nothing to deal
                continue
            s.phase = PH_GIVE
        if s.phase != PH_GIVE:
            return 0
        if s.revealed < 0:
            if s.hand_len == 0:
                # The deal is done (GK-3): the next player clockwise.
                s.active = (s.active + 1) % s.players
                start_turn(s)
                continue
            # GK-4: the face-down cards are revealed one at a time.
            s.revealed = s.hand[0]
            s.arriving_gen = s.hand_gen[0]
            for p in range(1, s.hand_len):
                s.hand[p - 1] = s.hand[p]
                s.hand_gen[p - 1] = s.hand_gen[p]
            s.hand_len -= 1
            fold_public(s, <uint64_t>((EV_REVEAL << 16) | s.revealed))
        left = 0
        target = -1
        for p in range(s.players):
            if not (s.received >> p) & 1:
                left += 1
                target = p
        if left > 1:
            return 0                            # a decision: who receives it
        k = s.revealed
        s.revealed = -1
        if left == 0:
            s.discard[k] += 1                   # only a corrupt state deals more cards than seats
            continue
        # GK-5: the last seat without a card gets it without a choice.
        s.received |= 1u << target
        if receive(s, target, k, s.arriving_gen, False) == 1:
            return 0

# ---------------------------------------------------------------- the ABI

cdef int gk_num_players(const void* st) noexcept nogil:
    return (<const GKState*>st).players

cdef int gk_current_player(const void* st) noexcept nogil:
    cdef const GKState* s = <const GKState*>st
    if s.phase == PH_DRAW_DEAL or s.phase == PH_DRAW_EFFECT:
        return PLAYER_CHANCE
    if s.phase == PH_GIVE:
        return s.active
    if s.phase == PH_REFUSE:
        return s.receiver
    return PLAYER_TERMINAL

cdef int gk_legal_actions(const void* st, int* out) noexcept nogil:
    cdef const GKState* s = <const GKState*>st
    cdef int n = 0, p, t
    if s.phase == PH_GIVE:
        for p in range(s.players):
            if not (s.received >> p) & 1:
                out[n] = A_GIVE + p
                n += 1
    elif s.phase == PH_REFUSE:
        out[0] = A_ACCEPT
        out[1] = A_REFUSE
        n = 2
    elif s.phase == PH_DRAW_DEAL or s.phase == PH_DRAW_EFFECT:
        for t in range(NUM_KINDS):
            if s.pool[t] > 0:
                out[n] = A_DRAW + t
                n += 1
    return n

cdef void after_card(GKState* s, int status) noexcept nogil:
    """Back to the deal once a card (and its chain) is resolved."""
    if status == 0:
        s.phase = PH_GIVE
    if s.phase == PH_GIVE or s.phase == PH_DRAW_DEAL:
        advance(s)

cdef void gk_apply_action(void* st, int action) noexcept nogil:
    cdef GKState* s = <GKState*>st
    cdef int k, r, i, j
    if s.phase == PH_DRAW_DEAL:
        k = action - A_DRAW
        s.pool[k] -= 1
        s.hand[s.hand_len] = k
        s.hand_gen[s.hand_len] = s.gen
        s.hand_len += 1
        s.to_draw -= 1
        advance(s)
    elif s.phase == PH_DRAW_EFFECT:
        k = action - A_DRAW
        s.pool[k] -= 1
        after_card(s, receive(s, s.receiver, k, s.gen, True))
    elif s.phase == PH_GIVE:
        r = action - A_GIVE
        k = s.revealed
        s.revealed = -1
        s.received |= 1u << r
        fold_public(s, <uint64_t>((EV_GIVE << 16) | r))
        after_card(s, receive(s, r, k, s.arriving_gen, False))
    elif s.phase == PH_REFUSE:
        r = s.receiver
        k = s.arriving
        fold_public(s, <uint64_t>((EV_REFUSE << 16) | action))
        if action == A_REFUSE:
            # A refused card lands face up on the discard pile: now everyone sees it.
            fold_public(s, <uint64_t>((EV_PLACE << 16) | k))
            # GK-10: the card and the rightmost Refuse card are discarded.
            s.arriving = -1
            s.discard[k] += 1
            for i in range(s.row_len[r] - 1, -1, -1):
                if KIND_OF[s.row[r][i]] == K_REFUSE:
                    s.discard[s.row[r][i]] += 1
                    for j in range(i + 1, s.row_len[r]):
                        s.row[r][j - 1] = s.row[r][j]
                    s.row_len[r] -= 1
                    break
            after_card(s, 0)
        else:
            after_card(s, place(s, r, k, s.arriving_gen, s.arriving_drawn))

cdef int gk_chance_outcomes(const void* st, int* actions, double* probs) noexcept nogil:
    cdef const GKState* s = <const GKState*>st
    cdef int n = gk_legal_actions(st, actions), i
    cdef double total = pool_total(s)
    for i in range(n):
        probs[i] = s.pool[actions[i] - A_DRAW] / total
    return n

cdef int gk_sample_chance(const void* st, Rng* rng) noexcept nogil:
    cdef const GKState* s = <const GKState*>st
    cdef int r = rng_below(rng, pool_total(s)), t
    for t in range(NUM_KINDS):
        r -= s.pool[t]
        if r < 0:
            return A_DRAW + t
    return A_DRAW

cdef void gk_returns(const void* st, double* out) noexcept nogil:
    cdef const GKState* s = <const GKState*>st
    cdef int p
    for p in range(s.players):
        out[p] = 1.0 if p == s.winner else 0.0

cdef void deal_unseen(GKState* s, int observer, Rng* rng) noexcept nogil:
    # GK-18: per deck generation, the cards `observer` has not seen are dealt
    # again at random over the places it cannot see into: the pool, the
    # face-down deal, the cards put back on top, and (unless the piles are
    # open) the other seats' hidden bell cards, which must stay bell cards.
    # The cards are gathered in a canonical order (by kind), so the result
    # depends only on what `observer` knows and on the generator.
    cdef uint8_t cards[MAX_DECK]
    cdef int cnt[MAX_KINDS]
    cdef int gens[MAX_DECK]
    cdef int num_gens = 0, n, nb, i, j, t, p, g, tmp, hidden_slots
    gens[num_gens] = s.gen
    num_gens += 1
    for i in range(s.hand_len):
        num_gens = _add_gen(gens, num_gens, s.hand_gen[i])
    for i in range(s.top_len):
        num_gens = _add_gen(gens, num_gens, s.top_gen[i])
    if not s.open_piles:
        for p in range(s.players):
            if p != observer:
                for i in range(s.hidden_len[p]):
                    num_gens = _add_gen(gens, num_gens, s.hidden_gen[p][i])
    for j in range(num_gens):
        g = gens[j]
        for t in range(NUM_KINDS):
            cnt[t] = s.pool[t] if g == s.gen else 0
        hidden_slots = 0
        if not s.open_piles:
            for p in range(s.players):
                if p != observer:
                    for i in range(s.hidden_len[p]):
                        if s.hidden_gen[p][i] == g:
                            cnt[s.hidden[p][i]] += 1
                            hidden_slots += 1
        for i in range(s.hand_len):
            if s.hand_gen[i] == g:
                cnt[s.hand[i]] += 1
        for i in range(s.top_len):
            if s.top_gen[i] == g:
                cnt[s.top[i]] += 1
        # Bell cards first, then the rest, each by kind.
        n = 0
        for t in range(NUM_KINDS):
            if KIND_OF[t] == K_BELL:
                for i in range(cnt[t]):
                    cards[n] = t
                    n += 1
        nb = n
        for t in range(NUM_KINDS):
            if KIND_OF[t] != K_BELL:
                for i in range(cnt[t]):
                    if n < MAX_DECK:
                        cards[n] = t
                        n += 1
        # The hidden slots get bell cards chosen uniformly; then the rest is shuffled.
        for i in range(hidden_slots):
            t = i + rng_below(rng, nb - i)
            tmp = cards[i]
            cards[i] = cards[t]
            cards[t] = tmp
        for i in range(hidden_slots, n - 1):
            t = i + rng_below(rng, n - i)
            tmp = cards[i]
            cards[i] = cards[t]
            cards[t] = tmp
        i = 0
        if not s.open_piles:
            for p in range(s.players):
                if p != observer:
                    for t in range(s.hidden_len[p]):
                        if s.hidden_gen[p][t] == g:
                            s.hidden[p][t] = cards[i]
                            i += 1
        for t in range(s.hand_len):
            if s.hand_gen[t] == g:
                s.hand[t] = cards[i]
                i += 1
        for t in range(s.top_len):
            if s.top_gen[t] == g:
                s.top[t] = cards[i]
                i += 1
        if g == s.gen:
            for t in range(NUM_KINDS):
                s.pool[t] = 0
            while i < n:
                s.pool[cards[i]] += 1
                i += 1
    # Other seats' knowledge of their own hidden bells follows the new deal.
    if not s.open_piles:
        for p in range(s.players):
            if p != observer:
                s.private_hash[p] = hidden_hash(s, p)

cdef bint possible(const GKState* s) noexcept nogil:
    """A world the observer can be in: while the game goes on, nobody has 13 bells (GK-14)."""
    cdef int p
    if s.play_through or s.phase == PH_OVER:
        return True
    for p in range(s.players):
        if bells_of(s, p) >= WIN_BELLS:
            return False
    return True

cdef void gk_determinize(void* st, int observer, Rng* rng) noexcept nogil:
    # The observer also knows the game is not over: deals that would give a
    # hidden pile 13 bells are drawn again (the true world always qualifies).
    cdef GKState* s = <GKState*>st
    cdef GKState saved = s[0]
    cdef int attempt
    for attempt in range(1000):
        deal_unseen(s, observer, rng)
        if possible(s):
            return
        s[0] = saved

cdef uint64_t hidden_hash(const GKState* s, int p) noexcept nogil:
    """What seat p alone knows: its hidden bell cards, in the order it got them."""
    cdef uint64_t h = 0
    cdef int i
    for i in range(s.hidden_len[p]):
        h = mix64(h, <uint64_t>((EV_OWN_BELL << 16) | s.hidden[p][i]))
    return h

cdef inline int _add_gen(int* gens, int n, int g) noexcept nogil:
    cdef int i
    for i in range(n):
        if gens[i] == g:
            return n
    gens[n] = g
    return n + 1

cdef uint64_t gk_infoset_key(const void* st, int player) noexcept nogil:
    cdef const GKState* s = <const GKState*>st
    cdef uint64_t h = mix64(mix64(s.public_hash, s.private_hash[player]), <uint64_t>((EV_SEAT << 8) | player))
    if s.phase == PH_REFUSE and player == s.receiver:
        h = mix64(h, <uint64_t>((EV_OWN_BELL << 16) | (s.arriving + 1)))   # the receiver sees what arrives
    return h

cdef int gk_make_current(void* st, int seat) noexcept nogil:
    return 1 if gk_current_player(st) == seat else 0

cdef int gk_rollout_action(const void* st, Rng* rng) noexcept nogil:
    # The search's default playout policy (GameDef.rollout_action), not a
    # rule: cheap, allocation-free, and uniform one time in four (one in
    # eight for refusals) so that playouts stay diverse.  Bells and helpful
    # cards go to its own row, costly ones to others; a card that would bust
    # a rival holding bells goes to that rival; a card that would bust its
    # own row, or discard a bell from it, is refused.
    cdef const GKState* s = <const GKState*>st
    cdef int me, k, kind, p, i, c, n = 0, best = -1, score, best_score = -1000000, ties = 0
    cdef int v, limit, refuse, row_bells, mine = 0, last
    if s.phase == PH_REFUSE:
        me = s.receiver
        k = s.arriving
        if rng_below(rng, 8) == 0:
            return A_ACCEPT + <int>rng_below(rng, 2)
        limit = LIMIT
        for i in range(s.row_len[me]):
            if KIND_OF[s.row[me][i]] == K_STAY_LATE:
                limit = LIMIT_STAY_LATE
        if KIND_OF[k] == K_EXPLORATION and s.row_sum[me] + VALUE_OF[k] >= limit:
            return A_REFUSE
        if KIND_OF[k] == K_DISCARD and s.row_len[me] > 0 and BELLS_OF[s.row[me][s.row_len[me] - 1]] > 0:
            return A_REFUSE
        return A_ACCEPT
    me = s.active
    k = s.revealed
    kind = KIND_OF[k] if k >= 0 else K_EXPLORATION
    for i in range(s.row_len[me]):
        mine += BELLS_OF[s.row[me][i]]
    if rng_below(rng, 4) == 0:
        for p in range(s.players):
            if not (s.received >> p) & 1:
                n += 1
                if rng_below(rng, n) == 0:
                    best = p
        return A_GIVE + (best if best >= 0 else me)
    for p in range(s.players):
        if (s.received >> p) & 1:
            continue
        if kind == K_BELL:
            score = 10 * BELLS_OF[k] if p == me else -2 * BELLS_OF[k]
        elif kind == K_STAY_LATE or kind == K_REFUSE:
            score = 3 if p == me else -1
        elif kind == K_DISCARD:
            score = 0
            if s.row_len[p] > 0:
                last = s.row[p][s.row_len[p] - 1]
                score = VALUE_OF[last] - 4 * BELLS_OF[last]
                if p != me:
                    score = -score
        else:
            limit = LIMIT
            refuse = 0
            row_bells = 0
            for i in range(s.row_len[p]):
                c = KIND_OF[s.row[p][i]]
                if c == K_STAY_LATE:
                    limit = LIMIT_STAY_LATE
                elif c == K_REFUSE:
                    refuse = 1
                row_bells += BELLS_OF[s.row[p][i]]
            v = VALUE_OF[k] + (2 if DRAWS[k] else 0)     # a draw symbol brings another card
            if s.row_sum[p] + v >= limit and not refuse:
                # A bust discards that row and banks every other row's bells (GK-12).
                score = -20 - 4 * mine if p == me else 4 * row_bells + 2 * mine + 2
            elif p == me:
                score = 8 * BELLS_OF[k] - 2 * v * (s.row_sum[p] + v) // limit
            else:
                score = -8 * BELLS_OF[k] + v * (s.row_sum[p] + v) // limit
        if score > best_score:
            best_score = score
            best = p
            ties = 1
        elif score == best_score:
            ties += 1
            if rng_below(rng, ties) == 0:
                best = p
    return A_GIVE + (best if best >= 0 else me)

cdef GameDef GK_DEF
GK_DEF.game_id = b"gangs_of_kyoto"
GK_DEF.state_size = sizeof(GKState)
GK_DEF.max_players = GK_MAX_PLAYERS
GK_DEF.num_distinct_actions = A_DRAW + MAX_KINDS
GK_DEF.max_legal_actions = MAX_KINDS
GK_DEF.max_decision_actions = GK_MAX_PLAYERS
GK_DEF.max_game_length = 20000
GK_DEF.num_players = gk_num_players
GK_DEF.current_player = gk_current_player
GK_DEF.legal_actions = gk_legal_actions
GK_DEF.apply_action = gk_apply_action
GK_DEF.chance_outcomes = gk_chance_outcomes
GK_DEF.sample_chance = gk_sample_chance
GK_DEF.returns = gk_returns
GK_DEF.determinize = gk_determinize
GK_DEF.infoset_key = gk_infoset_key
GK_DEF.make_current = gk_make_current
GK_DEF.rollout_action = gk_rollout_action

GAME_DEF = PyCapsule_New(<void*>&GK_DEF, GAMEDEF_CAPSULE, NULL)

# ------------------------------------------------------- the Python side

DECK_FILE = pathlib.Path(__file__).resolve().parent / "data" / "deck.json"
KINDS = ("exploration", "bell", "discard", "stay_late", "refuse")
PHASES = ("draw_deal", "give", "refuse", "draw_effect", "over")
MIN_PLAYERS = 2
MAX_PLAYERS = 5
ACTION_ACCEPT = A_ACCEPT
ACTION_REFUSE = A_REFUSE
ACTION_DRAW = A_DRAW
CARDS = []          # one dict per kind of card: kind, value, bells, draw, count


def _load_deck(path=DECK_FILE):
    """Reads the deck and checks it against the rulebook's constraints (GK-2)."""
    global NUM_KINDS, DECK_SIZE
    data = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
    cards = data["cards"]
    if not 1 <= len(cards) <= MAX_KINDS:
        raise ValueError(f"{path}: 1 to {MAX_KINDS} kinds of card, got {len(cards)}")
    seen = set()
    for i, c in enumerate(cards):
        key = (c["kind"], c["value"], c["bells"], bool(c["draw"]))
        if key in seen:
            raise ValueError(f"{path}: cards[{i}] repeats {key}")
        seen.add(key)
        if c["kind"] not in KINDS:
            raise ValueError(f"{path}: cards[{i}].kind {c['kind']!r} unknown")
        if c["kind"] == "exploration":
            ok = 0 <= c["value"] <= 5 and (
                (c["bells"] == 0 and c["value"] <= 4) or (c["bells"] in (1, 2) and c["value"] >= 1))
            ok = ok and not (c["draw"] and (c["bells"] or c["value"] > 4))
        elif c["kind"] == "bell":
            ok = c["value"] == 0 and c["bells"] in (1, 2) and not c["draw"]
        else:
            ok = c["value"] == 0 and c["bells"] == 0 and not c["draw"]
        if not ok or not 0 <= c["count"] <= 100:
            raise ValueError(f"{path}: cards[{i}] breaks the rulebook's constraints: {c}")
    total = sum(c["count"] for c in cards)
    if total > MAX_DECK:
        raise ValueError(f"{path}: {total} cards is more than the engine holds ({MAX_DECK})")
    for i, c in enumerate(cards):
        KIND_OF[i] = KINDS.index(c["kind"])
        VALUE_OF[i] = c["value"]
        BELLS_OF[i] = c["bells"]
        DRAWS[i] = 1 if c["draw"] else 0
        COUNT_OF[i] = c["count"]
    NUM_KINDS = len(cards)
    DECK_SIZE = total
    CARDS[:] = [dict(kind=c["kind"], value=c["value"], bells=c["bells"], draw=bool(c["draw"]),
                     count=c["count"]) for c in cards]


_load_deck()


def card_name(int k):
    """A short name: ``3+2b`` (value 3, 2 bells), ``2d`` (draw), ``bell+1``, ``discard`` ..."""
    c = CARDS[k]
    if c["kind"] == "exploration":
        return f"{c['value']}" + (f"+{c['bells']}b" if c["bells"] else "") + ("d" if c["draw"] else "")
    if c["kind"] == "bell":
        return f"bell+{c['bells']}"
    return c["kind"]


def card_dict(int k):
    """The typed form of a kind of card (the ``GangsOfKyotoCard`` message)."""
    c = CARDS[k]
    return {"kind": c["kind"], "value": c["value"], "bells": c["bells"], "draw": c["draw"]}


def kind_of_card(d, field):
    """The kind index of a card dict; ValueError naming `field` if no card of the deck matches."""
    if not isinstance(d, dict):
        raise ValueError(f"{field}: expected a card")
    want = (d.get("kind"), d.get("value") or 0, d.get("bells") or 0, bool(d.get("draw")))
    for k, c in enumerate(CARDS):
        if (c["kind"], c["value"], c["bells"], c["draw"]) == want:
            return k
    raise ValueError(f"{field}: no such card in the deck: {d!r}")


def action_label(int action):
    if A_GIVE <= action < A_GIVE + GK_MAX_PLAYERS:
        return f"give to seat {action - A_GIVE}"
    if action == A_ACCEPT:
        return "accept the card"
    if action == A_REFUSE:
        return "refuse the card"
    if A_DRAW <= action < A_DRAW + NUM_KINDS:
        return f"draw {card_name(action - A_DRAW)}"
    raise ValueError(f"unknown action id {action}")


def typed_action(int action):
    """The typed form of an action id (the ``GangsOfKyotoAction`` message)."""
    if A_GIVE <= action < A_GIVE + GK_MAX_PLAYERS:
        return {"kind": "give", "seat": action - A_GIVE}
    if action == A_ACCEPT:
        return {"kind": "accept"}
    if action == A_REFUSE:
        return {"kind": "refuse"}
    if A_DRAW <= action < A_DRAW + NUM_KINDS:
        return {"kind": "draw", "card": card_dict(action - A_DRAW)}
    raise ValueError(f"unknown action id {action}")


def action_from_typed(d):
    kind = d.get("kind")
    if kind == "give":
        seat = d.get("seat")
        if seat is None or isinstance(seat, bool) or not 0 <= seat < GK_MAX_PLAYERS:
            raise ValueError(f"seat: a seat from 0 to 4 is needed, got {seat!r}")
        return A_GIVE + seat
    if kind == "accept":
        return A_ACCEPT
    if kind == "refuse":
        return A_REFUSE
    if kind == "draw":
        return A_DRAW + kind_of_card(d.get("card"), "card")
    raise ValueError(f"kind: unknown or missing action kind {kind!r}")


def initial_state_bytes(int players, play_through=False, open_piles=False):
    """The game before the first deal; seat 0 holds the First Player card (GK-3)."""
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"players: Gangs of Kyoto takes 2 to 5 players, not {players}")
    cdef GKState s
    memset(&s, 0, sizeof(GKState))
    s.players = players
    s.play_through = 1 if play_through else 0
    s.open_piles = 1 if open_piles else 0
    for t in range(NUM_KINDS):
        s.pool[t] = COUNT_OF[t]
    s.revealed = -1
    s.arriving = -1
    s.receiver = -1
    s.winner = -1
    s.first = 0
    s.active = 0
    _hash_position(&s)
    start_turn(&s)
    advance(&s)
    return (<char*>&s)[:sizeof(GKState)]


cdef void _hash_position(GKState* s) noexcept nogil:
    """The public hash starts from the whole public position (GK-18)."""
    cdef int p, t, i
    cdef uint64_t h = mix64(<uint64_t>EV_POSITION, <uint64_t>(s.players * 64 + s.first * 8 + s.active))
    h = mix64(h, <uint64_t>(s.play_through * 2 + s.open_piles + s.gen * 4 + s.deck_ran_out * 1024))
    for t in range(NUM_KINDS):
        h = mix64(h, <uint64_t>s.discard[t])
    for p in range(s.players):
        h = mix64(h, <uint64_t>(s.hidden_len[p] + 256 * s.row_len[p]))
        for i in range(s.row_len[p]):
            h = mix64(h, <uint64_t>s.row[p][i])
        for t in range(NUM_KINDS):
            h = mix64(h, <uint64_t>s.vp[p][t])
        if s.open_piles:
            for i in range(s.hidden_len[p]):
                h = mix64(h, <uint64_t>s.hidden[p][i])
    h = mix64(h, <uint64_t>(s.hand_len * 256 + s.top_len * 16 + s.to_draw + 4096 * s.received))
    h = mix64(h, <uint64_t>((s.revealed + 1) * 4096 + (s.arriving + 1) * 64 + s.receiver + 1 + s.phase * 65536))
    s.public_hash = h
    for p in range(s.players):
        s.private_hash[p] = hidden_hash(s, p)


@cython.boundscheck(True)
@cython.wraparound(True)
cdef GKState _read(data) except *:
    cdef const unsigned char[::1] view = data
    if view.shape[0] != sizeof(GKState):
        raise ValueError("not a Gangs of Kyoto state")
    return (<const GKState*>&view[0])[0]


def _cards(counts_or_list):
    return [card_dict(k) for k in counts_or_list]


def describe(data):
    """The whole state as a plain dict, in the shape of the ``GangsOfKyotoState`` message."""
    cdef GKState s = _read(data)
    seats = []
    for p in range(s.players):
        vp = [k for k in range(NUM_KINDS) for _ in range(s.vp[p][k])]
        hidden = [s.hidden[p][i] for i in range(s.hidden_len[p])]
        seats.append({
            "row": _cards([s.row[p][i] for i in range(s.row_len[p])]),
            "victory_pile": _cards(vp),
            "hidden_bells": _cards(hidden),
            "hidden_bell_count": len(hidden),
            "bells": bells_of(&s, p),
            "row_sum": s.row_sum[p],
            "limit": limit_of(&s, p),
        })
    pool = [k for k in range(NUM_KINDS) for _ in range(s.pool[k])]
    discard = [k for k in range(NUM_KINDS) for _ in range(s.discard[k])]
    return {
        "players": s.players,
        "options": {"play_through": bool(s.play_through), "open_piles": bool(s.open_piles)},
        "phase": PHASES[s.phase],
        "first_player": s.first,
        "active_player": s.active,
        "rounds": s.rounds,
        "seats": seats,
        "deck": _cards(pool),
        "deck_top": _cards([s.top[i] for i in range(s.top_len - 1, -1, -1)]),
        "deal": _cards([s.hand[i] for i in range(s.hand_len)]),
        "deal_to_draw": s.to_draw,
        "discard": _cards(discard),
        "revealed": card_dict(s.revealed) if s.revealed >= 0 else None,
        "received": [p for p in range(s.players) if (s.received >> p) & 1],
        "receiver": s.receiver if s.phase in (PH_REFUSE, PH_DRAW_EFFECT) else None,
        "arriving": card_dict(s.arriving) if s.arriving >= 0 else None,
        "arriving_drawn": bool(s.arriving_drawn) if s.arriving >= 0 else None,
        "deck_ran_out": bool(s.deck_ran_out),
        "winner": s.winner if s.winner >= 0 else None,
        "unseen": [],
        "deal_size": s.hand_len,
        "deck_top_size": s.top_len,
    }


def generations(data):
    """For tests: whether each face-down card is from an older deck than the current one."""
    cdef GKState s = _read(data)
    return {"deal": [s.hand_gen[i] != s.gen for i in range(s.hand_len)],
            "deck_top": [s.top_gen[i] != s.gen for i in range(s.top_len)],
            "hidden": [[s.hidden_gen[p][i] != s.gen for i in range(s.hidden_len[p])]
                       for p in range(s.players)]}


_KIND_ORDER = {k: i for i, k in enumerate(KINDS)}


def _canonical(cards):
    return sorted(cards, key=lambda c: (_KIND_ORDER[c["kind"]], c["value"], c["bells"], c["draw"]))


def view(data, int seat):
    """The state as ``seat`` sees it (GK-17).

    Every card ``seat`` has not seen — the deck, the face-down deal, the
    cards put back on top and (unless the piles are open) the other seats'
    hidden bell cards — is listed once, in a canonical order, under
    ``unseen``; ``deal_size``, ``deck_top_size`` and each seat's
    ``hidden_bell_count`` say how many of them lie where.  Other seats'
    ``bells`` then count only their visible victory cards.  The view is a
    valid state and gives ``seat`` the same recommendations.
    """
    cdef GKState s = _read(data)
    if not 0 <= seat < s.players:
        raise ValueError(f"seat: {seat} is not a seat of this {s.players}-player game")
    d = describe(data)
    unseen = d["deck"] + d["deal"] + d["deck_top"]
    for p, st in enumerate(d["seats"]):
        if p != seat and not s.open_piles:
            unseen += st["hidden_bells"]
            st["bells"] -= sum(c["bells"] for c in st["hidden_bells"])
            st["hidden_bells"] = []
    d["unseen"] = _canonical(unseen)
    d["deck"] = []
    d["deal"] = []
    d["deck_top"] = []
    return d


def _assign_hidden(needs, visible, bell_cards, limit):
    """Bell cards for each (seat, count) in `needs`, fewest bells first, keeping every seat
    under `limit` (None: no limit); None if impossible."""
    import itertools
    pool = sorted(bell_cards, key=lambda k: (BELLS_OF[k], k))

    def search(i, pool):
        if i == len(needs):
            return []
        seat, need = needs[i]
        seen = set()
        options = sorted(itertools.combinations(range(len(pool)), need),
                         key=lambda idx: (sum(BELLS_OF[pool[j]] for j in idx), idx))
        for idx in options:
            cards = tuple(pool[j] for j in idx)
            if cards in seen:
                continue
            seen.add(cards)
            if limit is not None and visible[seat] + sum(BELLS_OF[k] for k in cards) >= limit:
                continue
            rest = search(i + 1, [k for j, k in enumerate(pool) if j not in idx])
            if rest is not None:
                return [(seat, list(cards))] + rest
        return None

    return search(0, pool)


def _card_list(value, field):
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"{field}: expected a list of cards")
    return [kind_of_card(c, f"{field}[{i}]") for i, c in enumerate(value)]


@cython.boundscheck(True)
@cython.wraparound(True)
def from_description(d):
    """Builds a state from a dict shaped like :func:`describe`'s (or :func:`view`'s), checking it.

    Every card of the deck must be in exactly one place (GK-2).  A view's
    ``unseen`` cards (order ignored) are dealt at random over the face-down
    places — which gives the viewer the same recommendations (GK-18).  All
    unseen cards are taken to be from the current deck.  ``bells``,
    ``row_sum`` and ``limit`` are output only; a ``hidden_bell_count`` above
    the listed ``hidden_bells`` takes the missing ones from ``unseen``.
    """
    if not isinstance(d, dict):
        raise ValueError("state: expected a mapping")
    cdef GKState s
    memset(&s, 0, sizeof(GKState))
    players = _int_in(d.get("players"), MIN_PLAYERS, MAX_PLAYERS, "players")
    s.players = players
    options = d.get("options") or {}
    s.play_through = bool(options.get("play_through"))
    s.open_piles = bool(options.get("open_piles"))
    phase = d.get("phase")
    if phase not in PHASES:
        raise ValueError(f"phase: unknown phase {phase!r}; expected one of {', '.join(PHASES)}")
    s.phase = PHASES.index(phase)
    s.first = _int_in(d.get("first_player", 0), 0, players - 1, "first_player")
    s.active = _int_in(d.get("active_player", 0), 0, players - 1, "active_player")
    s.rounds = _int_in(d.get("rounds", 0) or 0, 0, 10000, "rounds")
    s.deck_ran_out = bool(d.get("deck_ran_out"))
    counts = [0] * NUM_KINDS
    hidden_from_unseen = []
    seats = d.get("seats")
    if not isinstance(seats, (list, tuple)) or len(seats) != players:
        raise ValueError(f"seats: expected one entry per player ({players})")
    for p, seat in enumerate(seats):
        where = f"seats[{p}]"
        if not isinstance(seat, dict):
            raise ValueError(f"{where}: expected a mapping")
        row = _card_list(seat.get("row", []), f"{where}.row")
        if len(row) > ROW_CAP:
            raise ValueError(f"{where}.row: at most {ROW_CAP} cards")
        total = 0
        for i, k in enumerate(row):
            if KINDS[KIND_OF[k]] in ("bell", "discard"):
                raise ValueError(f"{where}.row[{i}]: a {KINDS[KIND_OF[k]]} card never stays in a row")
            s.row[p][i] = k
            total += VALUE_OF[k]
            counts[k] += 1
        s.row_len[p] = len(row)
        s.row_sum[p] = total
        if total >= limit_of(&s, p):
            raise ValueError(f"{where}.row: its sum {total} has reached the limit {limit_of(&s, p)}, "
                             f"so the round would have ended")
        for i, k in enumerate(_card_list(seat.get("victory_pile", []), f"{where}.victory_pile")):
            if BELLS_OF[k] == 0:
                raise ValueError(f"{where}.victory_pile[{i}]: only cards with bells are kept")
            s.vp[p][k] += 1
            counts[k] += 1
        hidden = _card_list(seat.get("hidden_bells", []), f"{where}.hidden_bells")
        for i, k in enumerate(hidden):
            if KIND_OF[k] != K_BELL:
                raise ValueError(f"{where}.hidden_bells[{i}]: only Bell cards are kept hidden")
        want = seat.get("hidden_bell_count")
        if want is not None and want != len(hidden):
            want = _int_in(want, len(hidden), HIDDEN_CAP, f"{where}.hidden_bell_count")
            if not d.get("unseen"):
                raise ValueError(f"{where}.hidden_bell_count: {want} hidden bells but "
                                 f"{len(hidden)} listed, and no unseen cards to take them from")
            hidden_from_unseen.append((p, want - len(hidden)))
        if len(hidden) > HIDDEN_CAP:
            raise ValueError(f"{where}.hidden_bells: at most {HIDDEN_CAP} cards")
        for i, k in enumerate(hidden):
            if KIND_OF[k] != K_BELL:
                raise ValueError(f"{where}.hidden_bells[{i}]: only Bell cards are kept hidden")
            if s.open_piles:
                s.vp[p][k] += 1
            else:
                s.hidden[p][s.hidden_len[p]] = k
                s.hidden_len[p] += 1
            counts[k] += 1
    for k in _card_list(d.get("discard", []), "discard"):
        s.discard[k] += 1
        counts[k] += 1
    for k in _card_list(d.get("deck", []), "deck"):
        s.pool[k] += 1
        counts[k] += 1
    deal = _card_list(d.get("deal", []), "deal")
    top = _card_list(d.get("deck_top", []), "deck_top")
    unseen = sorted(_card_list(d.get("unseen") or [], "unseen"))
    for k in deal + top + unseen:
        counts[k] += 1
    if hidden_from_unseen:
        # A view's hidden bells are among its unseen cards; which ones does not
        # matter to the search (GK-18), as long as nobody is given 13 bells while
        # the game goes on: take the first such assignment in a canonical order.
        visible = {p: bells_of(&s, p) for p, _ in hidden_from_unseen}
        limit = None if (s.play_through or s.phase == PH_OVER) else WIN_BELLS
        plan = _assign_hidden(hidden_from_unseen, visible,
                              [k for k in unseen if KIND_OF[k] == K_BELL], limit)
        if plan is None:
            raise ValueError(f"seats[{hidden_from_unseen[0][0]}].hidden_bell_count: no Bell cards among the "
                             f"unseen cards fit the hidden piles")
        for p, bells in plan:
            if s.hidden_len[p] + len(bells) > HIDDEN_CAP:
                raise ValueError(f"seats[{p}].hidden_bell_count: at most {HIDDEN_CAP}")
            for k in bells:
                unseen.remove(k)
                s.hidden[p][s.hidden_len[p]] = k
                s.hidden_len[p] += 1
    if len(deal) > players:
        raise ValueError(f"deal: at most one face-down card per player ({players})")
    if len(top) > TOP_CAP:
        raise ValueError(f"deck_top: at most {TOP_CAP} cards")
    s.to_draw = _int_in(d.get("deal_to_draw", 0) or 0, 0, players, "deal_to_draw")
    received = d.get("received") or []
    for r in received:
        _int_in(r, 0, players - 1, "received")
        s.received |= 1 << r
    s.revealed = -1
    s.arriving = -1
    s.receiver = -1
    s.winner = -1
    if d.get("revealed") is not None:
        s.revealed = kind_of_card(d["revealed"], "revealed")
        counts[s.revealed] += 1
    if d.get("arriving") is not None:
        s.arriving = kind_of_card(d["arriving"], "arriving")
        counts[s.arriving] += 1
        s.arriving_drawn = bool(d.get("arriving_drawn"))
    # Phase consistency.
    dealt = len(received)
    if s.phase == PH_GIVE:
        if s.revealed < 0:
            raise ValueError("revealed: phase give needs the revealed card")
        if players - dealt < 2:
            raise ValueError("received: the last card of a deal goes without a choice (GK-5)")
    elif s.revealed >= 0:
        raise ValueError(f"revealed: only in phase give")
    if s.phase == PH_REFUSE:
        if s.arriving < 0:
            raise ValueError("arriving: phase refuse needs the arriving card")
    elif s.arriving >= 0:
        raise ValueError("arriving: only in phase refuse")
    if s.phase in (PH_REFUSE, PH_DRAW_EFFECT):
        s.receiver = _int_in(d.get("receiver"), 0, players - 1, "receiver")
        if s.phase == PH_REFUSE and count_kind(&s, s.receiver, K_REFUSE) == 0:
            raise ValueError(f"receiver: seat {s.receiver} has no Refuse card to refuse with")
    elif d.get("receiver") is not None:
        raise ValueError("receiver: only in phases refuse and draw_effect")
    if s.phase == PH_OVER:
        s.winner = _int_in(d.get("winner"), 0, players - 1, "winner")
    elif d.get("winner") is not None:
        raise ValueError("winner: only when the game is over")
    if s.phase == PH_DRAW_DEAL and s.to_draw == 0:
        raise ValueError("deal_to_draw: phase draw_deal needs a card still to draw")
    if s.phase == PH_DRAW_DEAL and s.received:
        raise ValueError("received: the deal is drawn before anyone receives a card")
    face_down = len(deal) or (d.get("deal_size") or 0)
    if face_down + dealt + (1 if s.revealed >= 0 else 0) + s.to_draw > players:
        raise ValueError("deal: more cards dealt, face down and to draw than players")
    for k in range(NUM_KINDS):
        if counts[k] != COUNT_OF[k]:
            raise ValueError(f"cards: the state holds {counts[k]} {card_name(k)} cards, the deck has "
                             f"{COUNT_OF[k]} (every card must be in exactly one place)")
    if not s.play_through:
        for p in range(players):
            if bells_of(&s, p) >= WIN_BELLS and s.phase != PH_OVER:
                raise ValueError(f"seats[{p}]: {bells_of(&s, p)} bells would have won the game")
    # Unseen cards of a view go to the face-down places at random order; the
    # deal and top sizes of a view are given by deal_size/deck_top_size.
    deal_size = _int_in(d.get("deal_size") or len(deal), 0, players, "deal_size")
    top_size = _int_in(d.get("deck_top_size") or len(top), 0, TOP_CAP, "deck_top_size")
    if unseen:
        if deal or top:
            raise ValueError("unseen: give the face-down cards either listed (deal, deck_top) or as unseen")
        if deal_size + top_size > len(unseen):
            raise ValueError("unseen: fewer unseen cards than face-down places")
        deal = unseen[:deal_size]
        top = unseen[deal_size:deal_size + top_size]
        for k in unseen[deal_size + top_size:]:
            s.pool[k] += 1
    elif deal_size != len(deal) or top_size != len(top):
        raise ValueError("deal_size: the sizes must match the listed deal and deck_top")
    for i, k in enumerate(deal):
        s.hand[i] = k
    s.hand_len = len(deal)
    for i, k in enumerate(reversed(top)):
        s.top[i] = k
    s.top_len = len(top)
    if s.phase == PH_DRAW_EFFECT and pool_total(&s) == 0:
        raise ValueError("deck: phase draw_effect needs a card in the deck")
    if s.phase == PH_DRAW_DEAL and pool_total(&s) == 0:
        raise ValueError("deck: phase draw_deal needs a card in the deck")
    _hash_position(&s)
    return (<char*>&s)[:sizeof(GKState)]


def summary(data):
    d = describe(data)
    return (f"{d['players']} players, round {d['rounds'] + 1}, {d['phase']}, active {d['active_player']}, "
            f"bells {[st['bells'] for st in d['seats']]}")


def render(data, seat=None):
    """A few lines of text showing the table (as ``seat`` sees it, if given)."""
    d = describe(data) if seat is None else view(data, seat)
    lines = [f"Gangs of Kyoto - round {d['rounds'] + 1} - {d['phase'].replace('_', ' ')}"
             + (" - game over" if d["phase"] == "over" else "")]
    for p, st in enumerate(d["seats"]):
        row = " ".join(_short(c) for c in st["row"]) or "-"
        bells = st["bells"]
        hidden = (f" (+{st['hidden_bell_count']} hidden)"
                  if st["hidden_bell_count"] and seat is not None and p != seat and not d["options"]["open_piles"]
                  else "")
        marks = ("F" if p == d["first_player"] else " ") + ("*" if p == d["active_player"] else " ")
        lines.append(f"{marks}seat {p}: {bells} bells{hidden}, row [{row}] = {st['row_sum']}/{st['limit']}")
    if d["revealed"]:
        lines.append(f"revealed: {_short(d['revealed'])} (to give; received: {d['received']})")
    if d["arriving"]:
        lines.append(f"arriving at seat {d['receiver']}: {_short(d['arriving'])}")
    n_unseen = len(d.get("unseen") or []) or len(d["deck"]) + len(d["deal"]) + len(d["deck_top"])
    lines.append(f"deck and face-down cards: {n_unseen}; discard pile: {len(d['discard'])}")
    if d["winner"] is not None:
        lines.append(f"winner: seat {d['winner']}")
    return "\n".join(lines)


def _short(c):
    if c["kind"] == "exploration":
        return f"{c['value']}" + ("b" * c["bells"]) + ("d" if c["draw"] else "")
    if c["kind"] == "bell":
        return "B" * c["bells"]
    return {"discard": "X", "stay_late": "S18", "refuse": "R"}[c["kind"]]
