# cython: language_level=3
"""Gangs of Kyoto (Rüdiger Dorn, Matagot 2025): the rules engine.

The rules in our words, with every ruling cited here as ``GK-n``, are in
``seeds/gangs_of_kyoto.md``.  The deck is data: ``data/deck.json``
lists each kind of card and its count (GK-2), loaded when this module is
imported.

How the hidden cards are held (GK-18): the shuffled deck is a multiset of
counts (``pool``, see ``engines/cards.pxd``): drawing from it is a chance
event.  Cards that have been drawn but that nobody has seen — the active
player's face-down cards, and those put back on top of the deck when a round
ends mid-deal — are held explicitly, each with the *generation* of the deck
it came from, so that ``determinize`` can reshuffle exactly the cards a seat
cannot tell apart.  So are face-down Bell cards that a client's position
puts in a pile without showing them to the other seats (GK-17); in play
every card is seen by all once turned up.

Action ids (stable):

* ``0..4``  give the revealed card to that seat
* ``5``     accept the arriving card;  ``6``: refuse it with a Refuse card
* ``7..``   chance: the top card of the shuffled deck is a card of kind ``id - 7``
"""
from fagin.engines.room_data import data_path, read_json

cimport cython
from libc.stdint cimport int8_t, int16_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memset
from libc.math cimport exp, log

from fagin.engines.abi cimport GameDef, PLAYER_CHANCE, PLAYER_TERMINAL
from fagin.engines.room cimport export_game_def, game_def, game_def_beliefs, game_def_knowledge, read_state
from fagin.engines.rng cimport Rng, rng_below, rng_seed, mix64
from fagin.engines.cards cimport (CARDS_MAX_SOURCES, CARDS_NO_CAP, DealPlace, cards_deal_places, cards_fold,
                            ms_chance, ms_draw, ms_pick, ms_total)
from fagin.engines.learned cimport learned_relative, learned_room

from fagin.engines.core import room_functions as _room_functions
from fagin.engines.validation import enum_index as _enum_index
from fagin.engines.validation import int_in as _int_in
from fagin.engines.validation import one_per_seat as _one_per_seat

cdef enum:
    GK_MAX_PLAYERS = 5
    MAX_KINDS = 32           # distinct kinds of card the data file may list
    # Places of the beliefs (gk_hidden_counts): seat p's face-down pile is place p, then these.
    GK_POOL = GK_MAX_PLAYERS
    GK_HAND = GK_MAX_PLAYERS + 1
    GK_TOP = GK_MAX_PLAYERS + 2
    GK_PLACES = GK_MAX_PLAYERS + 3
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

    # Events folded into the information-set hashes.
    EV_POSITION = 1
    EV_REVEAL = 2
    EV_GIVE = 3
    EV_REFUSE = 4
    EV_PLACE = 5
    EV_REFUSED = 6          # the refused card, face up on the discard pile
    EV_OWN_BELL = 7
    EV_SEAT = 8
    EV_ROUND_END = 9

    # Deck generations one determinization keeps apart (GK-18); more are merged.
    GEN_CAP = CARDS_MAX_SOURCES

# The deck, from the data file (see _load_deck).
cdef int NUM_KINDS = 0
cdef int DECK_SIZE = 0
cdef int KIND_OF[MAX_KINDS]
cdef int VALUE_OF[MAX_KINDS]
cdef int BELLS_OF[MAX_KINDS]
cdef int DRAWS[MAX_KINDS]
cdef int COUNT_OF[MAX_KINDS]
cdef uint8_t IS_BELL[MAX_KINDS]      # Bell cards: the only cards a face-down pile holds (GK-7)
cdef double HIDDEN_BELL_MEAN = 1.0   # the deck's mean bells per Bell card (a face-down one's expected worth)

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
    # What the last apply_action ended, for its events (off the rules, never described:
    # cleared by every apply_action): a round (1), and who busted (-1: nobody, GK-12).
    int8_t ended_round
    int8_t ended_buster

# ------------------------------------------------------------------ helpers

cdef inline int pool_total(const GKState* s) noexcept nogil:
    return ms_total(s.pool, NUM_KINDS)

cdef inline int discard_total(const GKState* s) noexcept nogil:
    return ms_total(s.discard, NUM_KINDS)

cdef inline int count_kind(const GKState* s, int seat, int kind) noexcept nogil:
    cdef int i, n = 0
    for i in range(s.row_len[seat]):
        if KIND_OF[s.row[seat][i]] == kind:
            n += 1
    return n

cdef inline int limit_of(const GKState* s, int seat) noexcept nogil:
    # GK-9: a Stay Late card raises the limit while it lies in the row.
    return LIMIT_STAY_LATE if count_kind(s, seat, K_STAY_LATE) > 0 else LIMIT

cdef inline int visible_bells(const GKState* s, int seat) noexcept nogil:
    """Bells in the face-up part of a victory pile (every seat knows them)."""
    cdef int t, n = 0
    for t in range(NUM_KINDS):
        n += s.vp[seat][t] * BELLS_OF[t]
    return n

cdef inline void bell_sources(const GKState* s, int seat, int* banked, int* bell_cards) noexcept nogil:
    """A victory pile's bells by where they came from: ``banked``, the cards with bells
    banked from the rows (GK-12); ``bell_cards``, the Bell cards that went straight to the
    pile (GK-7), face-down ones a seat cannot see (GK-17) included."""
    cdef int t, i
    banked[0] = 0
    bell_cards[0] = 0
    for t in range(NUM_KINDS):
        if KIND_OF[t] == K_BELL:
            bell_cards[0] += s.vp[seat][t] * BELLS_OF[t]
        else:
            banked[0] += s.vp[seat][t] * BELLS_OF[t]
    for i in range(s.hidden_len[seat]):
        bell_cards[0] += BELLS_OF[s.hidden[seat][i]]

cdef inline int bells_of(const GKState* s, int seat) noexcept nogil:
    cdef int banked, bell_cards
    bell_sources(s, seat, &banked, &bell_cards)
    return banked + bell_cards

cdef inline int bells_allowed(const GKState* s) noexcept nogil:
    """The most bells a pile may hold in this state: 12 while the game goes on, since 13
    would have ended it (GK-14), unless the game plays through the deck (GK-16).  The one
    statement of that rule for checks and for dealing hidden piles (GK-18)."""
    if s.play_through or s.phase == PH_OVER:
        return CARDS_NO_CAP
    return WIN_BELLS - 1

cdef inline void fold_public(GKState* s, int event, int who, int card) noexcept nogil:
    s.public_hash = cards_fold(s.public_hash, event, who, card)

cdef inline void note_taken(GKState* s) noexcept nogil:
    """GK-16: the deck has run out once its last card is taken (the cards put back on top
    are part of it), not later when a card is wanted and the discard pile is shuffled."""
    if s.top_len == 0 and pool_total(s) == 0:
        s.deck_ran_out = 1

cdef void reshuffle(GKState* s) noexcept nogil:
    """GK-15: when a card must be drawn from an empty deck, the discard pile becomes the
    new deck (a new generation)."""
    cdef int t
    for t in range(NUM_KINDS):
        s.pool[t] = s.discard[t]
        s.discard[t] = 0
    s.gen += 1

cdef int take_top(GKState* s, uint8_t* kind, uint8_t* gen) noexcept nogil:
    """The next card of the deck if no chance is involved: 1 if taken from the
    cards put back on top; 0 if the pool must be drawn (chance); -1 if no card
    is left anywhere.  Reshuffles when the deck is empty."""
    if s.top_len > 0:
        s.top_len -= 1
        kind[0] = s.top[s.top_len]
        gen[0] = s.top_gen[s.top_len]
        note_taken(s)
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

cdef int ending_rule(const GKState* s, int buster, unsigned int* candidates) noexcept nogil:
    """Whether a round just banked, in which ``buster`` stayed out too late (-1: nobody),
    ends the game, and by which rule: 16 (GK-16: in the variant play_through, the first bust
    after the deck ran out), 14 (GK-14: 13 bells reached; a Bell card's 13th bell ends it
    mid-round, place, by the same rule), 19 (GK-19: no card left to draw), 0 (the game goes
    on).  ``candidates``: the seats among whom the winner is found (GK-14's comparison).
    The one statement of the game's end, read by end_round and by final_standing."""
    cdef int p
    candidates[0] = (1u << s.players) - 1
    if s.play_through:
        if s.deck_ran_out and buster >= 0:
            return 16
    else:
        candidates[0] = 0
        for p in range(s.players):
            if bells_of(s, p) >= WIN_BELLS:
                candidates[0] |= 1u << p
        if candidates[0]:
            return 14
        candidates[0] = (1u << s.players) - 1
    if pool_total(s) + discard_total(s) + s.top_len == 0:
        return 19
    return 0

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
    s.ended_round = 1
    s.ended_buster = buster
    s.rounds += 1
    fold_public(s, EV_ROUND_END, buster, 0)
    if ending_rule(s, buster, &reached):
        s.winner = best_of(s, reached)
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
    cdef int kind = KIND_OF[k], last
    cdef uint8_t nk = 0, ng = 0
    cdef int got
    s.arriving = -1
    if kind == K_BELL:
        # GK-7: straight to the victory pile, face down; everyone saw it turned up first,
        # drawn by a draw symbol too (GK-17), so every seat knows it is there.
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
    """A card arrives at seat `r`: with a Refuse card in the row, r decides (GK-10).
    Everyone sees it arrive, a card drawn by a draw symbol too (GK-17)."""
    fold_public(s, EV_PLACE, r, k)
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
    cdef uint8_t k = 0, g = 0
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
            fold_public(s, EV_REVEAL, -1, s.revealed)
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
    s.ended_round = 0
    if s.phase == PH_DRAW_DEAL:
        k = action - A_DRAW
        s.pool[k] -= 1
        note_taken(s)
        s.hand[s.hand_len] = k
        s.hand_gen[s.hand_len] = s.gen
        s.hand_len += 1
        s.to_draw -= 1
        advance(s)
    elif s.phase == PH_DRAW_EFFECT:
        k = action - A_DRAW
        s.pool[k] -= 1
        note_taken(s)
        after_card(s, receive(s, s.receiver, k, s.gen, True))
    elif s.phase == PH_GIVE:
        r = action - A_GIVE
        k = s.revealed
        s.revealed = -1
        s.received |= 1u << r
        fold_public(s, EV_GIVE, r, 0)
        after_card(s, receive(s, r, k, s.arriving_gen, False))
    elif s.phase == PH_REFUSE:
        r = s.receiver
        k = s.arriving
        fold_public(s, EV_REFUSE, r, action)
        if action == A_REFUSE:
            fold_public(s, EV_REFUSED, r, k)
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
    return ms_chance((<const GKState*>st).pool, NUM_KINDS, A_DRAW, actions, probs)

cdef int gk_sample_chance(const void* st, Rng* rng) noexcept nogil:
    cdef const GKState* s = <const GKState*>st
    return A_DRAW + ms_pick(s.pool, NUM_KINDS, <int>rng_below(rng, <uint32_t>pool_total(s)))

cdef void gk_returns(const void* st, double* out) noexcept nogil:
    cdef const GKState* s = <const GKState*>st
    cdef int p
    for p in range(s.players):
        out[p] = 1.0 if p == s.winner else 0.0

cdef inline int gen_index(int* gens, int* n, int g) noexcept nogil:
    """The index of deck generation g among gens[0:n], added if new.  Past GEN_CAP, older
    generations share the last index: their cards are then exchanged among themselves, a
    world the observer could tell apart only by when they were shuffled, never the truth."""
    cdef int j
    for j in range(n[0]):
        if gens[j] == g:
            return j
    if n[0] == GEN_CAP:
        return GEN_CAP - 1
    gens[n[0]] = g
    n[0] += 1
    return n[0] - 1

cdef int deal_hidden(GKState* s, int16_t* unseen, int n_sources, const int* need, const int* cap,
                     uint8_t* out, Rng* rng) noexcept nogil:
    """Deals Bell cards of `unseen` (n_sources multisets of MAX_KINDS counts) to the seats'
    face-down piles: seat p takes need[p * GEN_CAP + j] cards of source j and at most
    cap[p] bells, into out[p * HIDDEN_CAP:], each consistent deal equally likely (GK-18).
    Returns what
    cards_deal_places returns."""
    cdef DealPlace places[GK_MAX_PLAYERS]
    cdef int p, j, n = 0
    for p in range(s.players):
        for j in range(CARDS_MAX_SOURCES):
            places[n].need[j] = need[p * GEN_CAP + j] if j < n_sources else 0
        places[n].cap = cap[p]
        places[n].out = out + p * HIDDEN_CAP
        n += 1
    return cards_deal_places(unseen, MAX_KINDS, n_sources, NUM_KINDS, IS_BELL, BELLS_OF, places, n, rng)

cdef void gk_determinize(void* st, int observer, Rng* rng) noexcept nogil:
    # GK-18: per deck generation, the cards `observer` has not seen are dealt again at
    # random over the places it cannot see into: the pool, the face-down deal, the cards
    # put back on top, and the face-down Bell cards of other seats' piles (a position a
    # client built may hold some, GK-17).  Those piles are dealt first, among the deals
    # where none reaches 13 bells while the game goes on — the observer knows nobody has
    # won — exactly uniformly and by construction (engines/cards.pxd), so the true cards
    # never come back just because a deal is hard; then the rest is dealt at random.
    # The result depends only on what `observer` knows and on the generator.
    cdef GKState* s = <GKState*>st
    cdef int16_t unseen[GEN_CAP][MAX_KINDS]
    cdef int gens[GEN_CAP]
    cdef int need[GK_MAX_PLAYERS * GEN_CAP]
    cdef int cap[GK_MAX_PLAYERS]
    cdef uint8_t dealt[GK_MAX_PLAYERS * HIDDEN_CAP]
    cdef int n_gens = 0, p, i, j, t, any_hidden = 0, pos, allowed = bells_allowed(s)
    memset(unseen, 0, sizeof(unseen))
    memset(need, 0, sizeof(need))
    gen_index(gens, &n_gens, s.gen)                     # the pool's generation is index 0
    for t in range(NUM_KINDS):
        unseen[0][t] = s.pool[t]
    for i in range(s.hand_len):
        unseen[gen_index(gens, &n_gens, s.hand_gen[i])][s.hand[i]] += 1
    for i in range(s.top_len):
        unseen[gen_index(gens, &n_gens, s.top_gen[i])][s.top[i]] += 1
    for p in range(s.players):
        cap[p] = CARDS_NO_CAP
        if p == observer or s.open_piles or s.hidden_len[p] == 0:
            continue
        for i in range(s.hidden_len[p]):
            j = gen_index(gens, &n_gens, s.hidden_gen[p][i])
            unseen[j][s.hidden[p][i]] += 1
            need[p * GEN_CAP + j] += 1
            any_hidden = 1
        cap[p] = allowed - visible_bells(s, p) if allowed != CARDS_NO_CAP else CARDS_NO_CAP
    if any_hidden:
        if deal_hidden(s, &unseen[0][0], n_gens, need, cap, dealt, rng) != 1:
            # Only a state no game reaches gets here (its own piles break the limit):
            # deal them without the limit rather than keep the true cards.
            for p in range(s.players):
                cap[p] = CARDS_NO_CAP
            deal_hidden(s, &unseen[0][0], n_gens, need, cap, dealt, rng)
        for p in range(s.players):
            if p == observer or s.open_piles or s.hidden_len[p] == 0:
                continue
            # dealt[p] lists source 0's cards, then source 1's, ...: back to the slots.
            pos = 0
            for j in range(n_gens):
                for i in range(s.hidden_len[p]):
                    if gen_index(gens, &n_gens, s.hidden_gen[p][i]) == j:
                        s.hidden[p][i] = dealt[p * HIDDEN_CAP + pos]
                        pos += 1
            s.private_hash[p] = hidden_hash(s, p)       # its owner's knowledge follows the deal
    for i in range(s.hand_len):
        s.hand[i] = <uint8_t>ms_draw(unseen[gen_index(gens, &n_gens, s.hand_gen[i])], NUM_KINDS, rng)
    for i in range(s.top_len):
        s.top[i] = <uint8_t>ms_draw(unseen[gen_index(gens, &n_gens, s.top_gen[i])], NUM_KINDS, rng)
    for t in range(NUM_KINDS):
        s.pool[t] = unseen[0][t]

cdef uint64_t hidden_hash(const GKState* s, int p) noexcept nogil:
    """What seat p alone knows: its hidden bell cards, in the order it got them."""
    cdef uint64_t h = 0
    cdef int i
    for i in range(s.hidden_len[p]):
        h = cards_fold(h, EV_OWN_BELL, p, s.hidden[p][i])
    return h

cdef uint64_t gk_infoset_key(const void* st, int player) noexcept nogil:
    cdef const GKState* s = <const GKState*>st
    cdef uint64_t h = mix64(mix64(s.public_hash, s.private_hash[player]), <uint64_t>((EV_SEAT << 8) | player))
    if s.phase == PH_REFUSE and player == s.receiver:
        h = mix64(h, <uint64_t>((EV_OWN_BELL << 16) | (s.arriving + 1)))   # the receiver sees what arrives
    return h

cdef int gk_make_current(void* st, int seat) noexcept nogil:
    return 1 if gk_current_player(st) == seat else 0

# The room's table (engines/abi.pxd), filled by the room kit's helpers (engines/room.pxd)
# here and beside the other functions they put in it, and exported as GAME_DEF.
cdef GameDef GK_DEF
game_def(&GK_DEF, b"gangs_of_kyoto", sizeof(GKState), GK_MAX_PLAYERS, A_DRAW + MAX_KINDS, MAX_KINDS, GK_MAX_PLAYERS,
         20000, gk_num_players, gk_current_player, gk_legal_actions, gk_apply_action, gk_chance_outcomes,
         gk_sample_chance, gk_returns, gk_determinize, gk_infoset_key, gk_make_current)

include "rollout.pxi"

cdef void gk_scores(const void* st, double* out) noexcept nogil:
    # GK-21: the analysis score is a seat's bells (its victory pile, face-down cards included).
    cdef const GKState* s = <const GKState*>st
    cdef int p
    for p in range(s.players):
        out[p] = bells_of(s, p)

cdef void gk_hidden_counts(const void* st, int observer, int* out) noexcept nogil:
    # GK-22: beliefs count the places gk_determinize deals again (GK-18).
    cdef const GKState* s = <const GKState*>st
    cdef int p, i, t
    memset(out, 0, sizeof(int) * GK_PLACES * MAX_KINDS)
    for p in range(s.players):
        if p == observer or s.open_piles:
            continue
        for i in range(s.hidden_len[p]):
            out[p * MAX_KINDS + s.hidden[p][i]] += 1
    for t in range(NUM_KINDS):
        out[GK_POOL * MAX_KINDS + t] = s.pool[t]
    for i in range(s.hand_len):
        out[GK_HAND * MAX_KINDS + s.hand[i]] += 1
    for i in range(s.top_len):
        out[GK_TOP * MAX_KINDS + s.top[i]] += 1

game_def_beliefs(&GK_DEF, gk_hidden_counts, GK_PLACES, MAX_KINDS)

# ------------------------------------------------ evaluations and features (not rules)
# What an estimate of a seat's chance to win reads: the hand-written evaluation
# (GameDef.evaluate) and the features of the learned one (python -m fagin.train,
# seeds/gangs_of_kyoto.md, "A learned evaluation").  Both read only what every seat sees
# (GK-17): the face-up victory piles (a face-down Bell card another seat cannot see counts as
# the deck's mean Bell card, whatever it is), the rows, whose turn it is, who received a card
# this turn, and how many cards are left in the deck; never the deck's order, the face-down
# deal or the cards put back on top.  So twin positions that differ only in hidden cards get
# the same estimate, and a search's determinizations cannot leak through it.  Neither plays
# a part unless a search cuts its playouts short (GameDef.rollout_depth is 0: the default
# search plays every playout to the end).
cdef enum:
    GK_SEAT_FEATURES = 8        # per seat, each taken relative to the best other seat
    GK_FEATURES = 14            # those; the hand-written estimate's logit, the seat to act, received
                                # this turn, turns until it deals; progress, worth lead by progress

FEATURE_NAMES = ("bells", "row_bells", "row_sum", "headroom", "refuse", "stay_late", "kept_row_bells", "worth",
                 "hand_logit", "to_act", "received", "deals_in", "bells_left", "worth_by_bells_left")
# The feature that measures the game's progress: the share of the 13 bells (GK-14) the seat
# nearest to winning still lacks (1 at the start, 0 once a seat has 13); playing through the
# deck (GK-16), the share of the deck still to be taken before it runs out.  python -m
# fagin.train's mid-game figures take a third to two thirds.
PROGRESS_FEATURE = "bells_left"

# The hand-written evaluation's softmax temperature in bells: EVAL_TEMP_END once a seat is at
# the line, EVAL_TEMP_PER_BELL more per bell still lacking, so an early lead counts for less.
cdef double EVAL_TEMP_END = 1.0
cdef double EVAL_TEMP_PER_BELL = 0.3
cdef double HAND_LOGIT_CAP = 10.0       # the hand_logit feature's bound (a sure estimate's logit)

cdef double public_bells(const GKState* s, int p) noexcept nogil:
    """Seat p's bells as every seat sees them: the face-up pile, and each face-down Bell card
    another seat cannot see at the deck's mean (in play there are none, GK-17)."""
    if s.open_piles:
        return bells_of(s, p)
    return visible_bells(s, p) + s.hidden_len[p] * HIDDEN_BELL_MEAN

cdef void seat_values(const GKState* s, int p, double* r) noexcept nogil:
    """Seat p's GK_SEAT_FEATURES raw values at r: its bells, the bells in its row (banked
    unless it busts, GK-12), the row's time value, the room left below its limit (GK-6, GK-9),
    a Refuse card in the row (GK-10), a Stay Late card in it, the row's bells weighted by that
    room's share of the limit, and its worth: bells plus those weighted row bells."""
    cdef int i, row_bells = 0, limit = limit_of(s, p), room
    for i in range(s.row_len[p]):
        row_bells += BELLS_OF[s.row[p][i]]
    room = limit - s.row_sum[p]
    if room < 0:
        room = 0
    r[0] = public_bells(s, p)
    r[1] = row_bells
    r[2] = s.row_sum[p]
    r[3] = room
    r[4] = 1.0 if count_kind(s, p, K_REFUSE) > 0 else 0.0
    r[5] = 1.0 if limit == LIMIT_STAY_LATE else 0.0
    r[6] = row_bells * <double>room / limit
    r[7] = r[0] + r[6]

cdef double game_left(const GKState* s, const double* bells) noexcept nogil:
    """The progress feature: the share of the game still ahead, from 1 to 0 (see
    PROGRESS_FEATURE); bells[p] is seat p's public_bells."""
    cdef double left, best = 0.0
    cdef int p
    if s.phase == PH_OVER:
        return 0.0
    if s.play_through:
        if s.deck_ran_out or DECK_SIZE <= 0:
            return 0.0
        left = (pool_total(s) + s.top_len) / <double>DECK_SIZE
    else:
        for p in range(s.players):
            if bells[p] > best:
                best = bells[p]
        left = (WIN_BELLS - best) / <double>WIN_BELLS
    if left < 0.0:
        return 0.0
    return 1.0 if left > 1.0 else left

cdef void gk_evaluate(const void* st, double* out) noexcept nogil:
    # The hand-written estimate of each seat's chance to win (GameDef.evaluate): a softmax of
    # the seats' worths (bells, and row bells weighted by the room left below the row's
    # limit; seat_values), at a temperature that falls as the leader nears 13 bells.
    cdef const GKState* s = <const GKState*>st
    cdef double raw[GK_SEAT_FEATURES]
    cdef double worth[GK_MAX_PLAYERS]
    cdef double bells[GK_MAX_PLAYERS]
    cdef double top = -1e300, total = 0.0, temp
    cdef int p
    if s.phase == PH_OVER:
        gk_returns(st, out)
        return
    for p in range(s.players):
        seat_values(s, p, raw)
        bells[p] = raw[0]
        worth[p] = raw[7]
        if worth[p] > top:
            top = worth[p]
    temp = EVAL_TEMP_END + EVAL_TEMP_PER_BELL * WIN_BELLS * game_left(s, bells)
    for p in range(s.players):
        out[p] = exp((worth[p] - top) / temp)
        total += out[p]
    for p in range(s.players):
        out[p] /= total

cdef void gk_features(const void* st, double* out) noexcept nogil:
    """The features of every seat, seat p's GK_FEATURES values at out[p * GK_FEATURES:]: each
    seat value minus the largest other seat's, then the logit of the hand-written estimate
    (gk_evaluate, bounded by HAND_LOGIT_CAP), 1 for the seat to act, 1 for a seat that has
    received its card of the turn (GK-5: it can get no other), the turns until the seat deals
    as a share of the players (0 for the active player), the share of the game left, and the
    worth lead times that share."""
    cdef const GKState* s = <const GKState*>st
    cdef double raw[GK_MAX_PLAYERS * GK_SEAT_FEATURES]
    cdef double bells[GK_MAX_PLAYERS]
    cdef double hand[GK_MAX_PLAYERS]
    cdef double left, z
    cdef double* f
    cdef int p, actor = gk_current_player(s)
    cdef bint in_turn = s.phase == PH_GIVE or s.phase == PH_REFUSE or s.phase == PH_DRAW_EFFECT
    for p in range(s.players):
        seat_values(s, p, &raw[p * GK_SEAT_FEATURES])
        bells[p] = raw[p * GK_SEAT_FEATURES]
    learned_relative(raw, s.players, GK_SEAT_FEATURES, out, GK_FEATURES)
    left = game_left(s, bells)
    gk_evaluate(s, hand)
    for p in range(s.players):
        f = &out[p * GK_FEATURES]
        if hand[p] <= 0.0:
            z = -HAND_LOGIT_CAP
        elif hand[p] >= 1.0:
            z = HAND_LOGIT_CAP
        else:
            z = log(hand[p] / (1.0 - hand[p]))
            z = -HAND_LOGIT_CAP if z < -HAND_LOGIT_CAP else (HAND_LOGIT_CAP if z > HAND_LOGIT_CAP else z)
        f[GK_SEAT_FEATURES] = z
        f[GK_SEAT_FEATURES + 1] = 1.0 if actor == p else 0.0
        f[GK_SEAT_FEATURES + 2] = 1.0 if in_turn and (s.received >> p) & 1 else 0.0
        f[GK_SEAT_FEATURES + 3] = ((p - s.active + s.players) % s.players) / <double>s.players
        f[GK_SEAT_FEATURES + 4] = left
        f[GK_SEAT_FEATURES + 5] = f[7] * left

# The learned evaluation (GameDef.evaluate_learned): a logistic regression on the features
# above, one per player count, and the expected final margin (GameDef.margins_learned): a linear
# one on the same features, both fitted by python -m fagin.train and shipped as data
# (data/learned.json); loaded once at import into the shared kit's model (engines/learned.pxd).

# Playouts run to the end unless a search asks for a cut-off (rollout_depth 0).
game_def_knowledge(&GK_DEF, gk_rollout_action, gk_heuristic_action, gk_evaluate, 0, gk_scores, gk_features,
                   GK_FEATURES)
GAME_DEF = export_game_def(&GK_DEF)

# ---------------------------- the data and the constants the Python side reads

DECK_FILE = data_path(__file__, "deck.json")
KINDS = ("exploration", "bell", "discard", "stay_late", "refuse")
PHASES = ("draw_deal", "give", "refuse", "draw_effect", "over")
# The rulebook's player range.  The engine does not import its room (the room's
# GameSpec states the same range; the catalogue test holds the two together).
MIN_PLAYERS = 2
MAX_PLAYERS = GK_MAX_PLAYERS
ACTION_GIVE = A_GIVE
ACTION_ACCEPT = A_ACCEPT
ACTION_REFUSE = A_REFUSE
ACTION_DRAW = A_DRAW
CARDS = []          # one dict per kind of card: kind, value, bells, draw, count
CARD_INDEX = {}     # (kind, value, bells, draw) -> the kind of card's index


def _load_deck(path=DECK_FILE):
    """Reads the deck and checks it against the rulebook's constraints (GK-2)."""
    global NUM_KINDS, DECK_SIZE, HIDDEN_BELL_MEAN
    data = read_json(path)
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
        IS_BELL[i] = 1 if c["kind"] == "bell" else 0
        COUNT_OF[i] = c["count"]
    NUM_KINDS = len(cards)
    DECK_SIZE = total
    bell_cards = sum(c["count"] for c in cards if c["kind"] == "bell")
    HIDDEN_BELL_MEAN = (sum(c["count"] * c["bells"] for c in cards if c["kind"] == "bell") / bell_cards
                        if bell_cards else 1.0)
    CARDS[:] = [dict(kind=c["kind"], value=c["value"], bells=c["bells"], draw=bool(c["draw"]),
                     count=c["count"]) for c in cards]
    CARD_INDEX.clear()
    CARD_INDEX.update({(c["kind"], c["value"], c["bells"], c["draw"]): k for k, c in enumerate(CARDS)})


_load_deck()

# LEARNED: the model document loaded (data/learned.json), or None.
_load_learned = learned_room(&GK_DEF, globals(), data_path(__file__, "learned.json"), FEATURE_NAMES, "Gangs of Kyoto")


include "state.pxi"


# The heuristic, the evaluations and the features on state bytes (fagin.engines.core.room_functions).
heuristic_action, evaluation, features, learned_evaluation = _room_functions(GAME_DEF)


def final_standing(data):
    """The game's end as the engine found it: per seat its ``bells``, split into ``banked``
    (from the rows, GK-12) and ``bell_cards`` (GK-7), and ``after_first``, how many seats after
    the First Player card's holder it sits (GK-14's tie-break: the furthest wins); ``winner``;
    ``rule``, the rule that ended the game (``ending_rule``: 14, 16 or 19; None where the
    position was built by a client at the end of a play_through game and the last round's bust
    is not recorded); ``candidates``, the seats the winner was found among (GK-14: those that
    reached 13 bells; else all)."""
    cdef GKState s = _read(data)
    cdef int p, banked, bell_cards, rule
    cdef unsigned int candidates = 0
    seats = []
    for p in range(s.players):
        bell_sources(&s, p, &banked, &bell_cards)
        seats.append({"bells": banked + bell_cards, "banked": banked, "bell_cards": bell_cards,
                      "after_first": (p - s.first + s.players) % s.players})
    rule = ending_rule(&s, s.ended_buster if s.ended_round else -1, &candidates)
    return {"seats": seats, "winner": s.winner if s.winner >= 0 else None, "rule": rule or None,
            "candidates": [p for p in range(s.players) if (candidates >> p) & 1],
            "win_bells": WIN_BELLS, "first_player": s.first}
