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
from fagin.engines.learned cimport (LearnedRoom, learned_relative, learned_room, learned_room_evaluate,
                                    learned_room_margins)
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

# ------------------------------------------------------------ flow


cdef void clear_turn(OTState* s) noexcept nogil:
    """Forgets the last action's working fields, so that a position is only what a
    description can say (OT-35)."""
    s.fagin_min = 0
    s.pick_left = 0
    s.pick_dest = 0
    s.pick_last = 0
    s.flips_left = 0
    s.flip_from = -1
    s.peeks_left = 0
    s.path_len = 0

cdef void start_turn(OTState* s) noexcept nogil:
    """OT-9, OT-20: the active seat acts; one who can neither Prowl nor Go to Fagin's
    pays the police £4 and the round ends, unless it plays a Character card."""
    cdef int p = s.active
    clear_turn(s)
    s.phase = PH_TURN
    s.restrict = R_NONE
    s.path_max = LINE
    s.path_len = 0
    if not can_prowl(s, p) and not can_fagin(s, p, 3) and s.hand[p] == 0:
        s.money[p] -= 4 if s.money[p] >= 4 else s.money[p]
        end_round(s)

cdef void end_turn(OTState* s) noexcept nogil:
    s.active = (s.active + 1) % s.players
    s.extra = 0
    start_turn(s)

cdef void finish_prowl(OTState* s) noexcept nogil:
    """After a Prowl: Oliver's second Prowl (OT-8), else the next player."""
    s.path_len = 0
    s.path_max = LINE
    if s.extra > 0 and can_prowl(s, s.active):
        s.extra -= 1
        clear_turn(s)
        s.phase = PH_TURN
        s.restrict = R_PROWL
        return
    end_turn(s)

cdef void after_burglary(OTState* s) noexcept nogil:
    """OT-17: a Tool is discarded if the burglar still has one (which one: its choice)."""
    cdef int t, only = -1, n = 0
    for t in range(NTOOL):
        if s.front[s.active][K_TOOL0 + t] > 0:
            n += 1
            only = t
    if n == 0:
        finish_prowl(s)
    elif n == 1:
        s.front[s.active][K_TOOL0 + only] -= 1
        s.bag[K_TOOL0 + only] += 1
        finish_prowl(s)
    else:
        s.phase = PH_TOOL

cdef void start_burglary(OTState* s, int extra) noexcept nogil:
    """OT-17: draw one card plus one per type of Tool in front of the Lair (and ``extra``
    more: Toby Crackit's, OT-8)."""
    cdef int n = 1 + extra + tool_types(s, s.active), left = burg_left(s)
    if n > left:
        n = left
    s.burg_to_draw = n
    if n == 0:
        after_burglary(s)
    else:
        s.phase = PH_BURG_DRAW

cdef void keep_burglary(OTState* s, int v) noexcept nogil:
    cdef int w
    s.burg_drawn[v] -= 1
    s.kept[s.active][v] += 1
    for w in range(N_BURGLARY_VALUES):
        s.burg_draw[w] += s.burg_drawn[w]
        s.burg_drawn[w] = 0
    after_burglary(s)

cdef void receive(OTState* s, int k) noexcept nogil:
    """OT-12, OT-13, OT-16: where a taken token goes."""
    cdef int p = s.active
    if KOBJ[k]:
        if stash_n(s, p) < STASH_CAP:
            s.stash[p][k] += 1
            finish_prowl(s)
        else:
            s.pending = k          # OT-14: a stashed token must make room first
            s.phase = PH_SWAP
    elif k == K_CHAR:
        s.bag[k] += 1
        if s.char_draw:
            s.phase = PH_CHAR_DRAW
        else:
            finish_prowl(s)
    elif k == K_BURGLARY:
        s.bag[k] += 1
        start_burglary(s, 0)
    else:
        s.front[p][k] += 1
        finish_prowl(s)

cdef void take_line(OTState* s) noexcept nogil:
    """OT-10, OT-11: the skipped tokens go to the Police file, the pawn onto the taken one."""
    cdef int i, sp, k, p = s.active
    for i in range(s.path_len - 1):
        sp = s.path[i]
        s.pfile[p][s.board[sp]] += 1
        s.board[sp] = EMPTY
    sp = s.path[s.path_len - 1]
    k = s.board[sp]
    s.board[sp] = EMPTY
    s.pawn = sp
    s.path_len = 0
    receive(s, k)

cdef int fd_neighbours(const OTState* s, int sp, int* out) noexcept nogil:
    cdef int i, n = 0, board_side = side(s), q
    for i in range(DEG[board_side][sp]):
        q = ADJ[board_side][sp][i]
        if face_down(s.board[q]):
            out[n] = q
            n += 1
    return n

cdef void end_flips(OTState* s) noexcept nogil:
    s.flips_left = 0
    s.flip_from = -1
    if s.opening:
        s.opening = 0
        s.phase = PH_CHOOSE_START
    else:
        s.phase = PH_PATH
        s.path_len = 0


cdef void next_flip(OTState* s) noexcept nogil:
    """OT-25: the line of flips goes on along face-down tokens, turning at a junction
    as the flipper chooses, until 12 are flipped or none follows."""
    cdef int cand[4]
    cdef int origin = s.flip_from if s.flip_from >= 0 else s.pawn
    cdef int n
    if s.flips_left <= 0:
        end_flips(s)
        return
    n = fd_neighbours(s, origin, cand)
    if n == 0:
        end_flips(s)
    elif n == 1:
        flip_at(s, cand[0])
    else:
        s.phase = PH_FLIP_DIR

cdef void flip_at(OTState* s, int sp) noexcept nogil:
    if s.board[sp] == FD_UNDET:
        s.flip_target = sp
        s.phase = PH_FLIP
        return
    s.board[sp] -= FD_BASE
    s.known[sp] = 0
    s.flips_left -= 1
    s.flip_from = sp
    next_flip(s)

cdef void start_flips(OTState* s) noexcept nogil:
    s.flips_left = FLIPS
    s.flip_from = -1
    next_flip(s)

cdef void after_place(OTState* s) noexcept nogil:
    """The pawn is placed: flip a new line if it only touches face-down tokens (OT-25)."""
    if adjacent_kind(s, s.pawn) == 2:
        s.phase = PH_PATH
        s.path_len = 0
    else:
        start_flips(s)

cdef int peekable(const OTState* s, int* out) noexcept nogil:
    cdef int sp, n = 0
    for sp in range(SIDE_SPACES[side(s)]):
        if face_down(s.board[sp]) and not (s.known[sp] >> s.active) & 1:
            if out != NULL:
                out[n] = sp
            n += 1
    return n

cdef void after_peek(OTState* s) noexcept nogil:
    s.peeks_left -= 1
    if s.peeks_left > 0 and peekable(s, NULL) > 0:
        s.phase = PH_PEEK
    else:
        s.peeks_left = 0
        s.phase = PH_PLACE

cdef void deliver(OTState* s) noexcept nogil:
    """OT-18, OT-19: coins on the set, £7 for 5 or more, the top Reward token."""
    cdef int k, n = 0, cash = 0, p = s.active
    if not fagin_done_ok(s):
        # A set a re-dealt stash cannot complete (OT-31): back to the stash, the turn ends.
        for k in range(N_KINDS):
            s.stash[p][k] += s.setc[k]
            s.setc[k] = 0
        s.fagin_type = -1
        s.set_last = 0
        end_turn(s)
        return
    for k in range(N_KINDS):
        n += s.setc[k]
        cash += s.setc[k] * KCOINS[k]
        while s.setc[k] > 0:
            s.setc[k] -= 1
            to_pile(s, k)
    if n >= 5:
        cash += 7
    if s.rewards_taken < 5:
        cash += REWARDS[s.rewards_taken]
        s.rewards_taken += 1
    s.money[p] += cash
    s.fagin_type = -1
    s.set_last = 0
    end_turn(s)

cdef int leftover_sets(const OTState* s, int p, int* use_types) noexcept nogil:
    """OT-21: the best way to lay a stash's leftover sets (each worth its best token):
    the most money, then the most tokens out of the stash.  use_types[t] is set for
    each type laid; returns the money.  An exact small search over the Wallets each
    type borrows."""
    cdef int coins[N_SET_TYPES][STASH_CAP]
    cdef int r[N_SET_TYPES]
    cdef int t, k, i, j, c, w, kk, W, best_v, best_u
    cdef int dp[N_SET_TYPES + 1][STASH_CAP + 2]
    cdef int du[N_SET_TYPES + 1][STASH_CAP + 2]
    cdef int choice_w[N_SET_TYPES][STASH_CAP + 2]
    cdef int val, tot
    W = s.stash[p][K_WALLET] + s.stash[p][K_SWALLET]
    for t in range(N_SET_TYPES):
        r[t] = 0
        use_types[t] = 0
    for c in range(5, 0, -1):
        for k in range(K_WALLET):
            if KCOINS[k] == c:
                for i in range(s.stash[p][k]):
                    t = KTYPE[k]
                    if r[t] < STASH_CAP:
                        coins[t][r[t]] = c
                        r[t] += 1
    # dp[t][w]: best (money, tokens) over types t.. with w wallets left.
    for w in range(W + 1):
        dp[N_SET_TYPES][w] = 0
        du[N_SET_TYPES][w] = 0
    for t in range(N_SET_TYPES - 1, -1, -1):
        for w in range(W + 1):
            best_v = dp[t + 1][w]
            best_u = du[t + 1][w]
            choice_w[t][w] = -1
            for j in range(w + 1):
                # with j wallets, this type makes kk = min(r, (r + j) // 3) sets
                if r[t] == 0:
                    break
                kk = (r[t] + j) // 3
                if kk > r[t]:
                    kk = r[t]
                if kk == 0:
                    continue
                val = 0
                for i in range(kk):
                    val += coins[t][i]
                tot = r[t] + j
                if val + dp[t + 1][w - j] > best_v or \
                        (val + dp[t + 1][w - j] == best_v and tot + du[t + 1][w - j] > best_u):
                    best_v = val + dp[t + 1][w - j]
                    best_u = tot + du[t + 1][w - j]
                    choice_w[t][w] = j
            dp[t][w] = best_v
            du[t][w] = best_u
    w = W
    for t in range(N_SET_TYPES):
        j = choice_w[t][w]
        if j >= 0:
            use_types[t] = 1
            w -= j
    return dp[0][W]

cdef void end_round(OTState* s) noexcept nogil:
    """OT-21 to OT-24: leftover sets, the stash to the file, the fine, then night or the end."""
    cdef int p, k, t, sp, m, n, types, pay, v, best
    cdef int use[N_SET_TYPES]
    cdef bint any_set
    s.ended_round = 2 if s.night else 1
    for p in range(s.players):
        s.ended_sets[p] = leftover_sets(s, p, use)
        s.money[p] += s.ended_sets[p]
        s.ended_types[p] = 0
        s.ended_fine[p] = 0
        any_set = False
        for t in range(N_SET_TYPES):
            if use[t]:
                s.ended_types[p] |= 1 << t
                any_set = True
                for k in range(K_WALLET):
                    if KTYPE[k] == t:
                        while s.stash[p][k] > 0:
                            s.stash[p][k] -= 1
                            to_pile(s, k)
        if any_set:
            # OT-21: spare Wallets join a laid set rather than the file.
            while s.stash[p][K_WALLET] > 0:
                s.stash[p][K_WALLET] -= 1
                s.bag[K_WALLET] += 1
            while s.stash[p][K_SWALLET] > 0:
                s.stash[p][K_SWALLET] -= 1
                s.aside[K_SWALLET] += 1
        for k in range(N_KINDS):
            s.pfile[p][k] += s.stash[p][k]
            s.stash[p][k] = 0
            s.ended_file[p][k] = s.pfile[p][k]
    m = 0
    for p in range(s.players):
        n = file_n(s, p)
        if n > m:
            m = n
    if m > 0:
        for p in range(s.players):
            if file_n(s, p) == m:
                types = file_types(s, p)
                pay = types if types <= s.money[p] else s.money[p]
                s.money[p] -= pay
                s.ended_fine[p] = pay
    for p in range(s.players):
        for k in range(N_KINDS):
            while s.pfile[p][k] > 0:
                s.pfile[p][k] -= 1
                to_pile(s, k)
    for sp in range(MAX_SIDE_SPACES):
        v = s.board[sp]
        if face_up(v):
            s.bag[v] += 1
        elif face_down(v) and v != FD_UNDET:
            s.bag[v - FD_BASE] += 1
        s.board[sp] = EMPTY
        s.known[sp] = 0
    for k in range(N_KINDS):
        s.bag[k] += s.fdpool[k]
        s.fdpool[k] = 0
    s.path_len = 0
    s.extra = 0
    s.restrict = R_NONE
    if s.night:
        best = -100000
        for p in range(s.players):
            v = s.money[p] + burglary_pounds(s, p)
            s.final[p] = v
            if v > best:
                best = v
        s.winners = 0
        for p in range(s.players):
            if s.final[p] == best:
                s.winners |= 1 << p
        s.phase = PH_OVER
        return
    # OT-26: nightfall.
    s.night = 1
    s.bag[K_BURGLARY] += s.burg_aside
    s.burg_aside = 0
    for k in range(N_KINDS):
        s.fdpool[k] = s.bag[k]
        s.bag[k] = 0
    for sp in range(SIDE_SPACES[1]):
        if is_open(s, sp):
            s.board[sp] = FD_UNDET
    s.pawn = 0
    s.rewards_taken = 0
    s.deal_left = 2 * s.players
    s.phase = PH_DEAL

cdef void after_deal(OTState* s) noexcept nogil:
    cdef int p, best
    if not s.night:
        s.active = 0                 # OT-9: seat 0 starts the day
        start_turn(s)
        return
    # OT-26: the poorest seat (the first of them from seat 0) flips and picks the starter.
    best = 0
    for p in range(1, s.players):
        if s.money[p] < s.money[best]:
            best = p
    s.active = best
    s.opening = 1
    start_flips(s)

cdef void advance_fill(OTState* s) noexcept nogil:
    """OT-6: the day's spaces are filled in order, each from the bag at random."""
    while s.fill_next < SIDE_SPACES[0] and not is_open(s, s.fill_next):
        s.fill_next += 1
    if s.fill_next >= SIDE_SPACES[0]:
        s.fill_next = 0
        s.deal_left = 2 * s.players
        s.phase = PH_DEAL

cdef int deal_seat(const OTState* s) noexcept nogil:
    return (2 * s.players - s.deal_left) // 2

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

cdef int path_steps(const OTState* s, int* out) noexcept nogil:
    """Face-up tokens next to the line's head (the pawn for an empty line), not in it."""
    cdef int head = s.path[s.path_len - 1] if s.path_len > 0 else s.pawn
    cdef int i, j, q, n = 0, board_side = side(s)
    cdef bint dup
    if s.path_len >= s.path_max:
        return 0
    for i in range(DEG[board_side][head]):
        q = ADJ[board_side][head][i]
        if not face_up(s.board[q]):
            continue
        dup = False
        for j in range(s.path_len):
            if s.path[j] == q:
                dup = True
        if not dup:
            out[n] = q
            n += 1
    return n

cdef void sort_small(int* a, int n) noexcept nogil:
    cdef int i, j, x
    for i in range(1, n):
        x = a[i]
        j = i - 1
        while j >= 0 and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x

cdef bint fagin_addable(const OTState* s, int k) noexcept nogil:
    """OT-18: a set is built kind by kind in ascending order (one sequence per set), and
    only so long as it can still be completed."""
    cdef int p = s.active, t = s.fagin_type, j, n, reals, more
    if k < s.set_last or s.stash[p][k] <= 0:
        return False
    if k < K_WALLET:
        if KTYPE[k] != t:
            return False
    elif k != K_WALLET and k != K_SWALLET:
        return False
    n = 0
    reals = 0
    for j in range(N_KINDS):
        n += s.setc[j]
        if j < K_WALLET:
            reals += s.setc[j]
    if k >= K_WALLET and reals == 0:
        return False
    more = -1
    for j in range(k, K_SWALLET + 1):
        if j >= K_WALLET or KTYPE[j] == t:
            more += s.stash[p][j]
    return n + 1 + more >= s.fagin_min

cdef bint fagin_done_ok(const OTState* s) noexcept nogil:
    cdef int j, n = 0, reals = 0
    for j in range(N_KINDS):
        n += s.setc[j]
        if j < K_WALLET:
            reals += s.setc[j]
    return reals >= 1 and n >= s.fagin_min

cdef int ot_legal_actions(const void* st, int* out) noexcept nogil:
    cdef const OTState* s = <const OTState*>st
    cdef int n = 0, p = s.active, i, k, t, c, sp, adj, m, board_side = side(s), v
    cdef int buf[MAX_SIDE_SPACES]
    if s.phase == PH_FILL:
        for k in range(N_KINDS):
            if s.bag[k] > 0:
                out[n] = A_CH_TOKEN + k
                n += 1
    elif s.phase == PH_DEAL:
        for k in range(N_KINDS):
            if s.aside[k] > 0:
                out[n] = A_CH_TOKEN + k
                n += 1
    elif s.phase == PH_FLIP or s.phase == PH_PEEK_DRAW:
        for k in range(N_KINDS):
            if s.fdpool[k] > 0:
                out[n] = A_CH_TOKEN + k
                n += 1
    elif s.phase == PH_CHAR_DRAW:
        for c in range(N_CHARACTERS):
            if (s.char_draw >> c) & 1:
                out[n] = A_CH_CHAR + c
                n += 1
    elif s.phase == PH_BURG_DRAW:
        for k in range(N_BURGLARY_VALUES):
            if s.burg_draw[k] > 0:
                out[n] = A_CH_BURG + k
                n += 1
    elif s.phase == PH_TURN:
        if s.restrict != R_FAGIN:
            adj = adjacent_kind(s, s.pawn) if any_token(s) else 0
            if adj == 2:
                m = 0
                for i in range(DEG[board_side][s.pawn]):
                    sp = ADJ[board_side][s.pawn][i]
                    if face_up(s.board[sp]):
                        buf[m] = sp
                        m += 1
                sort_small(buf, m)
                for i in range(m):
                    out[n] = A_SPACE + buf[i]
                    n += 1
            elif adj == 1:
                m = fd_neighbours(s, s.pawn, buf)
                sort_small(buf, m)
                for i in range(m):
                    out[n] = A_SPACE + buf[i]
                    n += 1
            elif any_token(s):
                out[n] = A_RELOCATE
                n += 1
        if s.restrict == R_NONE:
            if not can_prowl(s, p) and not can_fagin(s, p, 3):
                out[n] = A_GIVE_UP
                n += 1
        if s.restrict != R_PROWL:
            for t in range(N_SET_TYPES):
                if set_possible(s, p, t, 2 if s.restrict == R_FAGIN else 3):
                    out[n] = A_FAGIN + t
                    n += 1
        if s.restrict == R_FAGIN and n == 0:
            # Mr Grimwig was played for a set, but in a world re-dealt for another seat
            # (OT-31) this stash may hold none: the turn ends.
            out[0] = A_DONE
            n = 1
        if s.restrict == R_NONE:
            for c in range(N_CHARACTERS):
                if playable(s, p, c):
                    out[n] = A_PLAY + c
                    n += 1
            for c in range(N_CHARACTERS):
                if (s.hand[p] >> c) & 1:
                    out[n] = A_HIDE + c
                    n += 1
    elif s.phase == PH_PATH:
        m = path_steps(s, buf)
        sort_small(buf, m)
        for i in range(m):
            out[n] = A_SPACE + buf[i]
            n += 1
        if s.path_len > 0:
            out[n] = A_TAKE
            n += 1
    elif s.phase == PH_FLIP_DIR:
        m = fd_neighbours(s, s.flip_from if s.flip_from >= 0 else s.pawn, buf)
        sort_small(buf, m)
        for i in range(m):
            out[n] = A_SPACE + buf[i]
            n += 1
    elif s.phase == PH_PEEK:
        m = peekable(s, buf)
        for i in range(m):
            out[n] = A_SPACE + buf[i]
            n += 1
    elif s.phase == PH_PLACE:
        for sp in range(SIDE_SPACES[board_side]):
            if (sp == 0 or not (s.players == 2 and YELLOW[board_side][sp])) and s.board[sp] == EMPTY \
                    and adjacent_kind(s, sp) > 0:
                out[n] = A_SPACE + sp
                n += 1
    elif s.phase == PH_DODGER:
        for sp in range(SIDE_SPACES[board_side]):
            v = s.board[sp]
            if face_up(v) and KOBJ[v]:
                out[n] = A_SPACE + sp
                n += 1
    elif s.phase == PH_SWAP:
        for k in range(N_KINDS):
            if s.stash[p][k] > 0:
                out[n] = A_KIND + k
                n += 1
    elif s.phase == PH_FAGIN:
        if fagin_done_ok(s):
            out[n] = A_DONE
            n += 1
        for k in range(N_KINDS):
            if fagin_addable(s, k):
                out[n] = A_KIND + k
                n += 1
        if n == 0:
            # Only in a world re-dealt for another seat (OT-31): this stash cannot complete
            # the set; "done" puts the set back and the turn ends.
            out[0] = A_DONE
            n = 1
    elif s.phase == PH_PICK:
        # Bumble and Fang may stop at any time; Bet must take its Object, but in a world
        # re-dealt for another seat (OT-31) its file may hold none: then it is done.
        out[0] = A_DONE
        n = 1
        for k in range(s.pick_last, N_KINDS):
            if s.pfile[p][k] > 0 and (s.pick_dest != PICK_STASH or KOBJ[k]):
                out[n] = A_KIND + k
                n += 1
        if s.pick_dest == PICK_STASH and n > 1:
            for i in range(1, n):
                out[i - 1] = out[i]
            n -= 1
    elif s.phase == PH_TARGET:
        for i in range(s.players):
            if i != p:
                out[n] = A_SEAT + i
                n += 1
    elif s.phase == PH_CHOOSE_START:
        for i in range(s.players):
            out[n] = A_SEAT + i
            n += 1
    elif s.phase == PH_BURG_KEEP:
        for k in range(N_BURGLARY_VALUES):
            if s.burg_drawn[k] > 0:
                out[n] = A_KEEP + k
                n += 1
    elif s.phase == PH_TOOL:
        for t in range(NTOOL):
            if s.front[p][K_TOOL0 + t] > 0:
                out[n] = A_TOOL + t
                n += 1
    return n

cdef void play_card(OTState* s, int c) noexcept nogil:
    """OT-8: the Character effects."""
    cdef int p = s.active, q, pay, k, n
    s.hand[p] &= ~(1 << c)
    s.char_disc |= 1 << c
    if c == C_DODGER:
        s.phase = PH_DODGER
    elif c == C_NANCY:
        n = s.stash[p][K_WALLET] + s.stash[p][K_SWALLET]
        s.bag[K_WALLET] += s.stash[p][K_WALLET]
        s.aside[K_SWALLET] += s.stash[p][K_SWALLET]
        s.stash[p][K_WALLET] = 0
        s.stash[p][K_SWALLET] = 0
        s.money[p] += WALLET_CASH * n
        end_turn(s)
    elif c == C_SIKES:
        for q in range(s.players):
            if q != p:
                pay = SIKES_TAKE if s.money[q] >= SIKES_TAKE else s.money[q]
                s.money[q] -= pay
                s.money[p] += pay
        end_turn(s)
    elif c == C_BUMBLE:
        s.pick_left = 2
        s.pick_dest = PICK_BAG
        s.pick_last = 0
        s.phase = PH_PICK
    elif c == C_NOAH:
        s.phase = PH_PLACE
    elif c == C_CHARLEY:
        s.phase = PH_TURN
        s.restrict = R_PROWL
        s.path_max = LINE_CHARLEY
    elif c == C_OLIVER:
        s.phase = PH_TURN
        s.restrict = R_PROWL
        s.extra = 1
    elif c == C_BROWNLOW:
        s.money[p] += REWARDS[s.rewards_taken]
        s.rewards_taken += 1
        end_turn(s)
    elif c == C_TOBY:
        start_burglary(s, TOBY_EXTRA)
    elif c == C_FANG:
        s.phase = PH_TARGET
    elif c == C_SOWERBERRY:
        n = 0
        for k in range(N_SET_TYPES):
            if type_reals(s, p, k) > 0:
                n += 1
        s.money[p] += n
        end_turn(s)
    elif c == C_BET:
        s.pick_left = 1
        s.pick_dest = PICK_STASH
        s.pick_last = 0
        s.phase = PH_PICK
    elif c == C_GRIMWIG:
        s.phase = PH_TURN
        s.restrict = R_FAGIN

cdef void ot_apply_action(void* st, int action) noexcept nogil:
    """Applies an action, then every decision left with one option (OT-37)."""
    cdef OTState* s = <OTState*>st
    cdef int buf[NUM_ACTIONS]
    apply_one(s, action)
    while ot_current_player(s) >= 0 and ot_legal_actions(s, buf) == 1:
        apply_one(s, buf[0])

cdef void apply_one(OTState* s, int action) noexcept nogil:
    cdef int p = s.active, k, sp, c, i, t
    if s.phase == PH_FILL:
        k = action - A_CH_TOKEN
        s.bag[k] -= 1
        s.board[s.fill_next] = k
        s.fill_next += 1
        advance_fill(s)
    elif s.phase == PH_DEAL:
        k = action - A_CH_TOKEN
        s.aside[k] -= 1
        s.stash[deal_seat(s)][k] += 1
        s.deal_left -= 1
        if s.deal_left == 0:
            after_deal(s)
    elif s.phase == PH_FLIP:
        k = action - A_CH_TOKEN
        s.fdpool[k] -= 1
        s.board[s.flip_target] = k
        s.known[s.flip_target] = 0
        s.flips_left -= 1
        s.flip_from = s.flip_target
        s.flip_target = -1
        next_flip(s)
    elif s.phase == PH_PEEK_DRAW:
        k = action - A_CH_TOKEN
        s.fdpool[k] -= 1
        s.board[s.flip_target] = FD_BASE + k
        s.known[s.flip_target] = 1 << p
        s.flip_target = -1
        after_peek(s)
    elif s.phase == PH_CHAR_DRAW:
        c = action - A_CH_CHAR
        s.char_draw &= ~(1 << c)
        s.hand[p] |= 1 << c
        finish_prowl(s)
    elif s.phase == PH_BURG_DRAW:
        k = action - A_CH_BURG
        s.burg_draw[k] -= 1
        s.burg_drawn[k] += 1
        s.burg_to_draw -= 1
        if s.burg_to_draw == 0:
            t = -1
            c = 0
            for i in range(N_BURGLARY_VALUES):
                c += s.burg_drawn[i]
                if s.burg_drawn[i] > 0:
                    t = i
            if c == 1:
                keep_burglary(s, t)
            else:
                s.phase = PH_BURG_KEEP
    elif s.phase == PH_TURN:
        if action < A_TAKE:
            sp = action - A_SPACE
            if face_up(s.board[sp]):
                s.path[0] = sp
                s.path_len = 1
                s.phase = PH_PATH
            else:
                s.flips_left = FLIPS
                s.flip_from = -1
                flip_at(s, sp)
        elif action == A_RELOCATE:
            s.money[p] -= 2 if s.money[p] >= 2 else s.money[p]      # OT-15
            if s.night:
                s.peeks_left = PEEKS
                if peekable(s, NULL) > 0:
                    s.phase = PH_PEEK
                else:
                    s.peeks_left = 0
                    s.phase = PH_PLACE
            else:
                s.phase = PH_PLACE
        elif action == A_GIVE_UP:
            s.money[p] -= 4 if s.money[p] >= 4 else s.money[p]      # OT-20
            end_round(s)
        elif action == A_DONE:
            end_turn(s)                               # Mr Grimwig without a set (OT-31)
        elif action < A_KIND:
            s.fagin_type = action - A_FAGIN
            s.fagin_min = 2 if s.restrict == R_FAGIN else 3
            s.set_last = 0
            s.restrict = R_NONE
            s.phase = PH_FAGIN
        elif A_PLAY <= action < A_HIDE:
            play_card(s, action - A_PLAY)
        elif A_HIDE <= action < A_SEAT:
            c = action - A_HIDE                       # OT-20: hide, the turn passes
            s.hand[p] &= ~(1 << c)
            s.char_disc |= 1 << c
            end_turn(s)
    elif s.phase == PH_PATH:
        if action == A_TAKE:
            take_line(s)
        else:
            s.path[s.path_len] = action - A_SPACE
            s.path_len += 1
    elif s.phase == PH_FLIP_DIR:
        flip_at(s, action - A_SPACE)
    elif s.phase == PH_PEEK:
        sp = action - A_SPACE
        if s.board[sp] == FD_UNDET:
            s.flip_target = sp
            s.phase = PH_PEEK_DRAW
        else:
            s.known[sp] |= 1 << p
            after_peek(s)
    elif s.phase == PH_PLACE:
        s.pawn = action - A_SPACE
        after_place(s)
    elif s.phase == PH_DODGER:
        sp = action - A_SPACE
        k = s.board[sp]
        s.board[sp] = EMPTY
        receive(s, k)
    elif s.phase == PH_SWAP:
        k = action - A_KIND
        s.stash[p][k] -= 1
        s.pfile[p][k] += 1
        s.stash[p][s.pending] += 1
        s.pending = -1
        finish_prowl(s)
    elif s.phase == PH_FAGIN:
        if action == A_DONE:
            deliver(s)
        else:
            k = action - A_KIND
            s.stash[p][k] -= 1
            s.setc[k] += 1
            s.set_last = k
    elif s.phase == PH_PICK:
        if action == A_DONE:
            end_turn(s)
            return
        k = action - A_KIND
        s.pfile[p][k] -= 1
        if s.pick_dest == PICK_BAG:
            to_pile(s, k)
        elif s.pick_dest == PICK_STASH:
            s.stash[p][k] += 1
        else:
            s.pfile[s.pick_dest][k] += 1
        s.pick_left -= 1
        s.pick_last = k
        if s.pick_left == 0 or file_n(s, p) == 0 or \
                (s.pick_dest == PICK_STASH and not file_has_object(s, p)):
            end_turn(s)
        else:
            # the next pick must still be possible in ascending order
            c = 0
            for k in range(s.pick_last, N_KINDS):
                if s.pfile[p][k] > 0 and (s.pick_dest != PICK_STASH or KOBJ[k]):
                    c = 1
            if not c:
                end_turn(s)
    elif s.phase == PH_TARGET:
        s.pick_left = 2
        s.pick_dest = action - A_SEAT
        s.pick_last = 0
        s.phase = PH_PICK
    elif s.phase == PH_CHOOSE_START:
        s.active = action - A_SEAT
        start_turn(s)
    elif s.phase == PH_BURG_KEEP:
        keep_burglary(s, action - A_KEEP)
    elif s.phase == PH_TOOL:
        t = action - A_TOOL
        s.front[p][K_TOOL0 + t] -= 1
        s.bag[K_TOOL0 + t] += 1
        finish_prowl(s)

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

cdef void ot_determinize(void* st, int o, Rng* rng) noexcept nogil:
    """OT-31: re-deal what `o` cannot see, each within its kind of place."""
    cdef OTState* s = <OTState*>st
    cdef int16_t rnd[N_KINDS]
    cdef int16_t start[N_KINDS]
    cdef int p, k, sp, n, v, c
    cdef int need_file_r[MAXP]
    cdef int need_file_s[MAXP]
    cdef int need_stash_r[MAXP]
    cdef int need_stash_s[MAXP]
    cdef uint8_t objects[N_KINDS]
    cdef int need_fd, need_bag, need_aside, drawn_n
    cdef int hands[MAXP]
    cdef int kept_n[MAXP]
    cdef uint16_t cards
    cdef int16_t bpool[N_BURGLARY_VALUES]
    memset(rnd, 0, sizeof(rnd))
    memset(start, 0, sizeof(start))
    for k in range(N_KINDS):
        objects[k] = 1 if KOBJ[k] else 0
    # Tokens: the bag, the face-down pool, others' stashes and files, decided face-down
    # tokens o has not seen.  A stash holds Objects only: its round tokens are dealt
    # first, among the Objects of the pool (every physical token equally likely).
    need_bag = ms_total(s.bag, N_KINDS)
    need_fd = ms_total(s.fdpool, N_KINDS)
    need_aside = ms_total(s.aside, N_KINDS)
    for k in range(N_KINDS):
        rnd[k] += s.bag[k] + s.fdpool[k]
        start[k] += s.aside[k]
        s.bag[k] = 0
        s.fdpool[k] = 0
        s.aside[k] = 0
    for p in range(s.players):
        need_file_r[p] = 0
        need_file_s[p] = 0
        need_stash_r[p] = 0
        need_stash_s[p] = 0
        if p == o:
            continue
        for k in range(N_KINDS):
            if KSTART[k]:
                need_file_s[p] += s.pfile[p][k]
                start[k] += s.pfile[p][k]
                need_stash_s[p] += s.stash[p][k]
                start[k] += s.stash[p][k]
            else:
                need_file_r[p] += s.pfile[p][k]
                rnd[k] += s.pfile[p][k]
                need_stash_r[p] += s.stash[p][k]
                rnd[k] += s.stash[p][k]
            s.pfile[p][k] = 0
            s.stash[p][k] = 0
    for sp in range(MAX_SIDE_SPACES):
        v = s.board[sp]
        if face_down(v) and v != FD_UNDET and not (s.known[sp] >> o) & 1:
            rnd[v - FD_BASE] += 1
    for p in range(s.players):
        for n in range(need_stash_r[p]):
            s.stash[p][ms_draw_where(rnd, N_KINDS, objects, rng)] += 1
        for n in range(need_stash_s[p]):
            s.stash[p][ms_draw(start, N_KINDS, rng)] += 1
    for sp in range(MAX_SIDE_SPACES):
        v = s.board[sp]
        if face_down(v) and v != FD_UNDET and not (s.known[sp] >> o) & 1:
            s.board[sp] = FD_BASE + ms_draw(rnd, N_KINDS, rng)
    for p in range(s.players):
        for n in range(need_file_r[p]):
            s.pfile[p][ms_draw(rnd, N_KINDS, rng)] += 1
        for n in range(need_file_s[p]):
            s.pfile[p][ms_draw(start, N_KINDS, rng)] += 1
    for n in range(need_fd):
        s.fdpool[ms_draw(rnd, N_KINDS, rng)] += 1
    for k in range(N_KINDS):
        s.bag[k] = rnd[k]
        s.aside[k] = start[k]
    # Character cards: the draw pile and others' hands.
    cards = s.char_draw
    for p in range(s.players):
        hands[p] = 0
        if p != o:
            hands[p] = popcount16(s.hand[p])
            cards |= s.hand[p]
            s.hand[p] = 0
    s.char_draw = 0
    for p in range(s.players):
        for n in range(hands[p]):
            c = popcount16(cards)
            v = <int>rng_below(rng, c)
            for k in range(N_CHARACTERS):
                if (cards >> k) & 1:
                    if v == 0:
                        cards &= ~(1 << k)
                        s.hand[p] |= 1 << k
                        break
                    v -= 1
    s.char_draw = cards
    # Burglary cards: the draw pile, others' kept cards, another burglar's drawn cards.
    for k in range(N_BURGLARY_VALUES):
        bpool[k] = s.burg_draw[k]
        s.burg_draw[k] = 0
    drawn_n = 0
    for p in range(s.players):
        kept_n[p] = 0
        if p != o and s.phase != PH_OVER:       # OT-29: shown at the game's end
            for k in range(N_BURGLARY_VALUES):
                kept_n[p] += s.kept[p][k]
                bpool[k] += s.kept[p][k]
                s.kept[p][k] = 0
    if s.active != o:
        for k in range(N_BURGLARY_VALUES):
            drawn_n += s.burg_drawn[k]
            bpool[k] += s.burg_drawn[k]
            s.burg_drawn[k] = 0
    for p in range(s.players):
        for n in range(kept_n[p]):
            s.kept[p][draw_bv(bpool, rng)] += 1
    for n in range(drawn_n):
        s.burg_drawn[draw_bv(bpool, rng)] += 1
    for k in range(N_BURGLARY_VALUES):
        s.burg_draw[k] = bpool[k]

cdef int draw_bv(int16_t* pool, Rng* rng) noexcept nogil:
    cdef int k, tot = 0, r
    for k in range(N_BURGLARY_VALUES):
        tot += pool[k]
    r = <int>rng_below(rng, tot)
    for k in range(N_BURGLARY_VALUES):
        r -= pool[k]
        if r < 0:
            pool[k] -= 1
            return k
    return 0

cdef uint64_t ot_infoset_key(const void* st, int o) noexcept nogil:
    """OT-30: a hash of exactly what seat `o` sees now (its view): of another seat's stash
    and file only their sizes and how many starting tokens each holds."""
    cdef const OTState* s = <const OTState*>st
    cdef uint64_t h = 0x9E3779B97F4A7C15
    cdef int p, k, sp, v, n, sn
    cdef int16_t seen[MAX_SIDE_SPACES]
    h = mix64(h, <uint64_t>(s.players + 8 * s.night + 64 * s.phase + 4096 * s.active + 65536 * (s.pawn + 1)))
    h = mix64(h, <uint64_t>(s.fill_next + 256 * s.deal_left + 65536 * s.path_len + 1048576 * s.path_max))
    for k in range(s.path_len):
        h = mix64(h, <uint64_t>(1000 + s.path[k]))
    h = mix64(h, <uint64_t>((s.flips_left + 1) + 64 * (s.flip_from + 2) + 16384 * (s.flip_target + 2)))
    h = mix64(h, <uint64_t>(s.opening + 2 * s.peeks_left + 16 * s.restrict + 64 * s.extra + 256 * (s.pending + 2)))
    h = mix64(h, <uint64_t>((s.fagin_type + 2) + 16 * s.fagin_min + 256 * s.set_last + 65536 * s.pick_left))
    h = mix64(h, <uint64_t>((s.pick_dest + 4) + 16 * s.pick_last + 1024 * s.burg_to_draw + 65536 * s.rewards_taken))
    h = mix64(h, <uint64_t>(s.burg_aside + 256 * s.winners))
    # Each space in 16 bits: its token as the seat sees it (-1 to 100) and who has looked at
    # it (a bit per seat).
    for sp in range(MAX_SIDE_SPACES):
        v = s.board[sp]
        if face_down(v) and not (s.known[sp] >> o) & 1:
            v = FD_UNDET
        seen[sp] = <int16_t>(((v + 1) & 0xFFF) | ((s.known[sp] & 0xF) << 12))
    h = cards_fold_packed(h, seen, MAX_SIDE_SPACES)
    h = cards_fold_packed(h, s.setc, N_KINDS)
    h = mix64(h, <uint64_t>(ms_total(s.bag, N_KINDS) + 4096 * ms_total(s.fdpool, N_KINDS) + 16777216 * ms_total(s.aside, N_KINDS)))
    for p in range(s.players):
        h = mix64(h, <uint64_t>(p * 1000003 + (s.money[p] + 1000) + 65536 * (s.final[p] + 1000)))
        h = cards_fold_packed(h, s.front[p], N_KINDS)
        n = 0
        sn = 0
        for k in range(N_KINDS):
            n += s.stash[p][k]
            if KSTART[k]:
                sn += s.stash[p][k]
        h = mix64(h, <uint64_t>(p * 37 + 1024 * n + 65536 * sn))
        n = 0
        sn = 0
        for k in range(N_KINDS):
            n += s.pfile[p][k]
            if KSTART[k]:
                sn += s.pfile[p][k]
        h = mix64(h, <uint64_t>(p * 31 + 1024 * n + 65536 * sn + 16777216 * popcount16(s.hand[p])))
        n = 0
        for k in range(N_BURGLARY_VALUES):
            n += s.kept[p][k]
        h = mix64(h, <uint64_t>(p * 17 + 256 * n))
        if p == o:
            h = cards_fold_packed(mix64(h, 4000000), s.stash[p], N_KINDS)
            h = cards_fold_packed(mix64(h, 5000000), s.pfile[p], N_KINDS)
            h = mix64(h, <uint64_t>(6000000 + s.hand[p]))
        if p == o or s.phase == PH_OVER:          # OT-29: every Burglary card is shown at the end
            h = cards_fold_packed(mix64(h, 7000000), s.kept[p], N_BURGLARY_VALUES)
    # OT-38: the last round's end, laid open to all.
    h = mix64(h, <uint64_t>(8000000 + s.ended_round))
    if s.ended_round:
        for p in range(s.players):
            h = mix64(h, <uint64_t>(p * 13 + 64 * (s.ended_sets[p] + 1) + 65536 * s.ended_types[p]
                                    + 16777216 * (s.ended_fine[p] + 1)))
            h = cards_fold_packed(h, s.ended_file[p], N_KINDS)
    h = mix64(h, <uint64_t>(s.char_disc + 65536 * popcount16(s.char_draw)))
    n = 0
    v = 0
    for k in range(N_BURGLARY_VALUES):
        n += s.burg_draw[k]
        v += s.burg_drawn[k]
    h = mix64(h, <uint64_t>(n + 256 * v))
    if s.active == o:
        h = cards_fold_packed(mix64(h, 8000000), s.burg_drawn, N_BURGLARY_VALUES)
    return h

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
cdef LearnedRoom LEARNED_ROOM

cdef void ot_evaluate_learned(const void* st, double* out) noexcept nogil:
    learned_room_evaluate(&LEARNED_ROOM, st, out)

cdef bint ot_margins_learned(const void* st, double* out) noexcept nogil:
    return learned_room_margins(&LEARNED_ROOM, st, out)

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

# The evaluation scores a playout only where a search asks for a cut-off (GameSpec.search,
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
_load_learned = learned_room(&LEARNED_ROOM, &OT_DEF, globals(), data_path(__file__, "learned.json"), FEATURE_NAMES,
                             "Oliver Twist", ot_evaluate_learned, ot_margins_learned)

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
