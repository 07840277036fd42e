# The rule-based player, written once without the GIL: it is the heuristic bot
# (``heuristic_action``) and, with a uniform share, the search's rollout policy.
# It reads only what its seat sees (OT-30): the board's face-up tokens, every
# seat's Tools and money, the Reward pile, its own stash, hand and file (never a
# face-down token it has not looked at, another seat's stash, file or cards).  Seats are scored in
# pounds: a token is worth its coins, more when it joins a type already in the
# stash; each skipped token costs about 1.5 (police attention, OT-22).

cdef double SKIP_COST = 1.5

cdef double token_value(const OTState* s, int p, int k) noexcept nogil:
    cdef int have
    if KOBJ[k]:
        if k == K_WALLET or k == K_SWALLET:
            return 3.0
        have = type_reals(s, p, KTYPE[k])
        return KCOINS[k] + (1.5 if have >= 1 else 0.0) + (1.5 if have >= 2 else 0.0) \
            - (1.0 if stash_n(s, p) >= STASH_CAP else 0.0)
    if k == K_CHAR:
        return 2.5
    if k == K_BURGLARY:
        return 2.0 + tool_types(s, p)
    if s.front[p][k] == 0 and not s.night:
        return 1.5
    return 0.5

cdef double best_line(const OTState* s, int p, int head, int* path, int n, int maxn,
                      int* first) noexcept nogil:
    """The best score of a line continuing from `head` with path[0:n] taken; first[0]
    receives the next space of the best line (-1: take now)."""
    cdef double best = -1e9, v
    cdef int i, j, q, f, board_side = side(s)
    cdef bint dup
    if n > 0:
        best = token_value(s, p, s.board[path[n - 1]]) - SKIP_COST * (n - 1)
    first[0] = -1
    if n >= maxn:
        return best
    for i in range(DEG[board_side][head]):
        q = ADJ[board_side][head][i]
        if not face_up(s.board[q]):
            continue
        dup = False
        for j in range(n):
            if path[j] == q:
                dup = True
        if dup:
            continue
        path[n] = q
        v = best_line(s, p, q, path, n + 1, maxn, &f)
        if v > best:
            best = v
            first[0] = q
    return best

cdef double set_value(const OTState* s, int p, int t, int minsize) noexcept nogil:
    cdef int k, n = 0, cash = 0
    if not set_possible(s, p, t, minsize):
        return -1.0
    for k in range(K_WALLET):
        if KTYPE[k] == t:
            n += s.stash[p][k]
            cash += s.stash[p][k] * KCOINS[k]
    n += s.stash[p][K_WALLET] + s.stash[p][K_SWALLET]
    if n >= 5:
        cash += 7
    if s.rewards_taken < 5:
        cash += REWARDS[s.rewards_taken]
    return cash

cdef int pick_uniform(const OTState* s, Rng* rng) noexcept nogil:
    cdef int buf[NUM_ACTIONS]
    cdef int n = ot_legal_actions(s, buf)
    return buf[rng_below(rng, n)]

cdef int hx_turn(const OTState* s, Rng* rng) noexcept nogil:
    cdef int p = s.active, t, bt = -1, c, first = -1, adj, m, i
    cdef int path[LINE_CHARLEY]
    cdef int order[N_CHARACTERS]
    cdef int buf[MAX_SIDE_SPACES]
    cdef double v, bv = -1.0, line = -1e9
    cdef bint prowl = s.restrict != R_FAGIN and can_prowl(s, p)
    for t in range(N_SET_TYPES):
        if s.restrict != R_PROWL:
            v = set_value(s, p, t, 2 if s.restrict == R_FAGIN else 3)
            if v > bv:
                bv = v
                bt = t
    if s.restrict == R_FAGIN:
        # No set only in a world re-dealt for another seat (OT-31): the turn ends.
        return A_FAGIN + bt if bt >= 0 else A_DONE
    adj = adjacent_kind(s, s.pawn) if prowl else 0
    if adj == 2:
        line = best_line(s, p, s.pawn, path, 0, s.path_max, &first)
    if bt >= 0 and (bv >= 9.0 or stash_n(s, p) >= STASH_CAP - 1 or not prowl or line < 1.0):
        return A_FAGIN + bt
    if s.restrict == R_NONE:
        # Cards: the sure gains first, the rest when the streets offer little.
        if playable(s, p, C_BROWNLOW) and s.rewards_taken <= 1:
            return A_PLAY + C_BROWNLOW
        if playable(s, p, C_NANCY) and s.stash[p][K_WALLET] + s.stash[p][K_SWALLET] >= 2:
            return A_PLAY + C_NANCY
        if playable(s, p, C_TOBY) and tool_types(s, p) >= 2:
            return A_PLAY + C_TOBY
        if playable(s, p, C_CHARLEY) and adj == 2 and line < 3.0:
            return A_PLAY + C_CHARLEY
        if not prowl or line < 1.0:
            order[0] = C_SIKES
            order[1] = C_DODGER
            order[2] = C_SOWERBERRY
            order[3] = C_BUMBLE
            order[4] = C_OLIVER
            order[5] = C_NOAH
            order[6] = C_TOBY
            order[7] = C_FANG
            order[8] = C_BROWNLOW
            order[9] = C_NANCY
            order[10] = C_GRIMWIG
            order[11] = C_BET
            order[12] = C_CHARLEY
            for i in range(N_CHARACTERS):
                c = order[i]
                if playable(s, p, c):
                    return A_PLAY + c
        if not prowl:
            for c in range(N_CHARACTERS):
                if (s.hand[p] >> c) & 1:
                    return A_HIDE + c
            return A_GIVE_UP
    if adj == 2 and first >= 0:
        return A_SPACE + first
    if adj == 1:
        m = fd_neighbours(s, s.pawn, buf)
        return A_SPACE + buf[rng_below(rng, m)]
    if prowl:
        return A_RELOCATE
    return pick_uniform(s, rng)

cdef int heuristic_choice(const OTState* s, Rng* rng, double eps) noexcept nogil:
    cdef int p = s.active, k, bk, first, sp, i, n, q, head
    cdef int path[LINE_CHARLEY]
    cdef int buf[NUM_ACTIONS]
    cdef double v, bv
    cdef OTState tmp
    if eps > 0 and rng_double(rng) < eps:
        return pick_uniform(s, rng)
    if s.phase == PH_TURN:
        return hx_turn(s, rng)
    if s.phase == PH_PATH:
        for i in range(s.path_len):
            path[i] = s.path[i]
        head = s.path[s.path_len - 1] if s.path_len > 0 else s.pawn
        best_line(s, p, head, path, s.path_len, s.path_max, &first)
        if first >= 0:
            return A_SPACE + first
        if s.path_len > 0:
            return A_TAKE
        return pick_uniform(s, rng)
    if s.phase == PH_PLACE:
        n = ot_legal_actions(s, buf)
        bk = buf[rng_below(rng, n)]
        bv = -1e9
        memcpy(&tmp, s, sizeof(OTState))
        for i in range(n):
            tmp.pawn = buf[i] - A_SPACE
            if adjacent_kind(&tmp, tmp.pawn) == 2:
                v = best_line(&tmp, p, tmp.pawn, path, 0, tmp.path_max, &first)
                if v > bv:
                    bv = v
                    bk = buf[i]
        return bk
    if s.phase == PH_SWAP:
        bk = -1
        bv = 1e9
        for k in range(N_KINDS):
            if s.stash[p][k] > 0:
                v = token_value(s, p, k)
                if v < bv:
                    bv = v
                    bk = k
        return A_KIND + bk
    if s.phase == PH_FAGIN:
        n = ot_legal_actions(s, buf)
        for i in range(n):
            if buf[i] >= A_KIND:
                return buf[i]
        return A_DONE
    if s.phase == PH_PICK:
        n = ot_legal_actions(s, buf)
        bk = buf[n - 1]
        bv = -1.0
        for i in range(n):
            if buf[i] >= A_KIND:
                k = buf[i] - A_KIND
                v = KCOINS[k] + (3.0 if k == K_WALLET or k == K_SWALLET else 0.0)
                if v > bv:
                    bv = v
                    bk = buf[i]
        return bk
    if s.phase == PH_TARGET:
        bk = -1
        for q in range(s.players):
            if q != p and (bk < 0 or s.money[q] > s.money[bk]):
                bk = q
        return A_SEAT + bk
    if s.phase == PH_CHOOSE_START:
        return A_SEAT + p
    if s.phase == PH_BURG_KEEP:
        for k in range(N_BURGLARY_VALUES):
            if s.burg_drawn[k] > 0:
                return A_KEEP + k          # value kinds run from the highest down
    if s.phase == PH_TOOL:
        bk = -1
        for k in range(NTOOL):
            if s.front[p][K_TOOL0 + k] > 0 and (bk < 0 or s.front[p][K_TOOL0 + k] > s.front[p][K_TOOL0 + bk]):
                bk = k
        return A_TOOL + bk
    if s.phase == PH_DODGER:
        bk = -1
        bv = -1e9
        for sp in range(SIDE_SPACES[side(s)]):
            k = s.board[sp]
            if face_up(k) and KOBJ[k]:
                v = token_value(s, p, k)
                if v > bv:
                    bv = v
                    bk = sp
        return A_SPACE + bk
    return pick_uniform(s, rng)

cdef int ot_rollout_action(const void* st, Rng* rng) noexcept nogil:
    # The search's playout policy (GameDef.rollout_action): the heuristic player with one
    # action in ten uniform, so that playouts stay diverse.
    return heuristic_choice(<const OTState*>st, rng, 0.1)

# ------------------------------------------------ the hand-written evaluation (not rules)
# Scores a world where a policy playout is cut off (GameDef.evaluate; only when a search asks
# for a cut-off: OT_DEF.rollout_depth is 0, so by default playouts still run to the end).  It
# reads the world it is given, every seat's stash, file and cards included: in the search that
# world is a determinization (OT-31), dealt from what the searching seat knows, so nothing
# hidden from that seat reaches its answer.

cdef double EVAL_TEMP_END = 4.0     # softmax temperature (pounds) as the game ends ...
cdef double EVAL_TEMP_SPAN = 10.0   # ... and how much wider it is at the start

cdef double ot_game_left(const OTState* s) noexcept nogil:
    """The share of the game still ahead: 1 at the start, 0.5 at nightfall, 0 at the end;
    within a round, the share of its open spaces that still hold a token."""
    cdef int sp, open_n = 0, full = 0, board_side = side(s)
    if s.phase == PH_OVER:
        return 0.0
    if not s.night and s.phase == PH_FILL:
        return 1.0                  # the day board is still being laid
    for sp in range(SIDE_SPACES[board_side]):
        if is_open(s, sp):
            open_n += 1
            if has_token(s.board[sp]):
                full += 1
    return (0.0 if s.night else 0.5) + 0.5 * (<double>full / open_n if open_n > 0 else 0.0)

cdef void ot_worths(const OTState* s, double* w) noexcept nogil:
    """Each seat's pounds if the round ended now: money, Burglary cards, the leftover sets
    (OT-21), less the fine (OT-22) where its file is the fullest."""
    cdef int use[N_SET_TYPES]
    cdef int p, n, most = 0
    for p in range(s.players):
        n = file_n(s, p) + stash_n(s, p)
        if n > most:
            most = n
    for p in range(s.players):
        w[p] = s.money[p] + burglary_pounds(s, p) + leftover_sets(s, p, use)
        if most > 0 and file_n(s, p) + stash_n(s, p) == most:
            w[p] -= file_types(s, p)

cdef void ot_evaluate(const void* st, double* out) noexcept nogil:
    # Each seat's chance of winning: a softmax of the worths, wider while more is ahead.
    cdef const OTState* s = <const OTState*>st
    cdef double w[MAXP]
    cdef double top = -1e300, total = 0.0, temp
    cdef int p
    if s.phase == PH_OVER:
        ot_returns(st, out)
        return
    ot_worths(s, w)
    temp = EVAL_TEMP_END + EVAL_TEMP_SPAN * ot_game_left(s)
    for p in range(s.players):
        if w[p] > top:
            top = w[p]
    for p in range(s.players):
        out[p] = exp((w[p] - top) / temp)
        total += out[p]
    for p in range(s.players):
        out[p] /= total
