# Oliver Twist: the legal actions at every phase.
# Included by engine.pyx, so that its functions compile (and inline) with the rules.

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
