# Oliver Twist: the flow of the game: turns, lines of tokens taken, Burglaries, flips and
# peeks, sets delivered to Fagin, the rounds' ends and the deal.
# Included by engine.pyx, so that its functions compile (and inline) with the rules.

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
