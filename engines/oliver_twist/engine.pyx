# cython: language_level=3
"""Oliver Twist (Cathala & Pauchon, Purple Brain 2017): the rules engine.

The rules in our words, with every ruling cited here as ``OT-n``, are in
``seeds/oliver_twist.md``.  The components are data: ``data/components.json``
(tokens, coins, starting tokens, tools, rewards, Burglary cards, Characters)
and ``data/board.json`` (the street map of both sides), loaded and checked
when this module is imported.

How hidden things are held (OT-30 to OT-33).  Tokens are multisets of counts
per kind (``engines/cards.pxd``).  A face-down token nobody has looked at is
not decided until it is flipped or peeked: the night's undecided tokens and
the game box's extras form one pool (``fdpool``) drawn from at random.  A
peeked token is decided and lies on its space with the set of seats that know
it.  Police files, the bag, Character hands and Burglary cards are multisets
too, so ``determinize`` re-deals exactly what the observer cannot see.

Action ids (stable):

* ``0..79``     a space of the board (a step of the line, a flip direction, a peek,
                  where to put the Gang pawn, the Artful Dodger's target)
* ``80`` take the token at the end of the line; ``81`` done; ``82`` relocate the
  Gang pawn (£2); ``83`` pay the police £4 and end the round
* ``84..89``    Go to Fagin's with a set of that Object type
* ``90..112``   a kind of token (add it to the set, move it to the Police file, pick it
                  from the Police file)
* ``113..125``  play that Character card's effect; ``126..138`` discard it to hide
* ``139..142``  a seat (who starts the night; Mr Fang's target)
* ``143..156``  keep that Burglary card (by value kind)
* ``157..161``  discard a Tool of that type
* chance: ``162..184`` a token of that kind; ``185..197`` a Character card;
  ``198..211`` a Burglary card (value kind)
"""
from fagin.engines.room_data import data_path, read_json

cimport cython
from libc.stdint cimport int8_t, int16_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memset, memcpy
from libc.math cimport exp

from fagin.engines.abi cimport GameDef, PLAYER_CHANCE, PLAYER_TERMINAL
from fagin.engines.room cimport export_game_def, game_def, game_def_beliefs, game_def_knowledge, read_state
from fagin.engines.rng cimport Rng, rng_below, rng_seed, rng_double, mix64
from fagin.engines.cards cimport ms_total, ms_draw, ms_draw_where, ms_pick, ms_chance, cards_fold_packed
from fagin.engines.learned cimport learned_relative, learned_room
from fagin.engines.core import room_functions as _room_functions

cdef enum:
    MAXP = 4
    MAX_SIDE_SPACES = 80    # spaces a side of the street map may have (the board arrays' length)
    N_KINDS = 23            # kinds of token
    N_CHARACTERS = 13           # Character cards
    # Places and items of the beliefs (ot_hidden_counts): tokens are items 0..N_KINDS-1,
    # Character cards N_KINDS.., Burglary card values N_KINDS + N_CHARACTERS..; per seat p: OT_STASH + p, ...
    OT_STASH = 0
    OT_FILE = 4
    OT_HAND = 8
    OT_KEPT = 12
    OT_BAG = 16
    OT_FDPOOL = 17
    OT_BOARD = 18
    OT_CHAR_DRAW = 19
    OT_BURG_DRAW = 20
    OT_BURG_DRAWN = 21
    OT_PLACES = 22
    N_BURGLARY_VALUES = 14           # Burglary card value kinds
    OT_ITEMS = N_KINDS + N_CHARACTERS + N_BURGLARY_VALUES
    N_SET_TYPES = 6            # Object types that form sets
    NTOOL = 5
    STASH_CAP = 9
    LINE = 4
    LINE_CHARLEY = 6
    FLIPS = 12
    PEEKS = 2

    # Kinds (OT-2, OT-4, OT-5): round Objects, starting Objects, Wallets, others.
    K_WALLET = 14
    K_SWALLET = 15
    K_CHAR = 16
    K_TOOL0 = 17
    K_BURGLARY = 22

    # Types for sets and for the police fine (OT-22).
    T_WALLET = 6
    T_CHAR = 7
    T_TOOL = 8
    T_BURGLARY = 9
    NTYPES = 10

    EMPTY = -1
    FD_BASE = 64       # a decided face-down token of kind k is FD_BASE + k
    FD_UNDET = 100     # a face-down token nobody has looked at (undecided)

    A_SPACE = 0
    A_TAKE = 80
    A_DONE = 81
    A_RELOCATE = 82
    A_GIVE_UP = 83
    A_FAGIN = 84
    A_KIND = 90
    A_PLAY = 113
    A_HIDE = 126
    A_SEAT = 139
    A_KEEP = 143
    A_TOOL = 157
    A_CH_TOKEN = 162
    A_CH_CHAR = 185
    A_CH_BURG = 198
    NUM_ACTIONS = 212

    PH_FILL = 0
    PH_DEAL = 1
    PH_FLIP_DIR = 2
    PH_FLIP = 3
    PH_CHOOSE_START = 4
    PH_TURN = 5
    PH_PATH = 6
    PH_SWAP = 7
    PH_CHAR_DRAW = 8
    PH_BURG_DRAW = 9
    PH_BURG_KEEP = 10
    PH_TOOL = 11
    PH_PEEK = 12
    PH_PEEK_DRAW = 13
    PH_PLACE = 14
    PH_FAGIN = 15
    PH_DODGER = 16
    PH_PICK = 17
    PH_TARGET = 18
    PH_OVER = 19

    # Character cards (data/components.json order, OT-8).
    C_DODGER = 0
    C_NANCY = 1
    C_SIKES = 2
    C_BUMBLE = 3
    C_NOAH = 4
    C_CHARLEY = 5
    C_OLIVER = 6
    C_BROWNLOW = 7
    C_TOBY = 8
    C_FANG = 9
    C_SOWERBERRY = 10
    C_BET = 11
    C_GRIMWIG = 12

    R_NONE = 0
    R_PROWL = 1
    R_FAGIN = 2

    PICK_BAG = -1
    PICK_STASH = -2

# ------------------------------------------------------------ component tables (from data)
cdef int KTYPE[N_KINDS]
cdef int KCOINS[N_KINDS]
cdef int KSTART[N_KINDS]         # a starting (octagonal) token
cdef int KOBJ[N_KINDS]           # an Object (Wallets included): goes to the stash
cdef int ROUND_COUNT[N_KINDS]    # round tokens of each kind in the box
cdef int START_COUNT[N_KINDS]    # starting tokens of each kind
cdef int REWARDS[5]
cdef int BV[N_BURGLARY_VALUES]            # Burglary card values
cdef int BCOUNT[N_BURGLARY_VALUES]
cdef int WALLET_CASH = 8    # Nancy (OT-8)
cdef int TOBY_EXTRA = 1     # Toby Crackit's burglary draws one card more (OT-8)
cdef int MAX_GAME_LENGTH = 12000
cdef int SIKES_TAKE = 2
# The map: [side][space], side 0 day, 1 night.
cdef int SIDE_SPACES[2]            # spaces of each side (from data)
cdef int DEG[2][MAX_SIDE_SPACES]
cdef int ADJ[2][MAX_SIDE_SPACES][4]
cdef int YELLOW[2][MAX_SIDE_SPACES]

ctypedef struct OTState:
    int8_t players
    int8_t night
    int8_t phase
    int8_t active
    int8_t pawn
    int8_t fill_next
    int8_t deal_left
    int8_t path_len
    int8_t path_max
    int8_t align_path          # always 0: the alignment before `path`, a field so that a state's bytes are its fields
    int16_t path[LINE_CHARLEY]
    int8_t flips_left
    int8_t flip_from           # last flipped space, -1: the Gang pawn's space
    int8_t flip_target         # the space being flipped or peeked (chance)
    int8_t opening             # the night's opening flips (OT-26)
    int8_t peeks_left
    int8_t restrict
    int8_t extra
    int8_t pending             # an Object waiting for room in a full stash (-1 none)
    int8_t fagin_type
    int8_t fagin_min
    int8_t set_last
    int8_t pick_left
    int8_t pick_dest
    int8_t pick_last
    int8_t burg_to_draw
    int8_t rewards_taken
    int8_t burg_aside
    uint8_t winners
    int16_t board[MAX_SIDE_SPACES]
    int16_t known[MAX_SIDE_SPACES]
    int16_t bag[N_KINDS]
    int16_t fdpool[N_KINDS]
    int16_t aside[N_KINDS]
    int16_t setc[N_KINDS]
    int16_t stash[MAXP][N_KINDS]
    int16_t pfile[MAXP][N_KINDS]
    int16_t front[MAXP][N_KINDS]
    int16_t money[MAXP]
    int16_t final[MAXP]
    uint16_t hand[MAXP]
    uint16_t char_draw
    uint16_t char_disc
    int16_t burg_draw[N_BURGLARY_VALUES]
    int16_t burg_drawn[N_BURGLARY_VALUES]
    int16_t kept[MAXP][N_KINDS]             # by Burglary value kind (the first N_BURGLARY_VALUES used; N_KINDS wide, see _pack)
    # The last round's end, laid open (OT-38; public, for display, no rule reads it): the
    # round (0 none yet, 1 the day, 2 the night), each seat's money from its leftover sets
    # and the Object types laid (bit t), its Police file as shown (the stash added), its fine.
    int8_t ended_round
    int8_t align_ended         # always 0: the alignment before `ended_sets` (see align_path)
    int16_t ended_sets[MAXP]
    int16_t ended_types[MAXP]
    int16_t ended_fine[MAXP]
    int16_t ended_file[MAXP][N_KINDS]

# ------------------------------------------------------------ small helpers

cdef inline int side(const OTState* s) noexcept nogil:
    return 1 if s.night else 0

cdef inline bint is_open(const OTState* s, int sp) noexcept nogil:
    """OT-3: with 2 players the yellow streets are closed; space 0 is the paved square."""
    return sp != 0 and not (s.players == 2 and YELLOW[side(s)][sp])

cdef inline bint face_up(int v) noexcept nogil:
    return 0 <= v < N_KINDS

cdef inline bint face_down(int v) noexcept nogil:
    return v >= FD_BASE

cdef inline bint has_token(int v) noexcept nogil:
    return v >= 0

cdef inline int popcount16(unsigned int m) noexcept nogil:
    cdef int n = 0
    while m:
        n += m & 1
        m >>= 1
    return n

cdef inline int stash_n(const OTState* s, int p) noexcept nogil:
    return ms_total(s.stash[p], N_KINDS)

cdef inline int file_n(const OTState* s, int p) noexcept nogil:
    return ms_total(s.pfile[p], N_KINDS)

cdef int file_types(const OTState* s, int p) noexcept nogil:
    """How many types the seat's Police file holds: its fine should it hold the most (OT-22)."""
    cdef int seen[NTYPES]
    cdef int t, k, n = 0
    for t in range(NTYPES):
        seen[t] = 0
    for k in range(N_KINDS):
        if s.pfile[p][k] > 0:
            seen[KTYPE[k]] = 1
    for t in range(NTYPES):
        n += seen[t]
    return n

cdef int burglary_pounds(const OTState* s, int p) noexcept nogil:
    cdef int v, n = 0
    for v in range(N_BURGLARY_VALUES):
        n += s.kept[p][v] * BV[v]
    return n

cdef inline int tool_types(const OTState* s, int p) noexcept nogil:
    cdef int t, n = 0
    for t in range(NTOOL):
        if s.front[p][K_TOOL0 + t] > 0:
            n += 1
    return n

cdef inline int burg_left(const OTState* s) noexcept nogil:
    cdef int v, n = 0
    for v in range(N_BURGLARY_VALUES):
        n += s.burg_draw[v]
    return n

cdef inline int to_pile(OTState* s, int k) noexcept nogil:
    """A token leaving play in a round goes to the bag; a starting token back aside (OT-5)."""
    if KSTART[k]:
        s.aside[k] += 1
    else:
        s.bag[k] += 1
    return 0

cdef bint any_token(const OTState* s) noexcept nogil:
    cdef int sp
    for sp in range(SIDE_SPACES[side(s)]):
        if has_token(s.board[sp]):
            return True
    return False

cdef int adjacent_kind(const OTState* s, int sp) noexcept nogil:
    """2 if `sp` is next to a face-up token, 1 if only to face-down ones, 0 if to none."""
    cdef int i, v, r = 0, board_side = side(s)
    for i in range(DEG[board_side][sp]):
        v = s.board[ADJ[board_side][sp][i]]
        if face_up(v):
            return 2
        if face_down(v):
            r = 1
    return r

cdef bint can_prowl(const OTState* s, int p) noexcept nogil:
    """OT-11, OT-15: a token left on the board (next to the pawn, or the pawn is moved to
    one for £2, or all the seat has)."""
    return any_token(s)

cdef int type_reals(const OTState* s, int p, int t) noexcept nogil:
    cdef int k, n = 0
    for k in range(K_WALLET):
        if KTYPE[k] == t:
            n += s.stash[p][k]
    return n

cdef bint set_possible(const OTState* s, int p, int t, int minsize) noexcept nogil:
    """OT-18: at least one Object of the type, Wallets making up the rest."""
    cdef int r = type_reals(s, p, t)
    return r >= 1 and r + s.stash[p][K_WALLET] + s.stash[p][K_SWALLET] >= minsize

cdef bint can_fagin(const OTState* s, int p, int minsize) noexcept nogil:
    cdef int t
    for t in range(N_SET_TYPES):
        if set_possible(s, p, t, minsize):
            return True
    return False

cdef bint file_has_object(const OTState* s, int p) noexcept nogil:
    cdef int k
    for k in range(N_KINDS):
        if KOBJ[k] and s.pfile[p][k] > 0:
            return True
    return False

cdef bint board_has_object(const OTState* s) noexcept nogil:
    cdef int sp, v
    for sp in range(SIDE_SPACES[side(s)]):
        v = s.board[sp]
        if face_up(v) and KOBJ[v]:
            return True
    return False

cdef bint playable(const OTState* s, int p, int c) noexcept nogil:
    """OT-8: a Character card's effect may be played only when it can do something."""
    cdef int k, n
    if not (s.hand[p] >> c) & 1:
        return False
    if c == C_DODGER:
        return board_has_object(s)
    if c == C_NANCY:
        return s.stash[p][K_WALLET] + s.stash[p][K_SWALLET] > 0
    if c == C_SIKES:
        for k in range(s.players):
            if k != p and s.money[k] > 0:
                return True
        return False
    if c == C_BUMBLE or c == C_FANG:
        return file_n(s, p) > 0
    if c == C_NOAH:
        return any_token(s)
    if c == C_CHARLEY or c == C_OLIVER:
        return can_prowl(s, p)
    if c == C_BROWNLOW:
        return s.rewards_taken < 5
    if c == C_TOBY:
        return s.night != 0 and burg_left(s) > 0
    if c == C_SOWERBERRY:
        n = 0
        for k in range(N_SET_TYPES):
            if type_reals(s, p, k) > 0:
                n += 1
        return n > 0
    if c == C_BET:
        return file_has_object(s, p) and stash_n(s, p) < STASH_CAP
    if c == C_GRIMWIG:
        return can_fagin(s, p, 2)
    return False

# ------------------------------------------------------------ the rules, by concept
# Each file is included where it stands, and compiled with the rest of the engine.

include "flow.pxi"

# ------------------------------------------------------------ the ABI

# The room's table (engines/abi.pxd), filled by the room kit's helpers (engines/room.pxd)
# beside the functions each puts in it (its rules once the data is read), and exported as
# GAME_DEF.
cdef GameDef OT_DEF

cdef int ot_num_players(const void* st) noexcept nogil:
    return (<const OTState*>st).players

cdef int ot_current_player(const void* st) noexcept nogil:
    cdef const OTState* s = <const OTState*>st
    if s.phase == PH_OVER:
        return PLAYER_TERMINAL
    if s.phase == PH_FILL or s.phase == PH_DEAL or s.phase == PH_FLIP or s.phase == PH_PEEK_DRAW \
            or s.phase == PH_CHAR_DRAW or s.phase == PH_BURG_DRAW:
        return PLAYER_CHANCE
    return s.active

include "legal.pxi"
include "apply.pxi"

cdef int ot_chance_outcomes(const void* st, int* actions, double* probs) noexcept nogil:
    cdef const OTState* s = <const OTState*>st
    cdef int n, i, c
    cdef double tot = 0
    if s.phase == PH_FILL:
        return ms_chance(s.bag, N_KINDS, A_CH_TOKEN, actions, probs)
    if s.phase == PH_DEAL:
        return ms_chance(s.aside, N_KINDS, A_CH_TOKEN, actions, probs)
    if s.phase == PH_FLIP or s.phase == PH_PEEK_DRAW:
        return ms_chance(s.fdpool, N_KINDS, A_CH_TOKEN, actions, probs)
    if s.phase == PH_BURG_DRAW:
        n = 0
        for i in range(N_BURGLARY_VALUES):
            tot += s.burg_draw[i]
        for i in range(N_BURGLARY_VALUES):
            if s.burg_draw[i] > 0:
                actions[n] = A_CH_BURG + i
                probs[n] = s.burg_draw[i] / tot
                n += 1
        return n
    if s.phase == PH_CHAR_DRAW:
        n = 0
        c = popcount16(s.char_draw)
        for i in range(N_CHARACTERS):
            if (s.char_draw >> i) & 1:
                actions[n] = A_CH_CHAR + i
                probs[n] = 1.0 / c
                n += 1
        return n
    return 0

cdef int ot_sample_chance(const void* st, Rng* rng) noexcept nogil:
    cdef int actions[N_KINDS + N_CHARACTERS]
    cdef double probs[N_KINDS + N_CHARACTERS]
    cdef int n = ot_chance_outcomes(st, actions, probs), i
    cdef double u = rng_double(rng)
    for i in range(n):
        u -= probs[i]
        if u < 0:
            return actions[i]
    return actions[n - 1]

cdef void ot_returns(const void* st, double* out) noexcept nogil:
    cdef const OTState* s = <const OTState*>st
    cdef int p
    for p in range(s.players):
        out[p] = 1.0 if (s.winners >> p) & 1 else 0.0     # OT-29

include "hidden.pxi"

cdef int ot_make_current(void* st, int seat) noexcept nogil:
    return 1 if ot_current_player(st) == seat else 0

include "rollout.pxi"

# ------------------------------------------------ features for a learned evaluation
# Not rules: what a learned estimate of a seat's chance to win reads (python -m fagin.train,
# seeds/oliver_twist.md, "The bot and the search").  Defined once, here, and read both by the
# trainer (features()) and by the search's learned evaluation.  Like the hand-written
# evaluation they read the world they are given, stashes, files and cards included: the search
# only scores its determinizations (OT-31), dealt from what the searching seat knows.
cdef enum:
    OT_SEAT_FEATURES = 12       # per seat, each taken relative to the best other seat
    OT_FEATURES = 16            # those; the seat to act, the night, the game left, worth by it

FEATURE_NAMES = ("money", "burglary", "stash", "stash_coins", "wallets", "set_now", "leftover",
                 "file", "file_types", "tools", "cards", "worth", "to_act", "night", "game_left",
                 "worth_by_game_left")
# The feature that measures the game's progress: the share of the game still ahead (1 at the
# start, 0.5 at nightfall, 0 at the end); python -m fagin.train's mid-game figures take a third
# to two thirds.
PROGRESS_FEATURE = "game_left"

cdef void ot_features(const void* st, double* out) noexcept nogil:
    """The features of every seat, seat p's OT_FEATURES values at out[p * OT_FEATURES:]: each
    seat feature less the largest other seat's, then 1 for the seat to act, 1 at night, the
    share of the game left (ot_game_left) and the worth lead times that share."""
    cdef const OTState* s = <const OTState*>st
    cdef double raw[MAXP * OT_SEAT_FEATURES]
    cdef double worth[MAXP]
    cdef int use[N_SET_TYPES]
    cdef int p, k, t, coins
    cdef int actor = ot_current_player(s)
    cdef double left = ot_game_left(s), best, v
    cdef double* r
    cdef double* f
    ot_worths(s, worth)
    for p in range(s.players):
        coins = 0
        for k in range(K_WALLET):
            coins += s.stash[p][k] * KCOINS[k]
        best = 0.0
        for t in range(N_SET_TYPES):
            v = set_value(s, p, t, 3)
            if v > best:
                best = v
        r = &raw[p * OT_SEAT_FEATURES]
        r[0] = s.money[p]
        r[1] = burglary_pounds(s, p)
        r[2] = stash_n(s, p)
        r[3] = coins
        r[4] = s.stash[p][K_WALLET] + s.stash[p][K_SWALLET]
        r[5] = best
        r[6] = leftover_sets(s, p, use)
        r[7] = file_n(s, p)
        r[8] = file_types(s, p)
        r[9] = tool_types(s, p)
        r[10] = popcount16(s.hand[p])
        r[11] = worth[p]
    learned_relative(raw, s.players, OT_SEAT_FEATURES, out, OT_FEATURES)
    for p in range(s.players):
        f = &out[p * OT_FEATURES]
        f[OT_SEAT_FEATURES] = 1.0 if actor == p else 0.0
        f[OT_SEAT_FEATURES + 1] = 1.0 if s.night else 0.0
        f[OT_SEAT_FEATURES + 2] = left
        f[OT_SEAT_FEATURES + 3] = f[11] * left

# The learned evaluation (GameDef.evaluate_learned): a logistic regression on the features
# above, one per player count, and the expected final margin (GameDef.margins_learned): a linear
# one on the same features, both fitted by python -m fagin.train and shipped as data
# (data/learned.json); loaded once at import into the shared kit's model (engines/learned.pxd).

cdef void ot_scores(const void* st, double* out) noexcept nogil:
    # OT-39: the analysis score is a seat's pounds as the end of the game counts them
    # (money and its Burglary cards, OT-29): final at the end, as it stands before.
    cdef const OTState* s = <const OTState*>st
    cdef int p, k, v
    for p in range(s.players):
        if s.phase == PH_OVER:
            out[p] = s.final[p]
            continue
        out[p] = s.money[p] + burglary_pounds(s, p)

cdef void ot_hidden_counts(const void* st, int o, int* out) noexcept nogil:
    # OT-40: beliefs count the places ot_determinize deals again (OT-31), as o sees them.
    cdef const OTState* s = <const OTState*>st
    cdef int p, k, sp, v
    memset(out, 0, sizeof(int) * OT_PLACES * OT_ITEMS)
    for p in range(s.players):
        if p == o:
            continue
        for k in range(N_KINDS):
            out[(OT_STASH + p) * OT_ITEMS + k] = s.stash[p][k]
            out[(OT_FILE + p) * OT_ITEMS + k] = s.pfile[p][k]
        for k in range(N_CHARACTERS):
            out[(OT_HAND + p) * OT_ITEMS + N_KINDS + k] = (s.hand[p] >> k) & 1
        if s.phase != PH_OVER:
            for k in range(N_BURGLARY_VALUES):
                out[(OT_KEPT + p) * OT_ITEMS + N_KINDS + N_CHARACTERS + k] = s.kept[p][k]
    for k in range(N_KINDS):
        out[OT_BAG * OT_ITEMS + k] = s.bag[k]
        out[OT_FDPOOL * OT_ITEMS + k] = s.fdpool[k]
    for sp in range(MAX_SIDE_SPACES):
        v = s.board[sp]
        if face_down(v) and v != FD_UNDET and not (s.known[sp] >> o) & 1:
            out[OT_BOARD * OT_ITEMS + v - FD_BASE] += 1
    for k in range(N_CHARACTERS):
        out[OT_CHAR_DRAW * OT_ITEMS + N_KINDS + k] = (s.char_draw >> k) & 1
    for k in range(N_BURGLARY_VALUES):
        out[OT_BURG_DRAW * OT_ITEMS + N_KINDS + N_CHARACTERS + k] = s.burg_draw[k]
        if s.active != o:
            out[OT_BURG_DRAWN * OT_ITEMS + N_KINDS + N_CHARACTERS + k] = s.burg_drawn[k]

game_def_beliefs(&OT_DEF, ot_hidden_counts, OT_PLACES, OT_ITEMS)

cdef int ot_heuristic_action(const void* st, Rng* rng) noexcept nogil:
    return heuristic_choice(<const OTState*>st, rng, 0.0)

# The evaluation scores a playout only where a search asks for a cut-off (GameSpec.tuned_settings,
# a bot spec's cut=N): by default playouts run to the game's end (rollout_depth 0).
game_def_knowledge(&OT_DEF, ot_rollout_action, ot_heuristic_action, ot_evaluate, 0, ot_scores, ot_features,
                   OT_FEATURES)
GAME_DEF = export_game_def(&OT_DEF)

# ------------------------------------------------------------ data loading

KIND_NAMES = ("apple_1", "apple_2", "handkerchief_1", "handkerchief_2", "brooch", "necklace", "ring",
              "watch", "start_apple_1", "start_apple_2", "start_handkerchief_1", "start_handkerchief_2",
              "start_brooch", "start_necklace", "wallet", "start_wallet", "character",
              "tool_bag", "tool_rope", "tool_crowbar", "tool_lantern", "tool_lockpick", "burglary")
OBJECT_TYPES = ("apple", "handkerchief", "brooch", "necklace", "ring", "watch")
TOOL_NAMES = ("bag", "rope", "crowbar", "lantern", "lockpick")
CHARACTERS = ("artful_dodger", "nancy", "bill_sikes", "mr_bumble", "noah_claypole", "charley_bates",
              "oliver", "mr_brownlow", "toby_crackit", "mr_fang", "mr_sowerberry", "bet", "mr_grimwig")
PHASES = ("fill", "deal", "flip_direction", "flip", "choose_start", "turn", "line", "make_room",
          "character_draw", "burglary_draw", "burglary_keep", "discard_tool", "peek", "peek_draw",
          "place_pawn", "fagin", "dodger", "pick_from_file", "target", "over")
RESTRICTS = ("none", "prowl", "fagin")
CHARACTER_EFFECTS = {}
BURGLARY_VALUES = []


def belief_layout(data, int seat):
    """What ot_hidden_counts counts for ``seat`` (OT-40): the places, as (name, owner seat
    or None), and the items: token kinds, Character cards, Burglary card values."""
    places = []
    for what in ("stash", "Police file", "Character cards", "kept Burglary cards"):
        places += [(f"seat {p}'s {what}", p) for p in range(MAXP)]
    places += [("the bag", None), ("the face-down pool", None), ("face down on the streets", None),
               ("the Character draw pile", None), ("the Burglary draw pile", None),
               ("the burglar's drawn Burglary cards", None)]
    # The components' names, as people see them (the tokens' and cards' own words).
    from fagin.engines.oliver_twist.state import CHARACTER_NAMES, token_name
    items = ([token_name(k) for k in range(len(KIND_NAMES))] + list(CHARACTER_NAMES)
             + [f"Burglary £{v}" for v in BURGLARY_VALUES])
    return places, items + [None] * (OT_ITEMS - len(items))
BOARD = {}
MAX_GAME_LENGTH_PY = 0


def _load():
    global WALLET_CASH, SIKES_TAKE
    comp = read_json(data_path(__file__, "components.json"))
    board = read_json(data_path(__file__, "board.json"))
    for k in range(N_KINDS):
        KTYPE[k] = 0
        KCOINS[k] = 0
        KSTART[k] = 0
        KOBJ[k] = 0
        ROUND_COUNT[k] = 0
        START_COUNT[k] = 0
    objs = comp["objects"]
    if [o["id"] for o in objs] != list(KIND_NAMES[:8]):
        raise ValueError("components.json: objects must be " + ", ".join(KIND_NAMES[:8]))
    counts = {}
    for k, o in enumerate(objs):
        t = OBJECT_TYPES.index(o["type"])
        KTYPE[k] = t
        KCOINS[k] = int(o["coins"])
        if not 1 <= KCOINS[k] <= 5:
            raise ValueError(f"components.json: objects[{k}].coins out of range")
        KOBJ[k] = 1
        ROUND_COUNT[k] = int(o["count"])
        counts[o["type"]] = counts.get(o["type"], 0) + ROUND_COUNT[k]
    # The rulebook's counts (OT-2): 12 apples, 11 handkerchiefs, 10 brooches, 7 necklaces, 6 rings, 5 watches.
    if counts != {"apple": 12, "handkerchief": 11, "brooch": 10, "necklace": 7, "ring": 6, "watch": 5}:
        raise ValueError(f"components.json: Object counts {counts} differ from the rulebook's")
    # The rulebook's coins: apples and handkerchiefs 1 or 2, brooches 2, necklaces 3, rings 4, watches 5.
    for k in range(8):
        t = OBJECT_TYPES[KTYPE[k]]
        if t in ("apple", "handkerchief"):
            ok = KCOINS[k] in (1, 2)
        else:
            ok = KCOINS[k] == {"brooch": 2, "necklace": 3, "ring": 4, "watch": 5}[t]
        if not ok:
            raise ValueError(f"components.json: {KIND_NAMES[k]} shows {KCOINS[k]} coins, against the rulebook")
    for k in range(8, 14):
        base = KIND_NAMES.index(KIND_NAMES[k][len("start_"):])
        KTYPE[k] = KTYPE[base]
        KCOINS[k] = KCOINS[base]
        KSTART[k] = 1
        KOBJ[k] = 1
    KTYPE[K_WALLET] = T_WALLET
    KOBJ[K_WALLET] = 1
    KTYPE[K_SWALLET] = T_WALLET
    KOBJ[K_SWALLET] = 1
    KSTART[K_SWALLET] = 1
    ROUND_COUNT[K_WALLET] = int(comp["wallets"])
    KTYPE[K_CHAR] = T_CHAR
    ROUND_COUNT[K_CHAR] = int(comp["character_tokens"])
    if [t["id"] for t in comp["tools"]] != list(TOOL_NAMES):
        raise ValueError("components.json: tools must be " + ", ".join(TOOL_NAMES))
    for t, tool in enumerate(comp["tools"]):
        KTYPE[K_TOOL0 + t] = T_TOOL
        ROUND_COUNT[K_TOOL0 + t] = int(tool["count"])
    KTYPE[K_BURGLARY] = T_BURGLARY
    ROUND_COUNT[K_BURGLARY] = int(comp["burglary_tokens"])
    if (sum(ROUND_COUNT[k] for k in range(N_KINDS)), ROUND_COUNT[K_WALLET], ROUND_COUNT[K_CHAR],
            sum(ROUND_COUNT[K_TOOL0 + t] for t in range(NTOOL)), ROUND_COUNT[K_BURGLARY]) != (85, 9, 5, 10, 10):
        raise ValueError("components.json: the rulebook's 85 round tokens are 60 Objects with 9 Wallets, "
                         "5 Characters, 10 Tools and 10 Burglary tokens")
    n = 0
    for st in comp["starting_tokens"]:
        k = KIND_NAMES.index(st["id"])
        if not KSTART[k]:
            raise ValueError(f"components.json: {st['id']} is not a starting token")
        START_COUNT[k] = int(st["count"])
        n += START_COUNT[k]
    if n != 9:
        raise ValueError("components.json: there are 9 starting tokens")
    if list(comp["rewards"]) != [6, 5, 4, 3, 2]:
        raise ValueError("components.json: the Reward tokens are 6, 5, 4, 3, 2")
    for i in range(5):
        REWARDS[i] = comp["rewards"][i]
    cards = list(comp["burglary_cards"])
    if len(cards) != 16:
        raise ValueError("components.json: there are 16 Burglary cards")
    values = sorted(set(cards), reverse=True)
    if len(values) != N_BURGLARY_VALUES:
        raise ValueError(f"components.json: the engine holds {N_BURGLARY_VALUES} distinct Burglary values")
    BURGLARY_VALUES[:] = values
    for i, v in enumerate(values):
        BV[i] = v
        BCOUNT[i] = cards.count(v)
    if [c["id"] for c in comp["characters"]] != list(CHARACTERS):
        raise ValueError("components.json: the Characters must be " + ", ".join(CHARACTERS))
    for c in comp["characters"]:
        CHARACTER_EFFECTS[c["id"]] = c["effect"]
    for board_side, name in enumerate(("day", "night")):
        b = board[name]
        sp = b["spaces"]
        if len(sp) > MAX_SIDE_SPACES or [x["id"] for x in sp] != list(range(len(sp))) or sp[0]["kind"] != "square":
            raise ValueError(f"board.json: {name}: spaces must be 0..{MAX_SIDE_SPACES - 1}, space 0 the paved square")
        SIDE_SPACES[board_side] = len(sp)
        for i in range(MAX_SIDE_SPACES):
            DEG[board_side][i] = 0
            YELLOW[board_side][i] = 0
        for x in sp:
            YELLOW[board_side][x["id"]] = 1 if x["yellow"] else 0
        for a, c in b["edges"]:
            for u, w in ((a, c), (c, a)):
                if DEG[board_side][u] >= 4:
                    raise ValueError(f"board.json: {name}: space {u} has more than 4 neighbours")
                ADJ[board_side][u][DEG[board_side][u]] = w
                DEG[board_side][u] += 1
        BOARD[name] = b
        tokens = len(sp) - 1
        closed = sum(1 for x in sp if x["yellow"])
        # OT-3: the round tokens fill the day board (75 with 3-4 players, the rest left in the
        # bag with 2) and the night board whatever the Tools kept (85 - 10 >= spaces).
        if name == "day" and tokens != 75:
            raise ValueError("board.json: the day side has 75 token spaces")
        if name == "night" and tokens > 75:
            raise ValueError("board.json: the night side has at most 75 token spaces")
        if closed != 12:
            raise ValueError(f"board.json: {name}: the two yellow streets hold 12 spaces")
        for players in (2, 4):
            seen = {0}
            todo = [0]
            while todo:
                u = todo.pop()
                for i in range(DEG[board_side][u]):
                    w = ADJ[board_side][u][i]
                    if w not in seen and not (players == 2 and YELLOW[board_side][w]):
                        seen.add(w)
                        todo.append(w)
            if len(seen) != len(sp) - (closed if players == 2 else 0):
                raise ValueError(f"board.json: {name}: the open streets must be connected")
    WALLET_CASH = 8
    SIKES_TAKE = 2


_load()

# OT-34: the bound on a game's length.  Chance: 75 fills, 16 starting tokens, at most 74
# flips and 74 peeks, 10 Character draws, 60 Burglary draws.  Decisions: a Prowl takes a
# token off the board (at most 75 + 74 over the two rounds) and a card is played once (13),
# each such turn at most 2 x (1 relocate + 2 peeks + 1 place + 12 flip directions + 6 steps
# + take + room + keep + tool) = 54 decisions; a set for Fagin takes 2+ tokens from a stash,
# which only the board, the 16 starting tokens and Bet refill (at most 83 sets, each at most
# 1 + 9 additions + done = 11 decisions); the night's opening: a starter and 12 directions.
MAX_GAME_LENGTH_PY = 75 + 16 + 74 + 74 + 10 + 60 + (149 + 13) * 54 + 83 * 11 + 13
MAX_GAME_LENGTH = MAX_GAME_LENGTH_PY
# A decision lists at most the board's spaces (where to put the pawn, which token to peek) plus
# a few; a chance node at most the 23 kinds of token.
game_def(&OT_DEF, b"oliver_twist", sizeof(OTState), MAXP, NUM_ACTIONS, MAX_SIDE_SPACES + 4, MAX_SIDE_SPACES + 4,
         MAX_GAME_LENGTH, ot_num_players, ot_current_player, ot_legal_actions, ot_apply_action, ot_chance_outcomes,
         ot_sample_chance, ot_returns, ot_determinize, ot_infoset_key, ot_make_current)

# LEARNED: the model document loaded (data/learned.json), or None.
_load_learned = learned_room(&OT_DEF, globals(), data_path(__file__, "learned.json"), FEATURE_NAMES, "Oliver Twist")

# ------------------------------------------------------------ raw access for the Python side

cdef OTState _read(data) except *:
    cdef OTState s
    read_state(data, &s, sizeof(OTState), "not an Oliver Twist state")
    return s


def _raw(data):
    cdef OTState s = _read(data)
    return s


def _pack(raw):
    """State bytes from a dict shaped like :func:`_raw`'s.  Every 2-D array of the struct has
    the same inner size (N_KINDS): Cython reuses one temporary for the dict-to-array conversions
    of one base type (London found arrays of different sizes overflowed it)."""
    cdef OTState s = raw
    return (<char*>&s)[:sizeof(OTState)]


def initial_state_bytes(int players):
    """A new game before the day board is filled (OT-6)."""
    if not 2 <= players <= MAXP:
        raise ValueError(f"players: Oliver Twist takes 2 to 4 players, not {players}")
    cdef OTState s
    cdef int k, p, v
    memset(&s, 0, sizeof(OTState))
    s.players = players
    for k in range(N_KINDS):
        s.bag[k] = ROUND_COUNT[k] if k != K_BURGLARY else 0
        s.aside[k] = START_COUNT[k]
    s.burg_aside = ROUND_COUNT[K_BURGLARY]
    for p in range(players):
        s.money[p] = 10                 # OT-4
    s.char_draw = (1 << N_CHARACTERS) - 1
    for v in range(N_BURGLARY_VALUES):
        s.burg_draw[v] = BCOUNT[v]
    for k in range(MAX_SIDE_SPACES):
        s.board[k] = EMPTY
    s.pending = -1
    s.fagin_type = -1
    s.flip_from = -1
    s.flip_target = -1
    s.path_max = LINE
    s.fill_next = 1
    s.phase = PH_FILL
    advance_fill(&s)
    return (<char*>&s)[:sizeof(OTState)]


def leftover_value(stash_counts):
    """Money from a stash's leftover sets at the end of a round (OT-21); counts by kind."""
    cdef OTState s
    cdef int use[N_SET_TYPES]
    memset(&s, 0, sizeof(OTState))
    s.players = 2
    for k, n in enumerate(stash_counts):
        s.stash[0][k] = n
    return leftover_sets(&s, 0, use)


def legal_from_bytes(data):
    cdef OTState s = _read(data)
    cdef int buf[NUM_ACTIONS]
    cdef int n = ot_legal_actions(&s, buf)
    return [buf[i] for i in range(n)]


# The heuristic, the evaluations and the features on state bytes (fagin.engines.core.room_functions).
heuristic_action, evaluation, features, learned_evaluation = _room_functions(GAME_DEF)


def coins_of(int k):
    return KCOINS[k]


def type_of(int k):
    return KTYPE[k]


def is_start(int k):
    return bool(KSTART[k])


def is_object(int k):
    return bool(KOBJ[k])


def round_count(int k):
    return ROUND_COUNT[k]


def start_count(int k):
    return START_COUNT[k]


def burglary_count(int v):
    return BCOUNT[v]


def side_spaces(int board_side):
    return SIDE_SPACES[board_side]


def neighbours(int board_side, int sp):
    return [ADJ[board_side][sp][i] for i in range(DEG[board_side][sp])]


def yellow(int board_side, int sp):
    return bool(YELLOW[board_side][sp])


# The numbering the Python side shares, named as the other rooms name theirs.
KIND_COUNT = N_KINDS
CHARACTER_COUNT = N_CHARACTERS
BURGLARY_VALUE_COUNT = N_BURGLARY_VALUES
MAX_SPACES = MAX_SIDE_SPACES
MAX_PLAYERS = MAXP
STASH_CAPACITY = STASH_CAP
EMPTY_SPACE = EMPTY
FACE_DOWN_BASE = FD_BASE
FACE_DOWN_UNDECIDED = FD_UNDET
ACTION_SPACE = A_SPACE
ACTION_TAKE = A_TAKE
ACTION_DONE = A_DONE
ACTION_RELOCATE = A_RELOCATE
ACTION_GIVE_UP = A_GIVE_UP
ACTION_FAGIN = A_FAGIN
ACTION_KIND = A_KIND
ACTION_PLAY = A_PLAY
ACTION_HIDE = A_HIDE
ACTION_SEAT = A_SEAT
ACTION_KEEP = A_KEEP
ACTION_TOOL = A_TOOL
ACTION_DRAW_TOKEN = A_CH_TOKEN
ACTION_DRAW_CHARACTER = A_CH_CHAR
ACTION_DRAW_BURGLARY = A_CH_BURG
NUM_DISTINCT_ACTIONS = NUM_ACTIONS
KIND_WALLET = K_WALLET
KIND_STARTING_WALLET = K_SWALLET
KIND_CHARACTER = K_CHAR
KIND_FIRST_TOOL = K_TOOL0
KIND_BURGLARY = K_BURGLARY
PICK_FROM_BAG = PICK_BAG
PICK_FROM_STASH = PICK_STASH
PATH_LENGTH = LINE
PATH_LENGTH_CHARLEY = LINE_CHARLEY

# The Python side of positions is in state.py (plain Python, off the search path); actions are
# named and typed in actions.py, which reads this module (fagin.engines.core.Game imports it).
from fagin.engines.oliver_twist.state import describe, view, from_description, render, summary
