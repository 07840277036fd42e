# Fagin's Gang's rule-based player, without the GIL: the heuristic bot (heuristic.py is
# its Python face), the search's rollout policy (GameDef.rollout_action) and its
# evaluation of cut-off rollouts (GameDef.evaluate).  Included by engine.pyx just
# before the GameDef table.  Not a rule.
#
# The play: a position is worth, to a seat, its urchins home (HX_HOME each), its
# urchins on the board (more the higher they stand, less if a constable may walk
# onto them at the next patrol), its shillings (up to what the remaining returns
# cost, less beyond) and its goods (more for the colours its urchins' next steps
# cost), less half the best rival's worth.  At the choice of action it plays each
# action's steps greedily on a copy and takes the action whose end is worth most;
# within an action each step is the one worth most once its white hands or its
# exchange are finished greedily; "done" when no step adds worth.

cdef double HX_HOME = 250.0
cdef double HX_NEEDED = 3.5         # a cube of a colour the next steps cost
cdef double HX_SPARE = 1.5          # any other cube, up to HX_SPARE_KEEP of them
cdef int HX_SPARE_KEEP = 6
cdef double HX_HOARD = 0.5          # spare cubes beyond those
cdef double HX_SPARE_SH = 0.1       # a shilling beyond what the returns still cost
cdef double HX_RIVAL = 0.5
cdef double HX_TEMP = 25.0          # evaluate: worth difference of about e to one

cdef enum:
    RO_UNIFORM = 12                 # rollouts: one decision in twelve is uniform
    EVAL_DEPTH = 24                 # rollout actions before the evaluation stands in

cdef inline double urchin_worth(int sp) noexcept nogil:
    return 10.0 + 8.0 * sp + 2.0 * sp * sp

cdef uint32_t patrol_spaces(const FGState* s, int L) noexcept nogil:
    """The spaces (a bit each) the constable of L would enter at a patrol of location L."""
    cdef int k, pos = s.cpos[L], d = s.cdir[L], nxt
    cdef uint32_t spaces = 0
    for k in range(PATROL_STEPS):
        nxt = pos + d
        if nxt < 0 or nxt > TOP:
            d = -d
            nxt = pos + d
        pos = nxt
        spaces |= <uint32_t>1 << pos
    return spaces

cdef inline int patrol_hits(const FGState* s, int L, int sp) noexcept nogil:
    """1 if the constable of L would enter space sp at a patrol of location L."""
    return (patrol_spaces(s, L) >> sp) & 1

# Tables filled from the board data by hx_init_tables (at load, after the data).  A seat's
# needs are packed into one integer, NEED_BITS bits a colour, so that an urchin adds its
# next step's cost in one addition: no lane can carry into the next (five urchins at
# most, a step costing at most 6 cubes of a colour, one more for an entry).
cdef enum:
    NEED_BITS = 8
cdef uint64_t HX_NEXT_NEED[NL][N_SPACES]  # an urchin on level space sp: its next climb's cost (its return's, from the top)
cdef uint64_t HX_STREET_NEED[NL]    # an urchin on L's street: the entry to level 0, in L's colour
cdef uint64_t HX_ENTRY_NEED         # urchins waiting in the den: a cube of each colour an entry costs
cdef double HX_URCHIN[N_SPACES]           # an urchin's worth on space sp ...
cdef double HX_URCHIN_PATROLLED[N_SPACES] # ... and where the next patrol of its location enters that space

cdef uint64_t pack_cubes(const int* cubes) noexcept:
    cdef uint64_t packed = 0
    cdef int c
    for c in range(NC):
        packed |= <uint64_t>cubes[c] << (NEED_BITS * c)
    return packed

cdef void hx_init_tables() noexcept:
    global HX_ENTRY_NEED
    cdef int L, sp, c
    cdef int entry[NC]
    cdef double w
    for L in range(NL):
        for sp in range(1, N_SPACES):
            if sp == TOP:
                HX_NEXT_NEED[L][sp] = pack_cubes(RET_COST[L])
            else:
                HX_NEXT_NEED[L][sp] = pack_cubes(COST[L][sp + 1])
        HX_STREET_NEED[L] = <uint64_t>COST[L][1][L] << (NEED_BITS * L)
    for c in range(NC):
        entry[c] = COST[c][0][c] > 0
    HX_ENTRY_NEED = pack_cubes(entry)
    for sp in range(N_SPACES):
        w = urchin_worth(sp)
        HX_URCHIN[sp] = w
        # a sixth off where a constable may walk onto it (the street's and the levels' roundings kept)
        HX_URCHIN_PATROLLED[sp] = w * (5.0 / 6.0) if sp == 0 else w - w / 6.0

cdef inline int unpack_cubes(uint64_t packed, int c) noexcept nogil:
    return (packed >> (NEED_BITS * c)) & ((1 << NEED_BITS) - 1)

cdef void hx_packed_needs(const FGState* s, uint64_t* need) noexcept nogil:
    """The cubes of each colour every seat's next steps cost, packed (unpack_cubes): each
    urchin's next climb (from the top, its return), and an entry while urchins wait in the den."""
    cdef int p, L, sp, q, n
    for p in range(s.players):
        need[p] = HX_ENTRY_NEED if s.den[p] > 0 and s.home[p] < HOME_TO_WIN else 0
    for L in range(NL):
        for p in range(s.players):
            n = s.street[L][p]
            if n > 0:
                need[p] += HX_STREET_NEED[L] * <uint64_t>n
        for sp in range(1, N_SPACES):
            q = s.board[L][sp] - 1
            if q >= 0:
                need[q] += HX_NEXT_NEED[L][sp]

cdef void hx_needs(const FGState* s, int* need) noexcept nogil:
    """hx_packed_needs unpacked: seat p's cubes of colour c at need[p * NC + c]."""
    cdef uint64_t packed[FG_MAX_PLAYERS]
    cdef int p, c
    hx_packed_needs(s, packed)
    for p in range(s.players):
        for c in range(NC):
            need[p * NC + c] = unpack_cubes(packed[p], c)

cdef void hx_worths(const FGState* s, double* out) noexcept nogil:
    """Every seat's own worth (before rivals are taken off)."""
    cdef int p, L, sp, c, q, n, useful, target, sh, first, spare, players = s.players
    cdef uint64_t need[FG_MAX_PLAYERS]
    cdef double worth[FG_MAX_PLAYERS]       # summed here, not in out: no reload through the pointer
    cdef uint32_t patrolled
    hx_packed_needs(s, need)
    for p in range(players):
        worth[p] = HX_HOME * s.home[p]
    for L in range(NL):
        patrolled = patrol_spaces(s, L)         # once a location, not once a space
        for p in range(players):
            n = s.street[L][p]
            if n > 0:
                worth[p] += (HX_URCHIN_PATROLLED[0] if patrolled & 1 else HX_URCHIN[0]) * n
        for sp in range(1, N_SPACES):
            q = s.board[L][sp] - 1
            if q >= 0:
                worth[q] += HX_URCHIN_PATROLLED[sp] if (patrolled >> sp) & 1 else HX_URCHIN[sp]
    for p in range(players):
        target = RET_SH * (HOME_TO_WIN - s.home[p])
        if target < 0:
            target = 0
        # Shillings: the next return's at double worth, the later returns' at 1, the rest little.
        sh = s.shillings[p]
        first = RET_SH if target > 0 else 0
        worth[p] += 2.0 * (sh if sh < first else first)
        if sh > first:
            worth[p] += (sh - first if sh < target else target - first) + (HX_SPARE_SH * (sh - target) if sh > target else 0.0)
        spare = 0
        for c in range(NC):
            n = unpack_cubes(need[p], c)
            useful = s.hand[p][c] if s.hand[p][c] < n else n
            worth[p] += HX_NEEDED * useful
            spare += s.hand[p][c] - useful
        # Spare cubes: a few are worth keeping for later steps, a hoard is not.
        worth[p] += HX_SPARE * (spare if spare < HX_SPARE_KEEP else HX_SPARE_KEEP) + \
            HX_HOARD * (spare - HX_SPARE_KEEP if spare > HX_SPARE_KEEP else 0)
        out[p] = worth[p]

cdef double hx_value(const FGState* s, int p) noexcept nogil:
    cdef double w[FG_MAX_PLAYERS]
    cdef double best = -1e300
    cdef int q
    if s.phase == PH_OVER:
        return 1e6 if s.winner == p else -1e6
    hx_worths(s, w)
    for q in range(s.players):
        if q != p and w[q] > best:
            best = w[q]
    return w[p] - HX_RIVAL * best

cdef int hx_argmax(const FGState* s, int p, int finish, Rng* rng) noexcept nogil:
    """The legal action worth most to p after it (its white hands or exchange finished
    greedily if `finish` is 1, its whole action if 2); ties at random."""
    cdef int acts[MAX_LEGAL]
    cdef int n = fg_legal_actions(s, acts), i, best = acts[0], ties = 0, guard
    cdef double v, top = -1e300
    cdef FGState t
    for i in range(n):
        memcpy(&t, s, sizeof(FGState))
        fg_apply_action(&t, acts[i])
        guard = 0
        while guard < 40 and fg_current_player(&t) == p and (
                (finish >= 1 and (t.phase == PH_WHITE or t.phase == PH_SWAP_PAY or t.phase == PH_SWAP_PICK))
                or (finish >= 2 and (t.phase == PH_OPS or t.phase == PH_MARKET))):
            fg_apply_action(&t, hx_argmax(&t, p, 1 if t.phase == PH_OPS or t.phase == PH_MARKET else 0, rng))
            guard += 1
            if finish == 3 and (t.phase == PH_OPS or t.phase == PH_MARKET):
                break               # the first step (and its white hands or exchange) only
        v = hx_value(&t, p)
        if v > top + 1e-9:
            top = v
            best = acts[i]
            ties = 1
        elif v > top - 1e-9:
            ties += 1
            if rng_below(rng, ties) == 0:
                best = acts[i]
    return best

cdef int heuristic_choice(const FGState* s, Rng* rng, int explore) noexcept nogil:
    # explore (the rollout policy): one decision in RO_UNIFORM uniform, and the choice of
    # action judged by its best first step only (a quarter of the cost of playing each
    # action to its end, which the bot does).
    cdef int acts[MAX_LEGAL]
    cdef int p = fg_current_player(s), n
    if explore and rng_below(rng, RO_UNIFORM) == 0:
        n = fg_legal_actions(s, acts)
        return acts[rng_below(rng, n)]
    if s.phase == PH_CHOOSE:
        return hx_argmax(s, p, 3 if explore else 2, rng)
    if s.phase == PH_OPS or s.phase == PH_MARKET:
        return hx_argmax(s, p, 1, rng)
    return hx_argmax(s, p, 0, rng)

cdef int fg_rollout_action(const void* st, Rng* rng) noexcept nogil:
    return heuristic_choice(<const FGState*>st, rng, 1)

cdef void fg_evaluate(const void* st, double* out) noexcept nogil:
    # Each seat's chance of winning, estimated as a softmax of the worths above.
    cdef const FGState* s = <const FGState*>st
    cdef double w[FG_MAX_PLAYERS]
    cdef double top = -1e300, total = 0.0
    cdef int p
    if s.phase == PH_OVER:
        fg_returns(st, out)
        return
    hx_worths(s, w)
    for p in range(s.players):
        if w[p] > top:
            top = w[p]
    for p in range(s.players):
        out[p] = exp((w[p] - top) / HX_TEMP)
        total += out[p]
    for p in range(s.players):
        out[p] /= total
