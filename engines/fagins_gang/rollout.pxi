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

cdef void hx_needs(const FGState* s, int* need) noexcept nogil:
    """The cubes of each colour every seat's next steps cost, seat p's at need[p * NC:]: each
    urchin's next climb (from the top, its return), and an entry while urchins wait in the den."""
    cdef int p, L, sp, c, q
    memset(need, 0, sizeof(int) * FG_MAX_PLAYERS * NC)
    for L in range(NL):
        for sp in range(NS):
            if sp == 0:
                for c in range(s.players):
                    if s.street[L][c] > 0:
                        need[c * NC + L] += COST[L][1][L] * s.street[L][c]
                continue
            q = s.board[L][sp] - 1
            if q < 0:
                continue
            for c in range(NC):
                need[q * NC + c] += RET_COST[L][c] if sp == TOP else COST[L][sp + 1][c]
    for p in range(s.players):
        if s.den[p] > 0 and s.home[p] < HOME_TO_WIN:
            for c in range(NC):
                need[p * NC + c] += COST[c][0][c] > 0     # an entry somewhere: one cube of a location's colour

cdef void hx_worths(const FGState* s, double* out) noexcept nogil:
    """Every seat's own worth (before rivals are taken off)."""
    cdef int p, L, sp, c, q, useful, target, sh, first, spare
    cdef int need[FG_MAX_PLAYERS][NC]
    cdef double w
    cdef uint32_t patrolled
    hx_needs(s, &need[0][0])
    for p in range(s.players):
        out[p] = HX_HOME * s.home[p]
    for L in range(NL):
        patrolled = patrol_spaces(s, L)         # once a location, not once a space
        for sp in range(NS):
            if sp == 0:
                for c in range(s.players):
                    if s.street[L][c] > 0:
                        w = urchin_worth(0) * (5.0 / 6.0 if patrolled & 1 else 1.0)
                        out[c] += w * s.street[L][c]
                continue
            q = s.board[L][sp] - 1
            if q < 0:
                continue
            w = urchin_worth(sp)
            if (patrolled >> sp) & 1:
                w -= w / 6.0
            out[q] += w
    for p in range(s.players):
        target = RET_SH * (HOME_TO_WIN - s.home[p])
        if target < 0:
            target = 0
        # Shillings: the next return's at double worth, the later returns' at 1, the rest little.
        sh = s.shillings[p]
        first = RET_SH if target > 0 else 0
        out[p] += 2.0 * (sh if sh < first else first)
        if sh > first:
            out[p] += (sh - first if sh < target else target - first) + (HX_SPARE_SH * (sh - target) if sh > target else 0.0)
        spare = 0
        for c in range(NC):
            useful = s.hand[p][c] if s.hand[p][c] < need[p][c] else need[p][c]
            out[p] += HX_NEEDED * useful
            spare += s.hand[p][c] - useful
        # Spare cubes: a few are worth keeping for later steps, a hoard is not.
        out[p] += HX_SPARE * (spare if spare < HX_SPARE_KEEP else HX_SPARE_KEEP) + \
            HX_HOARD * (spare - HX_SPARE_KEEP if spare > HX_SPARE_KEEP else 0)

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

cdef inline int hx_in_turn(const FGState* s, int p) noexcept nogil:
    return fg_current_player(s) == p and s.phase != PH_CHOOSE

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

cdef int hx_choose(const FGState* s, Rng* rng, int explore) noexcept nogil:
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
    return hx_choose(<const FGState*>st, rng, 1)

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
