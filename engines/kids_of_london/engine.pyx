# cython: language_level=3
"""Kids of London (Antonin Boccara, MJ Games): the rules engine.

The rules, in our words and with every ruling the rulebook leaves open, are in
``seeds/kids_of_london.md``; comments below cite those rulings as ``KL-n``.

Seats ``0 .. players-1`` are the real players, numbered clockwise.  In the
two-player game the fictitious player sits at seat ``players`` (= 2), between
seat 1 and seat 0 (KL-16); it has coins and cards but never decides and has no
return.

Action ids (stable; see ``action_label``):

* ``0..8``   play the Street Child card of that value
* ``9``      prince/comedian: take nothing (comedian);  ``10``: take the 8 (prince)
* ``11``     lone survivor: take the card's value;  ``12``: rob the character
* ``13..19`` chance: the character tile revealed (one id per character kind)
* ``20..28`` chance: the fictitious player's card revealed (value 0..8)
"""
from fagin.engines.room_data import data_path

cimport cython
from libc.stdint cimport int8_t, int32_t, uint8_t, uint16_t, uint64_t
from libc.string cimport memset
from libc.math cimport erfc, log, sqrt

from fagin.engines.abi cimport GameDef, PLAYER_CHANCE, PLAYER_TERMINAL
from fagin.engines.room cimport export_game_def, game_def, game_def_knowledge, read_state
from fagin.engines.rng cimport Rng, rng_below, mix64
from fagin.engines.learned cimport learned_relative, learned_room

from fagin.engines.core import room_functions as _room_functions
from fagin.engines.validation import enum_index as _enum_index, int_in as _int_in
from fagin.engines.validation import one_per_seat as _one_per_seat

# ---------------------------------------------------------------- constants
cdef enum:
    KL_MAX_PLAYERS = 5        # real players
    KL_MAX_SEATS = 6          # 5 real players, or 2 real + the fictitious one
    NUM_CARDS = 9             # Street Child cards 0..8 per colour
    NUM_KINDS = 7             # character kinds
    NUM_TURNS = 9
    LEADER = 8                # the gang leader card (KL-7)

    A_CARD = 0
    A_COMEDIAN = 9
    A_PRINCE = 10
    A_LONE_CARD = 11
    A_LONE_CHARACTER = 12
    A_REVEAL_CHARACTER = 13
    A_REVEAL_FICTITIOUS = 20
    NUM_ACTIONS = 29

    # Character kinds.
    MERCHANT = 0
    LEFT_PRIEST = 1
    RIGHT_PRIEST = 2
    JEWELLER = 3
    BANKER = 4
    PRINCE = 5
    BEGGAR = 6

    # Phases.
    PH_REVEAL_CHARACTER = 0
    PH_REVEAL_FICTITIOUS = 1
    PH_CHOOSE_CARD = 2
    PH_CHOOSE_PRINCE = 3
    PH_CHOOSE_LONE = 4
    PH_OVER = 5

    # Public events folded into the information-set hash.
    EV_START = 1
    EV_CHARACTER = 2
    EV_FICTITIOUS = 3
    EV_REVEAL = 4
    EV_PRINCE = 5
    EV_LONE = 6
    EV_OWN_CARD = 7
    EV_OWN_PRINCE = 8
    EV_SEAT = 9
    EV_POSITION = 10

    # A secret choice (committed card, prince pick) not yet made, or made but
    # unknown to this state: a seat's view, or a determinization, shows that
    # another seat has chosen without showing what (KL-23).
    NO_CHOICE = -1
    HIDDEN = -2

cdef int KIND_COUNT[NUM_KINDS]
KIND_COUNT[:] = [2, 1, 1, 2, 1, 1, 1]
# Coins a character is worth (the beggar's is a loss of 3, the prince's is 8 or 0).
cdef int KIND_VALUE[NUM_KINDS]
KIND_VALUE[:] = [4, 5, 5, 6, 7, 8, 3]

ctypedef struct KLState:
    uint64_t public_hash            # running hash of everything all seats have seen
    int32_t coins[KL_MAX_SEATS]     # seat `players` is the fictitious player, if any
    uint16_t hand[KL_MAX_SEATS]     # unplayed cards (bit v = card v); fictitious: its face-down deck
    int8_t committed[KL_MAX_SEATS]  # card chosen this turn, NO_CHOICE or HIDDEN (fictitious: its revealed card)
    int8_t prince_pick[KL_MAX_SEATS]  # NO_CHOICE (pending / not a robber), HIDDEN, 0 comedian, 1 prince
    int8_t last_cards[KL_MAX_SEATS] # cards revealed in the previous turn (display only)
    int8_t pile[NUM_KINDS]          # face-down character tiles left, per kind
    int8_t players                  # real players, 2..5
    int8_t seats                    # players, plus 1 for the fictitious player
    int8_t turn                     # hours completed, 0..9
    int8_t phase
    int8_t character                # kind revealed this turn, -1 before the reveal
    int8_t last_character           # kind robbed in the previous turn (display only)
    int8_t priority                 # seat made current in a simultaneous phase, -1 if none
    int8_t lone                     # the lone survivor (phase PH_CHOOSE_LONE), else -1
    uint8_t robbers                 # seats robbing the character this turn (bit per seat)

# ----------------------------------------------------------------- helpers

cdef inline int popcount16(unsigned int x) noexcept nogil:
    cdef int n = 0
    while x:
        x &= x - 1
        n += 1
    return n

# Loop bounds over the seats' arrays.  Every state is made by initial_state_bytes
# or from_description, which keep players in 2..KL_MAX_PLAYERS; the clamp lets
# the compiler prove the arrays' indices in bounds without seeing that (one
# compare per call, off the per-seat loops).
cdef inline int n_players(const KLState* s) noexcept nogil:
    return s.players if s.players <= KL_MAX_PLAYERS else KL_MAX_PLAYERS

cdef inline int n_seats(const KLState* s) noexcept nogil:
    return s.seats if s.seats <= KL_MAX_SEATS else KL_MAX_SEATS

cdef inline bint has_fictitious(const KLState* s) noexcept nogil:
    return s.seats > s.players

cdef inline void reopen_hidden(int8_t* choices, int n) noexcept nogil:
    """Turns the HIDDEN choices among the first `n` into pending ones.

    A state that knows a seat has chosen but not what (KL-23) can never reveal
    that choice, so the next choice applied to it reopens the unknown ones to
    be made afresh.  In a determinization that is the old order exactly: the
    observer chooses, then every other seat in turn.
    """
    cdef int seat
    for seat in range(n):
        if choices[seat] == HIDDEN:
            choices[seat] = NO_CHOICE

cdef inline int left_of(const KLState* s, int seat) noexcept nogil:
    # KL-15: seats are numbered clockwise, so the left neighbour is the next seat.
    return (seat + 1) % s.seats

cdef inline int right_of(const KLState* s, int seat) noexcept nogil:
    return (seat + s.seats - 1) % s.seats

cdef void hash_position(KLState* s) noexcept nogil:
    """Starts the public hash from the whole public position (KL-19).

    Used for fresh games and for positions a client builds; from then on
    every public event is folded in by apply_action.
    """
    cdef int i
    cdef unsigned int hand
    cdef uint64_t h = mix64(<uint64_t>EV_POSITION, <uint64_t>(s.players * 16 + s.seats))
    h = mix64(h, <uint64_t>(s.turn * 64 + s.phase * 8 + (s.character + 1)))
    for i in range(NUM_KINDS):
        h = mix64(h, <uint64_t>s.pile[i])
    for i in range(n_seats(s)):
        h = mix64(h, <uint64_t>s.coins[i])
        hand = s.hand[i]
        if s.phase == PH_CHOOSE_CARD and i < s.players and s.committed[i] >= 0:
            hand |= 1u << s.committed[i]      # KL-18: a card put down is secret, publicly still in hand
        h = mix64(h, <uint64_t>hand)
        if s.phase == PH_CHOOSE_PRINCE or s.phase == PH_CHOOSE_LONE:
            h = mix64(h, <uint64_t>(s.committed[i] + 1))   # every card is face up
    if has_fictitious(s):
        h = mix64(h, <uint64_t>(s.committed[n_players(s)] + 1))
    s.public_hash = h


cdef void end_turn(KLState* s) noexcept nogil:
    cdef int i
    for i in range(n_seats(s)):
        s.last_cards[i] = s.committed[i]
        s.committed[i] = NO_CHOICE
        s.prince_pick[i] = NO_CHOICE
    s.last_character = s.character
    s.character = -1
    s.robbers = 0
    s.lone = -1
    s.priority = -1
    s.turn += 1
    s.phase = PH_OVER if s.turn >= NUM_TURNS else PH_REVEAL_CHARACTER

cdef void pay_share(KLState* s, unsigned int payees, int k) noexcept nogil:
    """Each seat in `payees` robs its share of the character, `k` robbers in all."""
    cdef int seat, share, loss
    for seat in range(n_seats(s)):
        if not (payees >> seat) & 1:
            continue
        if s.character == BEGGAR:
            # KL-11, KL-12: the loss is shared like a gain and never goes below zero.
            loss = 3 // k
            s.coins[seat] -= loss if loss < s.coins[seat] else s.coins[seat]
        elif s.character == LEFT_PRIEST:
            share = 5 // k        # KL-10: each robber passes on its own share
            s.coins[left_of(s, seat)] += share
        elif s.character == RIGHT_PRIEST:
            share = 5 // k
            s.coins[right_of(s, seat)] += share
        else:
            s.coins[seat] += KIND_VALUE[s.character] // k

cdef void rob(KLState* s, unsigned int robbers) noexcept nogil:
    """The seats in `robbers` (tied for the highest card) rob this turn's character."""
    cdef int k = popcount16(robbers)
    cdef int seat
    if s.character == PRINCE and s.turn < NUM_TURNS - 1:
        # KL-13: every real robber chooses prince or comedian, secretly and at once.
        s.robbers = <uint8_t>robbers
        s.priority = -1
        for seat in range(n_seats(s)):
            s.prince_pick[seat] = NO_CHOICE
        if has_fictitious(s) and (robbers >> s.players) & 1:
            s.prince_pick[n_players(s)] = 1      # KL-17: the fictitious player takes the prince
        if robbers & ((1u << s.players) - 1):
            s.phase = PH_CHOOSE_PRINCE
            return
        pay_share(s, robbers, k)   # only the fictitious player robbed it
        end_turn(s)
        return
    # KL-14: the last-turn prince is always a prince, so no choice is asked.
    pay_share(s, robbers, k)
    end_turn(s)

cdef void reveal_cards(KLState* s) noexcept nogil:
    """All cards of the turn are face up: arrests, the theft, the lowest cards."""
    cdef int seat, card, hi = -1, lo = NUM_CARDS, leaders = 0
    cdef unsigned int in_play = 0, robbers = 0
    for seat in range(n_seats(s)):
        s.public_hash = mix64(s.public_hash, <uint64_t>((EV_REVEAL << 16) | (seat << 8) | s.committed[seat]))
        if s.committed[seat] == LEADER:
            leaders += 1
    for seat in range(n_seats(s)):
        card = s.committed[seat]
        if card == LEADER and leaders >= 2:
            continue                              # KL-7: arrested, out of play
        in_play |= 1u << seat
        if card > hi:
            hi = card
        if card < lo:
            lo = card
    if in_play == 0:
        end_turn(s)                               # KL-8: every card was a leader
        return
    if popcount16(in_play) == 1:
        # KL-9: the lone card left is both highest and lowest: its owner chooses.
        for seat in range(n_seats(s)):
            if (in_play >> seat) & 1:
                s.lone = seat
        if has_fictitious(s) and s.lone == s.players:
            rob(s, in_play)                       # KL-17: the fictitious player robs
            return
        s.phase = PH_CHOOSE_LONE
        return
    for seat in range(n_seats(s)):
        if not (in_play >> seat) & 1:
            continue
        if s.committed[seat] == hi:
            robbers |= 1u << seat
        elif s.committed[seat] == lo:
            s.coins[seat] += lo                   # KL-5: each lowest card steals its value
    # KL-6: when all cards in play are equal they are all highest, none lowest.
    rob(s, robbers)

cdef void enter_choose_card(KLState* s) noexcept nogil:
    cdef int seat, card
    s.phase = PH_CHOOSE_CARD
    s.priority = -1
    for seat in range(n_players(s)):
        s.committed[seat] = NO_CHOICE
    if s.turn == NUM_TURNS - 1:
        # KL-3: in the last hour every hand holds one card: it is played without a choice.
        for seat in range(n_players(s)):
            for card in range(NUM_CARDS):
                if (s.hand[seat] >> card) & 1:
                    s.committed[seat] = card
                    s.hand[seat] = 0
        reveal_cards(s)

# ---------------------------------------------------------------- the ABI

cdef int kl_num_players(const void* st) noexcept nogil:
    return (<const KLState*>st).players

cdef int kl_current_player(const void* st) noexcept nogil:
    cdef const KLState* s = <const KLState*>st
    cdef int seat
    if s.phase == PH_REVEAL_CHARACTER or s.phase == PH_REVEAL_FICTITIOUS:
        return PLAYER_CHANCE
    if s.phase == PH_CHOOSE_CARD:
        if s.priority >= 0 and s.committed[s.priority] == NO_CHOICE:
            return s.priority
        for seat in range(n_players(s)):
            if s.committed[seat] == NO_CHOICE:
                return seat
    elif s.phase == PH_CHOOSE_PRINCE:
        if s.priority >= 0 and s.prince_pick[s.priority] == NO_CHOICE:
            return s.priority
        for seat in range(n_players(s)):
            if (s.robbers >> seat) & 1 and s.prince_pick[seat] == NO_CHOICE:
                return seat
    elif s.phase == PH_CHOOSE_LONE:
        return s.lone
    return PLAYER_TERMINAL

cdef int kl_legal_actions(const void* st, int* out) noexcept nogil:
    cdef const KLState* s = <const KLState*>st
    cdef int n = 0, i, seat
    if s.phase == PH_REVEAL_CHARACTER:
        for i in range(NUM_KINDS):
            if s.pile[i] > 0:
                out[n] = A_REVEAL_CHARACTER + i
                n += 1
    elif s.phase == PH_REVEAL_FICTITIOUS:
        for i in range(NUM_CARDS):
            if (s.hand[n_players(s)] >> i) & 1:
                out[n] = A_REVEAL_FICTITIOUS + i
                n += 1
    elif s.phase == PH_CHOOSE_CARD:
        seat = kl_current_player(st)
        for i in range(NUM_CARDS):
            if (s.hand[seat] >> i) & 1:
                out[n] = A_CARD + i
                n += 1
    elif s.phase == PH_CHOOSE_PRINCE:
        out[0] = A_COMEDIAN
        out[1] = A_PRINCE
        n = 2
    elif s.phase == PH_CHOOSE_LONE:
        out[0] = A_LONE_CARD
        out[1] = A_LONE_CHARACTER
        n = 2
    return n

cdef void kl_apply_action(void* st, int action) noexcept nogil:
    cdef KLState* s = <KLState*>st
    cdef int seat, i, k
    cdef unsigned int princes = 0
    if s.phase == PH_REVEAL_CHARACTER:
        i = action - A_REVEAL_CHARACTER
        s.pile[i] -= 1
        s.character = i
        s.public_hash = mix64(s.public_hash, <uint64_t>((EV_CHARACTER << 8) | i))
        if has_fictitious(s):
            s.phase = PH_REVEAL_FICTITIOUS
        else:
            enter_choose_card(s)
    elif s.phase == PH_REVEAL_FICTITIOUS:
        i = action - A_REVEAL_FICTITIOUS
        s.hand[n_players(s)] &= ~(1u << i)
        s.committed[n_players(s)] = i
        s.public_hash = mix64(s.public_hash, <uint64_t>((EV_FICTITIOUS << 8) | i))
        enter_choose_card(s)
    elif s.phase == PH_CHOOSE_CARD:
        seat = kl_current_player(st)
        s.committed[seat] = action - A_CARD
        s.hand[seat] &= ~(1u << (action - A_CARD))
        reopen_hidden(s.committed, n_players(s))
        if kl_current_player(st) == PLAYER_TERMINAL:
            reveal_cards(s)
    elif s.phase == PH_CHOOSE_PRINCE:
        seat = kl_current_player(st)
        s.prince_pick[seat] = action - A_COMEDIAN
        reopen_hidden(s.prince_pick, n_players(s))
        if kl_current_player(st) == PLAYER_TERMINAL:
            k = 0
            for seat in range(n_seats(s)):
                if (s.robbers >> seat) & 1:
                    k += 1
                    s.public_hash = mix64(s.public_hash, <uint64_t>((EV_PRINCE << 16) | (seat << 8) | s.prince_pick[seat]))
                    if s.prince_pick[seat] == 1:
                        princes |= 1u << seat
            # KL-13: those who took the prince share 8 by the number of tied robbers.
            pay_share(s, princes, k)
            end_turn(s)
    elif s.phase == PH_CHOOSE_LONE:
        s.public_hash = mix64(s.public_hash, <uint64_t>((EV_LONE << 8) | action))
        if action == A_LONE_CARD:
            s.coins[s.lone] += s.committed[s.lone]
            end_turn(s)
        else:
            rob(s, 1u << s.lone)

cdef int kl_chance_outcomes(const void* st, int* actions, double* probs) noexcept nogil:
    cdef const KLState* s = <const KLState*>st
    cdef int n = kl_legal_actions(st, actions), i, total = 0
    if s.phase == PH_REVEAL_CHARACTER:
        for i in range(NUM_KINDS):
            total += s.pile[i]
        for i in range(n):
            probs[i] = s.pile[actions[i] - A_REVEAL_CHARACTER] / <double>total
    else:
        for i in range(n):
            probs[i] = 1.0 / n
    return n

cdef int kl_sample_chance(const void* st, Rng* rng) noexcept nogil:
    cdef const KLState* s = <const KLState*>st
    cdef int i, total = 0, r
    cdef unsigned int deck
    if s.phase == PH_REVEAL_CHARACTER:
        for i in range(NUM_KINDS):
            total += s.pile[i]
        r = rng_below(rng, total)
        for i in range(NUM_KINDS):
            r -= s.pile[i]
            if r < 0:
                return A_REVEAL_CHARACTER + i
        return A_REVEAL_CHARACTER + NUM_KINDS - 1
    deck = s.hand[n_players(s)]
    r = rng_below(rng, popcount16(deck))
    for i in range(NUM_CARDS):
        if (deck >> i) & 1:
            if r == 0:
                return A_REVEAL_FICTITIOUS + i
            r -= 1
    return A_REVEAL_FICTITIOUS

cdef void kl_standing(const KLState* s, int* richest, int* second) noexcept nogil:
    """KL-20's two figures: the most coins any seat holds (the fictitious player's counted),
    whose holders are stripped, and the most among the others, whose holders win (-1 when
    every seat ties for the most: nobody is left to be second).  The one statement of the
    scoring, read by the returns and by final_standing."""
    cdef int seat
    richest[0] = -1
    second[0] = -1
    for seat in range(n_seats(s)):
        if s.coins[seat] > richest[0]:
            richest[0] = s.coins[seat]
    for seat in range(n_seats(s)):
        if s.coins[seat] < richest[0] and s.coins[seat] > second[0]:
            second[0] = s.coins[seat]

cdef void kl_returns(const void* st, double* out) noexcept nogil:
    cdef const KLState* s = <const KLState*>st
    cdef int seat, richest, second
    # KL-20: the richest are stripped (ties included); the best of the rest win.
    kl_standing(s, &richest, &second)
    for seat in range(n_players(s)):
        out[seat] = 1.0 if (second >= 0 and s.coins[seat] == second) else 0.0

cdef void kl_determinize(void* st, int observer, Rng* rng) noexcept nogil:
    # KL-18: the only hidden information is the other seats' secret choices
    # of this turn.  Keep that they have chosen (the observer sees it) but
    # forget what, so that search decides them afresh (KL-23).
    cdef KLState* s = <KLState*>st
    cdef int seat
    if s.phase == PH_CHOOSE_CARD:
        for seat in range(n_players(s)):
            if seat != observer and s.committed[seat] >= 0:
                s.hand[seat] |= 1u << s.committed[seat]
                s.committed[seat] = HIDDEN
    elif s.phase == PH_CHOOSE_PRINCE:
        for seat in range(n_players(s)):
            if seat != observer and s.prince_pick[seat] >= 0:
                s.prince_pick[seat] = HIDDEN

cdef uint64_t kl_infoset_key(const void* st, int player) noexcept nogil:
    cdef const KLState* s = <const KLState*>st
    cdef uint64_t h = mix64(s.public_hash, <uint64_t>((EV_SEAT << 8) | player))
    if s.phase == PH_CHOOSE_CARD and s.committed[player] >= 0:
        h = mix64(h, <uint64_t>((EV_OWN_CARD << 8) | s.committed[player]))
    elif s.phase == PH_CHOOSE_PRINCE and s.prince_pick[player] >= 0:
        h = mix64(h, <uint64_t>((EV_OWN_PRINCE << 8) | s.prince_pick[player]))
    return h

cdef int kl_make_current(void* st, int seat) noexcept nogil:
    cdef KLState* s = <KLState*>st
    if seat < 0 or seat >= s.players:
        return 0
    if s.phase == PH_CHOOSE_CARD and s.committed[seat] == NO_CHOICE:
        s.priority = seat
        return 1
    if s.phase == PH_CHOOSE_PRINCE and (s.robbers >> seat) & 1 and s.prince_pick[seat] == NO_CHOICE:
        s.priority = seat
        return 1
    return 1 if kl_current_player(st) == seat else 0

# The room's table (engines/abi.pxd), filled by the room kit's helpers (engines/room.pxd)
# here and beside the other functions they put in it, and exported as GAME_DEF.
cdef GameDef KL_DEF
game_def(&KL_DEF, b"kids_of_london", sizeof(KLState), KL_MAX_PLAYERS, NUM_ACTIONS, NUM_CARDS, NUM_CARDS,
         NUM_TURNS * (2 + 2 * KL_MAX_SEATS + 1), kl_num_players, kl_current_player, kl_legal_actions,
         kl_apply_action, kl_chance_outcomes, kl_sample_chance, kl_returns, kl_determinize, kl_infoset_key,
         kl_make_current)

include "rollout.pxi"

cdef void kl_scores(const void* st, double* out) noexcept nogil:
    # KL-24: the analysis score is a seat's coins (the margin is in coins).
    cdef const KLState* s = <const KLState*>st
    cdef int seat
    for seat in range(n_players(s)):
        out[seat] = s.coins[seat]

# ------------------------------------------------ evaluations and features (not rules)
# What an estimate of a seat's chance to win reads: the hand-written evaluation
# (GameDef.evaluate) and the features of the learned one (python -m fagin.train,
# seeds/kids_of_london.md, "A learned evaluation").  Both read only what every seat
# sees (KL-18): the coins, the hands as the table knows them (a card put down this
# hour and not yet revealed counts as still in its owner's hand, as every other seat
# sees it), the fictitious player's face-down cards as a set, and the hours left;
# never a card put down or a prince's choice not yet revealed.  So twin positions
# that differ only in those secret choices get the same estimate, and a search's
# determinizations cannot leak through it.  Neither plays a part unless a search cuts
# its playouts short (GameDef.rollout_depth is 0: the default search plays every
# playout to the end).
cdef enum:
    KL_SEAT_FEATURES = 4        # per seat, each taken relative to the best other seat
    KL_FEATURES = 12            # those; the lead's size, the gap to the second best other
                                # seat, richest, second, the hand-written estimate's logit;
                                # progress, and the lead and the gap by progress
    KL_GH_NODES = 16            # the Gauss-Hermite nodes of the hand-written estimate

FEATURE_NAMES = ("coins", "hand_sum", "leader", "high_cards", "lead_size", "second_gap", "richest", "second",
                 "hand_logit", "hours_left", "lead_by_hours_left", "gap_by_hours_left")
# The feature that measures the game's progress: the share of the nine hours not yet
# completed (1 at the start, 0 at the end).  python -m fagin.train's mid-game figures
# take a third to two thirds (hours 4 to 6).
PROGRESS_FEATURE = "hours_left"

# The hand-written evaluation's spread: each seat's coins at the end are taken as its
# coins now plus a gain of EVAL_SIGMA coins' spread an hour left (the same for every
# seat, independent), and a seat's estimate is its chance to finish strictly second
# (KL-20).
cdef double EVAL_SIGMA = 3.0
cdef double EVAL_FLOOR = 1e-6           # the estimate's bounds (never a sure 0 or 1 before the end)
cdef double HAND_LOGIT_CAP = 10.0       # the hand_logit feature's bound (a sure estimate's logit)
cdef int HIGH_CARD = 6                  # a high card: 6 or more

# Gauss-Hermite nodes and weights (16 points; the weights divided by the square root of pi).
cdef double GH_X[KL_GH_NODES]
cdef double GH_W[KL_GH_NODES]
GH_X[:] = [-4.688738939305819, -3.869447904860123, -3.176999161979956, -2.5462021578474814,
           -1.9517879909162539, -1.3802585391988809, -0.8229514491446559, -0.27348104613815244,
           0.27348104613815244, 0.8229514491446559, 1.3802585391988809, 1.9517879909162539,
           2.5462021578474814, 3.176999161979956, 3.869447904860123, 4.688738939305819]
GH_W[:] = [1.4978147231618314e-10, 1.3094732162868187e-07, 1.5300032162487316e-05, 0.0005259849265739094,
           0.007266937601184743, 0.04728475235401403, 0.15833837275094964, 0.28656852123801213,
           0.28656852123801213, 0.15833837275094964, 0.04728475235401403, 0.007266937601184743,
           0.0005259849265739094, 1.5300032162487316e-05, 1.3094732162868187e-07, 1.4978147231618314e-10]

cdef inline unsigned int public_hand(const KLState* s, int seat) noexcept nogil:
    """Seat's cards as every seat sees them: in the card phase a card put down and not yet
    revealed is still among its hand (KL-18), whatever this state knows of it."""
    cdef unsigned int hand = s.hand[seat] & ((1u << NUM_CARDS) - 1)
    cdef int c = s.committed[seat]
    if s.phase == PH_CHOOSE_CARD and seat < s.players and 0 <= c < NUM_CARDS:
        hand |= 1u << c
    return hand

cdef inline double hours_left(const KLState* s) noexcept nogil:
    """The progress feature: the share of the nine hours not yet completed, from 1 to 0."""
    cdef double left
    if s.phase == PH_OVER:
        return 0.0
    left = (NUM_TURNS - s.turn) / <double>NUM_TURNS
    return 0.0 if left < 0.0 else (1.0 if left > 1.0 else left)

cdef void seat_values(const KLState* s, int seat, double* r) noexcept nogil:
    """Seat's KL_SEAT_FEATURES raw values at r: its coins, the sum of its (public) hand, 1 if
    the gang leader (the 8) is still in it, and how many of its cards are 6 or more."""
    cdef unsigned int hand = public_hand(s, seat)
    cdef int v, total = 0, high = 0
    for v in range(NUM_CARDS):
        if (hand >> v) & 1:
            total += v
            if v >= HIGH_CARD:
                high += 1
    r[0] = s.coins[seat]
    r[1] = total
    r[2] = 1.0 if (hand >> LEADER) & 1 else 0.0
    r[3] = high

cdef inline double normal_cdf(double z) noexcept nogil:
    return 0.5 * erfc(-z * 0.7071067811865476)

cdef void kl_evaluate(const void* st, double* out) noexcept nogil:
    # The hand-written estimate of each seat's chance to win (GameDef.evaluate): every
    # seat's final coins, the fictitious player's too, taken as its coins now plus an
    # independent normal gain of spread EVAL_SIGMA times the root of the hours left; a
    # real seat's estimate is its chance to end with exactly one seat richer (KL-20),
    # by Gauss-Hermite quadrature over its own final coins.
    cdef const KLState* s = <const KLState*>st
    cdef int p, q, r, k, seats = n_seats(s), players = n_players(s)
    cdef double sigma, x, total, term, v
    cdef double below[KL_MAX_SEATS]
    if s.phase == PH_OVER:
        kl_returns(st, out)
        return
    sigma = EVAL_SIGMA * sqrt(<double>(NUM_TURNS - s.turn if s.turn < NUM_TURNS else 1))
    if sigma <= 0.0:
        sigma = EVAL_SIGMA
    for p in range(players):
        total = 0.0
        for k in range(KL_GH_NODES):
            # Seat p ends at x (a normal of mean its coins, spread sigma): below[q] is the
            # chance that seat q ends below it.
            x = s.coins[p] + sigma * 1.4142135623730951 * GH_X[k]
            for q in range(seats):
                below[q] = normal_cdf((x - s.coins[q]) / sigma) if q != p else 1.0
            term = 0.0
            for q in range(seats):
                if q == p:
                    continue
                v = 1.0 - below[q]
                for r in range(seats):
                    if r != p and r != q:
                        v *= below[r]
                term += v
            total += GH_W[k] * term
        out[p] = EVAL_FLOOR if total < EVAL_FLOOR else (1.0 - EVAL_FLOOR if total > 1.0 - EVAL_FLOOR else total)

cdef void kl_features(const void* st, double* out) noexcept nogil:
    """The features of every real seat, seat p's KL_FEATURES values at out[p * KL_FEATURES:]:
    each seat value less the largest other seat's (the fictitious player among the others,
    KL-16), the size of the coin lead (positive or negative), the coins less the second
    largest other seat's, 1 for the richest seat (it would be stripped, KL-20), 1 for the seat
    that would win if the game ended now, the logit of the hand-written estimate (bounded by
    HAND_LOGIT_CAP), the share of the hours left, and the coin lead and the gap to the second
    times that share."""
    cdef const KLState* s = <const KLState*>st
    cdef double raw[KL_MAX_SEATS * KL_SEAT_FEATURES]
    cdef double rel[KL_MAX_SEATS * KL_FEATURES]
    cdef double hand[KL_MAX_SEATS]
    cdef double left = hours_left(s), z, lead
    cdef double* f
    cdef int p, q, seats = n_seats(s), players = n_players(s), first, second, c
    for p in range(seats):
        seat_values(s, p, &raw[p * KL_SEAT_FEATURES])
    learned_relative(raw, seats, KL_SEAT_FEATURES, rel, KL_FEATURES)
    kl_evaluate(s, hand)
    for p in range(players):
        f = &out[p * KL_FEATURES]
        for q in range(KL_SEAT_FEATURES):
            f[q] = rel[p * KL_FEATURES + q]
        first = -1
        second = -1
        for q in range(seats):
            if q == p:
                continue
            c = s.coins[q]
            if c > first:
                second = first
                first = c
            elif c > second:
                second = c
        lead = f[0]
        f[4] = lead if lead >= 0.0 else -lead
        f[5] = s.coins[p] - second
        f[6] = 1.0 if s.coins[p] > first else 0.0
        f[7] = 1.0 if second < s.coins[p] < first else 0.0
        if hand[p] <= 0.0:
            z = -HAND_LOGIT_CAP
        elif hand[p] >= 1.0:
            z = HAND_LOGIT_CAP
        else:
            z = log(hand[p] / (1.0 - hand[p]))
            z = -HAND_LOGIT_CAP if z < -HAND_LOGIT_CAP else (HAND_LOGIT_CAP if z > HAND_LOGIT_CAP else z)
        f[8] = z
        f[9] = left
        f[10] = lead * left
        f[11] = f[5] * left

# The learned evaluation (GameDef.evaluate_learned): a logistic regression on the features
# above, one per player count, and the expected final margin (GameDef.margins_learned): a linear
# one on the same features, both fitted by python -m fagin.train and shipped as data
# (data/learned.json); loaded once at import into the shared kit's model (engines/learned.pxd).

# LEARNED: the model document loaded (data/learned.json), or None.
_load_learned = learned_room(&KL_DEF, globals(), data_path(__file__, "learned.json"), FEATURE_NAMES, "Kids of London")

# Playouts run to the end unless a search asks for a cut-off (rollout_depth 0).
game_def_knowledge(&KL_DEF, kl_rollout_action, kl_heuristic_action, kl_evaluate, 0, kl_scores, kl_features,
                   KL_FEATURES)
GAME_DEF = export_game_def(&KL_DEF)

include "state.pxi"


# The heuristic, the evaluations and the features on state bytes (fagin.engines.core.room_functions).
heuristic_action, evaluation, features, learned_evaluation = _room_functions(GAME_DEF)


def final_standing(data):
    """The game's end as KL-20 scores it (``kl_standing``, the returns' own figures): every
    seat's ``coins`` (the fictitious player's last, in the 2-player game), ``richest``, the
    most coins, whose holders are stripped, and ``second``, the most among the others, whose
    real holders win (None when every seat ties for the most and nobody wins)."""
    cdef KLState s = _read(data)
    cdef int richest, second
    kl_standing(&s, &richest, &second)
    return {"coins": [s.coins[i] for i in range(n_seats(&s))], "richest": richest,
            "second": second if second >= 0 else None}
