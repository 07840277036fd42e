# cython: language_level=3
"""Fagin's Gang (Ludorum Games 2007): the rules engine.

The rules in our words, every ruling cited here as ``FG-n``, are in
``seeds/fagins_gang.md``.  Only the rulebook's Phase 1 (the four actions, and
option b exactly) survives; the rest is a reconstruction recorded there.  The
board (locations, their tracks, costs, the price ring, stocks) is data:
``data/board.json``, loaded and checked when this module is imported.

Nothing is hidden (FG-27): goods, shillings and urchins lie open on the table,
and the die is rolled in the open, so ``determinize`` changes nothing and a
seat's information-set key is the position itself.

Action ids (stable):

* ``0..3``     choose action a (move), b (steal / exchange goods), c (steal shillings), d (market)
* ``4``        done (end the chosen action, or one's turn at the market)
* ``5..346``   move at location L (57 each, from ``5 + 57L``): ``+0`` enter from Fagin's den;
  ``+1 + 8s + t`` the urchin on space s moves to space t (t = 7: from the top, home to
  Fagin; from the street, back to the den; ids with t = s or t = 7 elsewhere name no move)
* ``347..388`` steal goods with the urchin at (L, s): ``347 + 7L + s``
* ``389..430`` steal shillings with the urchin at (L, s): ``389 + 7L + s``
* ``431..436`` a white hand takes a cube of colour c
* ``437..442`` exchange: pay a cube of colour c;  ``443..448``: take the cube of colour c
* ``449..454`` market: sell a cube of colour c;  ``455..460``: buy a cube of colour c
* ``461..466`` chance: the die shows 1..6
"""
from fagin.engines.room_data import data_path, read_json

cimport cython
from libc.stdint cimport int16_t, uint32_t, uint64_t
from libc.string cimport memcpy, memset
from libc.math cimport exp

from fagin.engines.abi cimport GameDef, PLAYER_CHANCE, PLAYER_TERMINAL
from fagin.engines.room cimport export_game_def, game_def, game_def_knowledge, read_state
from fagin.engines.rng cimport Rng, rng_below, rng_seed, rng_double, mix64
from fagin.engines.learned cimport learned_relative, learned_room
from fagin.engines.core import room_functions as _room_functions

from fagin.engines.validation import enum_index as _enum_index
from fagin.engines.validation import int_in as _int_in
from fagin.engines.validation import one_per_seat as _one_per_seat

cdef enum:
    FG_MAX_PLAYERS = 6
    NC = 6                  # goods colours (FG-6)
    NL = 6                  # locations, one per colour and constable (FG-7)
    N_SPACES = 7                  # spaces of a track: the street, then levels 0 to 5 (FG-8)
    TOP = 6
    SH_CAP = 30000          # shillings a seat may hold (FG-28)

    A_CHOOSE = 0
    A_DONE = 4
    A_MOVE = 5
    MOVE_PER_LOC = 57       # enter, then (from space, to space or 7) pairs
    A_STEAL = 347
    A_SHILL = 389
    A_WHITE = 431
    A_PAY = 437
    A_PICK = 443
    A_SELL = 449
    A_BUY = 455
    A_DIE = 461
    NUM_ACTIONS = 467

    # Actions a player may choose (FG-1).
    AK_NONE = 0
    AK_MOVE = 1
    AK_STEAL = 2
    AK_SHILL = 3
    AK_MARKET = 4

    # Phases.
    PH_SETUP_CONSTABLE = 0  # chance: a constable's starting die (FG-19)
    PH_SETUP_WHEEL = 1      # chance: the die turning the price wheel (FG-16)
    PH_CHOOSE = 2           # the active player chooses one action
    PH_OPS = 3              # the active player takes the chosen action's steps, or done
    PH_WHITE = 4            # a white hand's colour
    PH_SWAP_PAY = 5         # an exchange: the cubes paid
    PH_SWAP_PICK = 6        # an exchange: the cube taken
    PH_MARKET = 7           # a seat trades at Smithfield Market
    PH_WHEEL = 8            # chance: the wheel turns after a market visit (FG-16)
    PH_PATROL = 9           # chance: the constables' patrol die (FG-20)
    PH_OVER = 10

    MAX_DECISION = 48       # 6 entries + 5 urchins x (6 climbs, down) + done
    MAX_LEGAL = 48

# ------------------------------------------------------------- board data
cdef int GOODS[NL][N_SPACES][NC]
cdef int WHITE[NL][N_SPACES]
cdef int SHILL[NL][N_SPACES]
cdef int COST[NL][N_SPACES][NC]
cdef int RET_COST[NL][NC]
cdef int STOCK[FG_MAX_PLAYERS + 1]
cdef int RING[NC]
cdef int STALL_START = 2
cdef int START_SH = 20
cdef int START_GOODS = 1
cdef int URCHINS = 5
cdef int HOME_TO_WIN = 3
cdef int RET_SH = 15
cdef int COIN_BONUS = 1
cdef int BUY_MARGIN = 2
cdef int SELL_LIMIT = 6
cdef int BUY_LIMIT = 3
cdef int PATROL_STEPS = 2
cdef int MAX_ROUNDS = 30

# All fields are int16_t so that the struct has no padding: the information-set
# key hashes its words (FG-27).
ctypedef struct FGState:
    int16_t players
    int16_t phase
    int16_t round               # rounds completed
    int16_t first               # holder of the start-player coin
    int16_t active              # the seat whose turn it is in Phase 1
    int16_t turns_done          # seats that have taken their action this round
    int16_t action              # AK_*: the action being taken
    int16_t ops                 # steps of it taken (locations used plus exchanges)
    int16_t used                # locations used this action (bit mask)
    int16_t white_left          # white hands still to choose
    int16_t white_min           # canonical order of white-hand colours (FG-4)
    int16_t swap_paid
    int16_t swap_min
    int16_t caller              # the seat that sent everyone to the market (market coin)
    int16_t mseat               # the seat trading at the market
    int16_t mvisited            # seats done at the market this visit
    int16_t mbuying             # the trading seat has started buying (no more selling)
    int16_t msold
    int16_t mbought
    int16_t mlast               # canonical order of trades (FG-18)
    int16_t setup_step
    int16_t wheel               # the price wheel's position
    int16_t winner
    int16_t warehouse[NC]
    int16_t stall[NC]
    int16_t shillings[FG_MAX_PLAYERS]
    int16_t home[FG_MAX_PLAYERS]
    int16_t den[FG_MAX_PLAYERS]
    int16_t hand[FG_MAX_PLAYERS][NC]
    int16_t board[NL][N_SPACES]       # levels 0-5 (spaces 1-6): 0 empty, p + 1: an urchin of seat p
    int16_t street[NL][FG_MAX_PLAYERS]  # urchins of each seat on the street (FG-8: any number)
    int16_t cpos[NL]            # constables' spaces
    int16_t cdir[NL]            # +1 facing up, -1 facing down

# ---------------------------------------------------------------- helpers

cdef inline int price(const FGState* s, int c) noexcept nogil:
    # FG-16: the wheel's position sets every colour's price from the ring.
    return RING[(c + s.wheel) % NC]

cdef inline int cubes_of(const FGState* s, int p) noexcept nogil:
    cdef int c, n = 0
    for c in range(NC):
        n += s.hand[p][c]
    return n

cdef inline int stock_total(const FGState* s) noexcept nogil:
    cdef int c, n = 0
    for c in range(NC):
        n += s.warehouse[c]
    return n

cdef inline int affords(const FGState* s, int p, const int* cost) noexcept nogil:
    cdef int c
    for c in range(NC):
        if s.hand[p][c] < cost[c]:
            return 0
    return 1

cdef inline void pay(FGState* s, int p, const int* cost) noexcept nogil:
    # Paid goods go back to their warehouses (FG-9).
    cdef int c
    for c in range(NC):
        s.hand[p][c] -= cost[c]
        s.warehouse[c] += cost[c]

cdef inline void gain_sh(FGState* s, int p, int n) noexcept nogil:
    s.shillings[p] += n
    if s.shillings[p] > SH_CAP:
        s.shillings[p] = SH_CAP          # FG-28: never reached in play

cdef inline int has_urchin(const FGState* s, int p, int L, int sp) noexcept nogil:
    if sp == 0:
        return s.street[L][p] > 0
    return s.board[L][sp] == p + 1

cdef inline int blocked_by_own(const FGState* s, int p, int L, int t) noexcept nogil:
    # FG-14: never onto one's own urchin (the street holds any number, FG-8).
    return t > 0 and s.board[L][t] == p + 1

cdef int climb_cost(const FGState* s, int L, int src, int t, int* cost) noexcept nogil:
    """FG-12, FG-13: the goods a climb from src up to t costs: every space entered on the
    way, the constable's (passed, never entered) excepted."""
    cdef int k, c
    for c in range(NC):
        cost[c] = 0
    for k in range(src + 1, t + 1):
        if k == s.cpos[L]:
            continue
        for c in range(NC):
            cost[c] += COST[L][k][c]
    return 0

cdef int move_target(const FGState* s, int p, int L, int j) noexcept nogil:
    """Where move j at location L of seat p's urchin lands (FG-10 to FG-15): a space
    0..6, N_SPACES for home, -2 back to the den; -1 if the move is illegal.  j = 0: enter;
    j = 1 + 8 src + t: the urchin on space src moves to space t (t = 7: home from the
    top, or the den from the street)."""
    cdef int src, t
    cdef int cost[NC]
    if j == 0:
        # FG-10: enter from the den onto the street, paying its cost.
        if s.den[p] <= 0:
            return -1
        t = 0
        if s.cpos[L] == t:
            t = 1                                 # FG-13: past the constable
        if blocked_by_own(s, p, L, t) or not affords(s, p, COST[L][t]):
            return -1
        return t
    src = (j - 1) >> 3
    t = (j - 1) & 7
    if src >= N_SPACES or not has_urchin(s, p, L, src):
        return -1
    if t == 7:
        if src == TOP:
            # FG-15: home to Fagin from the top, for shillings and goods.
            if s.shillings[p] < RET_SH or not affords(s, p, RET_COST[L]):
                return -1
            return N_SPACES
        if src == 0:
            return -2                             # FG-11: leave by the street, back to the den
        return -1
    if t == s.cpos[L] or blocked_by_own(s, p, L, t):
        return -1                                 # FG-13, FG-14
    if t < src:
        # FG-11: one space down for free (two when the constable stands in between).
        if t == src - 1 or (t == src - 2 and s.cpos[L] == src - 1):
            return t
        return -1
    if t == src:
        return -1
    climb_cost(s, L, src, t, cost)
    if not affords(s, p, cost):
        return -1
    return t

cdef int legal_moves(const FGState* s, int p, int* out, int first_only) noexcept nogil:
    """The move steps open to seat p (ids), ascending; with first_only, stops at one."""
    cdef int n = 0, L, src, t, j
    for L in range(NL):
        if (s.used >> L) & 1:
            continue
        # ids ascending: the entry (j = 0), then each source holding an urchin, its 8 targets
        for src in range(-1, N_SPACES):
            if src >= 0 and not has_urchin(s, p, L, src):
                continue
            for t in range(1 if src < 0 else 8):
                j = 0 if src < 0 else 1 + 8 * src + t
                if move_target(s, p, L, j) != -1:
                    if out != NULL:
                        out[n] = A_MOVE + L * MOVE_PER_LOC + j
                    n += 1
                    if first_only:
                        return n
    return n

cdef int free_locations(const FGState* s, int p) noexcept nogil:
    """Locations not yet used this action where seat p has an urchin (street or level)."""
    cdef int L, sp, n = 0
    for L in range(NL):
        if (s.used >> L) & 1:
            continue
        for sp in range(N_SPACES):
            if has_urchin(s, p, L, sp):
                n += 1
                break
    return n

cdef inline int exchanges_done(const FGState* s) noexcept nogil:
    """Exchanges taken this action: the steps that used no location of their own (FG-4)."""
    cdef int L, n = 0
    for L in range(NL):
        n += (s.used >> L) & 1
    return s.ops - n

cdef inline int goods_step_room(const FGState* s, int p) noexcept nogil:
    """FG-4: every step of action b, a steal or an exchange made instead of one, needs a
    location of its own where p has an urchin: a further step is possible while more such
    locations are free than the exchanges taken so far need."""
    return free_locations(s, p) > exchanges_done(s)

cdef inline int steal_legal(const FGState* s, int p, int L, int sp) noexcept nogil:
    cdef int c, n = WHITE[L][sp]
    if (s.used >> L) & 1 or not has_urchin(s, p, L, sp) or not goods_step_room(s, p):
        return 0
    for c in range(NC):
        n += GOODS[L][sp][c]
    return n > 0                                   # FG-5: the street offers no goods

cdef inline int shill_legal(const FGState* s, int p, int L, int sp) noexcept nogil:
    if (s.used >> L) & 1 or not has_urchin(s, p, L, sp):
        return 0
    return SHILL[L][sp] > 0

cdef inline int pay_legal(const FGState* s, int p, int c) noexcept nogil:
    # FG-4: three cubes paid in any colours, listed in ascending colour (one action
    # per multiset); a colour is offered only if enough cubes remain to finish.
    cdef int d, n = 0
    if s.hand[p][c] <= 0 or c < s.swap_min:
        return 0
    for d in range(c, NC):
        n += s.hand[p][d]
    return n >= 3 - s.swap_paid

cdef int any_op(const FGState* s, int p, int kind) noexcept nogil:
    cdef int L, j, sp, c
    if kind == AK_MOVE:
        return legal_moves(s, p, NULL, 1) > 0     # it skips the used locations itself
    for L in range(NL):
        if (s.used >> L) & 1:
            continue
        for sp in range(N_SPACES):
            if kind == AK_STEAL and steal_legal(s, p, L, sp):
                return 1
            if kind == AK_SHILL and shill_legal(s, p, L, sp):
                return 1
    if kind == AK_STEAL and cubes_of(s, p) >= 3 and goods_step_room(s, p):
        return 1
    return 0

cdef int market_options(const FGState* s, int p) noexcept nogil:
    """1 if seat p has a trade to make at the market (FG-17, FG-18)."""
    cdef int c
    for c in range(NC):
        if not s.mbuying and s.msold < SELL_LIMIT and s.hand[p][c] > 0 and c >= s.mlast:
            return 1
        if s.mbought < BUY_LIMIT and s.stall[c] > 0 and s.shillings[p] >= price(s, c) + BUY_MARGIN \
                and (not s.mbuying or c >= s.mlast):
            return 1
    return 0

cdef int rank_key(const FGState* s, int a, int b) noexcept nogil:
    """FG-24: which key of the ranking tells seats a and b apart, signed: +k if a ranks
    above b by the k-th key, -k if below (1: more urchins home, 2: more shillings, 3: more
    goods, 4: later in the round's turn order; never 0 for two seats).  The one statement of
    the ranking, read by the winner's choice and by final_ranking."""
    if s.home[a] != s.home[b]:
        return 1 if s.home[a] > s.home[b] else -1
    if s.shillings[a] != s.shillings[b]:
        return 2 if s.shillings[a] > s.shillings[b] else -2
    if cubes_of(s, a) != cubes_of(s, b):
        return 3 if cubes_of(s, a) > cubes_of(s, b) else -3
    return 4 if (a - s.first + s.players) % s.players > (b - s.first + s.players) % s.players else -4

cdef inline int rank_better(const FGState* s, int a, int b) noexcept nogil:
    return rank_key(s, a, b) > 0

cdef int best_seat(const FGState* s) noexcept nogil:
    cdef int p, best = 0
    for p in range(1, s.players):
        if rank_better(s, p, best):
            best = p
    return best

# ------------------------------------------------------------ turn flow

cdef void start_market_seat(FGState* s) noexcept nogil:
    """FG-17: from the caller clockwise, each seat trades; seats with no trade to make
    are passed over; after the last, the wheel turns (chance)."""
    while s.mvisited < s.players:
        s.mbuying = 0
        s.msold = 0
        s.mbought = 0
        s.mlast = 0
        if market_options(s, s.mseat):
            s.phase = PH_MARKET
            return
        s.mvisited += 1
        s.mseat = (s.mseat + 1) % s.players
    s.phase = PH_WHEEL

cdef void end_turn(FGState* s) noexcept nogil:
    s.action = AK_NONE
    s.ops = 0
    s.used = 0
    s.white_left = 0
    s.white_min = 0
    s.swap_paid = 0
    s.swap_min = 0
    s.turns_done += 1
    if s.turns_done >= s.players:
        s.phase = PH_PATROL                       # FG-20: Phase 2
    else:
        s.active = (s.active + 1) % s.players
        s.phase = PH_CHOOSE

cdef void after_op(FGState* s) noexcept nogil:
    """FG-2: at most three steps; the action ends by itself when no step is left."""
    if s.ops >= 3 or not any_op(s, s.active, s.action):
        end_turn(s)
    else:
        s.phase = PH_OPS

cdef void end_round(FGState* s) noexcept nogil:
    cdef int p, won = 0
    s.round += 1
    for p in range(s.players):
        if s.home[p] >= HOME_TO_WIN:
            won = 1
    if won or s.round >= MAX_ROUNDS:               # FG-23, FG-25
        s.winner = best_seat(s)
        s.phase = PH_OVER
        return
    s.first = (s.first + 1) % s.players           # FG-21
    s.active = s.first
    s.turns_done = 0
    s.phase = PH_CHOOSE

cdef void white_or_next(FGState* s) noexcept nogil:
    if s.white_left > 0 and stock_total(s) > 0:
        s.phase = PH_WHITE
    else:
        s.white_left = 0                           # FG-3: stocks ran out
        after_op(s)

# ---------------------------------------------------------------- the ABI

cdef int fg_num_players(const void* st) noexcept nogil:
    return (<const FGState*>st).players

cdef int fg_current_player(const void* st) noexcept nogil:
    cdef const FGState* s = <const FGState*>st
    if s.phase == PH_SETUP_CONSTABLE or s.phase == PH_SETUP_WHEEL or s.phase == PH_WHEEL \
            or s.phase == PH_PATROL:
        return PLAYER_CHANCE
    if s.phase == PH_OVER:
        return PLAYER_TERMINAL
    if s.phase == PH_MARKET:
        return s.mseat
    return s.active

cdef int fg_legal_actions(const void* st, int* out) noexcept nogil:
    cdef const FGState* s = <const FGState*>st
    cdef int n = 0, p, L, j, sp, c, any_high
    if fg_current_player(st) == PLAYER_CHANCE:
        for c in range(6):
            out[c] = A_DIE + c
        return 6
    if s.phase == PH_OVER:
        return 0
    p = fg_current_player(st)
    if s.phase == PH_CHOOSE:
        for c in range(AK_MOVE, AK_MARKET):
            if any_op(s, p, c):
                out[n] = A_CHOOSE + c - 1
                n += 1
        out[n] = A_CHOOSE + 3                      # FG-17: the market is always open
        return n + 1
    if s.phase == PH_OPS:
        if s.ops > 0:
            out[n] = A_DONE
            n += 1
        if s.action == AK_MOVE:
            n += legal_moves(s, p, out + n, 0)
        elif s.action == AK_STEAL:
            for L in range(NL):
                for sp in range(N_SPACES):
                    if steal_legal(s, p, L, sp):
                        out[n] = A_STEAL + L * N_SPACES + sp
                        n += 1
            if cubes_of(s, p) >= 3 and goods_step_room(s, p):
                for c in range(NC):
                    if pay_legal(s, p, c):
                        out[n] = A_PAY + c
                        n += 1
        elif s.action == AK_SHILL:
            for L in range(NL):
                for sp in range(N_SPACES):
                    if shill_legal(s, p, L, sp):
                        out[n] = A_SHILL + L * N_SPACES + sp
                        n += 1
        return n
    if s.phase == PH_WHITE:
        any_high = 0
        for c in range(s.white_min, NC):
            if s.warehouse[c] > 0:
                any_high = 1
        for c in range(NC):
            if s.warehouse[c] > 0 and (c >= s.white_min or not any_high):
                out[n] = A_WHITE + c
                n += 1
        return n
    if s.phase == PH_SWAP_PAY:
        for c in range(NC):
            if pay_legal(s, p, c):
                out[n] = A_PAY + c
                n += 1
        return n
    if s.phase == PH_SWAP_PICK:
        for c in range(NC):
            if s.warehouse[c] > 0:
                out[n] = A_PICK + c
                n += 1
        return n
    if s.phase == PH_MARKET:
        out[n] = A_DONE
        n += 1
        if not s.mbuying and s.msold < SELL_LIMIT:
            for c in range(s.mlast, NC):
                if s.hand[p][c] > 0:
                    out[n] = A_SELL + c
                    n += 1
        if s.mbought < BUY_LIMIT:
            for c in range(s.mlast if s.mbuying else 0, NC):
                if s.stall[c] > 0 and s.shillings[p] >= price(s, c) + BUY_MARGIN:
                    out[n] = A_BUY + c
                    n += 1
        return n
    return 0

cdef void do_move(FGState* s, int p, int L, int j) noexcept nogil:
    cdef int t = move_target(s, p, L, j), src = -1, q
    cdef int cost[NC]
    if j == 0:
        s.den[p] -= 1
    else:
        src = (j - 1) >> 3
        if src == 0:
            s.street[L][p] -= 1
        else:
            s.board[L][src] = 0
    if t == N_SPACES:
        s.shillings[p] -= RET_SH
        pay(s, p, RET_COST[L])
        s.home[p] += 1
        return
    if t == -2:
        s.den[p] += 1
        return
    if j == 0:
        pay(s, p, COST[L][t])                      # FG-10
    elif t > src:
        climb_cost(s, L, src, t, cost)             # FG-12: climbing costs the goods shown
        pay(s, p, cost)
    if t == 0:
        s.street[L][p] += 1                        # FG-8: no knock-outs on the street
        return
    q = s.board[L][t] - 1
    if q >= 0:
        # FG-14: knocked out, it falls to the street (into the constable's hands, and back
        # to Fagin's den, if the constable stands there).
        if s.cpos[L] == 0:
            s.den[q] += 1
        else:
            s.street[L][q] += 1
    s.board[L][t] = p + 1

cdef void patrol(FGState* s, int L) noexcept nogil:
    """FG-20: the constable walks PATROL_STEPS spaces along its arrow, turning at the
    ends of the track; every urchin on a space it enters is caught."""
    cdef int k, nxt, q
    for k in range(PATROL_STEPS):
        nxt = s.cpos[L] + s.cdir[L]
        if nxt < 0 or nxt > TOP:
            s.cdir[L] = -s.cdir[L]
            nxt = s.cpos[L] + s.cdir[L]
        s.cpos[L] = nxt
        if nxt == 0:
            for q in range(s.players):             # the street: every urchin there
                s.den[q] += s.street[L][q]
                s.street[L][q] = 0
            continue
        q = s.board[L][nxt] - 1
        if q >= 0:
            s.board[L][nxt] = 0
            s.den[q] += 1

cdef void fg_apply_action(void* st, int action) noexcept nogil:
    cdef FGState* s = <FGState*>st
    cdef int p, L, sp, c, n, d
    if s.phase == PH_SETUP_CONSTABLE:
        d = action - A_DIE + 1
        L = s.setup_step
        # FG-19: odd: from the up-arrow space (the street) d spaces up; even: from the
        # down-arrow space (the top) d spaces down.
        if d % 2 == 1:
            s.cpos[L] = d
            s.cdir[L] = 1
        else:
            s.cpos[L] = TOP - d
            s.cdir[L] = -1
        s.setup_step += 1
        if s.setup_step >= NL:
            s.phase = PH_SETUP_WHEEL
        return
    if s.phase == PH_SETUP_WHEEL or s.phase == PH_WHEEL:
        d = action - A_DIE + 1
        s.wheel = (s.wheel + d) % NC               # FG-16
        if s.phase == PH_SETUP_WHEEL:
            s.phase = PH_CHOOSE
        else:
            end_turn(s)
        return
    if s.phase == PH_PATROL:
        patrol(s, action - A_DIE)
        end_round(s)
        return
    p = fg_current_player(st)
    if s.phase == PH_CHOOSE:
        s.action = action - A_CHOOSE + 1
        s.ops = 0
        s.used = 0
        if s.action == AK_MARKET:
            s.caller = p
            s.mseat = p
            s.mvisited = 0
            start_market_seat(s)
        else:
            s.phase = PH_OPS
        return
    if s.phase == PH_OPS:
        if action == A_DONE:
            end_turn(s)
        elif action < A_STEAL:
            L = (action - A_MOVE) // MOVE_PER_LOC
            do_move(s, p, L, (action - A_MOVE) % MOVE_PER_LOC)
            s.used |= 1 << L
            s.ops += 1
            after_op(s)
        elif action < A_SHILL:
            L = (action - A_STEAL) // N_SPACES
            sp = (action - A_STEAL) % N_SPACES
            for c in range(NC):
                n = GOODS[L][sp][c]
                if n > s.warehouse[c]:
                    n = s.warehouse[c]              # FG-3: as much as the stock holds
                s.warehouse[c] -= n
                s.hand[p][c] += n
            s.used |= 1 << L
            s.ops += 1
            s.white_left = WHITE[L][sp]
            s.white_min = 0
            white_or_next(s)
        elif action < A_WHITE:
            L = (action - A_SHILL) // N_SPACES
            sp = (action - A_SHILL) % N_SPACES
            gain_sh(s, p, SHILL[L][sp])
            s.used |= 1 << L
            s.ops += 1
            after_op(s)
        else:
            # The first cube of an exchange.
            s.swap_paid = 0
            s.swap_min = 0
            s.phase = PH_SWAP_PAY
            fg_apply_action(st, action)
        return
    if s.phase == PH_WHITE:
        c = action - A_WHITE
        s.warehouse[c] -= 1
        s.hand[p][c] += 1
        s.white_min = c
        s.white_left -= 1
        white_or_next(s)
        return
    if s.phase == PH_SWAP_PAY:
        c = action - A_PAY
        s.hand[p][c] -= 1
        s.warehouse[c] += 1
        s.swap_paid += 1
        s.swap_min = c
        if s.swap_paid >= 3:
            s.phase = PH_SWAP_PICK
        return
    if s.phase == PH_SWAP_PICK:
        c = action - A_PICK
        s.warehouse[c] -= 1
        s.hand[p][c] += 1
        s.swap_paid = 0
        s.swap_min = 0
        s.ops += 1
        after_op(s)
        return
    if s.phase == PH_MARKET:
        if action == A_DONE:
            pass
        elif action < A_BUY:
            c = action - A_SELL
            s.hand[p][c] -= 1
            s.stall[c] += 1
            gain_sh(s, p, price(s, c) + (COIN_BONUS if p == s.caller else 0))
            s.msold += 1
            s.mlast = c
        else:
            c = action - A_BUY
            if not s.mbuying:
                s.mbuying = 1
            s.stall[c] -= 1
            s.hand[p][c] += 1
            s.shillings[p] -= price(s, c) + BUY_MARGIN
            s.mbought += 1
            s.mlast = c
        if action != A_DONE and market_options(s, p):
            return
        s.mvisited += 1
        s.mseat = (s.mseat + 1) % s.players
        start_market_seat(s)
        return

cdef int fg_chance_outcomes(const void* st, int* actions, double* probs) noexcept nogil:
    cdef int i
    for i in range(6):
        actions[i] = A_DIE + i
        probs[i] = 1.0 / 6.0
    return 6

cdef int fg_sample_chance(const void* st, Rng* rng) noexcept nogil:
    return A_DIE + <int>rng_below(rng, 6)

cdef void fg_returns(const void* st, double* out) noexcept nogil:
    cdef const FGState* s = <const FGState*>st
    cdef int p
    for p in range(s.players):
        out[p] = 1.0 if p == s.winner else 0.0

cdef void fg_determinize(void* st, int observer, Rng* rng) noexcept nogil:
    # FG-27: nothing is hidden; the die is chance, not hidden information.
    pass

cdef void canonical(FGState* t) noexcept nogil:
    """Clears the bookkeeping fields that mean nothing in the state's phase (the ones
    ``describe`` leaves out), so that equal positions hash alike whatever led to them."""
    if t.phase != PH_MARKET:
        t.mseat = 0
        t.mbuying = 0
        t.msold = 0
        t.mbought = 0
        t.mlast = 0
    if t.action != AK_MARKET:
        t.caller = 0
        t.mvisited = 0
    if t.phase != PH_WHITE:
        t.white_min = 0
    if t.phase != PH_SWAP_PAY:
        t.swap_min = 0
    if t.phase != PH_SETUP_CONSTABLE:
        t.setup_step = 0
    if t.phase != PH_OVER:
        t.winner = -1

cdef uint64_t position_hash(const FGState* s) noexcept nogil:
    cdef FGState c
    memcpy(&c, s, sizeof(FGState))
    canonical(&c)
    cdef const int16_t* w = <const int16_t*>&c
    cdef int i, n = sizeof(FGState) // sizeof(int16_t)
    cdef uint64_t h = 0x464147494E
    for i in range(n):
        h = mix64(h, <uint64_t><uint32_t>(<int>w[i] + 65536))
    return h

cdef uint64_t fg_infoset_key(const void* st, int player) noexcept nogil:
    # FG-27: every seat sees the whole position.
    return mix64(position_hash(<const FGState*>st), <uint64_t>(player + 1))

cdef int fg_make_current(void* st, int seat) noexcept nogil:
    return 1 if fg_current_player(st) == seat else 0

include "rollout.pxi"

cdef void fg_scores(const void* st, double* out) noexcept nogil:
    # FG-29: the analysis score is a seat's urchins home, the first key of FG-24's ranking.
    cdef const FGState* s = <const FGState*>st
    cdef int p
    for p in range(s.players):
        out[p] = s.home[p]

# ------------------------------------------------ features for a learned evaluation
# Not rules: what a learned estimate of a seat's chance to win reads (python -m fagin.train,
# seeds/fagins_gang.md, "The bot and the search").  Defined once, here, and read both by the
# trainer (features()) and by the search's learned evaluation.  Nothing is hidden (FG-27), but
# in the style of the rooms that hide things each reads only the open table: urchins home, on
# the board and how far they climbed, goods and shillings held, the hand-written worth
# (rollout.pxi), the game's progress and whose turn it is.
cdef enum:
    FG_SEAT_FEATURES = 10       # per seat, each taken relative to the best other seat
    FG_FEATURES = 14            # those; the seat to act, its turn still ahead; progress, lead by progress

FEATURE_NAMES = ("home", "way_done", "on_board", "height", "at_top", "at_risk", "shillings", "cubes",
                 "useful_cubes", "worth", "to_act", "turn_ahead", "way_left", "worth_by_way_left")
# The feature that measures the game's progress: the share of the way home the seat nearest to
# winning still has to go (1 at the start, 0 with three urchins home); python -m fagin.train's
# mid-game figures take a third to two thirds.
PROGRESS_FEATURE = "way_left"

cdef int seat_way(const FGState* s, int p) noexcept nogil:
    """Steps seat p's HOME_TO_WIN most advanced urchins have made on the way home: an urchin home
    N_SPACES + 1, one on space sp sp + 1 (the street 1, the top N_SPACES), one in the den none."""
    cdef int steps[8]               # at most 5 urchins (checked when the board loads)
    cdef int n = 0, L, sp, i, j, k, t, total = 0
    for i in range(s.home[p]):
        if n < 8:
            steps[n] = N_SPACES + 1
            n += 1
    for L in range(NL):
        for k in range(s.street[L][p]):
            if n < 8:
                steps[n] = 1
                n += 1
        for sp in range(1, N_SPACES):
            if s.board[L][sp] == p + 1 and n < 8:
                steps[n] = sp + 1
                n += 1
    for i in range(n):              # the largest HOME_TO_WIN, by a partial selection sort
        if i >= HOME_TO_WIN:
            break
        k = i
        for j in range(i + 1, n):
            if steps[j] > steps[k]:
                k = j
        t = steps[i]
        steps[i] = steps[k]
        steps[k] = t
        total += steps[i]
    return total

cdef void fg_features(const void* st, double* out) noexcept nogil:
    """The features of every seat, seat p's FG_FEATURES values at out[p * FG_FEATURES:]: each
    seat feature minus the largest other seat's value, then 1 for the seat to act, 1 while its
    turn of the round is still ahead (or under way), the share of the way home left to the
    seat nearest to winning, and the worth lead times that share."""
    cdef const FGState* s = <const FGState*>st
    cdef double raw[FG_MAX_PLAYERS * FG_SEAT_FEATURES]
    cdef double worth[FG_MAX_PLAYERS]
    cdef int need[FG_MAX_PLAYERS][NC]
    cdef int p, L, sp, c, q, board, height, top, risk, cubes, useful, way, best_way = 0
    cdef int actor = fg_current_player(s)
    cdef double full = HOME_TO_WIN * (N_SPACES + 1), left
    cdef double* r
    cdef double* f
    hx_worths(s, worth)
    hx_needs(s, &need[0][0])
    for p in range(s.players):
        board = height = top = risk = 0
        for L in range(NL):
            if s.street[L][p] > 0:
                board += s.street[L][p]
                if patrol_hits(s, L, 0):
                    risk += s.street[L][p]
            for sp in range(1, N_SPACES):
                if s.board[L][sp] == p + 1:
                    board += 1
                    height += sp
                    top += sp == TOP
                    risk += patrol_hits(s, L, sp)
        cubes = useful = 0
        for c in range(NC):
            cubes += s.hand[p][c]
            useful += s.hand[p][c] if s.hand[p][c] < need[p][c] else need[p][c]
        way = seat_way(s, p)
        if way > best_way:
            best_way = way
        r = &raw[p * FG_SEAT_FEATURES]
        r[0] = s.home[p]
        r[1] = way
        r[2] = board
        r[3] = height
        r[4] = top
        r[5] = risk
        r[6] = s.shillings[p]
        r[7] = cubes
        r[8] = useful
        r[9] = worth[p]
    learned_relative(raw, s.players, FG_SEAT_FEATURES, out, FG_FEATURES)
    left = (full - best_way) / full if full > 0 else 0.0
    if left < 0.0:
        left = 0.0
    for p in range(s.players):
        f = &out[p * FG_FEATURES]
        q = (p - s.first + s.players) % s.players       # p's place in the round's turn order
        f[FG_SEAT_FEATURES] = 1.0 if actor == p else 0.0
        f[FG_SEAT_FEATURES + 1] = 1.0 if s.phase != PH_OVER and q >= s.turns_done else 0.0
        f[FG_SEAT_FEATURES + 2] = left
        f[FG_SEAT_FEATURES + 3] = f[9] * left

# The learned evaluation (GameDef.evaluate_learned): a logistic regression on the features
# above, one per player count, and the expected final margin (GameDef.margins_learned): a linear
# one on the same features, both fitted by python -m fagin.train and shipped as data
# (data/learned.json); loaded once at import into the shared kit's model (engines/learned.pxd).

# ---------------------------- the data and the constants the Python side reads

BOARD_FILE = data_path(__file__, "board.json")
PHASES = ("setup_constable", "setup_wheel", "choose", "steps", "white_hand", "exchange_pay",
          "exchange_take", "market", "wheel", "patrol", "over")
ACTIONS = ("none", "move", "steal_goods", "steal_shillings", "market")
COLOURS = []
GOODS_NAMES = []
LOCATIONS = []
BOARD = {}
# The rulebook's player range.  The engine does not import its room (the room's
# GameSpec states the same range; the catalogue test holds the two together).
MIN_PLAYERS = 2
MAX_PLAYERS = FG_MAX_PLAYERS
ACTION_DONE = A_DONE
ACTION_CHOOSE = A_CHOOSE
ACTION_MOVE = A_MOVE
ACTION_STEAL_GOODS = A_STEAL
ACTION_STEAL_SHILLINGS = A_SHILL
ACTION_WHITE_HAND = A_WHITE
ACTION_EXCHANGE_PAY = A_PAY
ACTION_EXCHANGE_TAKE = A_PICK
ACTION_SELL = A_SELL
ACTION_BUY = A_BUY
ACTION_DIE = A_DIE
MOVES_PER_LOCATION = MOVE_PER_LOC
TOP_SPACE = TOP
TRACK_SPACES = N_SPACES
COLOUR_COUNT = NC
LOCATION_COUNT = NL
ACTION_KIND_NONE = AK_NONE
# FG-19: the (space, facing) each set-up die gives a constable: 1..6 in order.
SETUP_PLACES = ((1, 1), (4, -1), (3, 1), (2, -1), (5, 1), (0, -1))
ROUNDS_CAP = 40


def _load(path=BOARD_FILE):
    """Reads the board and checks it against the rulings (FG-6 to FG-16)."""
    global STALL_START, START_SH, URCHINS, HOME_TO_WIN, RET_SH, COIN_BONUS, BUY_MARGIN
    global START_GOODS, SELL_LIMIT, BUY_LIMIT, PATROL_STEPS, MAX_ROUNDS
    d = read_json(path)

    def need(ok, what):
        if not ok:
            raise ValueError(f"{path}: {what}")

    need(len(d["colours"]) == NC and len(d["goods"]) == NC, f"{NC} colours")
    need(len(d["locations"]) == NL, f"{NL} locations, one per constable (FG-7)")
    need(sorted(loc["colour"] for loc in d["locations"]) == sorted(d["colours"]),
         "one location per colour (FG-7)")
    for n in range(2, FG_MAX_PLAYERS + 1):
        v = d["stock_per_colour"][str(n)]
        need(0 < v <= 100, f"stock_per_colour[{n}]")
        STOCK[n] = v
    need(len(d["price_ring"]) == NC and all(1 <= x <= 20 for x in d["price_ring"]), "price_ring")
    for c in range(NC):
        RING[c] = d["price_ring"][c]
    STALL_START = d["stall_start"]
    need(0 <= STALL_START <= min(STOCK[n] for n in range(2, FG_MAX_PLAYERS + 1)), "stall_start")
    START_SH = d["start_shillings"]
    START_GOODS = d["start_goods_each_colour"]
    need(0 <= START_GOODS and STALL_START + FG_MAX_PLAYERS * START_GOODS <= min(STOCK[n] for n in range(2, FG_MAX_PLAYERS + 1)),
         "start_goods_each_colour: the stocks must cover the stalls and every seat")
    URCHINS = d["urchins"]
    HOME_TO_WIN = d["urchins_home_to_win"]
    need(1 <= HOME_TO_WIN <= URCHINS <= 5, "urchins")
    RET_SH = d["return_shillings"]
    COIN_BONUS = d["market_coin_bonus"]
    BUY_MARGIN = d["buy_margin"]
    SELL_LIMIT = d["market_sell_limit"]
    BUY_LIMIT = d["market_buy_limit"]
    need(0 <= SELL_LIMIT <= 6 and 0 <= BUY_LIMIT <= 3, "market limits (the bound max_game_length uses)")
    PATROL_STEPS = d["patrol_steps"]
    need(1 <= PATROL_STEPS <= 6, "patrol_steps")
    MAX_ROUNDS = d["max_rounds"]
    need(1 <= MAX_ROUNDS <= ROUNDS_CAP, f"max_rounds: 1 to {ROUNDS_CAP}")
    for L, loc in enumerate(d["locations"]):
        need(d["colours"].index(loc["colour"]) == L, "locations listed in colour order")
        need(len(loc["spaces"]) == N_SPACES, f"locations[{L}]: {N_SPACES} spaces, the street and levels 0-5 (FG-8)")
        for sp, space in enumerate(loc["spaces"]):
            need(space["level"] == ("street" if sp == 0 else sp - 1), f"locations[{L}].spaces[{sp}].level")
            need(len(space["goods"]) == NC and len(space["cost"]) == NC, f"locations[{L}].spaces[{sp}]")
            need(sum(space["goods"]) + space["white"] <= 4, f"locations[{L}].spaces[{sp}]: at most 4 goods")
            need(sum(space["cost"]) <= 6 and min(space["cost"] + space["goods"]) >= 0, f"locations[{L}].spaces[{sp}]")
            for c in range(NC):
                GOODS[L][sp][c] = space["goods"][c]
                COST[L][sp][c] = space["cost"][c]
            WHITE[L][sp] = space["white"]
            SHILL[L][sp] = space["shillings"]
            need(0 <= SHILL[L][sp] <= 20, f"locations[{L}].spaces[{sp}].shillings")
        # FG-5: the street offers no goods but a lot of shillings: more than any level pays.
        need(sum(loc["spaces"][0]["goods"]) + loc["spaces"][0]["white"] == 0, f"locations[{L}]: street goods")
        need(loc["spaces"][0]["shillings"] > max(s["shillings"] for s in loc["spaces"][1:]),
             f"locations[{L}]: the street pays more shillings than any level (FG-5)")
        for c in range(NC):
            RET_COST[L][c] = loc["return_cost"][c]
    COLOURS[:] = d["colours"]
    GOODS_NAMES[:] = d["goods"]
    LOCATIONS[:] = [loc["name"] for loc in d["locations"]]
    BOARD.clear()
    BOARD.update(d)
    hx_init_tables()


_load()

# The room's table (engines/abi.pxd), filled by the room kit's helpers (engines/room.pxd)
# here and below, and exported as GAME_DEF.
cdef GameDef FG_DEF
# FG-26: a bound on the actions of any game: setup, then per round each seat's turn
# (choose, three steps of at most 1 + 4 each, done) or a market visit (each seat at
# most 6 sales, 3 purchases and done, then the wheel), and the patrol.
game_def(&FG_DEF, b"fagins_gang", sizeof(FGState), FG_MAX_PLAYERS, NUM_ACTIONS, MAX_LEGAL, MAX_DECISION,
         8 + ROUNDS_CAP * (FG_MAX_PLAYERS * (2 + FG_MAX_PLAYERS * 10 + 1) + 1), fg_num_players, fg_current_player,
         fg_legal_actions, fg_apply_action, fg_chance_outcomes, fg_sample_chance, fg_returns, fg_determinize,
         fg_infoset_key, fg_make_current)

# LEARNED: the model document loaded (data/learned.json), or None.
_load_learned = learned_room(&FG_DEF, globals(), data_path(__file__, "learned.json"), FEATURE_NAMES, "Fagin's Gang")

cdef int fg_heuristic_action(const void* st, Rng* rng) noexcept nogil:
    return heuristic_choice(<const FGState*>st, rng, 0)

game_def_knowledge(&FG_DEF, fg_rollout_action, fg_heuristic_action, fg_evaluate, EVAL_DEPTH, fg_scores, fg_features,
                   FG_FEATURES)
GAME_DEF = export_game_def(&FG_DEF)

include "state.pxi"


# The heuristic, the evaluations and the features on state bytes (fagin.engines.core.room_functions).
heuristic_action, evaluation, features, learned_evaluation = _room_functions(GAME_DEF)


def final_ranking(data):
    """The game's end as FG-24 ranks it (``rank_key``, the winner's own comparison): per seat
    its ``home`` (urchins home), ``shillings``, ``goods`` (cubes) and ``turn_position`` (its
    place in the round's turn order, 0 for the round's first seat); ``winner``; and ``key``,
    the key (1 to 4, as ``rank_key`` numbers them) by which the winner ranks above the
    runner-up (``runner_up``, the best of the others), None for a 1-seat game; ``round``, the
    rounds played, beside ``max_rounds`` (FG-25) and ``home_to_win`` (FG-23), which tell how
    the game ended."""
    cdef FGState s = _read(data)
    cdef int p, runner = -1, key
    seats = [{"home": s.home[p], "shillings": s.shillings[p], "goods": cubes_of(&s, p),
              "turn_position": (p - s.first + s.players) % s.players} for p in range(s.players)]
    winner = s.winner if s.winner >= 0 else best_seat(&s)
    for p in range(s.players):
        if p != winner and (runner < 0 or rank_better(&s, p, runner)):
            runner = p
    key = rank_key(&s, winner, runner) if runner >= 0 else 0
    return {"seats": seats, "winner": winner, "key": key if key > 0 else None,
            "runner_up": runner if runner >= 0 else None,
            "round": s.round, "max_rounds": MAX_ROUNDS, "home_to_win": HOME_TO_WIN}
